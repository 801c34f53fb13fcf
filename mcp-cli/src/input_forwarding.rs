//! The upstream servers' requests for input (elicitation, sampling, roots), put to the proxy's
//! own client whose forwarded call they belong to, in that client's era.
//!
//! A 2026-07-28 server's `input_required` round is answered inside the task that forwards the
//! call, so the call is known exactly (a task-local). A 2025 server sends its request on its own
//! (over stdio nothing ties it to the call it serves), so [`InputForwarder`] keeps the calls in
//! flight per server and picks the one: the only call to that server, or, when several are, the
//! oldest when all of them come from the same 2025 session (any of them reaches the same user).
//! Otherwise it refuses with a message saying why, rather than ask the wrong user.
//!
//! A 2026-07-28 client of the proxy answers through MRTR, whose handler is run again with the
//! answers (see mcp-server's crate docs): the forwarded call is made again, the upstream server
//! asks again and this time gets the answer at once. An ask whose call ends first (the proxy
//! answered `input_required`, or the call was cancelled) fails instead of waiting forever.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use mcp_client::{CancellationToken, HandlerFuture};
use mcp_hub::UpstreamInput;
use mcp_proto::ErrorObject;
use mcp_server::{Context, ServerError};

tokio::task_local! {
    /// The request of the proxy's client that the current task is forwarding.
    static DOWNSTREAM: Context;
}

/// Runs `call` as the forwarding of `ctx`'s request (a 2026-07-28 server's input rounds made
/// inside it go to `ctx`'s client). Not an `async fn`: that would keep `call` twice in its state
/// (as its argument and inside the scope), doubling a forwarded call's future.
pub(crate) fn forwarding<F: Future>(ctx: Context, call: F) -> impl Future<Output = F::Output> {
    DOWNSTREAM.scope(ctx, call)
}

/// The client whose call the current task forwards, as `name version` (for the call log).
pub fn downstream_client() -> Option<String> {
    DOWNSTREAM
        .try_with(|ctx| {
            ctx.client_info()
                .map(|info| format!("{} {}", info.name, info.version))
        })
        .ok()
        .flatten()
}

/// Puts the servers' requests for input to the proxy's client whose call they belong to; set it
/// as [`HubOptions::input`](mcp_hub::HubOptions) and give it to
/// [`proxy_server`](crate::proxy::proxy_server).
#[derive(Clone, Default)]
pub struct InputForwarder {
    inner: Arc<InFlight>,
}

#[derive(Default)]
struct InFlight {
    next: AtomicU64,
    calls: Mutex<HashMap<String, Vec<ForwardedCall>>>,
}

/// One call of the proxy's client in flight to a server.
struct ForwardedCall {
    id: u64,
    ctx: Context,
    /// Cancelled when the call ends, so an ask made for it stops waiting.
    ended: CancellationToken,
}

/// Keeps a call registered while it is forwarded; dropping it (the call ended, or its handler
/// was dropped) unregisters it and ends the asks made for it.
pub(crate) struct ForwardGuard {
    inner: Arc<InFlight>,
    server: String,
    id: u64,
    ended: CancellationToken,
}

impl Drop for ForwardGuard {
    fn drop(&mut self) {
        self.ended.cancel();
        let mut calls = self.inner.calls.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(list) = calls.get_mut(&self.server) {
            list.retain(|c| c.id != self.id);
            if list.is_empty() {
                calls.remove(&self.server);
            }
        }
    }
}

impl InputForwarder {
    /// A forwarder with no call in flight.
    pub fn new() -> Self {
        Self::default()
    }

    /// The hub's side of it, for [`HubOptions::input`](mcp_hub::HubOptions): elicitation,
    /// sampling and roots, each put to the caller.
    pub fn upstream_input(&self) -> UpstreamInput {
        let (elicit, sample, roots) = (self.clone(), self.clone(), self.clone());
        UpstreamInput::new()
            .with_elicitation(move |server, params| {
                elicit.ask(server, "elicitation", move |ctx| {
                    Box::pin(async move { ctx.elicit(params).await })
                })
            })
            .with_sampling(move |server, params| {
                sample.ask(server, "sampling", move |ctx| {
                    Box::pin(async move { ctx.sample(params).await })
                })
            })
            .with_roots(move |server| {
                roots.ask(server, "roots", move |ctx| {
                    Box::pin(async move { ctx.list_roots().await })
                })
            })
    }

    /// Registers `ctx`'s request as forwarded to `server` until the guard drops.
    pub(crate) fn register(&self, server: &str, ctx: &Context) -> ForwardGuard {
        let id = self.inner.next.fetch_add(1, Ordering::Relaxed);
        let ended = CancellationToken::new();
        let call = ForwardedCall {
            id,
            ctx: ctx.clone(),
            ended: ended.clone(),
        };
        let mut calls = self.inner.calls.lock().unwrap_or_else(|p| p.into_inner());
        calls.entry(server.to_owned()).or_default().push(call);
        ForwardGuard {
            inner: self.inner.clone(),
            server: server.to_owned(),
            id,
            ended,
        }
    }

    /// The call `server`'s request for input belongs to, and the token that ends with it.
    fn caller(
        &self,
        server: &str,
        what: &str,
    ) -> Result<(Context, CancellationToken), ErrorObject> {
        if let Ok(ctx) = DOWNSTREAM.try_with(Context::clone) {
            // Answered inside the forwarding task: ends with it.
            return Ok((ctx, CancellationToken::new()));
        }
        let calls = self.inner.calls.lock().unwrap_or_else(|p| p.into_inner());
        let Some((first, rest)) = calls.get(server).and_then(|l| l.split_first()) else {
            return Err(ErrorObject::internal(format!(
                "mcp proxy: server {server:?} asked for {what} while no call of the proxy's client \
                 to it was in progress, so there is no one to ask"
            )));
        };
        let one_session = rest.iter().all(|c| c.ctx.same_connection(&first.ctx))
            && !first.ctx.protocol_version().is_stateless_era();
        if !rest.is_empty() && !one_session {
            return Err(ErrorObject::internal(format!(
                "mcp proxy: server {server:?} asked for {what} while {} calls of different \
                 requests were forwarded to it, and its request does not say which it belongs to",
                rest.len() + 1
            )));
        }
        Ok((first.ctx.clone(), first.ended.clone()))
    }

    /// Asks the caller of `server`'s call with `ask`, until that call ends.
    fn ask<T, F>(&self, server: &str, what: &'static str, ask: F) -> HandlerFuture<T>
    where
        T: Send + 'static,
        F: FnOnce(Context) -> AskFuture<T> + Send + 'static,
    {
        let caller = self.caller(server, what);
        Box::pin(async move {
            let (ctx, ended) = caller?;
            tokio::select! {
                answer = ask(ctx) => answer.map_err(|e| refused(what, e)),
                () = ended.cancelled() => Err(ErrorObject::internal(format!(
                    "mcp proxy: the call that asked for {what} ended before its client answered"
                ))),
            }
        })
    }
}

/// What one ask of the proxy's client resolves to.
type AskFuture<T> = Pin<Box<dyn Future<Output = Result<T, ServerError>> + Send>>;

fn refused(what: &str, e: ServerError) -> ErrorObject {
    ErrorObject::internal(format!("the proxy's client could not answer {what}: {e}"))
}
