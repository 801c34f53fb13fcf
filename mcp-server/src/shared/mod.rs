//! State shared by the replicas of one deployment: where it lives (`StateBackend`: in this
//! process, the default, or in Redis), the `RedisHandle` every shared store and the change bus
//! talk through, and [`SharedStateError`], what a shared store reports when it fails.
//!
//! Without a backend, everything stays in-process as it always did. With
//! `ServerBuilder::redis`, task records live in Redis (any replica answers `tasks/get`),
//! `subscriptions/listen` hears changes made on every replica, and `/readyz` reports whether
//! Redis answers. MRTR `requestState`s need no store: give every replica the same
//! [`request_state_key`](crate::ServerBuilder::request_state_key).
//!
//! Everything Redis here (`StateBackend`, `RedisConfig`, `RedisHandle`, `Subscription`,
//! `PubSubMessage`, the `client` re-export) exists only with the `redis` feature, which is
//! off by default so that a server keeping its state in-process does not build the Redis
//! client.

pub(crate) mod bus;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
mod redis_bus;

use std::time::Duration;

#[cfg(feature = "redis")]
pub(crate) use self::redis::Listener;
#[cfg(feature = "redis")]
pub use self::redis::{PubSubMessage, RedisHandle, Subscription};
/// The Redis client crate, re-exported so commands built for [`RedisHandle::query`] use the
/// same version. Only with the `redis` feature.
#[cfg(feature = "redis")]
pub use ::redis as client;

/// Where state that must outlive a process or be seen by every replica lives. Only with the
/// `redis` feature (without it, state always lives in the process).
#[cfg(feature = "redis")]
#[derive(Clone, Debug, Default)]
pub enum StateBackend {
    /// In this process (the default): one replica, state lost on restart.
    #[default]
    Memory,
    /// In Redis, shared by every replica configured with the same URL and key prefix.
    Redis(RedisConfig),
}

/// How to reach Redis and how to name keys there. Only with the `redis` feature.
#[cfg(feature = "redis")]
#[derive(Clone, Debug)]
pub struct RedisConfig {
    /// `redis://[user:password@]host:port[/db]` (or `rediss://`, `redis+unix://`).
    pub url: String,
    /// Prepended to every key and channel, so deployments (and tests) sharing one Redis never
    /// see each other's state (default `mcp:`).
    pub key_prefix: String,
    /// The longest one command (or pipeline) may take, connecting included, before the
    /// request that needed it fails (default 2 s).
    pub command_timeout: Duration,
    /// Messages of one subscription queued before the subscriber drops further ones (default
    /// 1024).
    pub subscription_queue: usize,
    /// How long a replica serves a 2025-era session from the record it last read before asking
    /// Redis again, unless told it changed (default 1 s; zero asks on every request; see
    /// [`session_store`](crate::session_store)).
    pub session_lease: Duration,
}

#[cfg(feature = "redis")]
impl RedisConfig {
    /// Redis at `url`, with the default prefix and timeouts.
    pub fn new(url: impl Into<String>) -> Self {
        RedisConfig {
            url: url.into(),
            key_prefix: "mcp:".into(),
            command_timeout: Duration::from_secs(2),
            subscription_queue: 1024,
            session_lease: crate::session_store::RedisSessionStore::DEFAULT_LEASE,
        }
    }

    /// The same config with keys and channels under `prefix`.
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.key_prefix = prefix.into();
        self
    }

    /// The same config with a different per-command timeout.
    pub fn command_timeout(mut self, timeout: Duration) -> Self {
        self.command_timeout = timeout;
        self
    }

    /// The same config with 2025-era session leases of `lease` (zero: none).
    pub fn session_lease(mut self, lease: Duration) -> Self {
        self.session_lease = lease;
        self
    }
}

#[cfg(feature = "redis")]
impl StateBackend {
    /// Redis at `url` with default settings.
    pub fn redis(url: impl Into<String>) -> Self {
        StateBackend::Redis(RedisConfig::new(url))
    }
}

/// Why shared state could not be read or written.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SharedStateError {
    /// The Redis URL does not parse.
    #[error("invalid Redis URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL as given (without its password).
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Redis did not answer: refused, reset, or down.
    #[error("shared state unavailable: Redis at {addr} is unreachable ({reason}); the request was not served, retry once /readyz reports ready")]
    Unavailable {
        /// Where Redis was expected.
        addr: String,
        /// What the connection attempt said.
        reason: String,
    },
    /// Redis did not answer within the command timeout.
    #[error("shared state unavailable: Redis at {addr} did not answer within {timeout:?}; the request was not served, retry once /readyz reports ready")]
    Timeout {
        /// Where Redis was expected.
        addr: String,
        /// The command timeout.
        timeout: Duration,
    },
    /// Redis answers, but a pub/sub subscription (the replica bus) is not subscribed yet: changes
    /// from other replicas would be missed.
    #[error("shared state not ready: {count} Redis pub/sub subscription(s) at {addr} are still (re)subscribing")]
    Subscribing {
        /// Where Redis is.
        addr: String,
        /// How many subscriptions are down.
        count: usize,
    },
    /// Redis answered with an error (a bug or a misconfigured Redis: wrong type, no memory).
    #[error("shared state error: Redis at {addr} refused a command: {reason}")]
    Command {
        /// Where Redis is.
        addr: String,
        /// What Redis said.
        reason: String,
    },
    /// A stored value does not decode (written by an incompatible version?).
    #[error("shared state corrupt: {0}")]
    Corrupt(String),
}

impl SharedStateError {
    /// Whether Redis could not be reached (as opposed to refusing or storing bad data).
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            SharedStateError::Unavailable { .. }
                | SharedStateError::Timeout { .. }
                | SharedStateError::Subscribing { .. }
        )
    }
}
