//! Every shortcut this crate takes over raw JSON text, each beside its slow twin (the plain
//! serde_json read), so that fuzz-checks can feed both the same text and require the same
//! answer. Not API: hidden, and public only because fuzz-checks is another crate. The list, with
//! the tests, is in `docs/architecture.md`, "Fast paths".

use crate::jsonrpc::RawJson;
use crate::trace_context::TraceContext;
use crate::{json_text, peer, telemetry};

/// A fast path and its slow twin, each giving its answer for a JSON text as text (`Debug` or
/// JSON), so that a check compares them whatever their types.
#[derive(Clone, Copy)]
pub struct Twin {
    /// What the fast path is, for a failure's message.
    pub name: &'static str,
    /// The fast path's answer.
    pub fast: fn(&str) -> String,
    /// The slow twin's answer.
    pub slow: fn(&str) -> String,
}

impl Twin {
    /// The fast path `fast` named `name`, with its slow twin `slow`.
    pub const fn new(
        name: &'static str,
        fast: fn(&str) -> String,
        slow: fn(&str) -> String,
    ) -> Self {
        Twin { name, fast, slow }
    }
}

/// This crate's fast paths. Each function takes valid JSON text (what a [`RawJson`] holds).
pub const TWINS: [Twin; 4] = [
    Twin::new(
        "mcp-proto: _meta.progressToken (KeySearch guard)",
        |text| format!("{:?}", peer::progress_token(Some(&raw(text)))),
        |text| format!("{:?}", peer::progress_token_parsed(text)),
    ),
    Twin::new(
        "mcp-proto: _meta.traceparent (KeySearch guard)",
        |text| format!("{:?}", TraceContext::from_params(Some(&raw(text)))),
        |text| format!("{:?}", TraceContext::from_params_parsed(text)),
    ),
    Twin::new(
        "mcp-proto: a tools/call result's isError for its span (KeySearch guard)",
        |text| format!("{:?}", telemetry::is_tool_error(&raw(text))),
        |text| format!("{:?}", telemetry::is_tool_error_parsed(text)),
    ),
    Twin::new(
        "mcp-proto: an object's members, skimmed (json_text::object_members)",
        |text| format!("{:?}", json_text::object_members(text)),
        |text| format!("{:?}", json_text::object_members_parsed(text)),
    ),
];

/// `text` as a [`RawJson`] (it must be one JSON value; anything else is kept as the empty object,
/// which the check never feeds).
pub fn raw(text: &str) -> RawJson {
    RawJson::from_string(text.to_owned()).unwrap_or_else(|_| crate::jsonrpc::empty_object())
}
