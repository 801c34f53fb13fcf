//! `tracing` spans for MCP calls, named and attributed as the OpenTelemetry MCP and GenAI
//! semantic conventions say: a span `{mcp.method.name} {target}` (`tools/call get_weather`) of
//! kind client for a request we send and server for one we serve, with `mcp.method.name`,
//! `gen_ai.tool.name`/`gen_ai.prompt.name`/`mcp.resource.uri`, `jsonrpc.request.id`,
//! `mcp.protocol.version`, `error.type` and the W3C ids of the span (`trace_id`, `span_id`,
//! `parent_span_id`). Span names follow tracing-opentelemetry's habits: `otel.name`,
//! `otel.kind`, `otel.status_code`.
//!
//! Every span is at DEBUG level with target [`TARGET`]. When no subscriber wants it and no
//! trace context came in, [`CallSpan::start`] returns `None` after one cached interest check,
//! and the call runs untraced: the hot path pays nothing else.

use std::sync::LazyLock;

use tracing::field::Empty;
use tracing::Span;

use crate::json_text::KeySearch;
use crate::jsonrpc::{ErrorObject, RawJson};
use crate::trace_context::TraceContext;

/// The `tracing` target of every MCP span.
pub const TARGET: &str = "mcp";

/// Which side of a call a span stands for (OpenTelemetry's span kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanKind {
    /// A request we send (the client's call, or a server's request to its client).
    Client,
    /// A request we serve.
    Server,
    /// Work inside one process (the hub routing a tool call).
    Internal,
}

/// Makes one span with every attribute the conventions name declared (tracing records only
/// declared fields); the values come later with [`Span::record`].
macro_rules! call_span {
    ($name:literal, $kind:literal) => {
        tracing::debug_span!(
            target: "mcp",
            $name,
            "otel.name" = Empty,
            "otel.kind" = $kind,
            "otel.status_code" = Empty,
            "mcp.method.name" = Empty,
            "gen_ai.operation.name" = Empty,
            "gen_ai.tool.name" = Empty,
            "gen_ai.prompt.name" = Empty,
            "mcp.resource.uri" = Empty,
            "mcp.protocol.version" = Empty,
            "mcp.session.id" = Empty,
            "mcp.server.name" = Empty,
            "jsonrpc.request.id" = Empty,
            "rpc.response.status_code" = Empty,
            "error.type" = Empty,
            trace_id = Empty,
            span_id = Empty,
            parent_span_id = Empty,
        )
    };
}

/// A span of one MCP call and its place in the trace (to scope for the handler or inject into
/// the request's `_meta`).
#[derive(Debug)]
pub struct CallSpan {
    /// The `tracing` span (disabled when no subscriber wants it; the context still travels).
    pub span: Span,
    /// This span's trace context.
    pub context: TraceContext,
}

impl CallSpan {
    /// Starts the span of `method` (whose params are `params`), as a child of `parent` (the
    /// remote caller's context for a server, the current task's for a client) or as a new
    /// trace. `None` when the span is disabled and there is no parent: nothing to trace and
    /// nothing to pass on.
    pub fn start(
        kind: SpanKind,
        method: &str,
        params: Option<&RawJson>,
        parent: Option<TraceContext>,
    ) -> Option<CallSpan> {
        let span = match kind {
            SpanKind::Client => call_span!("mcp.client", "client"),
            SpanKind::Server => call_span!("mcp.server", "server"),
            SpanKind::Internal => call_span!("mcp.internal", "internal"),
        };
        let enabled = !span.is_disabled();
        if !enabled && parent.is_none() {
            return None;
        }
        let context = match parent {
            Some(parent) => parent.child(),
            None => TraceContext::root(),
        };
        let call = CallSpan { span, context };
        if enabled {
            call.describe(method, params);
        }
        Some(call)
    }

    /// Whether a subscriber records this span.
    pub fn is_recorded(&self) -> bool {
        !self.span.is_disabled()
    }

    fn describe(&self, method: &str, params: Option<&RawJson>) {
        let span = &self.span;
        span.record("mcp.method.name", method);
        span.record("trace_id", self.context.trace_id_hex().as_str());
        span.record("span_id", self.context.span_id_hex().as_str());
        if let Some(parent) = self.context.parent_span_id_hex() {
            span.record("parent_span_id", parent.as_str());
        }
        let target = call_target(method, params);
        match (&target, method) {
            (Some(Target::Name(name)), "tools/call") => {
                span.record("gen_ai.tool.name", name.as_str());
                span.record("gen_ai.operation.name", "execute_tool");
            }
            (Some(Target::Name(name)), _) => {
                span.record("gen_ai.prompt.name", name.as_str());
            }
            (Some(Target::Uri(uri)), _) => {
                span.record("mcp.resource.uri", uri.as_str());
            }
            (None, _) => {}
        }
        let name = match target {
            Some(Target::Name(name)) => format!("{method} {name}"),
            _ => method.to_owned(),
        };
        span.record("otel.name", name.as_str());
    }

    /// Records an attribute by its convention name (a field declared by every span).
    pub fn record(&self, field: &str, value: &str) {
        self.span.record(field, value);
    }

    /// Records how the call ended: a JSON-RPC error (`error.type` is its code, as the
    /// conventions say), a tool's `isError` result (`error.type` = `tool_error`), or success.
    pub fn finish(&self, outcome: Result<&RawJson, &ErrorObject>) {
        if self.span.is_disabled() {
            return;
        }
        match outcome {
            Ok(result) => {
                if is_tool_error(result) {
                    self.fail("tool_error");
                }
            }
            Err(error) => {
                let code = error.code.to_string();
                self.span.record("rpc.response.status_code", code.as_str());
                self.fail(&code);
            }
        }
    }

    /// Marks the span failed with `error_type` (`timeout`, `closed`, a JSON-RPC code, ...).
    pub fn fail(&self, error_type: &str) {
        self.span.record("error.type", error_type);
        self.span.record("otel.status_code", "ERROR");
    }
}

enum Target {
    Name(String),
    Uri(String),
}

/// The low-cardinality target of a call for its span name: the tool or prompt name; for
/// resource methods the URI (an attribute only, never in the name).
fn call_target(method: &str, params: Option<&RawJson>) -> Option<Target> {
    #[derive(serde::Deserialize)]
    struct Named {
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        uri: Option<String>,
    }
    let named = match method {
        "tools/call"
        | "prompts/get"
        | "resources/read"
        | "resources/subscribe"
        | "resources/unsubscribe" => crate::jsonrpc::from_object::<Named>(params?.get()).ok()?,
        _ => return None,
    };
    match method {
        "tools/call" | "prompts/get" => named.name.map(Target::Name),
        _ => named.uri.map(Target::Uri),
    }
}

/// Whether a `tools/call` result says `isError: true`. A fast path: a result that certainly
/// has no `isError` key (see [`KeySearch`]) is not parsed; its slow twin is
/// [`is_tool_error_parsed`], and `fuzz-checks` requires both to agree.
pub(crate) fn is_tool_error(result: &RawJson) -> bool {
    // Built once: building a searcher costs more than a search of a small result.
    static KEY: LazyLock<KeySearch> = LazyLock::new(|| KeySearch::new("isError"));
    let raw = result.get();
    !KEY.certainly_absent(raw) && is_tool_error_parsed(raw)
}

/// Whether a result read in full says `isError: true`: the slow twin of [`is_tool_error`].
pub(crate) fn is_tool_error_parsed(result: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Flag {
        #[serde(rename = "isError", default)]
        is_error: bool,
    }
    crate::jsonrpc::from_object::<Flag>(result).is_ok_and(|f| f.is_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_subscriber_or_parent_there_is_no_span() {
        let params = crate::jsonrpc::raw_json(r#"{"name":"get_weather"}"#);
        assert!(CallSpan::start(SpanKind::Server, "tools/call", Some(&params), None).is_none());
    }

    #[test]
    fn a_parent_is_passed_on_even_untraced() {
        let parent = TraceContext::root();
        let call = CallSpan::start(SpanKind::Client, "ping", None, Some(parent.clone())).unwrap();
        assert!(!call.is_recorded());
        assert_eq!(call.context.trace_id, parent.trace_id);
        assert_eq!(call.context.parent_span_id, Some(parent.span_id));
    }

    #[test]
    fn targets_and_tool_errors_are_read_from_raw_json() {
        let raw = |s: &str| crate::jsonrpc::raw_json(s);
        assert!(matches!(
            call_target("tools/call", Some(&raw(r#"{"name":"t","arguments":{}}"#))),
            Some(Target::Name(n)) if n == "t"
        ));
        assert!(matches!(
            call_target("resources/read", Some(&raw(r#"{"uri":"file:///a"}"#))),
            Some(Target::Uri(u)) if u == "file:///a"
        ));
        assert!(call_target("tools/list", None).is_none());
        assert!(is_tool_error(&raw(r#"{"content":[],"isError":true}"#)));
        assert!(is_tool_error(&raw(r#"{"content":[],"\u0069sError":true}"#)));
        assert!(!is_tool_error(&raw(
            r#"{"content":[{"type":"text","text":"isError"}]}"#
        )));
        assert!(!is_tool_error(&raw(
            r#"{"content":[{"type":"text","text":"isError"}]}"#
        )));
    }
}
