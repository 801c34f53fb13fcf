//! What can go wrong when talking to a server. Every error names the server, so a user with
//! many servers knows which one to look at; a timeout also names the method and the timeout.

use std::sync::Arc;

use mcp_proto::jsonrpc::ErrorObject;
use mcp_proto::peer::PeerError;

/// Why a client operation failed.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
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
    /// A call failed in the engine: the connection closed (the process exited, with its status
    /// and the tail of its stderr), no answer within the timeout, cancelled, an error answer,
    /// a result or params that did not fit the method, or whatever else [`PeerError`] reports.
    #[error("server {server}: {error}")]
    Peer {
        /// The server's name.
        server: String,
        /// What the engine said; it names the method.
        #[source]
        error: PeerError,
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
    /// A 2026-07-28 server refused the version probe for a reason the client cannot fix (a
    /// header or capability it requires, or no version in common).
    #[error("server {server}: the 2026-07-28 negotiation failed: {reason}")]
    ModernRefused {
        /// The server's name.
        server: String,
        /// What the server said.
        reason: String,
    },
    /// A 2026-07-28 answer broke the era's rules (an unknown `resultType`, `input_required`
    /// from a method that may not ask for input, a malformed `input_required`).
    #[error("server {server}: {method} returned a result this client cannot use: {reason}")]
    InvalidResult {
        /// The server's name.
        server: String,
        /// The method called.
        method: String,
        /// What was wrong.
        reason: String,
    },
    /// The server asked for input (`input_required`) the client could not give: no handler
    /// for it, the handler refused, or more rounds than the bound allows.
    #[error("server {server}: {method} asked for input the client could not give: {reason}")]
    InputRequired {
        /// The server's name.
        server: String,
        /// The method called.
        method: String,
        /// Why the input could not be given.
        reason: String,
    },
    /// The server does not offer tasks for this call: no task capability (or extension),
    /// a tool whose `execution.taskSupport` forbids them, or no `tasks/list` to ask.
    #[error("server {server}: cannot use a task here: {reason}")]
    TasksUnsupported {
        /// The server's name.
        server: String,
        /// What is missing.
        reason: String,
    },
    /// A task ended without a result: cancelled, or failed with no error to show.
    #[error("server {server}: task {task_id} ended {status:?}{}", message.as_deref().map(|m| format!(": {m}")).unwrap_or_default())]
    TaskEnded {
        /// The server's name.
        server: String,
        /// The task.
        task_id: String,
        /// Its terminal status.
        status: mcp_proto::schema::TaskStatus,
        /// Its status message, if any.
        message: Option<String>,
    },
    /// The result of a task that has not ended was asked for (2026-07-28 has no blocking
    /// `tasks/result`): poll it, or wait for it with `wait_task`.
    #[error("server {server}: task {task_id} is still {status:?}; it has no result yet")]
    TaskNotDone {
        /// The server's name.
        server: String,
        /// The task.
        task_id: String,
        /// Its status now.
        status: mcp_proto::schema::TaskStatus,
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
        ClientError::Peer {
            server: server.to_owned(),
            error,
        }
    }

    /// The engine's error, when the call failed in the engine.
    pub fn peer_error(&self) -> Option<&PeerError> {
        match self {
            ClientError::Peer { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The JSON-RPC error object, when the server sent one.
    pub fn rpc_error(&self) -> Option<&ErrorObject> {
        self.peer_error().and_then(PeerError::rpc_error)
    }

    /// The name of the server this error is about.
    pub fn server(&self) -> &str {
        match self {
            ClientError::Spawn { server, .. }
            | ClientError::Peer { server, .. }
            | ClientError::UnsupportedVersion { server, .. }
            | ClientError::TooManyPages { server, .. }
            | ClientError::ModernRefused { server, .. }
            | ClientError::InvalidResult { server, .. }
            | ClientError::InputRequired { server, .. }
            | ClientError::TasksUnsupported { server, .. }
            | ClientError::TaskEnded { server, .. }
            | ClientError::TaskNotDone { server, .. }
            | ClientError::CrashLoop { server, .. } => server,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

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
            "server weather: request tools/call timed out after 60s"
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
