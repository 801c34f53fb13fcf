//! The outgoing side: where a peer's messages go (a bounded queue drained by one writer task,
//! or a sink that takes them at once) and the writer task that sends every ready message before
//! one flush.

use std::sync::atomic::Ordering;
use std::sync::Weak;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{DirectSink, MessageSink, Outgoing, PeerHandle};

/// How many queued messages the writer takes at once before it flushes.
const WRITE_BATCH: usize = 64;

/// Where a peer's outgoing messages go.
pub(super) enum Outlet {
    /// The writer task's bounded queue.
    Queue(mpsc::Sender<Outgoing>),
    /// The sink itself, which takes messages at once (see [`MessageSink::direct`]). Weak: the
    /// sink may own what owns this peer (an HTTP session keeps its peer), and only the read loop
    /// keeps the sink alive.
    Direct(Weak<dyn DirectSink>),
}

/// Who writes: a task draining the queue, or (for a direct sink) nobody but the read loop,
/// which closes the sink at the end.
pub(super) enum Writer<S> {
    Task {
        task: tokio::task::JoinHandle<()>,
        stop: CancellationToken,
    },
    Direct(S),
}

impl PeerHandle {
    /// Queues a message for the writer; false when the peer is closed.
    pub async fn send(&self, message: Outgoing) -> bool {
        match &self.shared.outlet {
            Outlet::Queue(queue) => queue.send(message).await.is_ok(),
            Outlet::Direct(direct) => self.deliver_direct(direct, message),
        }
    }

    /// Sends without waiting; a message that does not fit the queue is dropped.
    pub(super) fn try_send(&self, message: Outgoing) -> bool {
        match &self.shared.outlet {
            Outlet::Queue(queue) => queue.try_send(message).is_ok(),
            Outlet::Direct(direct) => self.deliver_direct(direct, message),
        }
    }

    fn deliver_direct(&self, direct: &Weak<dyn DirectSink>, message: Outgoing) -> bool {
        if self.shared.writer_done.load(Ordering::Acquire) {
            return false;
        }
        match direct.upgrade() {
            Some(direct) => {
                direct.deliver(message);
                true
            }
            None => false,
        }
    }
}

/// Drains the queue into the sink, several messages per flush, until stopped; a write failure
/// fails our waiting calls and stops the read loop.
pub(super) async fn write_loop<S: MessageSink>(
    mut sink: S,
    mut rx: mpsc::Receiver<Outgoing>,
    peer: PeerHandle,
    stop: CancellationToken,
) {
    // Grows on the first burst only: an idle peer (one per HTTP session) stays small.
    let mut ready = Vec::new();
    let mut failed = false;
    loop {
        let n = tokio::select! {
            biased;
            n = rx.recv_many(&mut ready, WRITE_BATCH) => n,
            _ = stop.cancelled() => {
                while let Ok(m) = rx.try_recv() {
                    ready.push(m);
                }
                if ready.is_empty() { 0 } else { ready.len() }
            }
        };
        if n == 0 {
            break;
        }
        if failed {
            ready.clear();
            continue;
        }
        let mut result = Ok(());
        for message in ready.drain(..) {
            result = sink.send(message).await;
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            result = sink.flush().await;
        }
        if let Err(e) = result {
            failed = true;
            ready.clear();
            tracing::debug!(peer = %peer.shared.options.name, "write failed: {e}");
            peer.shared
                .pending
                .close(&format!("writing to the transport failed: {e}"));
            peer.shared.stop.cancel();
        }
        if stop.is_cancelled() && rx.is_empty() {
            break;
        }
    }
    peer.shared.writer_done.store(true, Ordering::Release);
    if !failed {
        let _ = sink.close().await;
    }
}
