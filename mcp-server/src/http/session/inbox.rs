//! The bounded queue between a session's POSTs and its peer: POSTs push frames, the peer's
//! read loop takes them (see `transport`).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

use mcp_proto::peer::Received;
use mcp_proto::sync::lock;

/// How many incoming messages may wait for the peer to read them before POSTs get 503.
const INBOX_LIMIT: usize = 1024;

/// Why a frame was not queued.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// The session has ended.
    Closed,
    /// `INBOX_LIMIT` frames already wait.
    Full,
}

/// Frames waiting for the peer, at most `INBOX_LIMIT` of them.
#[derive(Default)]
pub(super) struct Inbox(Mutex<Queue>);

#[derive(Default)]
struct Queue {
    items: VecDeque<Received>,
    waker: Option<Waker>,
    closed: bool,
}

impl Inbox {
    /// Queues a frame and wakes the reader.
    pub(super) fn push(&self, item: Received) -> Result<(), Refused> {
        let mut queue = lock(&self.0);
        if queue.closed {
            return Err(Refused::Closed);
        }
        if queue.items.len() >= INBOX_LIMIT {
            return Err(Refused::Full);
        }
        queue.items.push_back(item);
        if let Some(waker) = queue.waker.take() {
            waker.wake();
        }
        Ok(())
    }

    /// The next frame; `None` once the inbox is closed and drained.
    pub(super) fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Option<Received>> {
        let mut queue = lock(&self.0);
        if let Some(item) = queue.items.pop_front() {
            return Poll::Ready(Some(item));
        }
        if queue.closed {
            return Poll::Ready(None);
        }
        queue.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    /// Refuses further frames and wakes the reader, which sees the end after what is queued.
    pub(super) fn close(&self) {
        let mut queue = lock(&self.0);
        queue.closed = true;
        if let Some(waker) = queue.waker.take() {
            waker.wake();
        }
    }

    /// Refuses further frames without waking the reader (the peer closing its own sink).
    pub(super) fn close_quietly(&self) {
        lock(&self.0).closed = true;
    }
}
