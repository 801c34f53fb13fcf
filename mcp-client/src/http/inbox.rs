//! The reading half every HTTP transport shares: POST answers, SSE streams and transport errors
//! all feed one bounded queue, and the [`HttpSource`] reads it.
//!
//! A failed POST never leaves its caller waiting: the transport queues the failure with the
//! request's id, and the source hands it, in order with the frames, to the peer's
//! [`PeerHandle::fail_request`], so the call fails with a typed transport error naming the
//! HTTP failure.

use std::sync::{Arc, Mutex};

use mcp_proto::codec::FrameError;
use mcp_proto::jsonrpc::{self, Incoming, Message, RequestId};
use mcp_proto::peer::{MessageSource, PeerHandle, Received};
use mcp_proto::sync::lock;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::error::HttpError;

/// What the transport's tasks queue for the source: a frame, or the failure of one request.
enum InboxItem {
    /// A frame for the peer (a message, a batch, or one that could not be parsed).
    Frame(Received),
    /// Our request `id` could not be carried; `detail` says how (status, URL, body excerpt).
    Failed { id: RequestId, detail: String },
}

/// The sending side of the queue, shared by the tasks of one transport.
pub(crate) struct Inbox {
    tx: mpsc::Sender<InboxItem>,
    closed: CancellationToken,
    reason: Mutex<Option<String>>,
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
            peer: None,
        };
        (inbox, source)
    }

    /// Queues one item for the source; false once the transport is closed.
    async fn deliver(&self, item: InboxItem) -> bool {
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
        self.deliver(InboxItem::Frame(item)).await;
        summary
    }

    /// Fails our request `id` with `error`, in order with the frames before it, so its caller
    /// gets a typed transport error at once instead of waiting for an answer that cannot come.
    pub(crate) async fn fail_request(&self, id: RequestId, error: &HttpError) {
        let detail = error.to_string();
        self.deliver(InboxItem::Failed { id, detail }).await;
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
    rx: mpsc::Receiver<InboxItem>,
    inbox: Arc<Inbox>,
    /// The peer reading this source, told of requests that failed in the transport.
    peer: Option<PeerHandle>,
}

impl HttpSource {
    /// The next queued item; after the close, only what was queued before it.
    async fn next_item(&mut self) -> Option<InboxItem> {
        tokio::select! {
            biased;
            item = self.rx.recv() => item,
            _ = self.inbox.closed.cancelled() => self.rx.try_recv().ok(),
        }
    }
}

impl MessageSource for HttpSource {
    async fn recv(&mut self) -> Option<Received> {
        loop {
            match self.next_item().await? {
                InboxItem::Frame(frame) => return Some(frame),
                InboxItem::Failed { id, detail } => match &self.peer {
                    Some(peer) => {
                        peer.fail_request(&id, detail);
                    }
                    None => tracing::warn!("request {id} failed with no peer to tell: {detail}"),
                },
            }
        }
    }

    async fn close_reason(&mut self) -> Option<String> {
        lock(&self.inbox.reason).clone()
    }

    fn attach(&mut self, peer: &PeerHandle) {
        self.peer = Some(peer.clone());
    }
}
