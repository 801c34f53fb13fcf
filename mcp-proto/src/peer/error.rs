//! Why a call to the other side failed: one typed error for every way a call can end without
//! its result, each message naming the method so a user knows which call to look at.

use std::time::Duration;

use crate::jsonrpc::ErrorObject;

/// Why a call to the other side failed.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PeerError {
    /// The connection is gone; the text says why (end of input, a child's exit status, ...).
    #[error("connection closed: {0}")]
    Closed(String),
    /// No answer within the timeout; `notifications/cancelled` was sent.
    #[error("request {method} timed out after {}", fmt_duration(*.timeout))]
    Timeout {
        /// The method that was called.
        method: String,
        /// The timeout that ran out.
        timeout: Duration,
    },
    /// The caller cancelled the request; `notifications/cancelled` was sent.
    #[error("request {method} was cancelled")]
    Cancelled {
        /// The method that was called.
        method: String,
    },
    /// The other side answered with a JSON-RPC error.
    #[error("{method} failed: {error}")]
    Rpc {
        /// The method that was called.
        method: String,
        /// The error object the other side sent.
        error: ErrorObject,
    },
    /// The transport could not carry this one request or its answer (an HTTP POST answered
    /// with an error status, say); the connection itself may go on.
    #[error("{method} failed in the transport: {detail}")]
    Transport {
        /// The method that was called.
        method: String,
        /// What the transport saw (for HTTP: the status, the URL and an excerpt of the body).
        detail: String,
    },
    /// Too many of our requests already wait for an answer; this one was not sent.
    #[error(
        "{method} was not sent: {limit} requests already wait for an answer on this connection; \
         wait for some to finish, or raise PeerOptions::max_pending_requests"
    )]
    TooManyPending {
        /// The method that was called.
        method: String,
        /// The limit that was reached ([`PeerOptions::max_pending_requests`](super::PeerOptions::max_pending_requests)).
        limit: usize,
    },
    /// The answer did not have the shape the method promises.
    #[error("could not decode the result of {method}: {detail}")]
    Decode {
        /// The method that was called.
        method: String,
        /// What serde said.
        detail: String,
    },
    /// Our own params could not be serialized.
    #[error("could not encode the params of {method}: {detail}")]
    Encode {
        /// The method that was called.
        method: String,
        /// What serde said.
        detail: String,
    },
}

impl PeerError {
    /// The JSON-RPC error object, when the other side sent one.
    pub fn rpc_error(&self) -> Option<&ErrorObject> {
        match self {
            PeerError::Rpc { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The same error naming `method`: answers are matched by id alone, so the call that
    /// waited for one names its method when it takes the error.
    pub(crate) fn for_method(self, method: &str) -> Self {
        match self {
            PeerError::Rpc { error, .. } => PeerError::Rpc {
                method: method.into(),
                error,
            },
            PeerError::Transport { detail, .. } => PeerError::Transport {
                method: method.into(),
                detail,
            },
            other => other,
        }
    }
}

/// `60s`, `1500ms`: whole seconds when the duration has no fraction.
pub(crate) fn fmt_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}
