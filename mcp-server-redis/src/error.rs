//! [`SharedStateError`]: what the Redis stores and the handle report when Redis fails.

use std::time::Duration;

/// Why shared state in Redis could not be read or written.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
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

impl From<SharedStateError> for mcp_server::shared::NotReady {
    fn from(error: SharedStateError) -> Self {
        mcp_server::shared::NotReady::new(error)
    }
}
