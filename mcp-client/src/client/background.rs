//! What runs beside a client: the `subscriptions/listen` loop that keeps a 2026-07-28 server's
//! changes coming, and the supervision that restarts a dead stdio child with a fresh handshake.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcp_proto::jsonrpc;
use mcp_proto::peer::{PeerError, PeerHandle, RequestOptions};
use mcp_proto::version::ProtocolVersion;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::era::{Era, Negotiation};
use crate::error::ClientError;
use crate::handler::ServerEvent;
use crate::listen::{backoff, MAX_LISTEN_FAILURES};
use crate::supervisor::RestartPolicy;

use super::connect::open_stdio;
use super::{Client, Connection, Inner, State};

/// Holds a `subscriptions/listen` open until `stop`: opens it again when the server ends it,
/// backs off on failures and gives up after [`MAX_LISTEN_FAILURES`] in a row or when the server
/// has no such method. Holds the client weakly and its connection only while a request is open.
pub(super) async fn listen_loop(
    inner: Weak<Inner>,
    stop: CancellationToken,
    params: serde_json::Value,
) {
    const METHOD: &str = "subscriptions/listen";
    let mut failures = 0u32;
    while !stop.is_cancelled() {
        let prepared = async {
            let client = Client {
                inner: inner.upgrade()?,
            };
            let connection = client.connection(METHOD).await.ok()?;
            let version = modern_version(&connection)?;
            let params = client
                .modern_meta(version)
                .ok()?
                .apply(Some(params.clone()))
                .ok()?;
            let raw = jsonrpc::to_raw(&params).ok()?;
            Some((connection, raw, client.inner.name.clone()))
        };
        let Some((connection, raw, name)) = prepared.await else {
            return;
        };
        let options = RequestOptions {
            timeout: Some(crate::options::MAX_TIMEOUT),
            cancel: Some(stop.clone()),
            ..Default::default()
        };
        let result = connection
            .peer
            .request_raw(METHOD, Some(raw), options)
            .await;
        drop(connection);
        match result {
            Ok(_) => failures = 0,
            Err(_) if stop.is_cancelled() => return,
            Err(PeerError::Timeout { .. }) => failures = 0,
            Err(e)
                if e.rpc_error().is_some_and(|r| {
                    r.code == mcp_proto::jsonrpc::error_codes::METHOD_NOT_FOUND
                }) =>
            {
                tracing::info!(server = %name, "the server has no subscriptions/listen; no change notifications");
                return;
            }
            Err(e) => {
                failures += 1;
                if failures >= MAX_LISTEN_FAILURES {
                    tracing::warn!(server = %name, "subscriptions/listen failed {failures} times in a row; stopped listening: {e}");
                    return;
                }
                tracing::debug!(server = %name, "subscriptions/listen failed: {e}");
            }
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(backoff(failures)) => {}
        }
    }
}

/// The connection's version when it speaks 2026-07-28.
pub(super) fn modern_version(connection: &Connection) -> Option<ProtocolVersion> {
    connection
        .peer
        .protocol_version()
        .filter(|v| v.is_stateless_era())
}

/// Watches a stdio server; when it dies (and the client was not closed), starts it again with
/// exponential backoff and a new handshake, up to the crash-loop limit. Holds the client only
/// weakly, so dropping the client ends the supervision.
pub(super) async fn supervise(inner: Weak<Inner>, mut peer: PeerHandle, policy: RestartPolicy) {
    let mut attempt = 0u32;
    let mut started = Instant::now();
    loop {
        peer.closed().await;
        let Some(strong) = inner.upgrade() else {
            return;
        };
        // Only a live connection is replaced: once `close` has set `Closed`, that state stays.
        let mut old = None;
        strong.state.send_if_modified(|state| match state {
            State::Ready(_) => {
                old = Some(std::mem::replace(state, State::Restarting));
                true
            }
            _ => false,
        });
        let Some(State::Ready(connection)) = old else {
            return;
        };
        let mut last = format!("{} stopped", strong.name);
        if let Some(child) = &connection.child {
            last = child.describe_end(Duration::from_secs(1)).await;
            child.shutdown().await;
        }
        drop(connection);
        tracing::warn!(server = %strong.name, "server died: {last}");
        drop(strong);
        if started.elapsed() >= policy.stable_after {
            attempt = 0;
        }
        loop {
            attempt += 1;
            if attempt > policy.max_restarts {
                if let Some(strong) = inner.upgrade() {
                    let error = ClientError::CrashLoop {
                        server: strong.name.clone(),
                        restarts: policy.max_restarts,
                        last,
                    };
                    tracing::error!("{error}");
                    strong.state.send_replace(State::Failed(error));
                }
                return;
            }
            tokio::time::sleep(policy.backoff(attempt)).await;
            let Some(strong) = inner.upgrade() else {
                return;
            };
            if strong.closing.load(Ordering::Acquire) {
                return;
            }
            let Some((config, ring)) = &strong.stdio else {
                return;
            };
            // The era is known from the last start: no probe, and no second start for it.
            let options = match strong.options.negotiation {
                Negotiation::Auto => {
                    let known = strong
                        .handshake
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .protocol_version;
                    let negotiation = match Era::of(known) {
                        Era::Modern => Negotiation::Pin(known),
                        Era::Legacy => Negotiation::Legacy,
                    };
                    strong.options.clone().with_negotiation(negotiation)
                }
                _ => strong.options.clone(),
            };
            let opened = open_stdio(config, ring, &strong.name, &options, &strong.handler).await;
            match opened {
                Ok((connection, handshake)) => {
                    peer = connection.peer.clone();
                    let connection = Arc::new(connection);
                    *strong.handshake.lock().unwrap_or_else(|p| p.into_inner()) =
                        Arc::new(handshake);
                    let installed = strong.state.send_if_modified(|state| {
                        if matches!(state, State::Restarting) {
                            *state = State::Ready(connection.clone());
                            true
                        } else {
                            false
                        }
                    });
                    if !installed {
                        // Closed while we were starting it.
                        connection.shutdown().await;
                        return;
                    }
                    tracing::info!(server = %strong.name, attempt, "server restarted");
                    strong.handler.publish(ServerEvent::Restarted { attempt });
                    started = Instant::now();
                    break;
                }
                Err(e) => {
                    tracing::warn!(server = %strong.name, attempt, "restart failed: {e}");
                    last = e.to_string();
                }
            }
        }
    }
}
