//! Reading a 2026-07-28 request's `params._meta`: the era test, the one-pass borrowed read of
//! the keys the server uses, and a small cache from what a client sends to what it decodes to.
//!
//! A client sends the same capabilities, client info and log level on every request, so the
//! decoded [`Negotiated`] and [`LogLevel`] are kept, keyed by the exact JSON text of those keys,
//! and shared by the requests that repeat it: a modern request costs no more to set up than a
//! request on a 2025 session.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, Mutex};

use memchr::memmem;

use mcp_proto::jsonrpc::{self, Request};
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::{ClientCapabilities, Implementation, LoggingLevel};
use mcp_proto::sync::lock;
use mcp_proto::ProtocolVersion;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::ServerError;
use crate::request_state::{LogLevel, Negotiated};
use crate::server::Server;

/// The `_meta` keys of a 2026-07-28 request the server reads, borrowed from its params.
#[derive(Debug)]
pub(crate) struct ModernMeta<'a> {
    /// The protocol version the request is made under.
    pub(crate) protocol_version: Cow<'a, str>,
    capabilities: &'a RawValue,
    client_info: Option<&'a RawValue>,
    log_level: Option<&'a RawValue>,
}

/// `params` with only `_meta` read; every other field is skipped unparsed.
#[derive(Deserialize)]
struct ParamsView<'a> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<MetaView<'a>>,
}

/// The keys of `_meta` the server reads; others are skipped.
#[derive(Deserialize)]
struct MetaView<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<Cow<'a, str>>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    capabilities: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", borrow, default)]
    client_info: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", borrow, default)]
    log_level: Option<&'a RawValue>,
}

/// The era of a request: `None` for the 2025 era (no protocol version in `params._meta`), else
/// its `_meta` read (or why it cannot be: -32602).
pub(crate) fn request_meta(request: &Request) -> Option<Result<ModernMeta<'_>, ServerError>> {
    let text = request.params.as_ref()?.get();
    // Most 2025-era requests are told apart without parsing anything.
    static PROTOCOL_VERSION_KEY: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(meta_keys::PROTOCOL_VERSION));
    PROTOCOL_VERSION_KEY.find(text.as_bytes())?;
    let view = jsonrpc::from_object::<ParamsView<'_>>(text).ok()?.meta?;
    let protocol_version = view.protocol_version?;
    let Some(capabilities) = view.capabilities else {
        return Some(Err(invalid(format!(
            "{} is required",
            meta_keys::CLIENT_CAPABILITIES
        ))));
    };
    Some(Ok(ModernMeta {
        protocol_version,
        capabilities,
        client_info: view.client_info,
        log_level: view.log_level,
    }))
}

fn invalid(detail: String) -> ServerError {
    ServerError::InvalidParams(format!("Invalid _meta for a 2026-07-28 request: {detail}"))
}

/// The `_meta` value `key` (its short name, for the error) decoded.
fn decode<'a, T: Deserialize<'a>>(raw: &'a RawValue, key: &str) -> Result<T, ServerError> {
    serde_json::from_str(raw.get()).map_err(|e| invalid(format!("{key}: {e}")))
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
        let same = |kept: &Option<Box<str>>, sent: Option<&RawValue>| {
            kept.as_deref() == sent.map(RawValue::get)
        };
        self.version == version
            && &*self.capabilities == meta.capabilities.get()
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
        let text = |raw: &RawValue| Box::<str>::from(raw.get());
        let size = meta.capabilities.get().len()
            + meta.client_info.map_or(0, |r| r.get().len())
            + meta.log_level.map_or(0, |r| r.get().len());
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
}
