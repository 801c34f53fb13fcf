//! The read loop: takes what the transport's source delivers, in order, and dispatches it
//! (requests to the handler, answers to our waiting calls, notifications to the peer and then
//! the handler); at end of input it fails our calls, lets handlers finish and closes the writer.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::writer::Writer;
use super::Shared;
use super::{Handler, MessageSink, MessageSource, Outgoing, PeerHandle};
use crate::jsonrpc::{ErrorObject, ErrorResponse, Incoming, Message, Response};
use crate::schema::progress::Progress as ProgressNotification;
use crate::schema::{Cancelled, NotificationType};
use crate::sync::lock;

/// Messages the read loop handles before it yields. A burst of pipelined requests is answered
/// inline, so without a yield the writer task (on the same thread, under a current-thread runtime)
/// would send nothing until the whole burst is read; yielding lets the answers go out in chunks
/// while the rest is still being handled, so the other side works on them in parallel.
/// 16 was the fastest of 4, 8, 12, 16 and 32 with 64 calls in flight over stdio.
pub(super) const YIELD_EVERY: usize = 16;

pub(super) async fn read_loop<S: MessageSource, W: MessageSink, H: Handler>(
    mut source: S,
    handler: Arc<H>,
    peer: PeerHandle,
    writer: Writer<W>,
) {
    let shared = peer.shared.clone();
    let tracker = shared.tracker.clone();
    let mut guard = ReadLoopGuard {
        shared: &shared,
        writer_stop: match &writer {
            Writer::Task { stop, .. } => Some(stop.clone()),
            Writer::Direct(_) => None,
        },
        finished: false,
    };
    // Only a writer task needs the read loop to step aside; a direct sink already has the answers.
    let yields = matches!(writer, Writer::Task { .. });
    let mut read_since_yield = 0usize;
    loop {
        read_since_yield += 1;
        if yields && read_since_yield > YIELD_EVERY {
            read_since_yield = 0;
            tokio::task::yield_now().await;
        }
        let item = tokio::select! {
            biased;
            _ = shared.stop.cancelled() => None,
            item = source.recv() => item,
        };
        let Some(item) = item else { break };
        match item {
            Err(e) => {
                if shared.options.reply_to_invalid {
                    peer.send(Outgoing::new(e.to_error_response())).await;
                } else {
                    tracing::warn!(peer = %shared.options.name, "skipped a line that is not JSON-RPC: {e}");
                }
            }
            Ok(Incoming::Single(message)) => {
                dispatch(message, &handler, &peer).await;
            }
            Ok(Incoming::Batch(items)) => {
                if handler.accepts_batches(&peer) {
                    tracker.spawn(super::inbound::serve_batch(
                        items,
                        handler.clone(),
                        peer.clone(),
                    ));
                } else {
                    let version = peer
                        .protocol_version()
                        .map_or("this connection".into(), |v| {
                            format!("protocol version {v}")
                        });
                    let error = ErrorObject::invalid_request(format!(
                        "JSON-RPC batches are not supported in {version}"
                    ));
                    peer.send(Outgoing::new(Message::error(None, error))).await;
                }
            }
        }
    }
    let reason = if shared.stop.is_cancelled() {
        shared
            .pending
            .closed_reason()
            .unwrap_or_else(|| "closed locally".into())
    } else {
        source
            .close_reason()
            .await
            .unwrap_or_else(|| "the other side closed the connection".into())
    };
    tracing::debug!(peer = %shared.options.name, "input ended: {reason}");
    shared.closed.store(true, Ordering::Release);
    shared.pending.close(&reason);
    tracker.close();
    if tokio::time::timeout(shared.options.shutdown_grace, tracker.wait())
        .await
        .is_err()
    {
        tracing::warn!(peer = %shared.options.name, "cancelling {} handlers still running after the grace period", tracker.len());
        for (_, token) in lock(&shared.in_flight).values() {
            token.cancel();
        }
        let _ = tokio::time::timeout(Duration::from_secs(1), tracker.wait()).await;
    }
    match writer {
        Writer::Task { task, stop } => {
            stop.cancel();
            let _ = task.await;
        }
        Writer::Direct(mut sink) => {
            shared.writer_done.store(true, Ordering::Release);
            let _ = sink.close().await;
        }
    }
    guard.finished = true;
    shared.done.cancel();
}

/// Ends the peer when the read loop stops without finishing (it panicked, say, in a
/// notification hook or a log call): waiting calls fail, handlers are cancelled, the writer
/// flushes and closes, and [`PeerHandle::closed`] returns, so a server whose reader died still
/// exits instead of hanging.
struct ReadLoopGuard<'a> {
    shared: &'a Shared,
    writer_stop: Option<CancellationToken>,
    finished: bool,
}

impl Drop for ReadLoopGuard<'_> {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let shared = self.shared;
        shared.closed.store(true, Ordering::Release);
        shared
            .pending
            .close("the connection's reader stopped unexpectedly");
        shared.stop.cancel();
        for (_, token) in lock(&shared.in_flight).values() {
            token.cancel();
        }
        if let Some(stop) = &self.writer_stop {
            stop.cancel();
        }
        shared.done.cancel();
    }
}

/// Hands one message on: a request to its handler, anything else to [`receive`].
async fn dispatch<H: Handler>(message: Message, handler: &Arc<H>, peer: &PeerHandle) {
    match message {
        Message::Request(request) => peer.serve_request(request).await,
        other => receive(other, handler.as_ref(), peer),
    }
}

/// Takes a message that is not a request: a notification (cancellation and progress are the
/// peer's, then every notification goes to the handler) or an answer to one of our requests.
pub(super) fn receive<H: Handler>(message: Message, handler: &H, peer: &PeerHandle) {
    match message {
        Message::Request(_) => {}
        Message::Notification(notification) => {
            match notification.method.as_str() {
                Cancelled::METHOD => peer.on_cancelled(&notification),
                ProgressNotification::METHOD => peer.on_progress(&notification),
                _ => {}
            }
            handler.handle_notification(notification, peer);
        }
        Message::Response(Response { id, result }) => peer.on_answer(id, Ok(result)),
        Message::Error(ErrorResponse {
            id: Some(id),
            error,
        }) => peer.on_answer(id, Err(error)),
        Message::Error(ErrorResponse { id: None, error }) => {
            tracing::warn!(peer = %peer.shared.options.name, "the other side reported an error without an id: {error}");
        }
    }
}
