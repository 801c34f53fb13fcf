//! The read loop: takes what the transport's source delivers, in order, and dispatches it
//! (requests to the handler, answers to our waiting calls, notifications to the peer and then
//! the handler); at end of input it fails our calls, lets handlers finish and closes the writer.
//!
//! On a multi-thread runtime the source is read by a task of its own ([`pump`]), which hands
//! each message on through a queue of [`READ_AHEAD`]. A request is first polled inline by the
//! read loop (most are answered on that poll, without a task), so a handler's synchronous work
//! before its first `.await` holds the read loop; the pump meanwhile keeps reading up to
//! [`READ_AHEAD`] messages ahead and acts on each `notifications/cancelled` as it reads it, so
//! that such work never delays the cancellation of a request already running. A long
//! synchronous start still delays the start of the requests read after it: handlers should do
//! heavy work on `spawn_blocking`. On a current-thread runtime such work holds the only thread,
//! so nothing else could run beside it anyway: there the read loop reads the source itself. It
//! does too when the source is fed by tasks of its transport that act on each cancellation as
//! it arrives (an HTTP session's, see [`MessageSource::fed_by_other_tasks`]).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::writer::Writer;
use super::Shared;
use super::{Handler, MessageSink, MessageSource, Outgoing, PeerHandle, Received};
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

/// How many messages the pump reads ahead of the read loop: the bound on what a handler's
/// synchronous start lets pile up, and on how long cancellations are still acted on meanwhile.
pub(super) const READ_AHEAD: usize = 64;

pub(super) async fn read_loop<S: MessageSource, W: MessageSink, H: Handler>(
    source: S,
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
    let mut input = Input::start(source, &peer);
    loop {
        read_since_yield += 1;
        if yields && read_since_yield > YIELD_EVERY {
            read_since_yield = 0;
            tokio::task::yield_now().await;
        }
        let item = tokio::select! {
            biased;
            _ = shared.stop.cancelled() => None,
            item = input.recv() => item,
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
    let source = input.finish().await;
    let reason = if shared.stop.is_cancelled() {
        shared
            .pending
            .closed_reason()
            .unwrap_or_else(|| "closed locally".into())
    } else {
        match source {
            Ok(mut source) => source.close_reason().await,
            Err(e) => Some(format!("the connection's reader failed: {e}")),
        }
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

/// Where the read loop takes messages from: the source itself when other tasks feed it and act
/// on cancellations as they arrive ([`MessageSource::fed_by_other_tasks`]) or on a
/// current-thread runtime (where a handler's synchronous work holds the only thread, so a pump
/// could not run beside it), else the [`pump`]'s queue.
enum Input<S> {
    Direct(S),
    Pumped {
        read: mpsc::Receiver<Received>,
        pump: tokio::task::JoinHandle<S>,
    },
}

impl<S: MessageSource> Input<S> {
    fn start(source: S, peer: &PeerHandle) -> Self {
        use tokio::runtime::{Handle, RuntimeFlavor};
        if source.fed_by_other_tasks()
            || Handle::current().runtime_flavor() == RuntimeFlavor::CurrentThread
        {
            return Input::Direct(source);
        }
        let (ahead, read) = mpsc::channel(READ_AHEAD);
        let pump = tokio::spawn(pump(source, peer.clone(), ahead));
        Input::Pumped { read, pump }
    }

    async fn recv(&mut self) -> Option<Received> {
        match self {
            Input::Direct(source) => source.recv().await,
            Input::Pumped { read, .. } => read.recv().await,
        }
    }

    /// The source back, for its close reason: the pump stops at end of input or on `stop`, or
    /// once nothing reads what it sends.
    async fn finish(self) -> Result<S, tokio::task::JoinError> {
        match self {
            Input::Direct(source) => Ok(source),
            Input::Pumped { read, pump } => {
                drop(read);
                pump.await
            }
        }
    }
}

/// Reads the source into `ahead` until it ends, the read loop goes, or the peer stops; acts on
/// each `notifications/cancelled` as soon as it is read (the read loop acts on it again, in
/// order, for a request it started meanwhile). Gives the source back, for its close reason.
async fn pump<S: MessageSource>(
    mut source: S,
    peer: PeerHandle,
    ahead: mpsc::Sender<Received>,
) -> S {
    let stop = peer.shared.stop.clone();
    loop {
        let item = tokio::select! {
            biased;
            _ = stop.cancelled() => break,
            item = source.recv() => item,
        };
        let Some(item) = item else { break };
        if let Ok(Incoming::Single(Message::Notification(notification))) = &item {
            if notification.method == Cancelled::METHOD {
                peer.on_cancelled(notification, true);
            }
        }
        let sent = tokio::select! {
            biased;
            _ = stop.cancelled() => break,
            sent = ahead.send(item) => sent,
        };
        if sent.is_err() {
            break;
        }
    }
    source
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
                Cancelled::METHOD => peer.on_cancelled(&notification, false),
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
