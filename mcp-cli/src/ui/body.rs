//! The bodies `mcp ui` answers with: a whole body, or a stream of Server-Sent Events fed
//! through a bounded channel (a tool call's progress, then its result).

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use tokio::sync::mpsc;

/// A response body of `mcp ui`.
#[derive(Debug)]
pub enum UiBody {
    /// A complete body (taken when sent).
    Full(Option<Bytes>),
    /// Chunks as they come; the body ends when every sender is gone.
    Stream(mpsc::Receiver<Bytes>),
}

impl Body for UiBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            UiBody::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            UiBody::Stream(rx) => rx
                .poll_recv(cx)
                .map(|chunk| chunk.map(|b| Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, UiBody::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            UiBody::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            UiBody::Full(None) => SizeHint::with_exact(0),
            UiBody::Stream(_) => SizeHint::default(),
        }
    }
}

/// A complete response with a content type; never cached (the page and its data are per run).
pub fn full(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<UiBody> {
    let mut response = Response::new(UiBody::Full(Some(body.into())));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// A JSON response.
pub fn json(status: StatusCode, value: &serde_json::Value) -> Response<UiBody> {
    full(status, "application/json", value.to_string())
}

/// A JSON error `{"error": message}`.
pub fn error(status: StatusCode, message: &str) -> Response<UiBody> {
    json(status, &serde_json::json!({ "error": message }))
}

/// One Server-Sent Event: its name and a JSON payload on one `data` line.
pub fn sse_event(event: &str, data: &serde_json::Value) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

/// A streaming `text/event-stream` response and the sender that feeds it.
pub fn sse(capacity: usize) -> (Response<UiBody>, mpsc::Sender<Bytes>) {
    let (tx, rx) = mpsc::channel(capacity);
    let mut response = Response::new(UiBody::Stream(rx));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    (response, tx)
}
