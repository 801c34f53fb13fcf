//! What a forwarded call answers: the result read into types when the hub had something to do
//! to it (a result limit, shaping, a result hook), else the server's JSON text as it came (see
//! [`Hub::call_tool_reply`](super::Hub::call_tool_reply)).

use mcp_proto::schema::CallToolResult;
use serde_json::Value;

use mcp_client::PassThroughResult;

/// A tool's result as the hub answers a forwarded call.
#[derive(Debug, Clone)]
pub enum ToolReply {
    /// Read (and shaped) by the hub.
    Typed(Box<CallToolResult>),
    /// The server's JSON text without its 2026-07-28 head, unread.
    PassThrough(PassThroughResult),
}

impl ToolReply {
    /// Whether the tool reported a failure (`isError: true`).
    pub fn is_error(&self) -> bool {
        match self {
            ToolReply::Typed(result) => result.is_error(),
            ToolReply::PassThrough(result) => result.is_error(),
        }
    }

    /// The result as its type (read now if it was left as text; unreadable text becomes an
    /// `isError` result saying why).
    pub fn into_typed(self) -> CallToolResult {
        match self {
            ToolReply::Typed(result) => *result,
            ToolReply::PassThrough(raw) => raw.to_typed().unwrap_or_else(|e| {
                CallToolResult::error(format!("the tool's result is not a CallToolResult: {e}"))
            }),
        }
    }

    /// The size of the result's JSON text, for the call log.
    pub(crate) fn json_size(&self) -> usize {
        match self {
            ToolReply::Typed(result) => super::observe::json_size(result),
            ToolReply::PassThrough(raw) => raw.as_str().len(),
        }
    }

    /// The result as JSON, for a call log that keeps contents.
    pub(crate) fn to_value(&self) -> Option<Value> {
        match self {
            ToolReply::Typed(result) => serde_json::to_value(result).ok(),
            ToolReply::PassThrough(raw) => serde_json::from_str(raw.as_str()).ok(),
        }
    }
}
