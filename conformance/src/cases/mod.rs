//! The cases, one module per area of the specification, and the checks they share.

use serde_json::{json, Value};

use crate::case::{Case, Outcome};
use crate::driver::{Reply, Session};
use crate::error::Error;

pub mod completion;
pub mod http;
pub mod jsonrpc;
pub mod lifecycle;
pub mod list_changed;
pub mod logging;
pub mod modern;
pub mod pagination;
pub mod prompts;
pub mod resources;
pub mod schema_dialect;
pub mod sse;
pub mod tasks;
pub mod tools;
pub mod unicode;
pub mod utilities;

/// Every case, in the order they run. The run-wide checks (output validity, log messages) come
/// last so they see everything the server sent.
pub fn all() -> Vec<Case> {
    let mut cases = Vec::new();
    cases.extend(http::cases());
    cases.extend(sse::cases());
    cases.extend(lifecycle::cases());
    cases.extend(jsonrpc::cases());
    cases.extend(utilities::cases());
    cases.extend(tools::cases());
    cases.extend(schema_dialect::cases());
    cases.extend(list_changed::cases());
    cases.extend(tasks::cases());
    cases.extend(resources::cases());
    cases.extend(prompts::cases());
    cases.extend(completion::cases());
    cases.extend(pagination::cases());
    cases.extend(unicode::cases());
    cases.extend(logging::cases());
    cases.extend(modern::cases());
    cases.extend(jsonrpc::final_cases());
    cases.extend(logging::final_cases());
    cases
}

/// `Some(problem)` when `value` does not decode as the `mcp_proto::schema` type `T`: the
/// shapes the spec's schema gives, checked with the toolkit's own types.
pub fn schema_problem<T: serde::de::DeserializeOwned>(value: &Value, what: &str) -> Option<String> {
    serde_json::from_value::<T>(value.clone()).err().map(|e| {
        format!(
            "{what} does not match the schema: {e}: {}",
            crate::driver::session::brief(value)
        )
    })
}

/// `Some(failure)` unless the session still answers a `ping`: bad input must not end a session.
pub async fn still_alive(session: &mut Session, after: &str) -> Result<Option<Outcome>, Error> {
    let timeout = session.timeout;
    let outcome = match session.request_within("ping", None, timeout).await {
        Ok(Reply::Result(_)) => None,
        Ok(other) => Some(Outcome::fail(
            format!("the session to go on after {after} (a `ping` answered)"),
            format!("`ping` got {}", other.describe()),
        )),
        Err(e) => Some(Outcome::fail(
            format!("the session to go on after {after} (a `ping` answered)"),
            e.to_string(),
        )),
    };
    Ok(outcome)
}

/// Checks that `reply` is an error with `code`.
pub fn expect_code(reply: &Reply, code: i64, what: &str) -> Outcome {
    match reply.error_code() {
        Some(c) if c == code => Outcome::Pass,
        _ => Outcome::fail(format!("{what}: error {code}"), reply.describe()),
    }
}

/// Checks that `reply` is an error with one of `codes`.
pub fn expect_codes(reply: &Reply, codes: &[i64], what: &str) -> Outcome {
    match reply.error_code() {
        Some(c) if codes.contains(&c) => Outcome::Pass,
        _ => {
            let list: Vec<String> = codes.iter().map(i64::to_string).collect();
            Outcome::fail(
                format!("{what}: error {}", list.join(" or ")),
                reply.describe(),
            )
        }
    }
}

/// True for the reply the HTTP driver makes up when the server rejected a POST with an HTTP
/// error status and no JSON-RPC body, which the Streamable HTTP transport allows for input it
/// cannot accept.
pub fn is_http_rejection(reply: &Reply) -> bool {
    match reply {
        Reply::Error(e) => e
            .data
            .as_ref()
            .and_then(|d| d.get(crate::driver::http::HTTP_REJECTION))
            .is_some(),
        Reply::Result(_) => false,
    }
}

/// `Pass` unless a response arrives within the session's quiet window, where none may (after
/// notifications); `expected` says what the case expected.
pub async fn no_reply_within_quiet(
    session: &mut Session,
    expected: &str,
) -> Result<Outcome, Error> {
    let replies = session.responses_within(session.quiet).await?;
    Ok(match replies.first() {
        None => Outcome::Pass,
        Some((id, reply)) => Outcome::fail(
            expected,
            format!(
                "{} with id {}",
                reply.describe(),
                id.as_ref().map_or("absent".into(), Value::to_string)
            ),
        ),
    })
}

/// Combines a check with the liveness check that follows it: the first failure wins.
pub fn first_failure(outcome: Outcome, alive: Option<Outcome>) -> Outcome {
    match (outcome, alive) {
        (Outcome::Pass, Some(fail)) => fail,
        (outcome, _) => outcome,
    }
}

/// The verdict of a case that looked at each of `checked`: a skip saying `nothing` when it is
/// empty, else a pass without `problems`, else a failure whose expected text is `expected`
/// followed by what was checked.
pub fn verdict_over(
    checked: &[String],
    nothing: &str,
    expected: &str,
    problems: Vec<String>,
) -> Outcome {
    if checked.is_empty() {
        return Outcome::skip(nothing);
    }
    let expected = format!("{expected} (checked: {})", checked.join(", "));
    modern::verdict(&expected, problems)
}

/// The string `field` of each of `items` (tool names, resource URIs, …); items without it are
/// passed over.
pub fn strings_in_items<'a>(
    items: impl IntoIterator<Item = &'a Value>,
    field: &'a str,
) -> impl Iterator<Item = &'a str> {
    items
        .into_iter()
        .filter_map(move |item| item.get(field).and_then(Value::as_str))
}

/// The string `field` of each object in the array `value[array]` (tool names of a
/// `tools/list` result, texts of a tool result's content, …).
pub fn strings_in<'a>(
    value: &'a Value,
    array: &str,
    field: &'a str,
) -> impl Iterator<Item = &'a str> {
    strings_in_items(
        value
            .get(array)
            .and_then(Value::as_array)
            .into_iter()
            .flatten(),
        field,
    )
}

/// The `type` of a JSON Schema, when it is a single string.
pub fn schema_type(schema: &Value) -> Option<&str> {
    schema.get("type").and_then(Value::as_str)
}

/// A value for a property, taken from its schema; `None` when the schema gives no safe hint.
pub fn sample_value(schema: &Value) -> Option<Value> {
    if let Some(v) = schema.get("default") {
        return Some(v.clone());
    }
    if let Some(v) = schema.get("const") {
        return Some(v.clone());
    }
    if let Some(v) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        return Some(v.clone());
    }
    if let Some(v) = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        return Some(v.clone());
    }
    match schema_type(schema)? {
        "boolean" => Some(json!(false)),
        "number" | "integer" => Some(schema.get("minimum").cloned().unwrap_or(json!(1))),
        "array" => Some(json!([])),
        "object" => Some(json!({})),
        _ => None,
    }
}

/// A problem with one content block, if any (`type` and its required fields per version).
pub fn content_problem(block: &Value, version: mcp_proto::ProtocolVersion) -> Option<String> {
    use mcp_proto::ProtocolVersion as V;
    let Some(kind) = block.get("type").and_then(Value::as_str) else {
        return Some(format!("a content block without a string `type`: {block}"));
    };
    let has_str = |k: &str| block.get(k).is_some_and(Value::is_string);
    let missing = |fields: &[&str]| -> Option<String> {
        let absent: Vec<&str> = fields.iter().copied().filter(|f| !has_str(f)).collect();
        (!absent.is_empty()).then(|| format!("a `{kind}` block without string {absent:?}"))
    };
    match kind {
        "text" => missing(&["text"]),
        "image" => missing(&["data", "mimeType"]).or_else(|| base64_problem(block, "data")),
        "audio" if version >= V::V2025_03_26 => {
            missing(&["data", "mimeType"]).or_else(|| base64_problem(block, "data"))
        }
        "resource" => match block.get("resource") {
            Some(r)
                if r.get("uri").is_some_and(Value::is_string)
                    && (r.get("text").is_some_and(Value::is_string)
                        || r.get("blob").is_some_and(Value::is_string)) =>
            {
                None
            }
            _ => Some("a `resource` block without `resource{uri, text|blob}`".into()),
        },
        "resource_link" if version >= V::V2025_06_18 => missing(&["uri", "name"]),
        other => Some(format!(
            "a content block of type `{other}`, which {} does not define",
            version.as_str()
        )),
    }
}

fn base64_problem(block: &Value, key: &str) -> Option<String> {
    let data = block.get(key).and_then(Value::as_str)?;
    (!is_base64(data)).then(|| format!("`{key}` is not valid base64"))
}

/// True if `text` is standard base64 with padding (whitespace not allowed).
pub fn is_base64(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        return false;
    }
    let body = bytes.len() - bytes.iter().rev().take_while(|&&b| b == b'=').count();
    if bytes.len() - body > 2 {
        return false;
    }
    bytes[..body]
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_checks() {
        assert!(is_base64(""));
        assert!(is_base64("aGk="));
        assert!(is_base64("aGkh"));
        assert!(!is_base64("aGk"));
        assert!(!is_base64("a=Gk"));
        assert!(!is_base64("aG k"));
    }
}
