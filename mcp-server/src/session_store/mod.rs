//! Where 2025-era HTTP sessions live when several replicas serve them: the [`SessionStore`]
//! trait, the [`SessionRecord`] it keeps, [`MemorySessionStore`] (one process, or replicas in
//! one process in tests); a store shared by replicas behind a load balancer comes from another
//! crate (`mcp-server-redis` keeps sessions in Redis) or your own implementation.
//!
//! Without a store (the default) a session lives only in the process that created it. With
//! one, any replica can serve any session's request: the first request a replica sees for a
//! session it does not hold restores it from its record (version, client capabilities and info,
//! log level, resource subscriptions), and every request marks the session active in the store,
//! so expiry and the session cap hold across replicas.
//!
//! A remote store may serve a session's requests for a short while from the record it last read
//! (a lease), as long as it drops the lease when another replica changes the session; the
//! [`touch`](SessionStore::touch) contract allows it.

mod link;
mod memory;
mod relay;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use mcp_proto::schema::LoggingLevel;
use mcp_proto::ProtocolVersion;

#[cfg(feature = "http")]
pub(crate) use link::Restored;
pub(crate) use link::{SessionMirror, StoreLink};
pub use memory::MemorySessionStore;
pub use relay::{MemorySessionRelay, Relayed, SessionRelay};

/// The future a [`SessionStore`] method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a session remembers between requests, whichever replica serves them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRecord {
    /// The negotiated protocol version.
    pub protocol_version: ProtocolVersion,
    /// The client's `capabilities` from `initialize`, as JSON.
    pub client_capabilities: String,
    /// The client's `clientInfo` from `initialize`, as JSON.
    pub client_info: String,
    /// The level the client asked for with `logging/setLevel`, if it did.
    pub log_level: Option<LoggingLevel>,
    /// The principal the session is bound to, when authorization is on.
    pub owner: Option<String>,
    /// Counts changes to the session's resource subscriptions, so a replica refreshes its copy
    /// of them only when they changed.
    pub revision: u64,
}

/// A change a session's client made that other replicas must see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionChange {
    /// `logging/setLevel`.
    LogLevel(LoggingLevel),
    /// `resources/subscribe`.
    Subscribe(String),
    /// `resources/unsubscribe`.
    Unsubscribe(String),
}

/// How long sessions live and how many may exist at once (across every replica).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    /// A session without a request for this long expires.
    pub idle: Duration,
    /// At most this many live sessions at once.
    pub max_sessions: usize,
}

/// Why a session store refused or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionStoreError {
    /// The cap is reached.
    #[error("too many sessions: at most {0} at once across every replica; retry later")]
    Full(usize),
    /// The store did not answer (a remote store down, a timeout).
    #[error("the session store is unavailable: {0}")]
    Unavailable(String),
    /// A stored record could not be read back.
    #[error("the stored record of session {id} is unreadable ({detail}); the session must be re-initialized")]
    Corrupt {
        /// The session.
        id: String,
        /// What was wrong.
        detail: String,
    },
}

/// Where the sessions of every replica live. Every method is one round trip to a remote store,
/// except `touch` under a replica-local lease (see the module docs).
pub trait SessionStore: std::fmt::Debug + Send + Sync + 'static {
    /// Stores a new session, unless `limits.max_sessions` live sessions exist already
    /// ([`SessionStoreError::Full`]).
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        limits: SessionLimits,
    ) -> StoreFuture<'a, Result<(), SessionStoreError>>;

    /// The record of live session `id`, marked active (it now expires `idle` from now, or a
    /// flush later when served under a lease); `None` when unknown, expired or removed.
    fn touch<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> StoreFuture<'a, Result<Option<SessionRecord>, SessionStoreError>>;

    /// Applies `change` to session `id`; false when the session is gone.
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: &'a SessionChange,
        idle: Duration,
    ) -> StoreFuture<'a, Result<bool, SessionStoreError>>;

    /// The resources session `id` is subscribed to.
    fn subscriptions<'a>(
        &'a self,
        id: &'a str,
    ) -> StoreFuture<'a, Result<Vec<String>, SessionStoreError>>;

    /// The sessions subscribed to resource `uri` (some may have expired since).
    fn subscribers<'a>(
        &'a self,
        uri: &'a str,
    ) -> StoreFuture<'a, Result<Vec<String>, SessionStoreError>>;

    /// Removes session `id`; true if it existed.
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Result<bool, SessionStoreError>>;

    /// Marks sessions active that a replica holds open streams of; says for each whether it
    /// still exists (a session removed elsewhere is then closed by the replica).
    fn keep_alive<'a>(
        &'a self,
        ids: &'a [String],
        idle: Duration,
    ) -> StoreFuture<'a, Result<Vec<bool>, SessionStoreError>>;
}

impl SessionRecord {
    /// A record of a session that negotiated `protocol_version`.
    pub fn new(
        protocol_version: ProtocolVersion,
        client_capabilities: String,
        client_info: String,
    ) -> Self {
        SessionRecord {
            protocol_version,
            client_capabilities,
            client_info,
            log_level: None,
            owner: None,
            revision: 0,
        }
    }
}
