//! A tool's result passed on as the server wrote it: the one opt-in type for a caller (a proxy)
//! that hands results on without reading them.

use crate::jsonrpc::{self, RawJson};
use crate::schema::CallToolResult;

/// A `CallToolResult` kept as the JSON text a server wrote, for a proxy that passes results on:
/// every field, known or not (vendor fields, `_meta`), reaches the proxy's client as it came,
/// and the result is neither read into types nor written again.
///
/// Opt in where unknown fields must survive: `mcp_client::Client::call_tool_pass_through` gives
/// one, and `mcp_server::ToolOutput::pass_through` answers with one. Everywhere else,
/// [`CallToolResult`] is the type to use: it keeps unknown fields too, in its `extra` map.
#[derive(Debug, Clone)]
pub struct PassThroughResult {
    json: RawJson,
    is_error: bool,
}

impl PassThroughResult {
    /// A result from its JSON text, which must be one JSON object (it is read once, to check
    /// that and to see `isError`).
    pub fn from_json(text: String) -> Result<Self, serde_json::Error> {
        #[derive(serde::Deserialize)]
        struct Flag {
            #[serde(rename = "isError", default)]
            is_error: Option<bool>,
        }
        let flag: Flag = jsonrpc::from_object(&text)?;
        Ok(PassThroughResult {
            json: RawJson::from_string(text)?,
            is_error: flag.is_error == Some(true),
        })
    }

    /// A typed result written as text (a result that had to be read, e.g. a task's).
    pub fn from_typed(result: &CallToolResult) -> Result<Self, serde_json::Error> {
        Ok(PassThroughResult {
            json: jsonrpc::to_raw(result)?,
            is_error: result.is_error(),
        })
    }

    /// The result's JSON text (an object).
    pub fn as_str(&self) -> &str {
        self.json.get()
    }

    /// Whether the tool reported a failure (`isError: true`).
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The result read into its type, for a caller that needs to look inside after all.
    pub fn to_typed(&self) -> Result<CallToolResult, serde_json::Error> {
        jsonrpc::from_object(self.json.get())
    }

    /// A result from JSON text already checked to be an object, whose `isError` the caller has
    /// read. Not API: for mcp-client, which reads both in its one pass over an answer.
    #[doc(hidden)]
    pub fn from_checked(json: RawJson, is_error: bool) -> Self {
        PassThroughResult { json, is_error }
    }

    /// The JSON text, without a copy. Not API: for mcp-server, which writes it into its answer.
    #[doc(hidden)]
    pub fn into_raw(self) -> RawJson {
        self.json
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_only_and_is_error_read_once() {
        let failed = PassThroughResult::from_json(
            r#"{"content":[],"isError":true,"x-vendor":{"k":1}}"#.into(),
        )
        .expect("an object");
        assert!(failed.is_error());
        assert_eq!(
            failed.as_str(),
            r#"{"content":[],"isError":true,"x-vendor":{"k":1}}"#
        );
        let fine = PassThroughResult::from_json(r#"{"content":[]}"#.into()).expect("an object");
        assert!(!fine.is_error());
        for text in ["[]", "1", "\"x\"", "{", ""] {
            assert!(PassThroughResult::from_json(text.into()).is_err(), "{text}");
        }
        let typed = PassThroughResult::from_typed(&CallToolResult::error("no")).expect("typed");
        assert!(typed.is_error());
        assert_eq!(
            typed.to_typed().expect("typed"),
            CallToolResult::error("no")
        );
    }
}
