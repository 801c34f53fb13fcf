//! What the hub tells about each tool call: a `tracing` span (the conventions'
//! `execute_tool`, between the caller's span and the client's, so the trace stays connected
//! through the hub) and a [`CallRecord`] for an audit log (`mcp proxy --log-calls`).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use mcp_proto::telemetry::{CallSpan, SpanKind};
use mcp_proto::trace_context::TraceContext;
use serde_json::Value;

/// One tool call through the hub, as an audit log keeps it.
#[derive(Debug, Clone)]
pub struct CallRecord {
    /// When the call came in.
    pub at: SystemTime,
    /// The server it went to, once resolved.
    pub server: Option<String>,
    /// The tool's raw name on its server, once resolved.
    pub tool: Option<String>,
    /// The name it was called by (exposed, or a unique raw name).
    pub called: String,
    /// From arrival to answer (approval and queueing included).
    pub duration: Duration,
    /// `ok`, `tool_error` (an `isError` result), or the hub error's kind (`timeout`,
    /// `connection`, `overloaded`, ...).
    pub outcome: &'static str,
    /// The error's text, when the call failed.
    pub error: Option<String>,
    /// The size of the arguments as JSON.
    pub argument_bytes: usize,
    /// The size of the result as JSON, when there is one.
    pub result_bytes: Option<usize>,
    /// The arguments, only when the observer asked for contents.
    pub arguments: Option<Value>,
    /// The result, only when the observer asked for contents.
    pub result: Option<Value>,
}

/// Gets every [`CallRecord`] of a hub (set in `HubOptions::on_call`). It runs in the calling
/// task right after the call: keep it quick (hand the record to a writer).
#[derive(Clone)]
pub struct CallObserver {
    sink: Arc<dyn Fn(CallRecord) + Send + Sync>,
    contents: bool,
}

impl CallObserver {
    /// An observer of sizes and outcomes only.
    pub fn new(sink: impl Fn(CallRecord) + Send + Sync + 'static) -> Self {
        CallObserver {
            sink: Arc::new(sink),
            contents: false,
        }
    }

    /// Also hands over the arguments and results themselves.
    pub fn with_contents(mut self) -> Self {
        self.contents = true;
        self
    }

    /// Whether records carry arguments and results.
    pub fn wants_contents(&self) -> bool {
        self.contents
    }

    pub(crate) fn observe(&self, record: CallRecord) {
        (self.sink)(record)
    }
}

impl std::fmt::Debug for CallObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallObserver")
            .field("contents", &self.contents)
            .finish_non_exhaustive()
    }
}

/// The hub's span of one tool call: a child of the caller's context (a proxy's server span),
/// or a new trace when only this process traces.
pub(crate) fn call_span(called: &str) -> Option<CallSpan> {
    let call = CallSpan::start(
        SpanKind::Internal,
        "tools/call",
        None,
        TraceContext::current(),
    )?;
    if call.is_recorded() {
        call.record("gen_ai.operation.name", "execute_tool");
        call.record("gen_ai.tool.name", called);
        call.record("otel.name", &format!("execute_tool {called}"));
    }
    Some(call)
}

/// The size of a value as compact JSON, without keeping the text.
pub(crate) fn json_size<T: serde::Serialize>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_compact_json() {
        assert_eq!(json_size(&serde_json::json!({"city": "Shenzhen"})), 19);
        assert_eq!(json_size(&Value::Null), 4);
    }
}
