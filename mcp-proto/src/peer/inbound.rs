//! Serving the other side's requests: each is polled once as it is read and answered at once
//! when it can be; one that has to wait gets a task of its own, registered in flight so that
//! `notifications/cancelled` can stop it. Batches go through the same path, answered together.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Poll;

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::handler::{poll_handler, HandlerFuture};
use super::reader::receive;
use super::{Handler, Intent, Outbound, Outgoing, PeerHandle, RequestContext};
use crate::jsonrpc::{
    ErrorObject, ErrorResponse, InvalidMessage, Message, Notification, RawJson, Request, RequestId,
    Response,
};
use crate::schema::{Cancelled, CancelledParams, NotificationType};
use crate::sync::lock;

impl PeerHandle {
    /// Handles one incoming request: polled once at once and answered when it is ready then;
    /// otherwise it goes on in a task of its own, registered as in flight (so it can be cancelled).
    pub(super) async fn serve_request(&self, request: Request) {
        let Ok(permit) = self.shared.permits.clone().acquire_owned().await else {
            return;
        };
        match self.start_request(request).await {
            Started::Answered(message) => {
                drop(permit);
                let id = message.id().cloned();
                self.send(Outgoing::related(message, id)).await;
            }
            Started::Working(working) => {
                let peer = self.clone();
                self.shared.tracker.spawn(async move {
                    let id = working.id.clone();
                    let message = working.finish(&peer).await;
                    drop(permit);
                    if let Some(message) = message {
                        peer.send(Outgoing::related(message, Some(id))).await;
                    }
                });
            }
        }
    }

    /// Starts a request: refuses an id already in flight, polls the handler once (a panic there
    /// or later becomes its error answer), and registers a handler that has to wait as in flight.
    async fn start_request(&self, request: Request) -> Started {
        let shared = &self.shared;
        let id = request.id.clone();
        if lock(&shared.in_flight).contains_key(&id) {
            let error = ErrorObject::invalid_request(format!(
                "request id {id} is already in use by a request in flight"
            ));
            return Started::Answered(Message::error(Some(id), error));
        }
        let ctx = RequestContext::new(&request, self.clone());
        let own_ctx = ctx.clone();
        let mut work = shared.runner.start(request, ctx);
        // Most requests are answered without waiting on anything: poll once here and answer at
        // once; only a request that has to wait gets a task (and a cancellation token).
        let first = std::future::poll_fn(|cx| Poll::Ready(poll_handler(&mut work, cx))).await;
        if let Poll::Ready(result) = first {
            return Started::Answered(answer(id, result));
        }
        let token = own_ctx.cancellation().clone();
        drop(own_ctx);
        let generation = shared.generation.fetch_add(1, Ordering::Relaxed);
        lock(&shared.in_flight).insert(id.clone(), (generation, token.clone()));
        Started::Working(Working {
            id,
            generation,
            token,
            work,
        })
    }

    /// Acts on a `notifications/cancelled` as a transport receives it, ahead of the read loop
    /// (which reaches it later, in order, acts on it again and reports it if malformed): for a
    /// source [`fed_by_other_tasks`](super::MessageSource::fed_by_other_tasks), so that a
    /// handler's synchronous start in the read loop never delays a cancellation. Anything but a
    /// cancellation is ignored.
    pub fn cancel_on_arrival(&self, notification: &Notification) {
        if notification.method == Cancelled::METHOD {
            self.on_cancelled(notification, true);
        }
    }

    /// Handles a request in the calling task, for a transport that received it there (an HTTP
    /// POST, say): no hop through the transport's source and the read loop. The answer goes out
    /// through the sink like any other. Returns the request back when the peer is closed.
    pub async fn serve_inline(&self, request: Request) -> Result<(), Request> {
        if self.is_closed() {
            return Err(request);
        }
        self.serve_request(request).await;
        Ok(())
    }

    fn finish_request(&self, id: &RequestId, generation: u64) {
        let mut in_flight = lock(&self.shared.in_flight);
        if in_flight.get(id).is_some_and(|(g, _)| *g == generation) {
            in_flight.remove(id);
        }
    }

    /// Stops the handler of the request a `notifications/cancelled` names, if it still runs.
    /// `early` is the pump's look as it reads the notification (the read loop looks again in
    /// order): it stays quiet about a malformed one, which the read loop reports.
    pub(super) fn on_cancelled(&self, notification: &Notification, early: bool) {
        match notification.params_as::<CancelledParams>() {
            Ok(CancelledParams {
                request_id: Some(id),
                reason,
                ..
            }) => {
                let entry = lock(&self.shared.in_flight).remove(&id);
                if let Some((_, token)) = entry {
                    tracing::debug!(
                        peer = %self.shared.options.name,
                        "request {id} cancelled by the other side: {}",
                        reason.as_deref().unwrap_or("no reason given")
                    );
                    token.cancel();
                }
            }
            // 2025-11-25 lets a cancellation name no request (task cancellation); nothing to do.
            Ok(_) => {}
            Err(_) if early => {}
            Err(e) => {
                tracing::warn!(peer = %self.shared.options.name, "ignored a malformed cancellation: {e}")
            }
        }
    }
}

fn answer(id: RequestId, result: Result<RawJson, ErrorObject>) -> Message {
    match result {
        Ok(result) => Message::Response(Response { id, result }),
        Err(error) => Message::Error(ErrorResponse {
            id: Some(id),
            error,
        }),
    }
}

/// Serves a batch: each request through the same path as a single one (the id check, the panic
/// catch, cancellation), concurrently; the answers leave together, in the batch's order.
pub(super) async fn serve_batch<H: Handler>(
    items: Vec<Result<Message, InvalidMessage>>,
    handler: Arc<H>,
    peer: PeerHandle,
) {
    let mut answers: Vec<(usize, Message)> = Vec::new();
    let mut requests = JoinSet::new();
    let mut ids = HashSet::new();
    for (index, item) in items.into_iter().enumerate() {
        match item {
            Err(invalid) => answers.push((index, invalid.to_error_response())),
            Ok(Message::Request(request)) => {
                if !ids.insert(request.id.clone()) {
                    let error = ErrorObject::invalid_request(format!(
                        "request id {} appears twice in this batch",
                        request.id
                    ));
                    answers.push((index, Message::error(Some(request.id), error)));
                    continue;
                }
                let Ok(permit) = peer.shared.permits.clone().acquire_owned().await else {
                    return;
                };
                match peer.start_request(request).await {
                    Started::Answered(message) => answers.push((index, message)),
                    Started::Working(working) => {
                        let peer = peer.clone();
                        requests.spawn(async move {
                            let message = working.finish(&peer).await;
                            drop(permit);
                            (index, message)
                        });
                    }
                }
            }
            Ok(other) => receive(other, handler.as_ref(), &peer),
        }
    }
    while let Some(done) = requests.join_next().await {
        match done {
            // A cancelled request gets no answer.
            Ok((index, Some(message))) => answers.push((index, message)),
            Ok((_, None)) => {}
            Err(e) => tracing::error!("a batch request's task failed: {e}"),
        }
    }
    if answers.is_empty() {
        return;
    }
    answers.sort_by_key(|(index, _)| *index);
    let body = Outbound::Batch(answers.into_iter().map(|(_, m)| m).collect());
    peer.send(Outgoing {
        body,
        related: None,
        intent: Intent::Plain,
    })
    .await;
}

/// A request after its first poll.
enum Started {
    /// Answered at once (or refused).
    Answered(Message),
    /// Still working, registered in flight so that it can be cancelled.
    Working(Working),
}

/// A request whose handler has to wait, with what it needs to finish and be cancelled.
struct Working {
    id: RequestId,
    generation: u64,
    token: CancellationToken,
    work: HandlerFuture,
}

impl Working {
    /// Runs the handler to its answer; `None` when the request was cancelled.
    async fn finish(mut self, peer: &PeerHandle) -> Option<Message> {
        let result = tokio::select! {
            biased;
            _ = self.token.cancelled() => None,
            result = std::future::poll_fn(|cx| poll_handler(&mut self.work, cx)) => Some(result),
        };
        peer.finish_request(&self.id, self.generation);
        result.map(|result| answer(self.id, result))
    }
}
