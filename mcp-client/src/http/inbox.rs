//! The reading half every HTTP transport shares: POST answers, SSE streams and transport errors
//! all feed one bounded queue, and the [`HttpSource`] reads it.
//!
//! A failed POST never leaves its caller waiting: the transport puts a JSON-RPC error response
//! with the request's id into this queue, so the peer completes the call with a clear message.

use std::sync::{Arc, Mutex};

use mcp_proto::codec::FrameError;
use mcp_proto::jsonrpc::{self, ErrorObject, Incoming, Message, RequestId};
use mcp_proto::peer::{MessageSource, Received};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::error::HttpError;

/// The JSON-RPC error code of a request that failed in the HTTP transport (no server answer).
pub const TRANSPORT_ERROR_CODE: i64 = -32000;

/// The sending side of the queue, shared by the tasks of one transport.
pub(crate) struct Inbox {
    tx: mpsc::Sender<Received>,
    closed: CancellationToken,
    reason: Mutex<Option<String>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Inbox {
    /// A queue of `capacity` messages and the source that reads it.
    pub(crate) fn new(capacity: usize) -> (Arc<Inbox>, HttpSource) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let inbox = Arc::new(Inbox {
            tx,
            closed: CancellationToken::new(),
            reason: Mutex::new(None),
        });
        let source = HttpSource {
            rx,
            inbox: inbox.clone(),
        };
        (inbox, source)
    }

    /// Queues one item for the source; false once the transport is closed.
    pub(crate) async fn deliver(&self, item: Received) -> bool {
        tokio::select! {
            biased;
            _ = self.closed.cancelled() => false,
            sent = self.tx.send(item) => sent.is_ok(),
        }
    }

    /// Parses a frame (a JSON body or an SSE `data` field) and queues the message, or the
    /// parse error so the peer can log it. Returns the parsed message's kind for the caller.
    pub(crate) async fn deliver_frame(&self, frame: &[u8]) -> Option<FrameSummary> {
        let item = jsonrpc::parse(frame).map_err(FrameError::from);
        let summary = match &item {
            Ok(Incoming::Single(m)) => Some(FrameSummary::of(m)),
            Ok(Incoming::Batch(items)) => Some(FrameSummary {
                response_ids: items
                    .iter()
                    .filter_map(|m| m.as_ref().ok())
                    .filter(|m| m.method().is_none())
                    .filter_map(|m| m.id().cloned())
                    .collect(),
            }),
            Err(_) => None,
        };
        self.deliver(item).await;
        summary
    }

    /// Answers our request `id` with a transport error, so its caller sees `error` at once.
    pub(crate) async fn fail_request(&self, id: RequestId, error: &HttpError) {
        let mut object = ErrorObject::new(TRANSPORT_ERROR_CODE, error.to_string());
        if let Some(status) = error.status() {
            object = object.with_data(&serde_json::json!({ "httpStatus": status.as_u16() }));
        }
        self.deliver(Ok(Incoming::Single(Message::error(Some(id), object))))
            .await;
    }

    /// Ends the source after what is queued; the first reason given is the one reported.
    pub(crate) fn close(&self, reason: impl Into<String>) {
        {
            let mut slot = lock(&self.reason);
            if slot.is_none() {
                *slot = Some(reason.into());
            }
        }
        self.closed.cancel();
    }

    /// True once [`close`](Self::close) was called.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.is_cancelled()
    }

    /// A token cancelled when the transport closes, for tasks to stop with.
    pub(crate) fn closed_token(&self) -> &CancellationToken {
        &self.closed
    }
}

/// What a delivered frame answered: the ids of the responses in it.
#[derive(Debug, Default)]
pub(crate) struct FrameSummary {
    /// Ids of responses (results and errors) in the frame.
    pub(crate) response_ids: Vec<RequestId>,
}

impl FrameSummary {
    fn of(message: &Message) -> Self {
        let response_ids = match (message.method(), message.id()) {
            (None, Some(id)) => vec![id.clone()],
            _ => Vec::new(),
        };
        FrameSummary { response_ids }
    }

    /// Whether the frame holds the response to `id`.
    pub(crate) fn answers(&self, id: &RequestId) -> bool {
        self.response_ids.contains(id)
    }
}

/// The reading half of every HTTP transport: messages from POST answers and SSE streams.
pub struct HttpSource {
    rx: mpsc::Receiver<Received>,
    inbox: Arc<Inbox>,
}

impl MessageSource for HttpSource {
    async fn recv(&mut self) -> Option<Received> {
        tokio::select! {
            biased;
            item = self.rx.recv() => item,
            _ = self.inbox.closed.cancelled() => self.rx.try_recv().ok(),
        }
    }

    async fn close_reason(&mut self) -> Option<String> {
        lock(&self.inbox.reason).clone()
    }
}
