//! The HTTP+SSE client transport (2024-11-05, deprecated since 2025-03-26).
//!
//! The client GETs the SSE URL and waits for the `endpoint` event, whose data is the URI to
//! POST messages to; it is resolved against the SSE URL and refused when it names another
//! origin (a server must not redirect our messages, and our headers, elsewhere). Every message
//! is a POST to that endpoint, answered only with an acknowledgement; responses arrive as
//! `message` events on the SSE stream. When the stream ends, the session is over.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use hyper::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use hyper::{Method, Uri};
use mcp_proto::jsonrpc::RequestId;
use mcp_proto::peer::{Intent, MessageSink, Outgoing, Transport};
use mcp_proto::sync::lock;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::body::{self, BodyKind, EventStream, StreamEnd};
use super::connection::{check_url, Connection};
use super::error::HttpError;
use super::inbox::{HttpSource, Inbox};
use super::outgoing::{done_token, encode, Encoded, Kind};
use super::HttpClientConfig;

const EXCERPT_BYTES: usize = 2048;

/// A HTTP+SSE connection, as a [`Transport`].
pub struct HttpSseTransport {
    source: HttpSource,
    sink: HttpSseSink,
}

impl HttpSseTransport {
    /// Opens the SSE stream at `config.url` and waits (up to the connect timeout) for the
    /// server's `endpoint` event.
    pub async fn connect(config: HttpClientConfig) -> Result<Self, HttpError> {
        let (inbox, source) = Inbox::new(config.queue_capacity);
        let sink = HttpSseSink::connect(config, inbox).await?;
        Ok(HttpSseTransport { source, sink })
    }

    /// The URI messages are POSTed to, as the server announced it.
    pub fn endpoint(&self) -> &Uri {
        &self.sink.shared.endpoint
    }
}

impl Transport for HttpSseTransport {
    type Source = HttpSource;
    type Sink = HttpSseSink;
    fn split(self) -> (HttpSource, HttpSseSink) {
        (self.source, self.sink)
    }
}

struct Shared {
    conn: Connection,
    endpoint: Uri,
    endpoint_text: String,
    inbox: Arc<Inbox>,
    calls: Mutex<HashMap<RequestId, CancellationToken>>,
    tasks: TaskTracker,
}

/// The writing half of [`HttpSseTransport`]: POSTs each message to the announced endpoint,
/// in order.
pub struct HttpSseSink {
    shared: Arc<Shared>,
    /// Done when the previous POST was acknowledged: the server sees messages in order.
    barrier: CancellationToken,
    closed: bool,
}

impl HttpSseSink {
    /// Opens the stream and feeds `inbox` from it.
    pub(crate) async fn connect(
        config: HttpClientConfig,
        inbox: Arc<Inbox>,
    ) -> Result<Self, HttpError> {
        let url = check_url(&config.url)?;
        let url_text = url.to_string();
        let conn = Connection::new(&config)?;
        let headers = [(ACCEPT, HeaderValue::from_static("text/event-stream"))];
        let request = conn.request(Method::GET, &url, &headers, Bytes::new());
        let response = conn.send(request).await?;
        let status = response.status();
        if !status.is_success() {
            let excerpt = body::read_excerpt(response.into_body(), EXCERPT_BYTES).await;
            return Err(HttpError::status_error(
                Method::GET,
                &url_text,
                status,
                &excerpt,
            ));
        }
        if body::body_kind(&response) != BodyKind::EventStream {
            return Err(HttpError::ContentType {
                method: Method::GET,
                url: url_text,
                content_type: body::content_type(&response),
            });
        }
        let mut stream = EventStream::new(response.into_body(), config.max_message_size);
        let wait = config.connect_timeout;
        let endpoint = tokio::time::timeout(wait, wait_for_endpoint(&mut stream, &url_text))
            .await
            .map_err(|_| HttpError::Timeout {
                what: "the `endpoint` event",
                url: url_text.clone(),
                after: wait,
            })??;
        let endpoint = resolve_endpoint(&url, &endpoint).map_err(|reason| HttpError::Endpoint {
            url: url_text.clone(),
            reason,
        })?;
        let shared = Arc::new(Shared {
            conn,
            endpoint_text: endpoint.to_string(),
            endpoint,
            inbox: inbox.clone(),
            calls: Mutex::new(HashMap::new()),
            tasks: TaskTracker::new(),
        });
        let closed = inbox.closed_token().clone();
        shared.tasks.spawn(async move {
            tokio::select! {
                _ = closed.cancelled() => {}
                _ = read_events(&inbox, stream, &url_text) => {}
            }
        });
        Ok(HttpSseSink {
            shared,
            barrier: done_token(),
            closed: false,
        })
    }

    /// Starts the POST of one message in its own task, after the previous one. A 2026-07-28
    /// request is refused: that era has no HTTP+SSE binding (so an era probe falls back).
    pub(crate) fn dispatch(&mut self, message: Encoded) {
        let shared = self.shared.clone();
        if message.modern {
            if let Kind::Request { id } = message.kind {
                self.shared.tasks.spawn(async move {
                    let error = HttpError::Endpoint {
                        url: shared.endpoint_text.clone(),
                        reason: "the HTTP+SSE transport does not carry 2026-07-28 requests".into(),
                    };
                    shared.inbox.fail_request(id, &error).await;
                });
            }
            return;
        }
        let done = CancellationToken::new();
        let previous = std::mem::replace(&mut self.barrier, done.clone());
        if let Intent::Cancel(cancelled) = &message.intent {
            // Nobody waits for that answer any more: a POST still queued need not go out.
            if let Some(token) = lock(&shared.calls).remove(cancelled) {
                token.cancel();
            }
        }
        let (id, cancel) = match &message.kind {
            Kind::Request { id } => {
                let token = shared.inbox.closed_token().child_token();
                lock(&shared.calls).insert(id.clone(), token.clone());
                (Some(id.clone()), token)
            }
            Kind::Notification | Kind::Response => {
                (None, shared.inbox.closed_token().child_token())
            }
        };
        self.shared.tasks.spawn(async move {
            let result = tokio::select! {
                _ = cancel.cancelled() => Ok(()),
                r = async {
                    previous.cancelled().await;
                    shared.post(message.body, &done).await
                } => r,
            };
            done.cancel();
            if let Err(e) = result {
                match &id {
                    Some(id) => shared.inbox.fail_request(id.clone(), &e).await,
                    None => tracing::warn!("could not deliver a message: {e}"),
                }
            }
            // The POST is done (its response comes on the SSE stream): nothing left to stop.
            if let Some(id) = id {
                lock(&shared.calls).remove(&id);
            }
        });
    }
}

impl Shared {
    /// POSTs one message to the endpoint; any 2xx is an acknowledgement.
    async fn post(&self, body: Bytes, accepted: &CancellationToken) -> Result<(), HttpError> {
        let headers = [(CONTENT_TYPE, HeaderValue::from_static("application/json"))];
        let request = self
            .conn
            .request(Method::POST, &self.endpoint, &headers, body);
        let response = self.conn.send(request).await?;
        let status = response.status();
        let excerpt = body::read_excerpt(response.into_body(), EXCERPT_BYTES).await;
        if !status.is_success() {
            return Err(HttpError::status_error(
                Method::POST,
                &self.endpoint_text,
                status,
                &excerpt,
            ));
        }
        accepted.cancel();
        Ok(())
    }
}

impl MessageSink for HttpSseSink {
    async fn send(&mut self, message: Outgoing) -> io::Result<()> {
        if self.closed || self.shared.inbox.is_closed() {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                format!(
                    "the SSE transport to {} is closed",
                    self.shared.endpoint_text
                ),
            ));
        }
        self.dispatch(encode(message));
        Ok(())
    }

    async fn close(&mut self) -> io::Result<()> {
        if !self.closed {
            self.closed = true;
            // Dropping the GET stream ends the session on the server.
            self.shared.inbox.close("closed locally");
            self.shared.tasks.close();
        }
        Ok(())
    }
}

impl Drop for HttpSseSink {
    fn drop(&mut self) {
        self.shared.inbox.close("the transport was dropped");
    }
}

/// Reads events until the `endpoint` event and returns its data.
async fn wait_for_endpoint(stream: &mut EventStream, url: &str) -> Result<String, HttpError> {
    loop {
        match stream.next().await {
            Ok(event) if event.event_type() == "endpoint" => return Ok(event.data),
            Ok(event) => tracing::debug!(
                "ignored a {:?} event before the endpoint event",
                event.event_type()
            ),
            Err(end) => {
                let reason = match end {
                    StreamEnd::Eof => "the stream closed before the endpoint event".to_owned(),
                    StreamEnd::Error(e) => {
                        format!("the stream failed before the endpoint event: {e}")
                    }
                };
                return Err(HttpError::Endpoint {
                    url: url.to_owned(),
                    reason,
                });
            }
        }
    }
}

/// Delivers the `message` events of the stream until it ends, then closes the inbox.
async fn read_events(inbox: &Inbox, mut stream: EventStream, url: &str) {
    let reason = loop {
        match stream.next().await {
            Ok(event) if event.is_message() && !event.data.is_empty() => {
                inbox.deliver_frame(event.data.as_bytes()).await;
            }
            Ok(event) => tracing::debug!("ignored a {:?} SSE event", event.event_type()),
            Err(StreamEnd::Eof) => break "the server closed it".to_owned(),
            Err(StreamEnd::Error(e)) => break e,
        }
    };
    let error = HttpError::StreamEnded {
        url: url.to_owned(),
        reason,
    };
    inbox.close(error.to_string());
}

/// The default port of a scheme.
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// Scheme, lowercase host and effective port: what "same origin" compares.
fn origin(uri: &Uri) -> Option<(String, String, Option<u16>)> {
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let host = uri.host()?.to_ascii_lowercase();
    let port = uri.port_u16().or_else(|| default_port(&scheme));
    Some((scheme, host, port))
}

/// Resolves the `endpoint` event's data against the SSE URL: an absolute URL, an absolute
/// path, a query, or a relative path. Refuses a URL of another origin.
pub(crate) fn resolve_endpoint(base: &Uri, data: &str) -> Result<Uri, String> {
    let data = data.trim();
    if data.is_empty() {
        return Err("the endpoint event is empty".into());
    }
    let scheme = base.scheme_str().unwrap_or("http");
    let authority = base.authority().map(|a| a.as_str()).unwrap_or("");
    let text = if data.contains("://") {
        data.to_owned()
    } else if let Some(rest) = data.strip_prefix("//") {
        format!("{scheme}://{rest}")
    } else if data.starts_with('/') {
        format!("{scheme}://{authority}{data}")
    } else if data.starts_with('?') {
        format!("{scheme}://{authority}{}{data}", base.path())
    } else {
        let path = base.path();
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        let dir = if dir.is_empty() { "/" } else { dir };
        format!("{scheme}://{authority}{dir}{data}")
    };
    let uri: Uri = text
        .parse()
        .map_err(|e| format!("the endpoint {data:?} is not a valid URI: {e}"))?;
    if origin(&uri).is_none() || origin(&uri) != origin(base) {
        return Err(format!(
            "the endpoint {data:?} is on another origin than {base}; refused"
        ));
    }
    Ok(uri)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Uri {
        "http://127.0.0.1:8000/app/sse".parse().unwrap()
    }

    #[test]
    fn absolute_path() {
        let u = resolve_endpoint(&base(), "/messages/?session_id=abc").unwrap();
        assert_eq!(
            u.to_string(),
            "http://127.0.0.1:8000/messages/?session_id=abc"
        );
    }

    #[test]
    fn relative_path_and_query() {
        let u = resolve_endpoint(&base(), "messages?sessionId=1").unwrap();
        assert_eq!(
            u.to_string(),
            "http://127.0.0.1:8000/app/messages?sessionId=1"
        );
        let u = resolve_endpoint(&base(), "?s=2").unwrap();
        assert_eq!(u.to_string(), "http://127.0.0.1:8000/app/sse?s=2");
    }

    #[test]
    fn same_origin_absolute_url() {
        let u = resolve_endpoint(&base(), "HTTP://127.0.0.1:8000/m").unwrap();
        assert_eq!(u.path(), "/m");
        let https: Uri = "https://example.com/sse".parse().unwrap();
        assert!(resolve_endpoint(&https, "https://example.com:443/m").is_ok());
    }

    #[test]
    fn other_origins_are_refused() {
        for data in [
            "http://evil.example/messages",
            "//evil.example/messages",
            "http://127.0.0.1:8001/messages",
            "https://127.0.0.1:8000/messages",
        ] {
            let e = resolve_endpoint(&base(), data).unwrap_err();
            assert!(e.contains("another origin"), "{data}: {e}");
        }
        assert!(resolve_endpoint(&base(), "  ").is_err());
    }
}
