//! The input requests the fixtures make (elicitation and sampling params), how they read the
//! answers, and how a refused request becomes the tool's error.

use mcp_server::schema::{
    Content, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, SamplingMessage,
};
use mcp_server::{HandlerError, ServerError};
use serde_json::{json, Value};

/// A form elicitation of one required field `field` of JSON type `kind`.
pub(crate) fn ask(message: &str, field: &str, kind: &str) -> ElicitParams {
    let schema = json!({
        "type": "object",
        "properties": {field: {"type": kind}},
        "required": [field]
    });
    ElicitParams::form(message, schema)
}

/// A sampling request of one user message.
pub(crate) fn sample_request(text: &str, max_tokens: u64) -> CreateMessageParams {
    CreateMessageParams::new(vec![SamplingMessage::user_text(text)], max_tokens)
}

/// Field `field` of an accepted elicitation, as text (`"?"` when absent).
pub(crate) fn answer(result: &ElicitResult, field: &str) -> String {
    match result.content.as_ref().and_then(|c| c.get(field)) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => "?".to_owned(),
    }
}

/// The text of a sampling answer.
pub(crate) fn sampled_text(result: &CreateMessageResult) -> String {
    let text: Vec<&str> = result
        .content
        .blocks()
        .iter()
        .filter_map(Content::as_text)
        .collect();
    text.join("")
}

/// Asking the client for input failed: the request is refused with the protocol error (under
/// 2026-07-28 this is also how an `input_required` answer leaves the handler).
pub(crate) fn refused(error: ServerError) -> HandlerError {
    HandlerError::protocol(error)
}
