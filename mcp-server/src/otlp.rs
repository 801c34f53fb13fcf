//! OTLP export of the MCP spans (the `otlp` feature): a `tracing` layer that turns every
//! closed span of [`mcp_proto::telemetry`] (client, hub and server alike) into an OpenTelemetry
//! span with the W3C ids the span carries, and hands it to the OpenTelemetry SDK's batch
//! processor and OTLP/HTTP (JSON) exporter, which post to the collector that
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) names.
//!
//! The ids are ours, not the SDK's: they are the ones that travel in `_meta.traceparent`, so
//! the spans of the processes a call crosses form one trace.
//!
//! ```no_run
//! # fn demo() -> Result<(), mcp_server::otlp::OtlpError> {
//! use tracing_subscriber::layer::SubscriberExt as _;
//! let runtime = tokio::runtime::Runtime::new().expect("runtime");
//! if let Some((layer, guard)) = mcp_server::otlp::from_env("my-server", runtime.handle())? {
//!     let subscriber = tracing_subscriber::registry().with(layer);
//!     let _ = tracing::subscriber::set_global_default(subscriber);
//!     // ... serve ...
//!     runtime.block_on(guard.shutdown());
//! }
//! # Ok(()) }
//! ```

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
};
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::{BatchSpanProcessor, SpanData, SpanProcessor};
use opentelemetry_sdk::Resource;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, Filter, Layer};
use tracing_subscriber::registry::LookupSpan;

/// How long posting one batch may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);
/// The most of a collector's answer that is read.
const MAX_ANSWER: usize = 1 << 20;
/// How long [`OtlpGuard::shutdown`] waits for the last batch.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);

/// Why OTLP export could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtlpError {
    /// The exporter refused its configuration (a malformed endpoint, say).
    #[error("cannot export OTLP traces: {0}; check OTEL_EXPORTER_OTLP_ENDPOINT")]
    Exporter(String),
}

/// Whether the environment asks for OTLP export (an OTLP endpoint is set).
pub fn requested() -> bool {
    [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ]
    .iter()
    .any(|key| std::env::var_os(key).is_some_and(|v| !v.is_empty()))
}

/// The export layer when the environment asks for it (see [`requested`]), else `None`.
/// `service` is the `service.name` unless `OTEL_SERVICE_NAME` says otherwise; `runtime` runs
/// the HTTP posts (the SDK's batch thread waits for them).
pub fn from_env(
    service: &str,
    runtime: &tokio::runtime::Handle,
) -> Result<Option<(OtlpLayer, OtlpGuard)>, OtlpError> {
    if !requested() {
        return Ok(None);
    }
    let poster =
        HyperPoster::new(runtime.clone()).map_err(|e| OtlpError::Exporter(e.to_string()))?;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpJson)
        .with_timeout(EXPORT_TIMEOUT)
        .with_http_client(poster)
        .build()
        .map_err(|e| OtlpError::Exporter(e.to_string()))?;
    let mut processor = BatchSpanProcessor::builder(exporter).build();
    let mut resource = Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
        resource = resource.with_service_name(service.to_owned());
    }
    processor.set_resource(&resource.build());
    let processor = Arc::new(processor);
    let scope = InstrumentationScope::builder("mcp")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build();
    Ok(Some((
        OtlpLayer {
            processor: processor.clone(),
            scope,
        },
        OtlpGuard { processor },
    )))
}

/// Flushes and stops the exporter when the process is done.
#[derive(Debug)]
pub struct OtlpGuard {
    processor: Arc<BatchSpanProcessor>,
}

impl OtlpGuard {
    /// Exports what is left (bounded by a few seconds) and stops. Await it on the runtime given
    /// to [`from_env`] (`runtime.block_on(guard.shutdown())` at the end of `main`): the wait
    /// runs on a blocking thread while the runtime posts the last batch, so it works on a
    /// current-thread runtime too.
    pub async fn shutdown(self) {
        let processor = self.processor;
        let done =
            tokio::task::spawn_blocking(move || processor.shutdown_with_timeout(SHUTDOWN_TIMEOUT))
                .await;
        match done {
            Ok(Ok(())) => {}
            Ok(Err(e)) => eprintln!("OTLP export: the last spans may be lost: {e}"),
            Err(e) => eprintln!("OTLP export: the last spans may be lost: {e}"),
        }
    }
}

/// The `tracing` layer that exports MCP spans. It only looks at spans of target
/// [`mcp_proto::telemetry::TARGET`] (see [`OtlpLayer::filter`]).
#[derive(Debug)]
pub struct OtlpLayer {
    processor: Arc<BatchSpanProcessor>,
    scope: InstrumentationScope,
}

impl OtlpLayer {
    /// The filter to put this layer behind: MCP spans at every level, nothing else.
    pub fn filter<S>() -> impl Filter<S> {
        tracing_subscriber::filter::filter_fn(|meta| {
            meta.is_span() && meta.target() == mcp_proto::telemetry::TARGET
        })
    }
}

/// What the layer gathers about one open span.
#[derive(Debug, Default)]
struct OpenSpan {
    start: Option<SystemTime>,
    name: Option<String>,
    kind: Option<SpanKind>,
    trace_id: Option<TraceId>,
    span_id: Option<SpanId>,
    parent_span_id: Option<SpanId>,
    error: Option<String>,
    attributes: Vec<KeyValue>,
}

impl Visit for OpenSpan {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "otel.name" => self.name = Some(value.to_owned()),
            "otel.kind" => {
                self.kind = Some(match value {
                    "client" => SpanKind::Client,
                    "server" => SpanKind::Server,
                    _ => SpanKind::Internal,
                })
            }
            "otel.status_code" => {
                if value == "ERROR" {
                    self.error.get_or_insert_with(String::new);
                }
            }
            "trace_id" => self.trace_id = TraceId::from_hex(value).ok(),
            "span_id" => self.span_id = SpanId::from_hex(value).ok(),
            "parent_span_id" => self.parent_span_id = SpanId::from_hex(value).ok(),
            name => {
                if name == "error.type" {
                    self.error = Some(value.to_owned());
                }
                self.attributes.push(KeyValue::new(name, value.to_owned()));
            }
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.attributes.push(KeyValue::new(field.name(), value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.attributes.push(KeyValue::new(
            field.name(),
            i64::try_from(value).unwrap_or(i64::MAX),
        ));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.attributes.push(KeyValue::new(field.name(), value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.record_str(field, &format!("{value:?}"));
    }
}

impl<S> Layer<S> for OtlpLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut open = OpenSpan {
            start: Some(SystemTime::now()),
            ..OpenSpan::default()
        };
        attrs.record(&mut open);
        span.extensions_mut().insert(open);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut extensions = span.extensions_mut();
        if let Some(open) = extensions.get_mut::<OpenSpan>() {
            values.record(open);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(open) = span.extensions_mut().remove::<OpenSpan>() else {
            return;
        };
        let (Some(trace_id), Some(span_id)) = (open.trace_id, open.span_id) else {
            return;
        };
        let status = match open.error {
            Some(description) => Status::error(description),
            None => Status::Unset,
        };
        let name = open.name.unwrap_or_else(|| span.name().to_owned());
        self.processor.on_end(SpanData {
            span_context: SpanContext::new(
                trace_id,
                span_id,
                TraceFlags::SAMPLED,
                false,
                TraceState::default(),
            ),
            parent_span_id: open.parent_span_id.unwrap_or(SpanId::INVALID),
            parent_span_is_remote: false,
            span_kind: open.kind.unwrap_or(SpanKind::Internal),
            name: Cow::Owned(name),
            start_time: open.start.unwrap_or_else(SystemTime::now),
            end_time: SystemTime::now(),
            attributes: open.attributes,
            dropped_attributes_count: 0,
            events: Default::default(),
            links: Default::default(),
            status,
            instrumentation_scope: self.scope.clone(),
        });
    }
}

/// Posts the exporter's requests with hyper on the process's runtime: the SDK's batch thread
/// blocks on the returned future, the post itself runs as a task of `runtime`.
#[derive(Debug, Clone)]
struct HyperPoster {
    runtime: tokio::runtime::Handle,
    client: mcp_https::Client<Full<Bytes>>,
}

impl HyperPoster {
    /// A poster over the toolkit's one client setup (`mcp_https`), so an `https` collector
    /// works as a plain one does.
    fn new(runtime: tokio::runtime::Handle) -> Result<Self, mcp_https::TlsError> {
        let client = mcp_https::client(&mcp_https::Settings::new(EXPORT_TIMEOUT))?;
        Ok(HyperPoster { runtime, client })
    }
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for HyperPoster {
    async fn send_bytes(
        &self,
        request: hyper::Request<Bytes>,
    ) -> Result<hyper::Response<Bytes>, opentelemetry_http::HttpError> {
        let client = self.client.clone();
        let (parts, body) = request.into_parts();
        let request = hyper::Request::from_parts(parts, Full::new(body));
        let post = self.runtime.spawn(async move {
            let response = tokio::time::timeout(EXPORT_TIMEOUT, client.request(request))
                .await
                .map_err(|_| "the OTLP collector did not answer in time".to_owned())?
                .map_err(|e| e.to_string())?;
            let (parts, body) = response.into_parts();
            let body = http_body_util::Limited::new(body, MAX_ANSWER);
            let body = tokio::time::timeout(EXPORT_TIMEOUT, body.collect())
                .await
                .map_err(|_| "the OTLP collector's answer did not end in time".to_owned())?
                .map_err(|e| e.to_string())?
                .to_bytes();
            Ok::<_, String>(hyper::Response::from_parts(parts, body))
        });
        match post.await {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => Err(e.into()),
            Err(e) => Err(format!("the OTLP post stopped: {e}").into()),
        }
    }
}
