//! The one error type of the runner: what went wrong talking to a server, or with the command
//! line. A case that hits one of these fails with the error as what it got.

use std::time::Duration;

/// Everything that can go wrong outside a case's own expectations.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server command could not be started.
    #[error("could not start `{command}`: {source}")]
    Spawn {
        /// The command line as given.
        command: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// Reading from or writing to the server failed.
    #[error("i/o error talking to the server: {0}")]
    Io(#[from] std::io::Error),
    /// The server closed its output (it exited or closed stdout).
    #[error("the server closed the connection{stderr}")]
    Closed {
        /// The tail of its stderr, prefixed with a separator, or empty.
        stderr: String,
    },
    /// A bounded wait ran out.
    #[error("no {what} within {timeout:?}")]
    Timeout {
        /// What we were waiting for.
        what: String,
        /// How long we waited.
        timeout: Duration,
    },
    /// The server answered in a way the runner cannot work with at all.
    #[error("{0}")]
    Protocol(String),
    /// The server could not be reached at all: neither `initialize` nor a 2026-07-28
    /// `server/discover` got an answer (it exited, closed its output, or stayed silent).
    #[error("the server could not be reached: {0}")]
    Unreachable(String),
    /// A bad command line.
    #[error("{0}")]
    Usage(String),
    /// A target kind that is planned but not written yet.
    #[error("{kind} targets are not implemented yet (asked for {url})")]
    NotImplemented {
        /// `http` or `sse`.
        kind: &'static str,
        /// The URL given.
        url: String,
    },
    /// A message could not be encoded.
    #[error("could not encode a message: {0}")]
    Json(#[from] serde_json::Error),
}
