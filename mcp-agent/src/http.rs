//! The providers' HTTP: one POST with a JSON body over the toolkit's one client setup
//! (`mcp_https`: pooled, rustls for `https`), retried with backoff on 429 and 5xx (honouring `Retry-After`),
//! and the streamed answer read as Server-Sent Events through `mcp_proto::sse` into a
//! provider's [`SseDecoder`].

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri};
use mcp_proto::sse::{SseEvent, SseParser};

use crate::error::ModelError;
use crate::model::{BoxFuture, Delta, DeltaSource, DeltaStream};
use crate::provider::ProviderConfig;

/// The most of an error body read for its message.
const MAX_ERROR_BODY: usize = 16 * 1024;
/// The largest single SSE event a provider may send.
const MAX_EVENT: usize = 8 * 1024 * 1024;

/// How failed requests are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 for none).
    pub max_retries: u32,
    /// The first wait; each next one doubles.
    pub initial_backoff: Duration,
    /// The longest wait between attempts, also for a `Retry-After` the server asks.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    /// 3 retries, 1 s doubling, at most 30 s.
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry `attempt` (1-based): the server's `Retry-After` if it gave one,
    /// else the doubling backoff; both capped.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let backoff = self
            .initial_backoff
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
        retry_after.unwrap_or(backoff).min(self.max_backoff)
    }
}

/// The server's `retry-after-ms` or `Retry-After` (seconds; an HTTP date counts as 1 s).
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        return (ms.is_finite() && ms >= 0.0).then(|| Duration::from_secs_f64(ms / 1000.0));
    }
    let value = text("retry-after")?.trim();
    match value.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => Some(Duration::from_secs_f64(secs)),
        Ok(_) => None,
        Err(_) => Some(Duration::from_secs(1)),
    }
}

/// Whether a status is worth another attempt.
fn retryable(status: StatusCode) -> bool {
    matches!(
        status.as_u16(),
        408 | 409 | 429 | 500 | 502 | 503 | 504 | 529
    )
}

/// A provider's HTTP client: pooled connections, its headers, its timeouts and retries.
#[derive(Clone)]
pub(crate) struct HttpClient {
    client: mcp_https::Client<Full<Bytes>>,
    headers: HeaderMap,
    response_timeout: Duration,
    idle_timeout: Duration,
    retry: RetryPolicy,
    provider: &'static str,
    key_env: String,
}

impl HttpClient {
    /// A client for `config` with `auth` headers (the API key) added to its own.
    pub(crate) fn new(
        provider: &'static str,
        config: &ProviderConfig,
        auth: &[(&str, String)],
    ) -> Result<Self, ModelError> {
        let mut headers = HeaderMap::new();
        let pairs = auth
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .chain(config.headers.iter().cloned());
        for (name, value) in pairs {
            let bad = |e: String| ModelError::Config(format!("header {name}: {e}"));
            let header = HeaderName::from_bytes(name.as_bytes()).map_err(|e| bad(e.to_string()))?;
            let mut value = HeaderValue::from_str(&value).map_err(|e| bad(e.to_string()))?;
            value.set_sensitive(true);
            headers.insert(header, value);
        }
        headers.insert(
            hyper::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            hyper::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        let settings = mcp_https::Settings::new(config.connect_timeout)
            .pool_idle_timeout(Duration::from_secs(60));
        let client =
            mcp_https::client(&settings).map_err(|e| ModelError::Config(format!("TLS: {e}")))?;
        Ok(HttpClient {
            client,
            headers,
            response_timeout: config.response_timeout,
            idle_timeout: config.idle_timeout,
            retry: config.retry,
            provider,
            key_env: config.api_key_env.clone(),
        })
    }

    /// POSTs `body` to `url` and returns the response of the first attempt that is neither a
    /// retryable failure nor out of retries; error statuses become [`ModelError`]s.
    pub(crate) async fn post(
        &self,
        url: &str,
        body: Bytes,
    ) -> Result<Response<Incoming>, ModelError> {
        let uri: Uri = url
            .parse()
            .map_err(|e| ModelError::Config(format!("base URL {url:?}: {e}")))?;
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let mut request = Request::new(Full::new(body.clone()));
            *request.method_mut() = Method::POST;
            *request.uri_mut() = uri.clone();
            *request.headers_mut() = self.headers.clone();
            let response =
                tokio::time::timeout(self.response_timeout, self.client.request(request))
                    .await
                    .map_err(|_| ModelError::Timeout {
                        url: url.to_owned(),
                        after: self.response_timeout,
                    })?
                    .map_err(|e| ModelError::Unreachable {
                        url: url.to_owned(),
                        reason: describe_client_error(&e),
                    })?;
            let status = response.status();
            if status.is_success() {
                return Ok(response);
            }
            if retryable(status) && attempt <= self.retry.max_retries {
                let wait = self.retry.delay(attempt, retry_after(response.headers()));
                tracing::warn!(
                    "{} answered HTTP {}; retry {attempt} of {} in {wait:?}",
                    url,
                    status.as_u16(),
                    self.retry.max_retries
                );
                drop(response);
                tokio::time::sleep(wait).await;
                continue;
            }
            let detail = error_detail(response).await;
            return Err(match status.as_u16() {
                401 | 403 => ModelError::Unauthorized {
                    provider: self.provider,
                    status: status.as_u16(),
                    url: url.to_owned(),
                    env: self.key_env.clone(),
                    detail,
                },
                429 => ModelError::RateLimited {
                    url: url.to_owned(),
                    attempts: attempt,
                },
                code => ModelError::Status {
                    url: url.to_owned(),
                    status: code,
                    detail,
                },
            });
        }
    }

    /// POSTs and reads the answer as SSE through `decoder`.
    pub(crate) async fn stream(
        &self,
        url: &str,
        body: Bytes,
        decoder: impl SseDecoder + 'static,
    ) -> Result<DeltaStream, ModelError> {
        let response = self.post(url, body).await?;
        Ok(DeltaStream::new(SseSource {
            body: response.into_body(),
            parser: SseParser::with_max_event_size(MAX_EVENT),
            decoder,
            pending: VecDeque::new(),
            finished: false,
            idle_timeout: self.idle_timeout,
        }))
    }
}

/// The innermost cause of a client error, for the user.
fn describe_client_error(e: &hyper_util::client::legacy::Error) -> String {
    let mut source: Option<&dyn std::error::Error> = Some(e);
    let mut last = e.to_string();
    while let Some(s) = source {
        last = s.to_string();
        source = s.source();
    }
    last
}

/// `: message` from an error body (`{"error": {"message": ...}}` as all three providers send,
/// else the start of the text), or nothing.
async fn error_detail(response: Response<Incoming>) -> String {
    let body = http_body_util::Limited::new(response.into_body(), MAX_ERROR_BODY);
    let Ok(Ok(collected)) = tokio::time::timeout(Duration::from_secs(5), body.collect()).await
    else {
        return String::new();
    };
    let bytes = collected.to_bytes();
    let json: Option<serde_json::Value> = serde_json::from_slice(&bytes).ok();
    let message = json
        .as_ref()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.pointer("/0/error/message"))
                .or_else(|| v.get("message"))
        })
        .and_then(|m| m.as_str())
        .map(str::to_owned)
        .unwrap_or_else(|| {
            String::from_utf8_lossy(&bytes)
                .trim()
                .chars()
                .take(300)
                .collect()
        });
    if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    }
}

/// Turns one provider's SSE events into deltas.
pub(crate) trait SseDecoder: Send {
    /// Takes one event; pushes the deltas it carries.
    fn event(&mut self, event: SseEvent, out: &mut VecDeque<Delta>) -> Result<(), ModelError>;
    /// The body ended; pushes what is left or says the stream was cut short.
    fn end(&mut self, out: &mut VecDeque<Delta>) -> Result<(), ModelError>;
}

/// A streamed body decoded event by event.
struct SseSource<D> {
    body: Incoming,
    parser: SseParser,
    decoder: D,
    pending: VecDeque<Delta>,
    finished: bool,
    idle_timeout: Duration,
}

impl<D: SseDecoder> SseSource<D> {
    async fn next(&mut self) -> Option<Result<Delta, ModelError>> {
        loop {
            if let Some(delta) = self.pending.pop_front() {
                return Some(Ok(delta));
            }
            if self.finished {
                return None;
            }
            match self.parser.next_event() {
                Some(Ok(event)) => {
                    if let Err(e) = self.decoder.event(event, &mut self.pending) {
                        self.finished = true;
                        return Some(Err(e));
                    }
                    continue;
                }
                Some(Err(e)) => {
                    self.finished = true;
                    return Some(Err(ModelError::Stream(e.to_string())));
                }
                None => {}
            }
            let frame = tokio::time::timeout(self.idle_timeout, self.body.frame()).await;
            match frame {
                Err(_) => {
                    self.finished = true;
                    return Some(Err(ModelError::Stream(format!(
                        "no data for {:?}",
                        self.idle_timeout
                    ))));
                }
                Ok(Some(Ok(frame))) => {
                    if let Some(data) = frame.data_ref() {
                        self.parser.feed(data);
                    }
                }
                Ok(Some(Err(e))) => {
                    self.finished = true;
                    return Some(Err(ModelError::Stream(format!(
                        "the connection broke: {e}"
                    ))));
                }
                Ok(None) => {
                    // A last event without its blank line still counts.
                    self.parser.feed(b"\n\n");
                    while let Some(Ok(event)) = self.parser.next_event() {
                        if let Err(e) = self.decoder.event(event, &mut self.pending) {
                            self.finished = true;
                            return Some(Err(e));
                        }
                    }
                    self.finished = true;
                    if let Err(e) = self.decoder.end(&mut self.pending) {
                        self.pending.clear();
                        return Some(Err(e));
                    }
                }
            }
        }
    }
}

impl<D: SseDecoder> DeltaSource for SseSource<D> {
    fn next_delta(&mut self) -> BoxFuture<'_, Option<Result<Delta, ModelError>>> {
        Box::pin(self.next())
    }
}

/// Parses an event's data as JSON, or says which provider's stream is malformed.
pub(crate) fn event_json(
    provider: &str,
    event: &SseEvent,
) -> Result<serde_json::Value, ModelError> {
    serde_json::from_str(&event.data).map_err(|e| {
        ModelError::Stream(format!(
            "{provider} sent an event that is not JSON ({e}): {}",
            event.data.chars().take(200).collect::<String>()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_honoured_and_capped() {
        let policy = RetryPolicy::default();
        let mut headers = HeaderMap::new();
        assert_eq!(
            policy.delay(1, retry_after(&headers)),
            Duration::from_secs(1)
        );
        assert_eq!(
            policy.delay(3, retry_after(&headers)),
            Duration::from_secs(4)
        );
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(
            policy.delay(1, retry_after(&headers)),
            Duration::from_secs(2)
        );
        headers.insert("retry-after", HeaderValue::from_static("9999"));
        assert_eq!(
            policy.delay(1, retry_after(&headers)),
            Duration::from_secs(30)
        );
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(
            policy.delay(1, retry_after(&headers)),
            Duration::from_millis(250)
        );
    }
}
