//! What a peer does with what the other side sends: the [`Handler`] a user writes, and how the
//! peer starts and polls it without knowing its type, turning a panic into an error answer.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Weak;
use std::task::Poll;

use super::{PeerHandle, RequestContext};
use crate::jsonrpc::{ErrorObject, Notification, RawJson, Request};

/// What a peer does with the messages the other side sends it.
///
/// A request's handler is polled once where the request was read (most answer on that poll,
/// without a task of their own), so its synchronous work before its first `.await` delays the
/// start of the requests read after it on the same connection. It never delays the reading of
/// the connection on a multi-thread runtime: up to 64 messages are read ahead meanwhile, and
/// `notifications/cancelled` among them stops the requests already running at once. (On a
/// current-thread runtime synchronous work holds the only thread, and everything waits.) Heavy
/// synchronous work belongs in `tokio::task::spawn_blocking`.
pub trait Handler: Send + Sync + 'static {
    /// Answers one request. Runs concurrently with other requests; if the other side cancels,
    /// the future is dropped and no response goes out.
    fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<RawJson, ErrorObject>> + Send;

    /// Takes one notification, in arrival order. Keep it quick: reading waits for it.
    /// `notifications/cancelled` and progress for our own requests are handled by the peer first.
    fn handle_notification(&self, notification: Notification, peer: &PeerHandle) {
        let _ = (notification, peer);
    }

    /// Whether a JSON-RPC batch may be served now. By default: when the negotiated version
    /// allows batches (2025-03-26 only).
    fn accepts_batches(&self, peer: &PeerHandle) -> bool {
        peer.protocol_version().is_some_and(|v| v.allows_batches())
    }
}

/// A handler's answer on its way.
pub(super) type HandlerFuture = Pin<Box<dyn Future<Output = Result<RawJson, ErrorObject>> + Send>>;

/// Starts a handler on a request, without knowing the handler's type.
pub(super) trait RequestRunner: Send + Sync {
    fn start(&self, request: Request, ctx: RequestContext) -> HandlerFuture;
}

/// The handler, weakly: it may own what owns this peer (a server session keeps its peer).
pub(super) struct Runner<H>(pub(super) Weak<H>);

impl<H: Handler> RequestRunner for Runner<H> {
    fn start(&self, request: Request, ctx: RequestContext) -> HandlerFuture {
        match self.0.upgrade() {
            Some(handler) => Box::pin(async move { handler.handle_request(request, ctx).await }),
            None => Box::pin(async { Err(ErrorObject::internal("the connection is closed")) }),
        }
    }
}

/// Polls a handler; a panic becomes an internal error answer instead of taking the peer down.
pub(super) fn poll_handler(
    work: &mut HandlerFuture,
    cx: &mut std::task::Context<'_>,
) -> Poll<Result<RawJson, ErrorObject>> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| work.as_mut().poll(cx))) {
        Ok(poll) => poll,
        Err(panic) => {
            let message = panic_message(panic.as_ref());
            tracing::error!("a request handler panicked: {message}");
            Poll::Ready(Err(ErrorObject::internal(format!(
                "the handler panicked: {message}"
            ))))
        }
    }
}

/// The text of a panic payload.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
