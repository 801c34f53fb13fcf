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

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use hyper::{Method, Response, StatusCode, Uri};
use mcp_proto::jsonrpc::{Message, Notification, RawJson, Request, RequestId};
use mcp_proto::peer::{MessageSink, Outbound, Outgoing, Transport};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::body::{self, BodyKind, EventStream};
use super::connection::{check_url, Connection};
use super::error::HttpError;
use super::inbox::{HttpSource, Inbox};
use super::HttpClientConfig;

/// The session id header (names are case-insensitive on the wire).
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// The negotiated protocol version header (2025-06-18 and later).
pub(crate) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// The SSE resumption header.
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
/// How much of an error body is read for the error message.
const EXCERPT_BYTES: usize = 2048;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

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

/// What the transport knows about the current session.
#[derive(Default)]
struct Session {
    /// The `Mcp-Session-Id` the server assigned, if any.
    id: Option<HeaderValue>,
    /// The negotiated protocol version, once the `initialize` answer was seen.
    version: Option<HeaderValue>,
    /// The params of the client's `initialize`, replayed to start a new session.
    init_params: Option<String>,
    /// The params of `notifications/initialized`, once the client sent it.
    initialized: Option<Option<String>>,
    /// Bumped at every new session, so concurrent 404s re-initialize only once.
    generation: u64,
    /// Stops the GET stream of this session.
    listener: Option<CancellationToken>,
}

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
}

/// The writing half of [`StreamableHttpTransport`]: POSTs each message from its own task.
pub struct StreamableHttpSink {
    shared: Arc<Shared>,
    /// Done when the previous notification or response has been accepted, so the server sees
    /// `notifications/initialized` before the requests that follow it.
    barrier: CancellationToken,
    closed: bool,
}

/// A token that is already cancelled: a barrier nothing waits behind.
pub(crate) fn done_token() -> CancellationToken {
    let t = CancellationToken::new();
    t.cancel();
    t
}

/// An outgoing message, serialized, and what the transport needs to know about it.
pub(crate) struct Encoded {
    pub(crate) body: Bytes,
    pub(crate) kind: Kind,
}

/// The part of an outgoing message the transport acts on.
pub(crate) enum Kind {
    /// A request we wait an answer for.
    Request {
        id: RequestId,
        method: String,
        params: Option<String>,
    },
    /// A notification.
    Notification {
        method: String,
        params: Option<String>,
    },
    /// Responses to the server's requests (one or a batch).
    Response,
}

pub(crate) fn encode(message: Outgoing) -> Encoded {
    match message.body {
        Outbound::Single(m) => {
            let body = Bytes::from(m.to_json());
            let kind = match m {
                Message::Request(Request { id, method, params }) => Kind::Request {
                    id,
                    method,
                    params: params.map(|p| p.get().to_owned()),
                },
                Message::Notification(Notification { method, params }) => Kind::Notification {
                    method,
                    params: params.map(|p| p.get().to_owned()),
                },
                _ => Kind::Response,
            };
            Encoded { body, kind }
        }
        Outbound::Batch(ms) => {
            let mut out = Vec::new();
            let _ = serde_json::to_writer(&mut out, &mcp_proto::jsonrpc::Batch(&ms));
            Encoded {
                body: Bytes::from(out),
                kind: Kind::Response,
            }
        }
    }
}

/// The `requestId` of a `notifications/cancelled`.
pub(crate) fn cancelled_request(params: Option<&str>) -> Option<RequestId> {
    #[derive(Deserialize)]
    struct Params {
        #[serde(rename = "requestId")]
        request_id: RequestId,
    }
    let params: Params = serde_json::from_str(params?).ok()?;
    Some(params.request_id)
}

/// How a probing `initialize` POST went (for the automatic choice of transport).
pub(crate) enum Probe {
    /// The server speaks Streamable HTTP; the answer is being read.
    Streamable,
    /// The server answered 400, 404 or 405: try legacy SSE with this message.
    Fallback {
        status: StatusCode,
        message: Encoded,
    },
}

impl StreamableHttpSink {
    /// Records what the transport must know about a message before it leaves.
    fn note_outgoing(&self, kind: &Kind) {
        match kind {
            Kind::Request { method, params, .. } if method == "initialize" => {
                lock(&self.shared.session).init_params = params.clone();
            }
            Kind::Notification { method, params } if method == "notifications/initialized" => {
                lock(&self.shared.session).initialized = Some(params.clone());
            }
            Kind::Notification { method, params } if method == "notifications/cancelled" => {
                if let Some(id) = cancelled_request(params.as_deref()) {
                    if let Some(token) = lock(&self.shared.calls).remove(&id) {
                        token.cancel();
                    }
                }
            }
            _ => {}
        }
    }

    /// Sends an `initialize` POST and waits for its status: on 400, 404 or 405 hands the message
    /// back for the legacy transport, else reads the answer in the background.
    pub(crate) async fn probe_initialize(&mut self, message: Encoded) -> Probe {
        self.note_outgoing(&message.kind);
        let Kind::Request { id, method, .. } = &message.kind else {
            self.dispatch(message);
            return Probe::Streamable;
        };
        let (id, method) = (id.clone(), method.clone());
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
                r = shared.exchange(&id, &method, body, Some(response)) => r,
            };
            shared.finish_call(&id, result).await;
        });
        Probe::Streamable
    }

    /// The queue this sink's answers go to (shared with a fallback transport).
    pub(crate) fn inbox(&self) -> &Arc<Inbox> {
        &self.shared.inbox
    }

    /// Notes and POSTs a message, as [`MessageSink::send`] does.
    pub(crate) fn note_and_dispatch(&mut self, message: Encoded) {
        self.note_outgoing(&message.kind);
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
            Kind::Request { id, method, .. } => {
                let cancel = self.register_call(&id);
                let barrier = self.barrier.clone();
                self.shared.tasks.spawn(async move {
                    let result = tokio::select! {
                        _ = cancel.cancelled() => Ok(()),
                        r = async {
                            barrier.cancelled().await;
                            shared.exchange(&id, &method, message.body, None).await
                        } => r,
                    };
                    shared.finish_call(&id, result).await;
                });
            }
            kind => {
                let done = CancellationToken::new();
                let previous = std::mem::replace(&mut self.barrier, done.clone());
                let closed = self.shared.inbox.closed_token().clone();
                self.shared.tasks.spawn(async move {
                    tokio::select! {
                        _ = closed.cancelled() => {}
                        _ = async {
                            previous.cancelled().await;
                            shared.post_message(&kind, message.body, &done).await;
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
        let message = encode(message);
        self.note_outgoing(&message.kind);
        self.dispatch(message);
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
    /// The headers of the current session: session id and protocol version, when known.
    fn session_headers(&self) -> (Vec<(HeaderName, HeaderValue)>, u64, bool) {
        let s = lock(&self.session);
        let mut headers = Vec::with_capacity(2);
        if let Some(id) = &s.id {
            headers.push((SESSION_ID, id.clone()));
        }
        if let Some(version) = &s.version {
            headers.push((PROTOCOL_VERSION, version.clone()));
        }
        (headers, s.generation, s.id.is_some())
    }

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

    /// After a request's task ends: fail the call on error and forget it.
    async fn finish_call(&self, id: &RequestId, result: Result<(), HttpError>) {
        if let Err(e) = result {
            tracing::debug!("request {id} to {} failed: {e}", self.url_text);
            self.inbox.fail_request(id.clone(), &e).await;
            if matches!(e, HttpError::SessionExpired { .. }) {
                // No session to go on with: the transport is done.
                self.inbox.close(e.to_string());
            }
        }
        lock(&self.calls).remove(id);
    }

    /// POSTs a request and reads its answer into the inbox, starting a new session and retrying
    /// once when the old one expired. `first` is an answer already received for this body.
    async fn exchange(
        self: &Arc<Self>,
        id: &RequestId,
        method: &str,
        body: Bytes,
        mut first: Option<Response<Incoming>>,
    ) -> Result<(), HttpError> {
        let is_init = method == "initialize";
        let mut retried = false;
        loop {
            let (_, generation, had_session) = self.session_headers();
            let response = match first.take() {
                Some(response) => response,
                None => self.post(body.clone(), !is_init).await?,
            };
            let status = response.status();
            if status == StatusCode::NOT_FOUND && had_session && !is_init {
                let error = self.status_error(Method::POST, response).await;
                if self.config.reinit_on_expiry && !retried {
                    retried = true;
                    match self.reinitialize(generation, &error).await {
                        Ok(()) => continue,
                        // The server is unreachable: a later request may try again.
                        Err(e @ (HttpError::Connect { .. } | HttpError::Timeout { .. })) => {
                            return Err(e)
                        }
                        Err(e @ HttpError::SessionExpired { .. }) => return Err(e),
                        Err(other) => {
                            return Err(HttpError::SessionExpired {
                                url: self.url_text.clone(),
                                reason: format!("re-initializing failed: {other}"),
                            })
                        }
                    }
                }
                let expired = HttpError::SessionExpired {
                    url: self.url_text.clone(),
                    reason: if retried {
                        format!("the new session was refused too: {error}")
                    } else {
                        format!("{error} (re-initializing is turned off)")
                    },
                };
                return Err(expired);
            }
            if !status.is_success() {
                return Err(self.status_error(Method::POST, response).await);
            }
            if is_init {
                self.note_session(&response);
            }
            return self.read_answer(id, is_init, response).await;
        }
    }

    /// Takes the session id from the answer to an `initialize`: a new session starts.
    fn note_session(&self, response: &Response<Incoming>) {
        let mut s = lock(&self.session);
        s.id = response.headers().get(SESSION_ID).cloned();
        s.generation += 1;
        if let Some(listener) = s.listener.take() {
            listener.cancel();
        }
    }

    /// Learns the negotiated version from the answer to `initialize`.
    fn note_version(&self, frame: &[u8]) {
        #[derive(Deserialize)]
        struct Answer {
            result: Option<InitResult>,
        }
        #[derive(Deserialize)]
        struct InitResult {
            #[serde(rename = "protocolVersion")]
            protocol_version: String,
        }
        if let Ok(Answer {
            result: Some(result),
        }) = serde_json::from_slice::<Answer>(frame)
        {
            if let Ok(value) = HeaderValue::from_str(&result.protocol_version) {
                lock(&self.session).version = Some(value);
            }
        }
    }

    /// Reads the answer to request `id`: one JSON body, or an SSE stream up to the response,
    /// resumed with GET and `Last-Event-ID` if it drops first.
    async fn read_answer(
        &self,
        id: &RequestId,
        is_init: bool,
        response: Response<Incoming>,
    ) -> Result<(), HttpError> {
        match body::body_kind(&response) {
            BodyKind::Json => {
                let bytes = body::read_limited(response.into_body(), self.config.max_message_size)
                    .await
                    .map_err(|detail| HttpError::Body {
                        url: self.url_text.clone(),
                        detail,
                    })?;
                if is_init {
                    self.note_version(&bytes);
                }
                let answered = self
                    .inbox
                    .deliver_frame(&bytes)
                    .await
                    .is_some_and(|s| s.answers(id));
                if answered {
                    Ok(())
                } else {
                    Err(HttpError::Body {
                        url: self.url_text.clone(),
                        detail: format!(
                            "the JSON answer does not hold the response to request {id}"
                        ),
                    })
                }
            }
            BodyKind::EventStream => {
                let stream = EventStream::new(response.into_body(), self.config.max_message_size);
                self.read_stream(id, is_init, stream).await
            }
            BodyKind::Other if response.status() == StatusCode::ACCEPTED => {
                // No answer on this request; the server may send it on the GET stream.
                Ok(())
            }
            BodyKind::Other => Err(HttpError::ContentType {
                method: Method::POST,
                url: self.url_text.clone(),
                content_type: body::content_type(&response),
            }),
        }
    }

    /// Delivers the events of a request's SSE answer until its response, resuming the stream
    /// when it drops before that.
    async fn read_stream(
        &self,
        id: &RequestId,
        is_init: bool,
        mut stream: EventStream,
    ) -> Result<(), HttpError> {
        let policy = &self.config.reconnect;
        let mut attempts = 0u32;
        loop {
            match stream.next().await {
                Ok(event) => {
                    if !event.is_message() || event.data.is_empty() {
                        continue;
                    }
                    attempts = 0;
                    if is_init {
                        self.note_version(event.data.as_bytes());
                    }
                    let summary = self.inbox.deliver_frame(event.data.as_bytes()).await;
                    if summary.is_some_and(|s| s.answers(id)) {
                        return Ok(());
                    }
                }
                Err(end) => {
                    let how = match end {
                        body::StreamEnd::Eof => "closed".to_owned(),
                        body::StreamEnd::Error(e) => format!("failed ({e})"),
                    };
                    let Some(last) = stream.last_event_id().map(str::to_owned) else {
                        return Err(HttpError::StreamEnded {
                            url: self.url_text.clone(),
                            reason: format!(
                                "it {how} before the response to request {id}, without an event id to resume from"
                            ),
                        });
                    };
                    loop {
                        if attempts >= policy.max_attempts {
                            return Err(HttpError::StreamEnded {
                                url: self.url_text.clone(),
                                reason: format!(
                                    "it {how} before the response to request {id}; gave up resuming after {attempts} attempts"
                                ),
                            });
                        }
                        let delay = policy.delay(attempts, stream.retry());
                        attempts += 1;
                        tokio::time::sleep(delay).await;
                        tracing::debug!("resuming the stream of request {id} after event {last}");
                        match self.get(Some(&last)).await {
                            Ok(response)
                                if response.status().is_success()
                                    && body::body_kind(&response) == BodyKind::EventStream =>
                            {
                                stream.reconnect(response.into_body());
                                break;
                            }
                            Ok(response)
                                if response.status().is_client_error()
                                    && response.status() != StatusCode::CONFLICT
                                    && response.status() != StatusCode::TOO_MANY_REQUESTS =>
                            {
                                let error = self.status_error(Method::GET, response).await;
                                return Err(HttpError::StreamEnded {
                                    url: self.url_text.clone(),
                                    reason: format!(
                                        "it {how} before the response to request {id}, and resuming failed: {error}"
                                    ),
                                });
                            }
                            Ok(response) => {
                                let error = self.status_error(Method::GET, response).await;
                                tracing::debug!("resuming failed, will retry: {error}");
                            }
                            Err(e) => tracing::debug!("resuming failed, will retry: {e}"),
                        }
                    }
                }
            }
        }
    }

    /// POSTs a notification or response; they are answered with 202 and no body.
    async fn post_message(
        self: &Arc<Self>,
        kind: &Kind,
        body: Bytes,
        accepted: &CancellationToken,
    ) {
        let response = match self.post(body, true).await {
            Ok(response) => response,
            Err(e) => {
                tracing::warn!("could not deliver a message: {e}");
                return;
            }
        };
        let status = response.status();
        if !status.is_success() {
            let error = self.status_error(Method::POST, response).await;
            tracing::warn!("the server refused a message: {error}");
            return;
        }
        accepted.cancel();
        let initialized = matches!(kind, Kind::Notification { method, .. } if method == "notifications/initialized");
        // Drain whatever body came along (normally none).
        let _ = body::read_excerpt(response.into_body(), EXCERPT_BYTES).await;
        if initialized {
            self.start_listener();
        }
    }

    /// Opens the GET stream of the current session in the background, if configured.
    fn start_listener(self: &Arc<Self>) {
        if !self.config.open_get_stream || self.inbox.is_closed() {
            return;
        }
        let token = self.inbox.closed_token().child_token();
        {
            let mut s = lock(&self.session);
            if let Some(old) = s.listener.replace(token.clone()) {
                old.cancel();
            }
        }
        let shared = self.clone();
        self.tasks.spawn(async move {
            tokio::select! {
                _ = token.cancelled() => {}
                _ = shared.listen() => {}
            }
        });
    }

    /// The GET stream: delivers server-initiated messages, reconnects with backoff (resuming
    /// after the last event id), and stops for good on 404 or 405 (no stream offered).
    async fn listen(&self) {
        let policy = &self.config.reconnect;
        let mut stream: Option<EventStream> = None;
        let mut failures = 0u32;
        loop {
            let last = stream
                .as_ref()
                .and_then(|s| s.last_event_id().map(str::to_owned));
            match self.get(last.as_deref()).await {
                Ok(response)
                    if response.status() == StatusCode::METHOD_NOT_ALLOWED
                        || response.status() == StatusCode::NOT_FOUND =>
                {
                    tracing::debug!(
                        "{} offers no GET stream ({})",
                        self.url_text,
                        response.status()
                    );
                    return;
                }
                Ok(response)
                    if response.status().is_success()
                        && body::body_kind(&response) == BodyKind::EventStream =>
                {
                    failures = 0;
                    match stream.as_mut() {
                        Some(s) => s.reconnect(response.into_body()),
                        None => {
                            stream = Some(EventStream::new(
                                response.into_body(),
                                self.config.max_message_size,
                            ))
                        }
                    }
                    let mut events = 0usize;
                    if let Some(s) = stream.as_mut() {
                        while let Ok(event) = s.next().await {
                            events += 1;
                            if event.is_message() && !event.data.is_empty() {
                                self.inbox.deliver_frame(event.data.as_bytes()).await;
                            }
                        }
                    }
                    if events == 0 {
                        // A stream that ends without a single event is no better than a
                        // failure: back off instead of reconnecting in a tight loop.
                        failures += 1;
                    }
                }
                Ok(response) => {
                    failures += 1;
                    let error = if response.status().is_success() {
                        HttpError::ContentType {
                            method: Method::GET,
                            url: self.url_text.clone(),
                            content_type: body::content_type(&response),
                        }
                    } else {
                        self.status_error(Method::GET, response).await
                    };
                    tracing::debug!("the GET stream could not be opened: {error}");
                }
                Err(e) => {
                    failures += 1;
                    tracing::debug!("the GET stream could not be opened: {e}");
                }
            }
            if failures > policy.max_attempts {
                tracing::warn!(
                    "gave up on the GET stream of {} after {} failures",
                    self.url_text,
                    failures - 1
                );
                return;
            }
            let retry = stream.as_ref().and_then(EventStream::retry);
            tokio::time::sleep(policy.delay(failures.saturating_sub(1), retry)).await;
        }
    }

    /// Starts a new session after the one of `generation` expired: replays the client's
    /// `initialize` and `notifications/initialized`. Concurrent callers re-initialize once.
    async fn reinitialize(
        self: &Arc<Self>,
        generation: u64,
        cause: &HttpError,
    ) -> Result<(), HttpError> {
        let _guard = self.reinit.lock().await;
        let (params, initialized) = {
            let s = lock(&self.session);
            if s.generation != generation {
                return Ok(());
            }
            (s.init_params.clone(), s.initialized.clone())
        };
        let expired = |reason: String| HttpError::SessionExpired {
            url: self.url_text.clone(),
            reason,
        };
        let Some(params) = params else {
            return Err(expired(format!("{cause}; no initialize request to replay")));
        };
        tracing::info!(
            "session at {} expired ({cause}); starting a new one",
            self.url_text
        );
        let n = self.reinit_count.fetch_add(1, Ordering::Relaxed) + 1;
        let init_id = RequestId::from(format!("mcp-client-reinitialize-{n}"));
        let raw: RawJson = serde_json::value::RawValue::from_string(params)
            .map_err(|e| expired(format!("the initialize params cannot be replayed: {e}")))?;
        let request = Message::Request(Request {
            id: init_id.clone(),
            method: "initialize".into(),
            params: Some(raw),
        });
        let response = self.post(Bytes::from(request.to_json()), false).await?;
        if !response.status().is_success() {
            let error = self.status_error(Method::POST, response).await;
            return Err(expired(format!("re-initializing failed: {error}")));
        }
        self.note_session(&response);
        let answer = self.read_private_answer(&init_id, response).await?;
        #[derive(Deserialize)]
        struct Answer {
            result: Option<serde_json::Value>,
            error: Option<serde_json::Value>,
        }
        let answer: Answer = serde_json::from_slice(&answer)
            .map_err(|e| expired(format!("the new initialize answer is unreadable: {e}")))?;
        if let Some(error) = answer.error {
            return Err(expired(format!(
                "the server refused the new initialize: {error}"
            )));
        }
        if answer.result.is_none() {
            return Err(expired("the new initialize answer has no result".into()));
        }
        if let Some(params) = initialized {
            let raw = params.and_then(|p| serde_json::value::RawValue::from_string(p).ok());
            let note = Message::Notification(Notification {
                method: "notifications/initialized".into(),
                params: raw,
            });
            let response = self.post(Bytes::from(note.to_json()), true).await?;
            if !response.status().is_success() {
                let error = self.status_error(Method::POST, response).await;
                return Err(expired(format!(
                    "the new session refused notifications/initialized: {error}"
                )));
            }
            let _ = body::read_excerpt(response.into_body(), EXCERPT_BYTES).await;
            self.start_listener();
        }
        Ok(())
    }

    /// Reads the answer to a request the transport made itself (the replayed `initialize`):
    /// returns its response frame and passes anything else on to the inbox.
    async fn read_private_answer(
        &self,
        id: &RequestId,
        response: Response<Incoming>,
    ) -> Result<Vec<u8>, HttpError> {
        let url = self.url_text.clone();
        let is_ours = |frame: &[u8]| {
            #[derive(Deserialize)]
            struct Id {
                id: Option<RequestId>,
                method: Option<serde::de::IgnoredAny>,
            }
            serde_json::from_slice::<Id>(frame)
                .is_ok_and(|m| m.method.is_none() && m.id.as_ref() == Some(id))
        };
        match body::body_kind(&response) {
            BodyKind::Json => {
                let bytes = body::read_limited(response.into_body(), self.config.max_message_size)
                    .await
                    .map_err(|detail| HttpError::Body { url, detail })?;
                self.note_version(&bytes);
                Ok(bytes.to_vec())
            }
            BodyKind::EventStream => {
                let mut stream =
                    EventStream::new(response.into_body(), self.config.max_message_size);
                while let Ok(event) = stream.next().await {
                    if !event.is_message() || event.data.is_empty() {
                        continue;
                    }
                    let frame = event.data.as_bytes();
                    if is_ours(frame) {
                        self.note_version(frame);
                        return Ok(frame.to_vec());
                    }
                    self.inbox.deliver_frame(frame).await;
                }
                Err(HttpError::StreamEnded {
                    url,
                    reason: "it closed before the answer to the new initialize".into(),
                })
            }
            BodyKind::Other => Err(HttpError::ContentType {
                method: Method::POST,
                url,
                content_type: body::content_type(&response),
            }),
        }
    }

    /// Ends the session with a DELETE (bounded by the close timeout); 405 means the server does
    /// not let clients end sessions, which is fine.
    async fn end_session(&self) {
        let (headers, _, had_session) = self.session_headers();
        if !had_session {
            return;
        }
        let request = self
            .conn
            .request(Method::DELETE, &self.url, &headers, Bytes::new());
        match tokio::time::timeout(self.config.close_timeout, self.conn.send(request)).await {
            Ok(Ok(response)) => {
                tracing::debug!("DELETE {} answered {}", self.url_text, response.status())
            }
            Ok(Err(e)) => tracing::debug!("DELETE failed: {e}"),
            Err(_) => tracing::debug!(
                "DELETE {} timed out after {:?}",
                self.url_text,
                self.config.close_timeout
            ),
        }
    }
}
