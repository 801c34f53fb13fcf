//! How a peer behaves ([`PeerOptions`]) and how one outgoing request is sent and awaited
//! ([`RequestOptions`], with its [`Progress`] callback).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::jsonrpc::RequestId;

/// One progress update for a request we sent (`notifications/progress`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// How far along; increases with every update.
    pub progress: f64,
    /// The total, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Called with each progress update of a request.
pub type ProgressCallback = Arc<dyn Fn(Progress) + Send + Sync>;

/// How one outgoing request is sent and awaited.
#[derive(Clone, Default)]
pub struct RequestOptions {
    /// Fail the call when no answer came within this time (`None`: the peer's default).
    pub timeout: Option<Duration>,
    /// Start the timeout over whenever progress arrives.
    pub reset_timeout_on_progress: bool,
    /// With resets: the hard cap on the whole call.
    pub max_total_timeout: Option<Duration>,
    /// Receives progress; setting it adds a progress token to the request.
    pub on_progress: Option<ProgressCallback>,
    /// Cancels the call from outside.
    pub cancel: Option<CancellationToken>,
    /// The incoming request this call is made on behalf of (for HTTP stream routing).
    pub related: Option<RequestId>,
}

impl fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestOptions")
            .field("timeout", &self.timeout)
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("max_total_timeout", &self.max_total_timeout)
            .field("on_progress", &self.on_progress.is_some())
            .field("related", &self.related)
            .finish()
    }
}

impl RequestOptions {
    /// Options with a timeout.
    pub fn timeout(timeout: Duration) -> Self {
        RequestOptions {
            timeout: Some(timeout),
            ..Default::default()
        }
    }
}

/// How a peer behaves.
#[derive(Clone, Debug)]
pub struct PeerOptions {
    /// A name for logs and errors (the server's name, say).
    pub name: String,
    /// At most this many incoming requests are handled at once; more wait (backpressure).
    pub max_concurrent_requests: usize,
    /// At most this many of our own requests wait for an answer at once; a call beyond it fails
    /// at once with [`PeerError::TooManyPending`](super::PeerError::TooManyPending) instead of
    /// growing the table of pending requests without bound.
    pub max_pending_requests: usize,
    /// Capacity of the outgoing queue.
    pub outgoing_queue: usize,
    /// Answer unparsable frames with -32700 / -32600 (servers); else log and skip them (clients
    /// reading a child's stdout, where a banner line is not worth an answer).
    pub reply_to_invalid: bool,
    /// The timeout of outgoing requests that do not set one (`None`: wait forever).
    pub default_timeout: Option<Duration>,
    /// At end of input, how long in-flight handlers may still run before they are cancelled.
    pub shutdown_grace: Duration,
}

impl Default for PeerOptions {
    /// 1024 incoming requests handled at once, 4096 of our own waiting for answers (a few
    /// hundred kilobytes at most), a queue of 1024 outgoing messages, 5 s of shutdown grace.
    fn default() -> Self {
        PeerOptions {
            name: "peer".into(),
            max_concurrent_requests: 1024,
            max_pending_requests: 4096,
            outgoing_queue: 1024,
            reply_to_invalid: true,
            default_timeout: None,
            shutdown_grace: Duration::from_secs(5),
        }
    }
}
