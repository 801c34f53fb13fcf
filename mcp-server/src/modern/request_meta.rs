//! Reading a 2026-07-28 request's params: the era test, the one borrowed read of the fields
//! the server uses (`_meta`'s keys, and the name, URI, arguments and task of the request), and a
//! small cache from what a client sends to what it decodes to.
//!
//! The params are read once per request. Over Streamable HTTP the transport reads them for its
//! header checks and hands the read on ([`PreRead`]) to the core, which would otherwise read
//! them again for `_meta` and again for `tools/call`.
//!
//! A client sends the same capabilities, client info and log level on every request, so the
//! decoded [`Negotiated`] and [`LogLevel`] are kept, keyed by the exact JSON text of those keys,
//! and shared by the requests that repeat it: a modern request costs no more to set up than a
//! request on a 2025 session.

use std::borrow::Cow;
use std::cell::Cell;
use std::sync::{Arc, LazyLock, Mutex};

use mcp_proto::json_text::KeySearch;
use mcp_proto::jsonrpc::{self, Request};
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::{ClientCapabilities, Implementation, LoggingLevel};
use mcp_proto::sync::lock;
use mcp_proto::ProtocolVersion;
use serde::de::value::MapAccessDeserializer;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::error::ServerError;
use crate::request_scope::{LogLevel, Negotiated};
use crate::server::Server;

/// The `_meta` keys of a 2026-07-28 request the server reads, borrowed from its params, with
/// the rest of the params read in the same pass.
#[derive(Debug)]
pub(crate) struct ModernMeta<'a> {
    /// The protocol version the request is made under.
    pub(crate) protocol_version: Cow<'a, str>,
    capabilities: &'a str,
    client_info: Option<&'a str>,
    log_level: Option<&'a str>,
    /// The whole read, for the method's own fields.
    pub(crate) read: ParamsRead<'a>,
}

/// The fields of a request's params the server reads, each as its raw JSON text, borrowed;
/// every other field is skipped unparsed. `_meta`'s own keys are read from `_meta`'s text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ParamsRead<'a> {
    pub(crate) name: Option<&'a str>,
    pub(crate) uri: Option<&'a str>,
    /// The task of `tasks/get`, `tasks/update` and `tasks/cancel` (the tasks extension).
    pub(crate) task_id: Option<&'a str>,
    pub(crate) arguments: Option<&'a str>,
    /// `task` of a `tools/call` to run as a task.
    pub(crate) task: Option<&'a str>,
    /// `inputResponses` or `requestState` is present: a retried request that asked for input.
    pub(crate) resumes: bool,
    /// `_meta` is there (and is an object).
    pub(crate) has_meta: bool,
    pub(crate) protocol_version: Option<&'a str>,
    pub(crate) capabilities: Option<&'a str>,
    pub(crate) client_info: Option<&'a str>,
    pub(crate) log_level: Option<&'a str>,
}

/// The top-level fields of [`ParamsRead`], as serde reads them.
#[derive(Deserialize)]
struct TopFields<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "taskId")]
    task_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    task: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "inputResponses")]
    input_responses: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "requestState")]
    request_state: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<MetaObject<'a>>,
}

/// `_meta`'s keys, read in the same pass as the params (an object, never an array).
struct MetaObject<'a>(MetaFields<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for MetaObject<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Object<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Object<'a> {
            type Value = MetaObject<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                MetaFields::deserialize(MapAccessDeserializer::new(map)).map(MetaObject)
            }
        }
        deserializer.deserialize_map(Object(std::marker::PhantomData))
    }
}

/// The keys of `_meta` the server reads; others are skipped.
#[derive(Deserialize)]
struct MetaFields<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    capabilities: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", borrow, default)]
    client_info: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", borrow, default)]
    log_level: Option<&'a RawValue>,
}

impl<'a> ParamsRead<'a> {
    /// Reads `params` (the text of a JSON object) in one pass: `None` when it is not an
    /// object, or `_meta` is there but not an object.
    pub(crate) fn of(params: &'a str) -> Option<Self> {
        let top = jsonrpc::from_object::<TopFields<'a>>(params).ok()?;
        let raw = |field: Option<&'a RawValue>| field.map(RawValue::get);
        let mut read = ParamsRead {
            name: raw(top.name),
            uri: raw(top.uri),
            task_id: raw(top.task_id),
            arguments: raw(top.arguments),
            task: raw(top.task),
            resumes: top.input_responses.is_some() || top.request_state.is_some(),
            has_meta: top.meta.is_some(),
            ..ParamsRead::default()
        };
        if let Some(MetaObject(meta)) = top.meta {
            read.protocol_version = raw(meta.protocol_version);
            read.capabilities = raw(meta.capabilities);
            read.client_info = raw(meta.client_info);
            read.log_level = raw(meta.log_level);
        }
        Some(read)
    }

    /// `_meta`'s protocol version: `Ok(None)` when `_meta` has none, `Err` when it is not a
    /// string.
    pub(crate) fn protocol_version(&self) -> Result<Option<Cow<'a, str>>, ()> {
        match self.protocol_version {
            None => Ok(None),
            Some(raw) => text(raw).map(Some).ok_or(()),
        }
    }

    #[cfg(feature = "http")]
    fn fields(&self) -> [Option<&'a str>; 9] {
        [
            self.name,
            self.uri,
            self.task_id,
            self.arguments,
            self.task,
            self.protocol_version,
            self.capabilities,
            self.client_info,
            self.log_level,
        ]
    }
}

/// A JSON string's text (borrowed unless it has escapes); `None` when `raw` is not a string.
pub(crate) fn text(raw: &str) -> Option<Cow<'_, str>> {
    match serde_json::from_str::<&str>(raw) {
        Ok(text) => Some(Cow::Borrowed(text)),
        Err(_) => serde_json::from_str::<String>(raw).ok().map(Cow::Owned),
    }
}

/// A [`ParamsRead`] kept as offsets into the params text it was read from, so that it can go
/// with the request (which owns that text) from the transport to the core.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PreRead {
    /// The address and length of the params text: a read of other params is never used.
    source: (usize, usize),
    spans: [Option<(usize, usize)>; 9],
    resumes: bool,
    has_meta: bool,
}

tokio::task_local! {
    /// The read of the request this task is serving, handed from the HTTP transport to the core.
    static PRE_READ: Cell<Option<PreRead>>;
}

impl PreRead {
    /// Keeps `read`, made from `params`.
    #[cfg(feature = "http")]
    pub(crate) fn new(params: &str, read: &ParamsRead<'_>) -> Self {
        let base = params.as_ptr() as usize;
        let spans = read
            .fields()
            .map(|field| field.map(|f| ((f.as_ptr() as usize).wrapping_sub(base), f.len())));
        PreRead {
            source: (base, params.len()),
            spans,
            resumes: read.resumes,
            has_meta: read.has_meta,
        }
    }

    /// The read back, when `params` is the text it was made from.
    fn get<'a>(&self, params: &'a str) -> Option<ParamsRead<'a>> {
        if self.source != (params.as_ptr() as usize, params.len()) {
            return None;
        }
        let mut fields = [None; 9];
        for (field, span) in fields.iter_mut().zip(self.spans) {
            if let Some((start, len)) = span {
                *field = Some(params.get(start..start.checked_add(len)?)?);
            }
        }
        let [name, uri, task_id, arguments, task, protocol_version, capabilities, client_info, log_level] =
            fields;
        Some(ParamsRead {
            name,
            uri,
            task_id,
            arguments,
            task,
            resumes: self.resumes,
            has_meta: self.has_meta,
            protocol_version,
            capabilities,
            client_info,
            log_level,
        })
    }

    /// Runs `work` with this read available to [`request_meta`] of the same params, in this task.
    /// Not an `async fn`: that would hold `work` twice (as its argument and inside the scope).
    #[cfg(feature = "http")]
    pub(crate) fn scope<F: std::future::Future>(
        self,
        work: F,
    ) -> impl std::future::Future<Output = F::Output> {
        PRE_READ.scope(Cell::new(Some(self)), work)
    }

    /// The read the transport left for `params` in this task, taken.
    fn take(params: &str) -> Option<ParamsRead<'_>> {
        let kept = PRE_READ.try_with(Cell::take).ok().flatten()?;
        kept.get(params)
    }
}

/// The era of a request: `None` for the 2025 era (no protocol version in `params._meta`), else
/// its params read (or why they cannot be: -32602). Uses the transport's read when it left one.
pub(crate) fn request_meta(request: &Request) -> Option<Result<ModernMeta<'_>, ServerError>> {
    let text = request.params.as_ref()?.get();
    let read = match PreRead::take(text) {
        Some(read) => read,
        None => {
            // Most 2025-era requests are told apart without parsing anything: the fast path of
            // `names_no_version`, whose twin (the parse) fuzz-checks compares with it.
            if names_no_version(text) {
                return None;
            }
            ParamsRead::of(text)?
        }
    };
    // A protocol version that is not a string makes the request a 2025 one.
    let protocol_version = read.protocol_version().ok()??;
    let Some(capabilities) = read.capabilities else {
        return Some(Err(invalid(format!(
            "{} is required",
            meta_keys::CLIENT_CAPABILITIES
        ))));
    };
    Some(Ok(ModernMeta {
        protocol_version,
        capabilities,
        client_info: read.client_info,
        log_level: read.log_level,
        read,
    }))
}

/// True when `params` certainly name no protocol version in `_meta`, so that a request that
/// has none is not parsed here (see [`KeySearch`]); false means "maybe", and the read decides.
pub(crate) fn names_no_version(params: &str) -> bool {
    // Built once: building a searcher costs more than a search of a small request.
    static PROTOCOL_VERSION_KEY: LazyLock<KeySearch> =
        LazyLock::new(|| KeySearch::new(meta_keys::PROTOCOL_VERSION));
    PROTOCOL_VERSION_KEY.certainly_absent(params)
}

/// Whether the read of `params` finds a protocol version in `_meta` (of any type): what
/// [`names_no_version`] must never contradict.
pub(crate) fn names_version_parsed(params: &str) -> bool {
    ParamsRead::of(params).is_some_and(|read| read.protocol_version.is_some())
}

fn invalid(detail: String) -> ServerError {
    ServerError::InvalidParams(format!("Invalid _meta for a 2026-07-28 request: {detail}"))
}

/// The `_meta` value `key` (its short name, for the error) decoded.
fn decode<'a, T: Deserialize<'a>>(raw: &'a str, key: &str) -> Result<T, ServerError> {
    serde_json::from_str(raw).map_err(|e| invalid(format!("{key}: {e}")))
}

/// One decoded `_meta`, with the text it was decoded from.
struct Entry {
    version: ProtocolVersion,
    capabilities: Box<str>,
    client_info: Option<Box<str>>,
    log_level: Option<Box<str>>,
    negotiated: Arc<Negotiated>,
    level: Arc<LogLevel>,
}

impl Entry {
    fn matches(&self, version: ProtocolVersion, meta: &ModernMeta<'_>) -> bool {
        let same = |kept: &Option<Box<str>>, sent: Option<&str>| kept.as_deref() == sent;
        self.version == version
            && &*self.capabilities == meta.capabilities
            && same(&self.client_info, meta.client_info)
            && same(&self.log_level, meta.log_level)
    }
}

/// The most recently seen distinct `_meta`s, decoded; at most [`NegotiatedCache::CAPACITY`].
#[derive(Default)]
pub(crate) struct NegotiatedCache(Mutex<Vec<Entry>>);

impl NegotiatedCache {
    /// How many distinct `_meta`s are kept (a few clients, or one client's few variants).
    const CAPACITY: usize = 16;
    /// The longest `_meta` value kept, in bytes; longer ones are decoded every time.
    const MAX_KEPT_BYTES: usize = 4096;

    /// What `meta` says for a request under `version`: from the cache when the same text was
    /// seen before while the server offered the same things, else decoded (-32602 when invalid).
    pub(crate) fn negotiated(
        &self,
        server: &Server,
        version: ProtocolVersion,
        meta: &ModernMeta<'_>,
    ) -> Result<(Arc<Negotiated>, Arc<LogLevel>), ServerError> {
        let advertised = server.advertised();
        {
            let entries = lock(&self.0);
            if let Some(e) = entries
                .iter()
                .find(|e| e.matches(version, meta) && e.negotiated.advertised == advertised)
            {
                return Ok((e.negotiated.clone(), e.level.clone()));
            }
        }
        self.decode_and_keep(server, version, meta)
    }

    /// The cache miss of [`negotiated`](Self::negotiated): `meta` decoded, and kept when small
    /// enough. Out of line, so that the decoders' stack space is not reserved on every request.
    #[cold]
    #[inline(never)]
    fn decode_and_keep(
        &self,
        server: &Server,
        version: ProtocolVersion,
        meta: &ModernMeta<'_>,
    ) -> Result<(Arc<Negotiated>, Arc<LogLevel>), ServerError> {
        let client_capabilities: ClientCapabilities =
            decode(meta.capabilities, "clientCapabilities")?;
        let client_info: Implementation = match meta.client_info {
            Some(raw) => decode(raw, "clientInfo")?,
            None => Implementation::new("unknown-client", "0"),
        };
        let level = match meta.log_level {
            Some(raw) => LogLevel::new(decode::<LoggingLevel>(raw, "logLevel")?),
            None => LogLevel::off(),
        };
        let (server_capabilities, advertised) = server.capabilities(version);
        let negotiated = Arc::new(Negotiated {
            version,
            client_capabilities,
            client_info,
            server_capabilities,
            advertised,
        });
        let level = Arc::new(level);
        let text = |raw: &str| Box::<str>::from(raw);
        let size = meta.capabilities.len()
            + meta.client_info.map_or(0, str::len)
            + meta.log_level.map_or(0, str::len);
        if size <= Self::MAX_KEPT_BYTES {
            let mut entries = lock(&self.0);
            if entries.len() >= Self::CAPACITY {
                entries.remove(0);
            }
            entries.push(Entry {
                version,
                capabilities: text(meta.capabilities),
                client_info: meta.client_info.map(text),
                log_level: meta.log_level.map(text),
                negotiated: negotiated.clone(),
                level: level.clone(),
            });
        }
        Ok((negotiated, level))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(params: &str) -> Request {
        Request {
            id: mcp_proto::jsonrpc::RequestId::Number(1),
            method: "tools/list".into(),
            params: Some(jsonrpc::raw_json(params)),
        }
    }

    #[test]
    fn the_era_comes_from_meta() {
        let legacy = request(r#"{"_meta":{"progressToken":1}}"#);
        assert!(request_meta(&legacy).is_none());
        let modern = request(
            r#"{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
        );
        let meta = request_meta(&modern).expect("modern").expect("valid");
        assert_eq!(meta.protocol_version, "2026-07-28");
        let no_caps =
            request(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#);
        assert!(matches!(
            request_meta(&no_caps),
            Some(Err(ServerError::InvalidParams(_)))
        ));
    }

    #[test]
    fn an_escaped_version_key_is_the_same_key() {
        for key in [
            r#"io.modelcontextprotocol\/protocolVersion"#,
            r#"io.modelcontextprotocol/\u0070rotocolVersion"#,
        ] {
            let text = format!(
                r#"{{"_meta":{{"{key}":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}"#
            );
            let request = request(&text);
            let meta = request_meta(&request).expect("modern").expect("valid");
            assert_eq!(meta.protocol_version, "2026-07-28", "{text}");
        }
    }

    #[test]
    fn the_version_key_as_user_data_is_the_2025_era() {
        for text in [
            r#"{"name":"echo","arguments":{"text":"io.modelcontextprotocol/protocolVersion"}}"#,
            r#"{"name":"echo","arguments":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            r#"{"name":"echo","_meta":{"progressToken":"io.modelcontextprotocol/protocolVersion"}}"#,
        ] {
            assert!(request_meta(&request(text)).is_none(), "{text}");
        }
    }
}
