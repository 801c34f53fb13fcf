//! [`RedisConfig`]: where Redis is, how keys are named there, and how long to wait for it.

use std::time::Duration;

use crate::RedisSessionStore;

/// How to reach Redis and how to name keys there.
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
    /// [`RedisSessionStore`]).
    pub session_lease: Duration,
}

impl RedisConfig {
    /// Redis at `url`, with the default prefix and timeouts.
    pub fn new(url: impl Into<String>) -> Self {
        RedisConfig {
            url: url.into(),
            key_prefix: "mcp:".into(),
            command_timeout: Duration::from_secs(2),
            subscription_queue: 1024,
            session_lease: RedisSessionStore::DEFAULT_LEASE,
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
