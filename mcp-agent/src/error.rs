//! What can go wrong talking to a model or running a turn, each with a message that says what
//! to do about it.

use std::time::Duration;

/// A model provider's failure.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// No API key: neither given nor in the environment variable.
    #[error("{provider} needs an API key: set {env} (or pass one explicitly)")]
    MissingApiKey {
        /// The provider's name.
        provider: &'static str,
        /// The environment variable it is read from.
        env: String,
    },
    /// The provider refused the key (401 or 403).
    #[error("{provider} refused the API key (HTTP {status}) at {url}: check {env}{detail}")]
    Unauthorized {
        /// The provider's name.
        provider: &'static str,
        /// 401 or 403.
        status: u16,
        /// The URL called.
        url: String,
        /// Where the key came from.
        env: String,
        /// The provider's own message, if any (with a leading `: `).
        detail: String,
    },
    /// The endpoint could not be reached (connection refused, DNS, TLS).
    #[error("cannot reach the model endpoint {url}: {reason} (check the base URL and that the server runs)")]
    Unreachable {
        /// The URL called.
        url: String,
        /// Why.
        reason: String,
    },
    /// The provider answered with an error status that retries did not cure.
    #[error("the model endpoint {url} answered HTTP {status}{detail}")]
    Status {
        /// The URL called.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The provider's own message, if any (with a leading `: `).
        detail: String,
    },
    /// Still rate-limited (429) after every retry.
    #[error("the model endpoint {url} is rate-limiting (HTTP 429) after {attempts} attempts; wait and try again")]
    RateLimited {
        /// The URL called.
        url: String,
        /// How many requests were sent.
        attempts: u32,
    },
    /// No answer in time.
    #[error("the model endpoint {url} did not answer within {after:?}")]
    Timeout {
        /// The URL called.
        url: String,
        /// The timeout that ran out.
        after: Duration,
    },
    /// The streamed answer did not follow the provider's protocol.
    #[error("the model's stream is malformed: {0}")]
    Stream(String),
    /// The provider reported an error inside the stream.
    #[error("the model reported an error: {0}")]
    Provider(String),
    /// A setting is unusable (bad URL, bad header).
    #[error("invalid model settings: {0}")]
    Config(String),
}

/// A turn's failure (tool failures are not among them: the model sees those and goes on).
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The model failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The turn was cancelled.
    #[error("the turn was cancelled")]
    Cancelled,
    /// A transcript could not be read or written.
    #[error("transcript {path}: {reason}")]
    Transcript {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The turn's task ended without a result (it panicked).
    #[error("the turn ended abnormally: {0}")]
    Aborted(String),
}
