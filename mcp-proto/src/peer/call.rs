//! Our calls to the other side: requests (typed and raw) with their id, pending entry, progress
//! token, timeout and cancellation; notifications; and how answers, progress and transport
//! failures reach the call that waits for them.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use tracing::Instrument;

use super::error::fmt_duration;
use super::pending::ProgressTracker;
use super::{Intent, Outgoing, PeerError, PeerHandle, Progress, RequestOptions};
use crate::jsonrpc::{self, ErrorObject, Message, Notification, RawJson, Request, RequestId};
use crate::schema::{
    Cancelled, Initialize, Initialized, NotificationType, ProgressParams, RequestType,
};
use crate::telemetry::{CallSpan, SpanKind};
use crate::trace_context::TraceContext;

impl PeerHandle {
    /// Sends a typed request and waits for its typed result.
    pub async fn request<R: RequestType>(
        &self,
        params: &R::Params,
    ) -> Result<R::Result, PeerError> {
        self.request_with::<R>(params, RequestOptions::default())
            .await
    }

    /// Sends a typed request with options (timeout, progress, cancellation).
    pub async fn request_with<R: RequestType>(
        &self,
        params: &R::Params,
        options: RequestOptions,
    ) -> Result<R::Result, PeerError> {
        let params = encode_params(R::METHOD, params)?;
        let raw = self.request_raw(R::METHOD, Some(params), options).await?;
        jsonrpc::from_object(raw.get()).map_err(|e| PeerError::Decode {
            method: R::METHOD.into(),
            detail: e.to_string(),
        })
    }

    /// Sends a request by method name with raw params; the raw path beside the typed one.
    /// The call is a client span (see [`crate::telemetry`]) when traced, and its context
    /// travels in `params._meta.traceparent`.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<RawJson>,
        options: RequestOptions,
    ) -> Result<RawJson, PeerError> {
        let parent = TraceContext::current();
        let Some(call) = CallSpan::start(SpanKind::Client, method, params.as_ref(), parent) else {
            return self.request_untraced(method, params, options).await;
        };
        call.record("mcp.server.name", &self.shared.options.name);
        let params = call
            .context
            .inject(params)
            .map_err(|detail| PeerError::Encode {
                method: method.into(),
                detail,
            })?;
        let result = self
            .request_untraced(method, Some(params), options)
            .instrument(call.span.clone())
            .await;
        match &result {
            Ok(raw) => call.finish(Ok(raw)),
            Err(PeerError::Rpc { error, .. }) => call.finish(Err(error)),
            Err(PeerError::Timeout { .. }) => call.fail("timeout"),
            Err(PeerError::Cancelled { .. }) => call.fail("cancelled"),
            Err(_) => call.fail("transport"),
        }
        result
    }

    async fn request_untraced(
        &self,
        method: &str,
        params: Option<RawJson>,
        options: RequestOptions,
    ) -> Result<RawJson, PeerError> {
        let shared = &self.shared;
        if let Some(reason) = shared.pending.closed_reason() {
            return Err(PeerError::Closed(reason));
        }
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let progress = options
            .on_progress
            .clone()
            .map(|cb| ProgressTracker::new(Some(cb)));
        let params = match (&progress, params) {
            (Some(_), params) => {
                Some(
                    with_progress_token(params, id).map_err(|detail| PeerError::Encode {
                        method: method.into(),
                        detail,
                    })?,
                )
            }
            (None, params) => params,
        };
        // The spec forbids cancelling `initialize`; every other call is cancelled on a local close.
        let is_initialize = method == Initialize::METHOD;
        let mut answer = shared
            .pending
            .insert(id, method, progress.clone(), !is_initialize)?;
        let mut guard = PendingGuard {
            peer: self,
            id,
            armed: true,
        };
        let request = Message::Request(Request {
            id: RequestId::Number(id),
            method: method.into(),
            params,
        });
        let intent = if is_initialize {
            Intent::Initialize
        } else {
            Intent::Plain
        };
        let outgoing = Outgoing::related(request, options.related.clone()).with_intent(intent);
        if !self.send(outgoing).await {
            guard.armed = false;
            shared.pending.remove(id);
            return Err(PeerError::Closed(self.closed_reason()));
        }
        let timeout = options.timeout.or(shared.options.default_timeout);
        let started = Instant::now();
        let deadline = |progress: &Option<Arc<ProgressTracker>>| {
            let timeout = timeout?;
            let base = match progress {
                Some(p) if options.reset_timeout_on_progress => p.last().unwrap_or(started),
                _ => started,
            };
            let mut at = base + timeout;
            if let Some(max) = options.max_total_timeout {
                at = at.min(started + max);
            }
            Some(at)
        };
        let cancel = options.cancel.clone().unwrap_or_default();
        loop {
            let at = deadline(&progress);
            let sleep = async {
                match at {
                    Some(at) => shared.deadlines.reached(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                result = &mut answer => {
                    guard.armed = false;
                    return match result {
                        Ok(Ok(raw)) => Ok(raw),
                        Ok(Err(e)) => Err(e.for_method(method)),
                        Err(_) => Err(PeerError::Closed(self.closed_reason())),
                    };
                }
                _ = sleep => {
                    if deadline(&progress).is_some_and(|d| d > Instant::now()) {
                        continue;
                    }
                    guard.armed = false;
                    if shared.pending.remove(id) {
                        let waited = started.elapsed();
                        let limit = timeout.unwrap_or(waited);
                        let reason = format!("timed out after {}", fmt_duration(limit));
                        self.send(cancelled_notification(id, &reason)).await;
                        let shown = match options.max_total_timeout {
                            Some(max) if options.reset_timeout_on_progress && waited >= max => max,
                            _ => limit,
                        };
                        return Err(PeerError::Timeout { method: method.into(), timeout: shown });
                    }
                }
                _ = cancel.cancelled() => {
                    guard.armed = false;
                    if shared.pending.remove(id) {
                        self.send(cancelled_notification(id, "cancelled by the caller")).await;
                    }
                    return Err(PeerError::Cancelled { method: method.into() });
                }
            }
        }
    }

    /// Sends a typed notification.
    pub async fn notify<N: NotificationType>(&self, params: &N::Params) -> Result<(), PeerError> {
        self.notify_raw(N::METHOD, Some(encode_params(N::METHOD, params)?), None)
            .await
    }

    /// Sends a notification by method name, related to an incoming request if given.
    pub async fn notify_raw(
        &self,
        method: &str,
        params: Option<RawJson>,
        related: Option<RequestId>,
    ) -> Result<(), PeerError> {
        let intent = if method == Initialized::METHOD {
            Intent::Initialized
        } else {
            Intent::Plain
        };
        let message = Message::Notification(Notification {
            method: method.into(),
            params,
        });
        if self
            .send(Outgoing::related(message, related).with_intent(intent))
            .await
        {
            Ok(())
        } else {
            Err(PeerError::Closed(self.closed_reason()))
        }
    }

    /// Fails our waiting request `id` with [`PeerError::Transport`]: the hook for a transport
    /// that could not carry that one request or its answer (an HTTP POST answered with an error
    /// status, say) while the connection goes on. False when no call waits for `id`.
    pub fn fail_request(&self, id: &RequestId, detail: impl Into<String>) -> bool {
        let failure = PeerError::Transport {
            method: String::new(),
            detail: detail.into(),
        };
        let failed = match id {
            RequestId::Number(n) => self.shared.pending.complete(*n, Err(failure)),
            RequestId::String(_) => false,
        };
        if !failed {
            tracing::debug!(peer = %self.shared.options.name, "a transport failure for request {id}, which no call waits for");
        }
        failed
    }

    /// Hands a progress notification to the call it belongs to (its token is the call's id).
    pub(super) fn on_progress(&self, notification: &Notification) {
        let Ok(params) = notification.params_as::<ProgressParams>() else {
            return;
        };
        if let RequestId::Number(id) = params.progress_token {
            if let Some(tracker) = self.shared.pending.progress(id) {
                tracker.record(Progress {
                    progress: params.progress,
                    total: params.total,
                    message: params.message,
                });
            }
        }
    }

    /// Hands an answer (result or error) to the call waiting for `id`.
    pub(super) fn on_answer(&self, id: RequestId, answer: Result<RawJson, ErrorObject>) {
        let delivered = match &id {
            RequestId::Number(n) => self.shared.pending.complete(
                *n,
                answer.map_err(|error| PeerError::Rpc {
                    method: String::new(),
                    error,
                }),
            ),
            RequestId::String(_) => false,
        };
        if !delivered {
            tracing::warn!(peer = %self.shared.options.name, "dropped a response for unknown request id {id}");
        }
    }
}

/// Removes the pending entry when a request future is dropped before its answer, and tells the
/// other side with `notifications/cancelled`.
struct PendingGuard<'a> {
    peer: &'a PeerHandle,
    id: i64,
    armed: bool,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if self.armed && self.peer.shared.pending.remove(self.id) {
            let cancel = cancelled_notification(self.id, "the caller stopped waiting");
            self.peer.try_send(cancel);
        }
    }
}

/// `notifications/cancelled` for our request `id`, marked so a transport can stop carrying it.
pub(super) fn cancelled_notification(id: i64, reason: &str) -> Outgoing {
    let params = serde_json::json!({ "requestId": id, "reason": reason });
    let message = Message::Notification(Notification {
        method: Cancelled::METHOD.into(),
        params: jsonrpc::to_raw(&params).ok(),
    });
    Outgoing::new(message).with_intent(Intent::Cancel(RequestId::Number(id)))
}

pub(super) fn encode_params<P: Serialize + ?Sized>(
    method: &str,
    params: &P,
) -> Result<RawJson, PeerError> {
    jsonrpc::to_raw(params).map_err(|e| PeerError::Encode {
        method: method.into(),
        detail: e.to_string(),
    })
}

/// Adds `_meta.progressToken` to raw params (creating the object when absent).
fn with_progress_token(params: Option<RawJson>, token: i64) -> Result<RawJson, String> {
    let mut object: serde_json::Map<String, serde_json::Value> = match params {
        Some(raw) => serde_json::from_str(raw.get())
            .map_err(|e| format!("params must be an object to carry a progress token: {e}"))?,
        None => serde_json::Map::new(),
    };
    let meta = object
        .entry("_meta")
        .or_insert_with(|| serde_json::Value::Object(Default::default()));
    match meta {
        serde_json::Value::Object(meta) => {
            meta.insert("progressToken".into(), token.into());
        }
        _ => return Err("params._meta must be an object".into()),
    }
    jsonrpc::to_raw(&object).map_err(|e| e.to_string())
}
