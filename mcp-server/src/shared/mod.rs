//! State shared by the replicas of one deployment, and where it lives: a [`StateBackend`]
//! provides the task store, the stores of 2025-era HTTP sessions, the change bus between
//! replicas and the readiness `/readyz` reports.
//!
//! The default, [`InProcess`], keeps everything in this process as a single replica needs:
//! a [`MemoryTaskStore`](crate::MemoryTaskStore), each session in the process that made it, no
//! bus. Replicas behind a load balancer share one backend through
//! [`ServerBuilder::shared_state`](crate::ServerBuilder::shared_state): then task records
//! live there (any replica answers `tasks/get`), `subscriptions/listen` hears changes made on
//! every replica, 2025-era sessions are served by any replica and `/readyz` reports whether
//! the backend answers. The `mcp-server-redis` crate is such a backend, on Redis. MRTR
//! `requestState`s need no store: give every replica the same
//! [`request_state_key`](crate::ServerBuilder::request_state_key).

mod bus;

use std::sync::Arc;

pub(crate) use self::bus::NoBus;
pub use self::bus::{BusDelivery, BusEvent, ReplicaBus};
use crate::event_store::EventStore;
use crate::session_store::{SessionRelay, SessionStore, StoreFuture};
use crate::tasks::TaskStore;

/// Where a server keeps the state its replicas share. Every method has a default meaning
/// "in this process", so a backend implements only what it shares; the server asks each
/// method at most once (see each for when).
pub trait StateBackend: std::fmt::Debug + Send + Sync + 'static {
    /// The store of task records, asked once when the server is built (a store set with
    /// [`ServerBuilder::task_store`](crate::ServerBuilder::task_store) wins). `None`: a
    /// [`MemoryTaskStore`](crate::MemoryTaskStore) of this process.
    fn task_store(&self) -> Option<Arc<dyn TaskStore>> {
        None
    }

    /// The store of 2025-era HTTP sessions, asked when the server starts serving HTTP with
    /// sessions and its [`HttpConfig`](crate::http::HttpConfig) names no session store.
    /// `None`: each session lives in the process that made it.
    fn session_store(&self) -> Option<Arc<dyn SessionStore>> {
        None
    }

    /// The store of those sessions' resumable SSE events, asked (inside a tokio runtime) when
    /// [`session_store`](Self::session_store) gave one and the config names no event store.
    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        None
    }

    /// What carries client messages to the replica waiting for them, asked when
    /// [`session_store`](Self::session_store) gave one and the config names no relay.
    fn session_relay(&self) -> Option<Arc<dyn SessionRelay>> {
        None
    }

    /// Starts the bus to the other replicas, once, inside a tokio runtime, when the server
    /// first needs it; what other replicas publish goes to `deliver`. `None`: no other replicas.
    fn start_bus(&self, deliver: BusDelivery) -> Option<Arc<dyn ReplicaBus>> {
        let _ = deliver;
        None
    }

    /// Whether the shared state answers now: what `/readyz` and
    /// [`Server::ready`](crate::Server::ready) report.
    fn ready(&self) -> StoreFuture<'_, Result<(), NotReady>> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// The default [`StateBackend`]: everything in this process (one replica; state is lost on
/// restart).
#[derive(Clone, Copy, Debug, Default)]
pub struct InProcess;

impl StateBackend for InProcess {}

/// Why a server's shared state cannot serve requests now, in its backend's words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NotReady(Box<dyn std::error::Error + Send + Sync>);

impl NotReady {
    /// Not ready because of `reason`.
    pub fn new(reason: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        NotReady(reason.into())
    }

    /// What the backend reported (downcast it to the backend's own error type).
    pub fn reason(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}
