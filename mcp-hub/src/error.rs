//! What can go wrong in a hub call, typed by kind so a caller (or a model) can tell a dead
//! server from a slow one, a protocol fault, a failing tool or a denied call.

use mcp_proto::peer::PeerError;
use mcp_proto::schema::CallToolResult;

use mcp_client::ClientError;

/// The kind of a hub failure, for callers that branch on it and for the `[kind]` label a
/// model sees in an error result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The server is not connected, failed to start, or the connection dropped.
    Connection,
    /// The server did not answer within its timeout.
    Timeout,
    /// The server answered with a JSON-RPC error or a malformed result.
    Protocol,
    /// The tool ran and reported a failure (`isError`).
    Tool,
    /// The approval callback refused the call.
    Denied,
    /// No server or tool of that name.
    NotFound,
    /// The server has as many calls running and waiting as its limits allow.
    Overloaded,
}

impl ErrorKind {
    /// The kind's short name: `connection`, `timeout`, `protocol`, `tool`, `denied`, `not found`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Connection => "connection",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Protocol => "protocol",
            ErrorKind::Tool => "tool",
            ErrorKind::Denied => "denied",
            ErrorKind::NotFound => "not found",
            ErrorKind::Overloaded => "overloaded",
        }
    }
}

/// Why a hub operation failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum HubError {
    /// No tool has that exposed name, and no single server has a tool of that raw name.
    #[error("no tool named {name:?}; run `mcp tools` to see the exposed names")]
    UnknownTool {
        /// The name asked for.
        name: String,
    },
    /// A bare tool name that several servers have.
    #[error("tool name {name:?} is ambiguous; use one of the exposed names: {}", candidates.join(", "))]
    AmbiguousTool {
        /// The name asked for.
        name: String,
        /// The exposed names it could mean.
        candidates: Vec<String>,
    },
    /// No connected server knows this task id.
    #[error("no server knows task {id:?}; run `mcp tasks` to see the tasks of each server")]
    UnknownTask {
        /// The task id asked for.
        id: String,
    },
    /// No server of that name in the config.
    #[error("no server named {name:?} in the config; run `mcp servers` to see them")]
    UnknownServer {
        /// The name asked for.
        name: String,
    },
    /// The server is configured but not connected.
    #[error("server {server} is not connected: {reason}")]
    NotConnected {
        /// The server.
        server: String,
        /// Disabled, or why the connection failed.
        reason: String,
    },
    /// The approval callback refused the call.
    #[error("the call of {tool} on server {server} was denied: {reason}")]
    Denied {
        /// The server.
        server: String,
        /// The raw tool name.
        tool: String,
        /// What the approver said.
        reason: String,
    },
    /// The server's concurrency limit is reached and its queue is full (see `hub::limits`).
    #[error("server {server} is overloaded: {running} calls running and {queued} waiting (its maxConcurrentCalls and maxQueuedCalls); try again later or raise them in the config")]
    Overloaded {
        /// The server.
        server: String,
        /// Its `maxConcurrentCalls`.
        running: usize,
        /// Its `maxQueuedCalls`.
        queued: usize,
    },
    /// The underlying client call failed.
    #[error(transparent)]
    Client(#[from] ClientError),
}

impl HubError {
    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            HubError::UnknownTool { .. }
            | HubError::AmbiguousTool { .. }
            | HubError::UnknownServer { .. }
            | HubError::UnknownTask { .. } => ErrorKind::NotFound,
            HubError::NotConnected { .. } => ErrorKind::Connection,
            HubError::Denied { .. } => ErrorKind::Denied,
            HubError::Overloaded { .. } => ErrorKind::Overloaded,
            HubError::Client(e) => match e {
                ClientError::Peer { error, .. } => match error {
                    PeerError::Timeout { .. } => ErrorKind::Timeout,
                    PeerError::Rpc { .. } | PeerError::Decode { .. } | PeerError::Encode { .. } => {
                        ErrorKind::Protocol
                    }
                    // A closed connection, a cancelled call, and whatever else the engine
                    // reports about getting the call across (new variants included).
                    _ => ErrorKind::Connection,
                },
                ClientError::UnsupportedVersion { .. }
                | ClientError::TooManyPages { .. }
                | ClientError::ModernRefused { .. }
                | ClientError::InvalidResult { .. }
                | ClientError::InputRequired { .. }
                | ClientError::TasksUnsupported { .. }
                | ClientError::TaskNotDone { .. } => ErrorKind::Protocol,
                ClientError::TaskEnded { .. } => ErrorKind::Tool,
                ClientError::Spawn { .. } | ClientError::CrashLoop { .. } => ErrorKind::Connection,
                // A failure the client learns to report later: protocol, until classified.
                _ => ErrorKind::Protocol,
            },
        }
    }

    /// The failure as a tool result with `isError`, labelled by kind, for a model that should
    /// read the error rather than have its turn crash.
    pub fn to_tool_result(&self) -> CallToolResult {
        CallToolResult::error(format!("[{}] {self}", self.kind().as_str()))
    }
}

/// The kind of failure a tool result reports: [`ErrorKind::Tool`] when it has `isError`, so
/// callers sort a failing tool and a failing call (an `Err` with its own kind) the same way.
pub fn result_error_kind(result: &CallToolResult) -> Option<ErrorKind> {
    result.is_error().then_some(ErrorKind::Tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_error_results_are_tool_errors() {
        assert_eq!(
            result_error_kind(&CallToolResult::error("bad city")),
            Some(ErrorKind::Tool)
        );
        assert_eq!(result_error_kind(&CallToolResult::text("ok")), None);
    }

    #[test]
    fn denial_is_an_error_result_labelled_denied() {
        let e = HubError::Denied {
            server: "fs".into(),
            tool: "write_file".into(),
            reason: "not now".into(),
        };
        assert_eq!(e.kind(), ErrorKind::Denied);
        let r = e.to_tool_result();
        assert!(r.is_error());
        let text = r.content[0].as_text().unwrap_or_default();
        assert!(text.starts_with("[denied]"), "{text}");
        assert!(text.contains("write_file"), "{text}");
    }

    #[test]
    fn timeouts_are_their_own_kind() {
        let e = HubError::from(ClientError::from_peer(
            "s",
            PeerError::Timeout {
                method: "tools/call".into(),
                timeout: std::time::Duration::from_secs(1),
            },
        ));
        assert_eq!(e.kind(), ErrorKind::Timeout);
    }
}
