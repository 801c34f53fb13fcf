//! OTLP export of the spans of one `mcp` run (the `otlp` feature; on only when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set): every MCP call the run makes, and for `mcp proxy`
//! every call it serves and forwards. A run other than the proxy is one trace: its root span
//! (`mcp call`, `mcp tools`, ...) is the parent of every request the run sends.

use std::future::Future;

use mcp_proto::trace_context::TraceContext;
use mcp_server::otlp::{OtlpGuard, OtlpLayer};
use tracing::Instrument;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::Layer as _;

/// Installs the OTLP layer when the environment asks for it; the guard flushes at the end.
/// `service`: `mcp`, or `mcp-proxy` for the proxy.
pub fn init(service: &str, runtime: &tokio::runtime::Handle) -> Option<OtlpGuard> {
    match mcp_server::otlp::from_env(service, runtime) {
        Ok(Some((layer, guard))) => {
            let subscriber =
                tracing_subscriber::registry().with(layer.with_filter(OtlpLayer::filter()));
            if tracing::subscriber::set_global_default(subscriber).is_err() {
                eprintln!("mcp: a tracing subscriber was already set; no OTLP export");
                return None;
            }
            Some(guard)
        }
        Ok(None) => None,
        Err(e) => {
            eprintln!("mcp: {e}");
            None
        }
    }
}

/// Runs a command as the root span of a new trace named `name` (`mcp call`).
pub async fn root<F: Future>(name: &str, run: F) -> F::Output {
    let context = TraceContext::root();
    let span = tracing::debug_span!(
        target: "mcp",
        "mcp.cli",
        "otel.name" = name,
        "otel.kind" = "client",
        trace_id = context.trace_id_hex().as_str(),
        span_id = context.span_id_hex().as_str(),
    );
    context.scope(run).instrument(span).await
}
