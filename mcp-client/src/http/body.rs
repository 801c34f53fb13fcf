//! Reading response bodies: a whole JSON body within a size limit, or a `text/event-stream` body
//! event by event through the shared [`SseParser`].

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::CONTENT_TYPE;
use hyper::Response;
use mcp_proto::sse::{SseEvent, SseParser};

/// What kind of body a response has, from its `Content-Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// `application/json`.
    Json,
    /// `text/event-stream`.
    EventStream,
    /// Anything else (or none).
    Other,
}

/// The kind of a response's body, ignoring parameters (`; charset=utf-8`) and case.
pub(crate) fn body_kind(response: &Response<Incoming>) -> BodyKind {
    let Some(value) = response.headers().get(CONTENT_TYPE) else {
        return BodyKind::Other;
    };
    let text = value.to_str().unwrap_or("");
    let essence = text
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "application/json" => BodyKind::Json,
        "text/event-stream" => BodyKind::EventStream,
        _ => BodyKind::Other,
    }
}

/// The `Content-Type` header as text, empty when absent.
pub(crate) fn content_type(response: &Response<Incoming>) -> String {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

/// Reads a whole body; fails when it is larger than `limit` bytes.
pub(crate) async fn read_limited(body: Incoming, limit: usize) -> Result<Bytes, String> {
    let mut body = body;
    let mut out = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| super::error::error_chain(&e))?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > limit {
                return Err(format!("the body exceeds the maximum of {limit} bytes"));
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(out.freeze())
}

/// Reads up to `limit` bytes of a body for an error message and drops the rest.
pub(crate) async fn read_excerpt(body: Incoming, limit: usize) -> Bytes {
    let mut body = body;
    let mut out = BytesMut::new();
    while out.len() < limit {
        match body.frame().await {
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    out.extend_from_slice(&data);
                }
            }
            _ => break,
        }
    }
    out.truncate(limit);
    out.freeze()
}

/// How an SSE body ended.
#[derive(Debug)]
pub(crate) enum StreamEnd {
    /// The server ended the body normally.
    Eof,
    /// The connection failed mid-body.
    Error(String),
}

/// An event stream read from one response body after another: the parser, and with it the last
/// event id and the `retry` time, outlives each connection so a stream can be resumed.
pub(crate) struct EventStream {
    parser: SseParser,
    body: Option<Incoming>,
}

impl EventStream {
    /// A stream reading `body` with events of at most `max_event_size` bytes.
    pub(crate) fn new(body: Incoming, max_event_size: usize) -> Self {
        EventStream {
            parser: SseParser::with_max_event_size(max_event_size),
            body: Some(body),
        }
    }

    /// Continues the stream on a new connection's body (after a resume).
    pub(crate) fn reconnect(&mut self, body: Incoming) {
        self.parser.reset_stream();
        self.body = Some(body);
    }

    /// The id to resume from (`Last-Event-ID`), if the server sent one.
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        self.parser.last_event_id()
    }

    /// The server's reconnection time in milliseconds, if it sent one.
    pub(crate) fn retry(&self) -> Option<u64> {
        self.parser.retry()
    }

    /// The next event, or how the current body ended. Oversized events are skipped with a log.
    pub(crate) async fn next(&mut self) -> Result<SseEvent, StreamEnd> {
        loop {
            match self.parser.next_event() {
                Some(Ok(event)) => return Ok(event),
                Some(Err(e)) => {
                    tracing::warn!("skipped an SSE event: {e}");
                    continue;
                }
                None => {}
            }
            let Some(body) = self.body.as_mut() else {
                return Err(StreamEnd::Eof);
            };
            match body.frame().await {
                None => {
                    self.body = None;
                    return Err(StreamEnd::Eof);
                }
                Some(Err(e)) => {
                    self.body = None;
                    return Err(StreamEnd::Error(super::error::error_chain(&e)));
                }
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.parser.feed(&data);
                    }
                }
            }
        }
    }

    /// The next event that carries a JSON-RPC message: comments, other event types and empty
    /// `data` are passed over.
    pub(crate) async fn next_message(&mut self) -> Result<SseEvent, StreamEnd> {
        loop {
            let event = self.next().await?;
            if event.is_message() && !event.data.is_empty() {
                return Ok(event);
            }
        }
    }
}
