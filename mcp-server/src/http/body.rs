//! Response bodies (a whole body, or an SSE stream read from a session's [`Stream`]) and the
//! small constructors every handler uses, plus reading a request body within its limits.

use std::convert::Infallible;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, SizeHint};
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use mcp_proto::jsonrpc::{ErrorObject, Message};
use mcp_proto::sse;

use super::request_body::RequestBody;
use super::service::RequestGuard;
use super::session::{event_id, AttachGuard, Next, Session, SessionKind, Stream};

/// The body of every response the HTTP transports send: a whole body, or an SSE stream that
/// ends with its stream (or when the server shuts down).
pub struct ResponseBody {
    inner: Inner,
    /// What the request keeps alive until its response is over (see [`RequestGuard`]).
    guard: Option<RequestGuard>,
}

enum Inner {
    Full(Option<Bytes>),
    Sse(SseBody),
}

impl ResponseBody {
    /// A complete body.
    pub(crate) fn full(bytes: impl Into<Bytes>) -> Self {
        ResponseBody::of(Inner::Full(Some(bytes.into())))
    }
    /// No body.
    pub(crate) fn empty() -> Self {
        ResponseBody::of(Inner::Full(None))
    }

    fn of(inner: Inner) -> Self {
        ResponseBody { inner, guard: None }
    }

    /// The same body, keeping `guard` until it is dropped.
    pub(crate) fn guarded(mut self, guard: RequestGuard) -> Self {
        self.guard = Some(guard);
        self
    }
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner {
            Inner::Full(b) => write!(
                f,
                "ResponseBody::Full({:?} bytes)",
                b.as_ref().map(Bytes::len)
            ),
            Inner::Sse(s) => write!(f, "ResponseBody::Sse(stream {})", s.stream.id()),
        }
    }
}

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.inner {
            Inner::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Inner::Sse(body) => body.poll_next(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(&self.inner, Inner::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match &self.inner {
            Inner::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            Inner::Full(None) => SizeHint::with_exact(0),
            Inner::Sse(_) => SizeHint::default(),
        }
    }
}

/// One connection reading a [`Stream`]: first a preamble (`retry`, priming event), then the
/// stream's events as they come. Ends when the stream is over, when a newer connection takes
/// the stream over, or after `close_after` (the client then resumes with `Last-Event-ID`).
struct SseBody {
    session: Arc<Session>,
    stream: Arc<Stream>,
    generation: u64,
    cursor: u64,
    preamble: Option<Bytes>,
    close_after: Option<Pin<Box<tokio::time::Sleep>>>,
    keep_alive: Option<(Duration, Pin<Box<tokio::time::Sleep>>)>,
    _attached: AttachGuard,
}

impl SseBody {
    fn poll_next(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(pre) = self.preamble.take() {
            return Poll::Ready(Some(Ok(Frame::data(pre))));
        }
        if let Some(sleep) = &mut self.close_after {
            if sleep.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
        }
        match self
            .stream
            .poll_next(self.generation, &mut self.cursor, cx.waker())
        {
            Next::Data(bytes) => Poll::Ready(Some(Ok(Frame::data(bytes)))),
            Next::End => Poll::Ready(None),
            Next::Pending => {
                // A comment now and then: a dead client shows up as a failed write, so its
                // stream is released instead of pinning the session forever.
                if let Some((every, sleep)) = &mut self.keep_alive {
                    if sleep.as_mut().poll(cx).is_ready() {
                        let next = tokio::time::Instant::now() + *every;
                        sleep.as_mut().reset(next);
                        return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                            b": keep-alive\n\n",
                        )))));
                    }
                }
                Poll::Pending
            }
        }
    }
}

impl Drop for SseBody {
    fn drop(&mut self) {
        let finished = self.stream.disconnect(self.generation, self.cursor);
        match self.session.kind() {
            SessionKind::Legacy | SessionKind::Stateless => self.session.close(),
            // A stream closed before its answer cancels the request; after it, the connection's
            // session serves its next POST.
            SessionKind::Modern if !finished => self.session.close(),
            SessionKind::Modern => {}
            SessionKind::Streamable if finished => self.session.forget_stream(self.stream.id()),
            SessionKind::Streamable => {}
        }
    }
}

/// How an SSE response starts.
pub(crate) struct SseStart {
    /// Send `retry: N` first.
    pub retry: Option<Duration>,
    /// Send a priming event (an id and empty data) so the client can resume at once.
    pub prime: bool,
    /// End the connection after this long, leaving the stream to be resumed.
    pub close_after: Option<Duration>,
    /// A first event written before anything else (the HTTP+SSE `endpoint` event).
    pub first: Option<Bytes>,
    /// Send an SSE comment after this long without traffic.
    pub keep_alive: Option<Duration>,
}

/// A `200 text/event-stream` response reading `stream` from `cursor` on.
pub(crate) fn sse_response(
    session: &Arc<Session>,
    stream: Arc<Stream>,
    generation: u64,
    cursor: u64,
    start: SseStart,
) -> Response<ResponseBody> {
    let mut pre = BytesMut::new();
    if let Some(first) = &start.first {
        pre.extend_from_slice(first);
    }
    if let Some(retry) = start.retry {
        sse::write_retry(&mut pre, retry.as_millis() as u64);
    }
    if start.prime {
        let _ = sse::write_priming(&mut pre, &event_id(stream.id(), cursor.saturating_sub(1)));
    }
    let body = SseBody {
        session: session.clone(),
        stream,
        generation,
        cursor,
        preamble: (!pre.is_empty()).then(|| pre.freeze()),
        close_after: start.close_after.map(|d| Box::pin(tokio::time::sleep(d))),
        keep_alive: start
            .keep_alive
            .map(|d| (d, Box::pin(tokio::time::sleep(d)))),
        _attached: session.attach(),
    };
    let mut response = Response::new(ResponseBody::of(Inner::Sse(body)));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Reverse proxies (nginx) must pass events on at once, not buffer them.
    headers.insert(X_ACCEL_BUFFERING.clone(), HeaderValue::from_static("no"));
    response
}

/// `X-Accel-Buffering`.
static X_ACCEL_BUFFERING: hyper::header::HeaderName =
    hyper::header::HeaderName::from_static("x-accel-buffering");

/// A response with a status and no body.
pub(crate) fn status(status: StatusCode) -> Response<ResponseBody> {
    let mut response = Response::new(ResponseBody::empty());
    *response.status_mut() = status;
    response
}

/// A JSON response.
pub(crate) fn json(status: StatusCode, body: impl Into<Bytes>) -> Response<ResponseBody> {
    let mut response = Response::new(ResponseBody::full(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// An HTTP error carrying a JSON-RPC error without an id.
pub(crate) fn rpc_error(status: StatusCode, code: i64, message: &str) -> Response<ResponseBody> {
    message_response(
        status,
        &Message::error(None, ErrorObject::new(code, message)),
    )
}

/// A JSON response holding one message.
pub(crate) fn message_response(status: StatusCode, message: &Message) -> Response<ResponseBody> {
    let mut out = Vec::with_capacity(96);
    message.write_json(&mut out);
    json(status, out)
}

/// Why a request body could not be read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// Over the size limit.
    TooLarge,
    /// Not complete within the read timeout.
    Timeout,
    /// The connection failed while reading.
    Broken,
}

impl BodyError {
    /// The response that reports the failure.
    pub(crate) fn response(&self, limit: usize) -> Response<ResponseBody> {
        match self {
            BodyError::TooLarge => rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                mcp_proto::jsonrpc::error_codes::INVALID_REQUEST,
                &format!("the request body exceeds {limit} bytes"),
            ),
            BodyError::Timeout => rpc_error(
                StatusCode::REQUEST_TIMEOUT,
                mcp_proto::jsonrpc::error_codes::INVALID_REQUEST,
                "the request body did not arrive in time",
            ),
            BodyError::Broken => status(StatusCode::BAD_REQUEST),
        }
    }
}

/// Reads a whole request body, refusing more than `limit` bytes or taking longer than `timeout`.
pub(crate) async fn read_body(
    headers: &hyper::HeaderMap,
    body: RequestBody,
    limit: usize,
    timeout: Duration,
) -> Result<Bytes, BodyError> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(BodyError::TooLarge);
    }
    let collect = collect(body, limit);
    tokio::pin!(collect);
    // A small body is usually all here by the first poll: no timer for it.
    if let Poll::Ready(result) = poll_fn(|cx| Poll::Ready(collect.as_mut().poll(cx))).await {
        return result;
    }
    match tokio::time::timeout(timeout, collect).await {
        Err(_) => Err(BodyError::Timeout),
        Ok(result) => result,
    }
}

/// The whole body, at most `limit` bytes. A body that arrives as one chunk (the usual small
/// POST) is kept as that chunk, without a copy or a chunk list.
async fn collect(mut body: RequestBody, limit: usize) -> Result<Bytes, BodyError> {
    let mut first: Option<Bytes> = None;
    let mut joined = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.map_err(|_| BodyError::Broken)?.into_data() else {
            continue; // trailers
        };
        let so_far = first.as_ref().map_or(0, Bytes::len) + joined.len();
        if so_far + data.len() > limit {
            return Err(BodyError::TooLarge);
        }
        match first.take() {
            None if joined.is_empty() => first = Some(data),
            earlier => {
                if let Some(earlier) = earlier {
                    joined.extend_from_slice(&earlier);
                }
                joined.extend_from_slice(&data);
            }
        }
    }
    Ok(first.unwrap_or_else(|| joined.freeze()))
}

/// A request refused before it reached a session: the status and the JSON-RPC error (without
/// an id) that explain why, plus an optional header (`WWW-Authenticate`).
#[derive(Debug)]
pub(crate) struct Refusal {
    status: StatusCode,
    code: i64,
    message: std::borrow::Cow<'static, str>,
    header: Option<Box<(hyper::header::HeaderName, HeaderValue)>>,
}

impl Refusal {
    /// A refusal with this status, error code and message.
    pub(crate) fn new(
        status: StatusCode,
        code: i64,
        message: impl Into<std::borrow::Cow<'static, str>>,
    ) -> Self {
        Refusal {
            status,
            code,
            message: message.into(),
            header: None,
        }
    }

    /// Adds a header to the response.
    pub(crate) fn with_header(
        mut self,
        name: hyper::header::HeaderName,
        value: HeaderValue,
    ) -> Self {
        self.header = Some(Box::new((name, value)));
        self
    }

    /// The HTTP status.
    #[cfg(test)]
    pub(crate) fn status(&self) -> StatusCode {
        self.status
    }

    /// The header added with [`with_header`](Self::with_header), if any.
    #[cfg(test)]
    pub(crate) fn header(&self) -> Option<&HeaderValue> {
        self.header.as_ref().map(|h| &h.1)
    }
}

impl From<Refusal> for Response<ResponseBody> {
    fn from(refusal: Refusal) -> Self {
        let mut response = rpc_error(refusal.status, refusal.code, &refusal.message);
        if let Some(header) = refusal.header {
            let (name, value) = *header;
            response.headers_mut().insert(name, value);
        }
        response
    }
}
