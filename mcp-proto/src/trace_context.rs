//! W3C trace context carried in a request's `params._meta` (`traceparent`, `tracestate`), as the
//! OpenTelemetry MCP conventions ask, so one trace crosses a client, a hub and a server; and the
//! context of the call the current task works for ([`TraceContext::current`]).
//!
//! Ids are made here (a per-process random key hashed with a counter): no OpenTelemetry crate is
//! needed to propagate a trace, only to export it.

use std::collections::hash_map::RandomState;
use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, OnceLock};

use crate::json_text::KeySearch;
use crate::jsonrpc::{self, RawJson};

/// The `_meta` key of the W3C `traceparent` header value.
pub const TRACEPARENT: &str = "traceparent";
/// The `_meta` key of the W3C `tracestate` header value.
pub const TRACESTATE: &str = "tracestate";
/// The longest `tracestate` passed on (the W3C limit); a longer one is dropped.
pub const MAX_TRACESTATE: usize = 512;

tokio::task_local! {
    static CURRENT: TraceContext;
}

/// One span's place in a trace: the trace it belongs to, its own id, its parent's id (none for
/// a root), whether the trace is sampled, and the vendors' `tracestate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceContext {
    /// The trace, 16 bytes, never all zero.
    pub trace_id: [u8; 16],
    /// This span, 8 bytes, never all zero.
    pub span_id: [u8; 8],
    /// The parent span, if this one is not a root (for a context read from `_meta`, the remote
    /// caller's span).
    pub parent_span_id: Option<[u8; 8]>,
    /// The `sampled` flag of `traceparent`.
    pub sampled: bool,
    /// The `tracestate` value, passed on unchanged.
    pub tracestate: Option<Arc<str>>,
}

impl TraceContext {
    /// A new trace: fresh trace and span ids, sampled, no parent.
    pub fn root() -> Self {
        let (a, b) = (random_u64(), random_u64());
        let mut trace_id = [0u8; 16];
        trace_id[..8].copy_from_slice(&a.to_be_bytes());
        trace_id[8..].copy_from_slice(&b.to_be_bytes());
        TraceContext {
            trace_id,
            span_id: new_span_id(),
            parent_span_id: None,
            sampled: true,
            tracestate: None,
        }
    }

    /// A child span of this one: same trace, flags and state, a fresh span id.
    pub fn child(&self) -> Self {
        TraceContext {
            trace_id: self.trace_id,
            span_id: new_span_id(),
            parent_span_id: Some(self.span_id),
            sampled: self.sampled,
            tracestate: self.tracestate.clone(),
        }
    }

    /// Reads a `traceparent` (and `tracestate`). The result is the remote span: its id is the
    /// `parent-id` field; take a [`child`](Self::child) for the local span. `None` when the
    /// value is malformed (then the trace starts afresh, as W3C asks).
    pub fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<Self> {
        let b = traceparent.trim().as_bytes();
        // version "-" trace-id "-" parent-id "-" flags: 2 + 1 + 32 + 1 + 16 + 1 + 2 = 55.
        if b.len() < 55 || b[2] != b'-' || b[35] != b'-' || b[52] != b'-' {
            return None;
        }
        let version = hex_byte(&b[0..2])?;
        if version == 0xff || (version == 0 && b.len() != 55) || (b.len() > 55 && b[55] != b'-') {
            return None;
        }
        let mut trace_id = [0u8; 16];
        for (i, byte) in trace_id.iter_mut().enumerate() {
            *byte = hex_byte(&b[3 + 2 * i..5 + 2 * i])?;
        }
        let mut span_id = [0u8; 8];
        for (i, byte) in span_id.iter_mut().enumerate() {
            *byte = hex_byte(&b[36 + 2 * i..38 + 2 * i])?;
        }
        let flags = hex_byte(&b[53..55])?;
        if trace_id == [0; 16] || span_id == [0; 8] {
            return None;
        }
        let tracestate = tracestate
            .map(str::trim)
            .filter(|s| !s.is_empty() && s.len() <= MAX_TRACESTATE)
            .map(Arc::from);
        Some(TraceContext {
            trace_id,
            span_id,
            parent_span_id: None,
            sampled: flags & 1 == 1,
            tracestate,
        })
    }

    /// The `traceparent` value naming this span as the parent of the next hop.
    pub fn traceparent(&self) -> String {
        format!(
            "00-{}-{}-{:02x}",
            self.trace_id_hex(),
            self.span_id_hex(),
            u8::from(self.sampled)
        )
    }

    /// The trace id as 32 lowercase hex digits.
    pub fn trace_id_hex(&self) -> String {
        hex(&self.trace_id)
    }

    /// The span id as 16 lowercase hex digits.
    pub fn span_id_hex(&self) -> String {
        hex(&self.span_id)
    }

    /// The parent span id as 16 lowercase hex digits, if any.
    pub fn parent_span_id_hex(&self) -> Option<String> {
        self.parent_span_id.as_ref().map(|id| hex(id))
    }

    /// Reads the context from a request's raw params (`_meta.traceparent`, `_meta.tracestate`).
    /// A fast path: params that certainly have no `traceparent` key (see
    /// `json_text::KeySearch`) are not parsed at all; its slow twin is `from_params_parsed`,
    /// and `fuzz-checks` requires both to agree.
    pub fn from_params(params: Option<&RawJson>) -> Option<Self> {
        let raw = params?.get();
        // Built once: building a searcher costs more than a search of a small request.
        static KEY: LazyLock<KeySearch> = LazyLock::new(|| KeySearch::new(TRACEPARENT));
        if KEY.certainly_absent(raw) {
            return None;
        }
        Self::from_params_parsed(raw)
    }

    /// The context of params read in full: the slow twin of [`from_params`](Self::from_params).
    pub(crate) fn from_params_parsed(raw: &str) -> Option<Self> {
        #[derive(serde::Deserialize)]
        struct Params {
            #[serde(rename = "_meta", default)]
            meta: Option<jsonrpc::Object<Meta>>,
        }
        #[derive(serde::Deserialize)]
        struct Meta {
            #[serde(default)]
            traceparent: Option<String>,
            #[serde(default)]
            tracestate: Option<String>,
        }
        let meta = jsonrpc::from_object::<Params>(raw).ok()?.meta?.0;
        Self::parse(meta.traceparent.as_deref()?, meta.tracestate.as_deref())
    }

    /// Writes this span as the parent into `params._meta` (`traceparent`, and `tracestate` when
    /// there is one), keeping everything else. Params that are not an object are an error.
    pub fn inject(&self, params: Option<RawJson>) -> Result<RawJson, String> {
        let mut object: serde_json::Map<String, serde_json::Value> = match params {
            Some(raw) => serde_json::from_str(raw.get())
                .map_err(|e| format!("params must be an object to carry a traceparent: {e}"))?,
            None => serde_json::Map::new(),
        };
        let meta = object
            .entry("_meta")
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
        let serde_json::Value::Object(meta) = meta else {
            return Err("params._meta must be an object".into());
        };
        meta.insert(TRACEPARENT.into(), self.traceparent().into());
        match &self.tracestate {
            Some(state) => meta.insert(TRACESTATE.into(), state.as_ref().into()),
            None => meta.remove(TRACESTATE),
        };
        jsonrpc::to_raw(&object).map_err(|e| e.to_string())
    }

    /// The context of the span the current task works in, if it was given one with
    /// [`scope`](Self::scope).
    pub fn current() -> Option<TraceContext> {
        CURRENT.try_with(TraceContext::clone).ok()
    }

    /// Runs `future` with this as the [`current`](Self::current) context.
    pub fn scope<F: Future>(self, future: F) -> impl Future<Output = F::Output> {
        CURRENT.scope(self, future)
    }
}

fn hex_byte(pair: &[u8]) -> Option<u8> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    Some(digit(pair[0])? << 4 | digit(pair[1])?)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// A random, never-zero span id.
fn new_span_id() -> [u8; 8] {
    random_u64().to_be_bytes()
}

/// 64 random bits: a per-process random SipHash key over a counter. Unique ids, not secrets.
fn random_u64() -> u64 {
    static KEY: OnceLock<RandomState> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(1);
    let mut hasher = KEY.get_or_init(RandomState::new).build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    match hasher.finish() {
        0 => 1,
        n => n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W3C_EXAMPLE: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn parses_and_formats_the_w3c_example() {
        let ctx = TraceContext::parse(W3C_EXAMPLE, Some("rojo=00f067aa0ba902b7")).unwrap();
        assert_eq!(ctx.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(ctx.span_id_hex(), "00f067aa0ba902b7");
        assert!(ctx.sampled);
        assert_eq!(ctx.traceparent(), W3C_EXAMPLE);
        assert_eq!(ctx.tracestate.as_deref(), Some("rojo=00f067aa0ba902b7"));
    }

    #[test]
    fn rejects_malformed_values() {
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        ] {
            assert_eq!(TraceContext::parse(bad, None), None, "{bad}");
        }
        // A later version may append fields.
        let later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-extra";
        assert!(!TraceContext::parse(later, None).unwrap().sampled);
    }

    #[test]
    fn a_child_keeps_the_trace_and_names_its_parent() {
        let root = TraceContext::root();
        let child = root.child();
        assert_eq!(child.trace_id, root.trace_id);
        assert_ne!(child.span_id, root.span_id);
        assert_eq!(child.parent_span_id, Some(root.span_id));
        assert_ne!(TraceContext::root().trace_id, root.trace_id);
    }

    #[test]
    fn travels_in_meta_without_touching_the_rest() {
        let ctx = TraceContext::parse(W3C_EXAMPLE, Some("a=1")).unwrap();
        let params = jsonrpc::raw_json(r#"{"name":"t","_meta":{"progressToken":3}}"#);
        let with = ctx.inject(Some(params)).unwrap();
        let value: serde_json::Value = serde_json::from_str(with.get()).unwrap();
        assert_eq!(value["name"], "t");
        assert_eq!(value["_meta"]["progressToken"], 3);
        assert_eq!(value["_meta"]["traceparent"], W3C_EXAMPLE);
        assert_eq!(TraceContext::from_params(Some(&with)), Some(ctx.clone()));
        assert_eq!(
            TraceContext::from_params(Some(&jsonrpc::raw_json(r#"{"name":"x"}"#))),
            None
        );
        assert!(TraceContext::from_params(None).is_none());
        let bad = jsonrpc::raw_json(r#"{"_meta":[]}"#);
        assert!(ctx.inject(Some(bad)).is_err());
    }

    #[test]
    fn an_escaped_traceparent_key_is_the_same_key() {
        let escaped = format!(r#"{{"_meta":{{"\u0074raceparent":"{W3C_EXAMPLE}"}}}}"#);
        let plain = format!(r#"{{"_meta":{{"traceparent":"{W3C_EXAMPLE}"}}}}"#);
        let read = |text: &str| TraceContext::from_params(Some(&jsonrpc::raw_json(text)));
        assert!(read(&plain).is_some());
        assert_eq!(read(&escaped), read(&plain));
        // The key's text as user data is no context.
        let in_arguments =
            format!(r#"{{"arguments":{{"_meta":{{"traceparent":"{W3C_EXAMPLE}"}}}}}}"#);
        assert_eq!(read(&in_arguments), None);
    }

    #[tokio::test]
    async fn scope_sets_the_current_context() {
        assert!(TraceContext::current().is_none());
        let ctx = TraceContext::root();
        let seen = ctx.clone().scope(async { TraceContext::current() }).await;
        assert_eq!(seen, Some(ctx));
    }
}
