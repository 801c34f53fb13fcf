//! What can go wrong when talking to a server. Every error names the server, so a user with
//! many servers knows which one to look at; a timeout also names the method and the timeout.

use std::sync::Arc;
use std::time::Duration;

use mcp_proto::jsonrpc::ErrorObject;
use mcp_proto::peer::PeerError;

/// Why a client operation failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ClientError {
    /// The server's process could not be started (no such command, no permission, bad cwd).
    #[error("server {server}: could not start `{command}`: {source}")]
    Spawn {
        /// The server's name.
        server: String,
        /// The command that was run.
        command: String,
        /// What the operating system said.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// The connection is gone: the process exited (with its status and the tail of its
    /// stderr), closed its stdout, or the client was closed.
    #[error("server {server}: connection closed: {reason}")]
    Closed {
        /// The server's name.
        server: String,
        /// Why, as the transport saw it.
        reason: String,
    },
    /// No answer within the timeout; `notifications/cancelled` was sent.
    #[error("server {server}: {method} timed out after {}", show_duration(*.timeout))]
    Timeout {
        /// The server's name.
        server: String,
        /// The method that was called.
        method: String,
        /// The timeout that ran out.
        timeout: Duration,
    },
    /// The caller cancelled the request; `notifications/cancelled` was sent.
    #[error("server {server}: {method} was cancelled")]
    Cancelled {
        /// The server's name.
        server: String,
        /// The method that was called.
        method: String,
    },
    /// The server answered with a JSON-RPC error.
    #[error("server {server}: {method} failed: {error}")]
    Rpc {
        /// The server's name.
        server: String,
        /// The method that was called.
        method: String,
        /// The error object the server sent.
        error: ErrorObject,
    },
    /// The server's answer did not have the shape the method promises.
    #[error("server {server}: could not decode the result of {method}: {detail}")]
    Decode {
        /// The server's name.
        server: String,
        /// The method that was called.
        method: String,
        /// What serde said.
        detail: String,
    },
    /// Our own params could not be serialized.
    #[error("server {server}: could not encode the params of {method}: {detail}")]
    Encode {
        /// The server's name.
        server: String,
        /// The method that was called.
        method: String,
        /// What serde said.
        detail: String,
    },
    /// The server chose a protocol version we do not speak; we disconnected.
    #[error(
        "server {server}: we offered protocol version {offered} and the server answered \
         {answered:?}, which we do not speak (we speak {supported})"
    )]
    UnsupportedVersion {
        /// The server's name.
        server: String,
        /// The version we offered.
        offered: String,
        /// The version the server answered with.
        answered: String,
        /// The versions we speak, comma-separated.
        supported: String,
    },
    /// A list kept returning `nextCursor` past the page bound.
    #[error(
        "server {server}: {method} returned more than {pages} pages; stopped following nextCursor"
    )]
    TooManyPages {
        /// The server's name.
        server: String,
        /// The list method.
        method: String,
        /// The bound that was reached.
        pages: usize,
    },
    /// The call failed in the engine for a reason the variants above do not name: the
    /// transport could not carry this one request (an HTTP error status, say), or too many
    /// calls already wait for answers.
    #[error("server {server}: {error}")]
    Peer {
        /// The server's name.
        server: String,
        /// What the engine said.
        error: PeerError,
    },
    /// The server kept dying; the restart policy gave up.
    #[error("server {server}: gave up after {restarts} restarts in a row; last failure: {last}")]
    CrashLoop {
        /// The server's name.
        server: String,
        /// How many restarts were tried.
        restarts: u32,
        /// The last failure.
        last: String,
    },
}

impl ClientError {
    /// Wraps an engine error with the server's name.
    pub fn from_peer(server: &str, error: PeerError) -> Self {
        let server = server.to_owned();
        match error {
            PeerError::Closed(reason) => ClientError::Closed { server, reason },
            PeerError::Timeout { method, timeout } => ClientError::Timeout {
                server,
                method,
                timeout,
            },
            PeerError::Cancelled { method } => ClientError::Cancelled { server, method },
            PeerError::Rpc { method, error } => ClientError::Rpc {
                server,
                method,
                error,
            },
            PeerError::Decode { method, detail } => ClientError::Decode {
                server,
                method,
                detail,
            },
            PeerError::Encode { method, detail } => ClientError::Encode {
                server,
                method,
                detail,
            },
            error @ (PeerError::Transport { .. } | PeerError::TooManyPending { .. }) => {
                ClientError::Peer { server, error }
            }
        }
    }

    /// The JSON-RPC error object, when the server sent one.
    pub fn rpc_error(&self) -> Option<&ErrorObject> {
        match self {
            ClientError::Rpc { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The name of the server this error is about.
    pub fn server(&self) -> &str {
        match self {
            ClientError::Spawn { server, .. }
            | ClientError::Closed { server, .. }
            | ClientError::Timeout { server, .. }
            | ClientError::Cancelled { server, .. }
            | ClientError::Rpc { server, .. }
            | ClientError::Decode { server, .. }
            | ClientError::Encode { server, .. }
            | ClientError::UnsupportedVersion { server, .. }
            | ClientError::TooManyPages { server, .. }
            | ClientError::Peer { server, .. }
            | ClientError::CrashLoop { server, .. } => server,
        }
    }
}

/// `60s`, `1500ms`: whole seconds when the duration has no fraction.
fn show_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_names_server_method_and_timeout() {
        let e = ClientError::from_peer(
            "weather",
            PeerError::Timeout {
                method: "tools/call".into(),
                timeout: Duration::from_secs(60),
            },
        );
        assert_eq!(
            e.to_string(),
            "server weather: tools/call timed out after 60s"
        );
        assert_eq!(e.server(), "weather");
    }

    #[test]
    fn unsupported_version_names_both() {
        let e = ClientError::UnsupportedVersion {
            server: "s".into(),
            offered: "2025-11-25".into(),
            answered: "1999-01-01".into(),
            supported: "2024-11-05, 2025-11-25".into(),
        };
        let text = e.to_string();
        assert!(
            text.contains("2025-11-25") && text.contains("1999-01-01"),
            "{text}"
        );
    }
}
