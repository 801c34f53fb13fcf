//! The Streamable HTTP client transport (2025-03-26 … 2025-11-25).
//!
//! Every outgoing message is a POST to the one MCP endpoint, with both `Accept` types. A request
//! is answered by a JSON body or an SSE stream; a notification or response by 202. The transport
//! keeps the `Mcp-Session-Id` the server assigns on the `initialize` answer and sends it, with
//! `MCP-Protocol-Version`, on every later request; it opens the GET stream for server-initiated
//! messages after `notifications/initialized`; it resumes an SSE answer that drops before its
//! response with a GET carrying `Last-Event-ID` after the server's `retry` delay; on a 404 for
//! an expired session it starts a new session by replaying the original `initialize` and retries
//! the request once; on close it ends the session with a DELETE, bounded in time.
//!
//! This file holds the transport and its sink; `exchange` carries one request, `session` keeps
//! the session and starts a new one, `listener` reads the GET stream.

mod exchange;
mod listener;
mod modern;
mod session;

use std::collections::{HashMap, HashSet};
use std::io;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use hyper::{Method, Response, StatusCode, Uri};
use mcp_proto::jsonrpc::RequestId;
use mcp_proto::peer::{Intent, MessageSink, Outgoing, Transport};
use mcp_proto::sync::lock;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::body;
use super::connection::{check_url, Connection};
use super::error::HttpError;
use super::inbox::{HttpSource, Inbox};
use super::outgoing::{done_token, encode, Encoded, Kind};
use super::HttpClientConfig;
use modern::ToolHeaders;
pub(crate) use modern::{is_modern, is_modern_parsed};
use session::Session;

/// The session id header (names are case-insensitive on the wire).
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// The negotiated protocol version header (2025-06-18 and later).
pub(crate) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// The SSE resumption header.
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
/// How much of an error body is read for the error message.
const EXCERPT_BYTES: usize = 2048;

/// A Streamable HTTP connection to one MCP endpoint, as a [`Transport`].
pub struct StreamableHttpTransport {
    source: HttpSource,
    sink: StreamableHttpSink,
}

impl StreamableHttpTransport {
    /// A transport for the MCP endpoint `config.url`. Nothing is sent until the first message
    /// (normally `initialize`); fails only on an unusable URL or header.
    pub fn new(config: HttpClientConfig) -> Result<Self, HttpError> {
        let (source, sink) = Self::parts(config)?;
        Ok(StreamableHttpTransport { source, sink })
    }

    pub(crate) fn parts(
        config: HttpClientConfig,
    ) -> Result<(HttpSource, StreamableHttpSink), HttpError> {
        let url = check_url(&config.url)?;
        let conn = Connection::new(&config)?;
        let (inbox, source) = Inbox::new(config.queue_capacity);
        let shared = Arc::new(Shared {
            url_text: url.to_string(),
            url,
            conn,
            config,
            inbox,
            session: Mutex::new(Session::default()),
            reinit: tokio::sync::Mutex::new(()),
            calls: Mutex::new(HashMap::new()),
            tasks: TaskTracker::new(),
            reinit_count: AtomicU64::new(0),
            tool_headers: ToolHeaders::default(),
            modern_calls: Mutex::new(HashSet::new()),
        });
        let sink = StreamableHttpSink {
            shared,
            barrier: done_token(),
            closed: false,
        };
        Ok((source, sink))
    }
}

impl Transport for StreamableHttpTransport {
    type Source = HttpSource;
    type Sink = StreamableHttpSink;
    fn split(self) -> (HttpSource, StreamableHttpSink) {
        (self.source, self.sink)
    }
}

/// What the tasks of one Streamable HTTP transport share.
pub(crate) struct Shared {
    config: HttpClientConfig,
    url: Uri,
    url_text: String,
    conn: Connection,
    inbox: Arc<Inbox>,
    session: Mutex<Session>,
    /// Held while a new session is being started.
    reinit: tokio::sync::Mutex<()>,
    /// Our requests in flight: id -> the token that stops their POST task.
    calls: Mutex<HashMap<RequestId, CancellationToken>>,
    tasks: TaskTracker,
    reinit_count: AtomicU64,
    /// The `x-mcp-header` annotations learnt from `tools/list` answers (2026-07-28).
    tool_headers: ToolHeaders,
    /// Our 2026-07-28 requests in flight: cancelled by closing their stream, not by a POST.
    modern_calls: Mutex<HashSet<RequestId>>,
}

/// The writing half of [`StreamableHttpTransport`]: POSTs each message from its own task.
pub struct StreamableHttpSink {
    shared: Arc<Shared>,
    /// Done when the previous notification or response has been accepted, so the server sees
    /// `notifications/initialized` before the requests that follow it.
    barrier: CancellationToken,
    closed: bool,
}

/// How a probing `initialize` POST went (for the automatic choice of transport).
pub(crate) enum Probe {
    /// The server speaks Streamable HTTP; the answer is being read.
    Streamable,
    /// The server answered 400, 404 or 405: try HTTP+SSE with this message.
    Fallback {
        status: StatusCode,
        message: Encoded,
    },
}

impl StreamableHttpSink {
    /// Records what the transport must know about a message before it leaves, as the peer's
    /// intent says: what a new session replays, and which request's exchange may stop.
    fn note_outgoing(&self, message: &mut Encoded) {
        match &message.intent {
            Intent::Initialize => {
                lock(&self.shared.session).init_params = message.replay_params.take();
            }
            Intent::Initialized => {
                lock(&self.shared.session).initialized = Some(message.replay_params.take());
            }
            Intent::Cancel(id) => {
                if let Some(token) = lock(&self.shared.calls).remove(id) {
                    token.cancel();
                }
            }
            _ => {}
        }
    }

    /// Sends an `initialize` POST and waits for its status: on 400, 404 or 405 hands the message
    /// back for the HTTP+SSE transport, else reads the answer in the background.
    pub(crate) async fn probe_initialize(&mut self, mut message: Encoded) -> Probe {
        self.note_outgoing(&mut message);
        let Kind::Request { id } = &message.kind else {
            self.dispatch(message);
            return Probe::Streamable;
        };
        let id = id.clone();
        let shared = self.shared.clone();
        let response = match shared.post(message.body.clone(), false).await {
            Ok(response) => response,
            Err(e) => {
                shared.inbox.fail_request(id, &e).await;
                return Probe::Streamable;
            }
        };
        let status = response.status();
        if matches!(
            status,
            StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
        ) {
            return Probe::Fallback { status, message };
        }
        let cancel = self.register_call(&id);
        let body = message.body;
        self.shared.tasks.spawn(async move {
            let result = tokio::select! {
                _ = cancel.cancelled() => Ok(()),
                r = shared.exchange(&id, true, body, Some(response)) => r,
            };
            shared.finish_call(&id, result).await;
        });
        Probe::Streamable
    }

    /// The queue this sink's answers go to (shared with a fallback transport).
    pub(crate) fn inbox(&self) -> &Arc<Inbox> {
        &self.shared.inbox
    }

    /// Notes and POSTs a message, as [`MessageSink::send`] does. The cancellation of a
    /// 2026-07-28 request only closes its stream: that era has no cancel notification over HTTP.
    pub(crate) fn note_and_dispatch(&mut self, mut message: Encoded) {
        self.note_outgoing(&mut message);
        if let Intent::Cancel(id) = &message.intent {
            if lock(&self.shared.modern_calls).remove(id) {
                return;
            }
        }
        self.dispatch(message);
    }

    fn register_call(&self, id: &RequestId) -> CancellationToken {
        let token = self.shared.inbox.closed_token().child_token();
        lock(&self.shared.calls).insert(id.clone(), token.clone());
        token
    }

    /// Starts the POST of one message in its own task.
    pub(crate) fn dispatch(&mut self, message: Encoded) {
        let shared = self.shared.clone();
        match message.kind {
            Kind::Request { id } if message.modern => {
                let cancel = self.register_call(&id);
                lock(&self.shared.modern_calls).insert(id.clone());
                self.shared.tasks.spawn(async move {
                    let result = match shared.modern_post(&message.body) {
                        Ok(post) => tokio::select! {
                            _ = cancel.cancelled() => Ok(()),
                            r = shared.exchange_modern(&id, message.body, post) => r,
                        },
                        Err(reason) => Err(HttpError::Body {
                            url: shared.url_text.clone(),
                            detail: format!("could not make the 2026-07-28 headers: {reason}"),
                        }),
                    };
                    lock(&shared.modern_calls).remove(&id);
                    shared.finish_call(&id, result).await;
                });
            }
            Kind::Request { id } => {
                let cancel = self.register_call(&id);
                let barrier = self.barrier.clone();
                let is_init = message.intent == Intent::Initialize;
                self.shared.tasks.spawn(async move {
                    let result = tokio::select! {
                        _ = cancel.cancelled() => Ok(()),
                        r = async {
                            barrier.cancelled().await;
                            shared.exchange(&id, is_init, message.body, None).await
                        } => r,
                    };
                    shared.finish_call(&id, result).await;
                });
            }
            Kind::Notification | Kind::Response => {
                let initialized = message.intent == Intent::Initialized;
                let done = CancellationToken::new();
                let previous = std::mem::replace(&mut self.barrier, done.clone());
                let closed = self.shared.inbox.closed_token().clone();
                self.shared.tasks.spawn(async move {
                    tokio::select! {
                        _ = closed.cancelled() => {}
                        _ = async {
                            previous.cancelled().await;
                            shared.post_message(initialized, message.body, &done).await;
                        } => {}
                    }
                    done.cancel();
                });
            }
        }
    }
}

impl MessageSink for StreamableHttpSink {
    async fn send(&mut self, message: Outgoing) -> io::Result<()> {
        if self.closed || self.shared.inbox.is_closed() {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                format!("the HTTP transport to {} is closed", self.shared.url_text),
            ));
        }
        self.note_and_dispatch(encode(message));
        Ok(())
    }

    async fn close(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        self.shared.end_session().await;
        self.shared.inbox.close("closed locally");
        self.shared.tasks.close();
        Ok(())
    }
}

impl Drop for StreamableHttpSink {
    fn drop(&mut self) {
        self.shared.inbox.close("the transport was dropped");
    }
}

impl Shared {
    /// POSTs a body to the endpoint; `with_session` adds the session headers.
    async fn post(&self, body: Bytes, with_session: bool) -> Result<Response<Incoming>, HttpError> {
        let mut headers = vec![
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (
                ACCEPT,
                HeaderValue::from_static("application/json, text/event-stream"),
            ),
        ];
        if with_session {
            headers.extend(self.session_headers().0);
        }
        let request = self.conn.request(Method::POST, &self.url, &headers, body);
        self.conn.send(request).await
    }

    /// A GET on the endpoint for an event stream, resuming after `last_event_id` if given.
    async fn get(&self, last_event_id: Option<&str>) -> Result<Response<Incoming>, HttpError> {
        let mut headers = vec![(ACCEPT, HeaderValue::from_static("text/event-stream"))];
        headers.extend(self.session_headers().0);
        if let Some(id) = last_event_id.and_then(|id| HeaderValue::from_str(id).ok()) {
            headers.push((LAST_EVENT_ID, id));
        }
        let request = self
            .conn
            .request(Method::GET, &self.url, &headers, Bytes::new());
        self.conn.send(request).await
    }

    /// An error for a non-success answer, quoting the start of its body.
    async fn status_error(&self, method: Method, response: Response<Incoming>) -> HttpError {
        let status = response.status();
        let excerpt = body::read_excerpt(response.into_body(), EXCERPT_BYTES).await;
        HttpError::status_error(method, &self.url_text, status, &excerpt)
    }
}
