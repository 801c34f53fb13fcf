//! Where 2025-era HTTP sessions live when several replicas serve them: the [`SessionStore`]
//! trait, the [`SessionRecord`] it keeps, [`MemorySessionStore`] (one process, or replicas in
//! one process in tests) and `RedisSessionStore` (replicas behind a load balancer; the `redis`
//! feature).
//!
//! Without a store (the default) a session lives only in the process that created it. With
//! one, any replica can serve any session's request: the first request a replica sees for a
//! session it does not hold restores it from its record (version, client capabilities and info,
//! log level, resource subscriptions), and every request marks the session active in the store,
//! so expiry and the session cap hold across replicas.
//!
//! # Leases: no round trip per request (Redis)
//! [`MemorySessionStore`] answers from memory and needs nothing more. `RedisSessionStore`
//! would cost each request one round trip to Redis on its critical path, so a replica keeps a
//! short **lease** per session instead:
//! - After a replica has read a session's record (`touch` went to Redis), it serves that
//!   session's further requests from the record it read, without asking Redis, until the lease
//!   ends: `RedisSessionStore::DEFAULT_LEASE` (1 s, configurable), and never longer than a
//!   quarter of the idle timeout, so a leased session cannot expire in Redis under the lease.
//! - **Invalidation comes from Redis itself.** The scripts that change a session (log level,
//!   subscriptions) or remove it publish its id on the `session-changed` channel, in the same
//!   atomic step; every replica subscribes and drops its lease of that id, so its next request
//!   reads the record again. A replica's own change drops its lease as soon as Redis answered,
//!   and its echo on the channel (tagged with the replica and the change) then ends nothing:
//!   the read made after the answer already saw the change.
//!   A read that was in flight when an invalidation of its session (or of all) arrived grants
//!   no lease (epochs), so an invalidation overtaking the read it invalidates is not lost.
//!   Expiry publishes nothing and needs not: a lease ends before the expiry its read wrote.
//! - **No feed, no lease.** While the subscription is not subscribed (starting, Redis down,
//!   reconnecting), no lease is granted or honoured and every lease was dropped: each request
//!   goes to Redis, and with Redis down fails with a clear 503, as without leases. What a
//!   replica could still miss is a change made between its subscription breaking and the
//!   replica noticing (a hung Redis, not a stopped one); the lease length bounds that.
//! - **Expiry is written behind.** A request served under a lease marks its session touched;
//!   a flusher writes the expiry of every touched session in one pipeline (`PEXPIRE` of its keys,
//!   `ZADD XX` in the index, never recreating a removed session) each tick (1 s, or a quarter
//!   of the idle timeout if less), or sooner when many wait. The set of touched
//!   sessions is bounded (when full, requests go to Redis, which writes their expiry), and so
//!   are the leases. A failed flush drops every lease.
//!
//! So a change made through one replica is seen by the others once its invalidation arrives
//! (one pub/sub hop, normally before the client's next request reaches them), expiry and the
//! cap hold across replicas within a tick of write-behind, and a busy session costs one read
//! per lease plus its share of a pipeline per tick instead of a round trip per request.

#[cfg(feature = "redis")]
mod lease;
mod link;
mod memory;
#[cfg(feature = "redis")]
mod redis;
mod relay;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use mcp_proto::schema::LoggingLevel;
use mcp_proto::ProtocolVersion;

pub(crate) use link::{Restored, SessionMirror, StoreLink};
pub use memory::MemorySessionStore;
#[cfg(feature = "redis")]
pub use redis::RedisSessionStore;
#[cfg(feature = "redis")]
pub use relay::RedisSessionRelay;
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
pub enum SessionStoreError {
    /// The cap is reached.
    #[error("too many sessions: at most {0} at once across every replica; retry later")]
    Full(usize),
    /// The store did not answer (Redis down, a timeout).
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

/// The level named `name` on the wire (`"warning"`), as the Redis store reads it back.
#[cfg(any(feature = "redis", test))]
pub(crate) fn parse_level(name: &str) -> Option<LoggingLevel> {
    LoggingLevel::ALL.into_iter().find(|l| l.as_str() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_back() {
        for level in LoggingLevel::ALL {
            assert_eq!(parse_level(level.as_str()), Some(level));
        }
        assert_eq!(parse_level("loud"), None);
    }
}
