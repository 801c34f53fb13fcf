//! Unicode in names and URIs (`unicode.round-trip`): every resource URI with non-ASCII
//! characters, percent-encoding or spaces reads back by exactly the listed string; every prompt
//! and (safely callable) tool with a non-ASCII name answers to exactly that name; and an `echo`
//! tool given non-ASCII text, raw and as JSON `\u` escapes (a surrogate pair included), sends
//! the same characters back. The output being valid UTF-8 JSON at all is checked by every read
//! of the driver (and `jsonrpc.valid-output` on stdio).

use serde_json::{json, Map, Value};

use crate::case;
use crate::case::{Case, CaseResult, Versions};
use crate::context::Ctx;
use crate::driver::Reply;
use crate::error::Error;

/// The most names and URIs the case requests.
const MAX_ROUND_TRIPS: usize = 20;

/// The text the echo tool gets, as it appears inside the JSON string on the wire: raw UTF-8
/// and the same kinds of characters as escapes (é, a surrogate pair for 😀, U+2028).
const ECHO_WIRE: &str = r"héllo wörld \u00e9 日本語 😀 \ud83d\ude00 \u2028 \u0022q\u0022";
/// [`ECHO_WIRE`] decoded: what must come back.
const ECHO_TEXT: &str = "héllo wörld é 日本語 😀 😀 \u{2028} \"q\"";

/// The Unicode cases.
pub fn cases() -> Vec<Case> {
    vec![
        case!("unicode.round-trip", Must, Versions::ALL, Shared, "basic/transports",
            "non-ASCII and percent-encoded names and URIs answer to exactly the listed string; an echo tool returns non-ASCII text intact", round_trip),
    ]
}

/// True for a listed URI worth a round trip: non-ASCII, percent-encoded, or with a space.
pub fn is_interesting_uri(uri: &str) -> bool {
    !uri.is_ascii() || uri.contains('%') || uri.contains(' ')
}

/// The echo tool: named `echo` (any case), with exactly one required argument, of type string.
/// Returns its name and that argument's name.
pub fn echo_tool(tools: &[Value]) -> Option<(String, String)> {
    tools.iter().find_map(|tool| {
        let name = tool.get("name").and_then(Value::as_str)?;
        if !name.eq_ignore_ascii_case("echo") {
            return None;
        }
        let schema = tool.get("inputSchema")?;
        let required: Vec<&str> = schema
            .get("required")?
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let [arg] = required.as_slice() else {
            return None;
        };
        let is_string = schema
            .pointer(&format!("/properties/{arg}/type"))
            .and_then(Value::as_str)
            == Some("string");
        is_string.then(|| (name.to_owned(), (*arg).to_owned()))
    })
}

/// The problem with an echo result, if any: it must be a successful result with a text block
/// holding the text sent (decoded from its escapes) exactly.
pub fn echo_problem(reply: &Reply) -> Option<String> {
    let Some(result) = reply.result() else {
        return Some(reply.describe());
    };
    if result.get("isError") == Some(&json!(true)) {
        return Some(format!("an error result: {}", reply.describe()));
    }
    let texts: Vec<&str> = super::strings_in(result, "content", "text").collect();
    if texts.iter().any(|t| t.contains(ECHO_TEXT)) {
        return None;
    }
    Some(format!("text {texts:?}, which does not hold {ECHO_TEXT:?}"))
}

/// True if a reply is an error that names a missing client capability (the runner declares
/// none), which is no verdict on the name.
fn is_capability_refusal(reply: &Reply) -> bool {
    match reply {
        Reply::Error(e) => {
            e.code == Some(-32021)
                || e.message
                    .as_deref()
                    .unwrap_or_default()
                    .to_ascii_lowercase()
                    .contains("capabilit")
        }
        Reply::Result(_) => false,
    }
}

/// The items of list `method` (result key `key`) when the server declares `capability`, else
/// none.
async fn listed(
    cx: &mut Ctx,
    capability: &str,
    method: &'static str,
    key: &str,
) -> Result<Vec<Value>, Error> {
    Ok(match cx.capability(capability).await? {
        Some(_) => cx.list_all(method, key).await?.items,
        None => Vec::new(),
    })
}

async fn round_trip(cx: &mut Ctx) -> CaseResult {
    let mut checked = Vec::new();
    let mut problems = Vec::new();
    let resources = listed(cx, "resources", "resources/list", "resources").await?;
    let uris: Vec<&str> = super::strings_in_items(&resources, "uri")
        .filter(|u| is_interesting_uri(u))
        .take(MAX_ROUND_TRIPS)
        .collect();
    for uri in uris {
        checked.push(format!("resource {uri:?}"));
        let reply = cx
            .request("resources/read", Some(json!({"uri": uri})))
            .await?;
        let problem = match &reply {
            Reply::Result(r) => super::resources::read_problem(r),
            other => Some(other.describe()),
        };
        if let Some(problem) = problem {
            problems.push(format!("reading {uri:?} as listed: {problem}"));
        }
    }
    let prompts = listed(cx, "prompts", "prompts/list", "prompts").await?;
    let non_ascii: Vec<&Value> = prompts
        .iter()
        .filter(|p| {
            p.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| !n.is_ascii())
        })
        .take(MAX_ROUND_TRIPS)
        .collect();
    for prompt in non_ascii {
        let name = prompt.get("name").cloned().unwrap_or_default();
        // Required arguments get a plain value; a refusal of it is no verdict on the name.
        let args: Map<String, Value> = prompt
            .get("arguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|a| a.get("required") == Some(&json!(true)))
            .filter_map(|a| a.get("name").and_then(Value::as_str))
            .map(|arg| (arg.to_owned(), json!("x")))
            .collect();
        let lenient = !args.is_empty();
        checked.push(format!("prompt {name}"));
        let params = json!({"name": name, "arguments": args});
        let reply = cx.request("prompts/get", Some(params)).await?;
        if reply.is_error() && !lenient && !is_capability_refusal(&reply) {
            problems.push(format!(
                "getting prompt {name} as listed: {}",
                reply.describe()
            ));
        }
    }
    let tools = cx.tools().await?;
    let callable = tools.iter().filter(|t| {
        t.pointer("/annotations/readOnlyHint") == Some(&json!(true))
            && t.pointer("/inputSchema/required")
                .and_then(Value::as_array)
                .is_none_or(Vec::is_empty)
    });
    let non_ascii: Vec<String> = super::strings_in_items(callable, "name")
        .filter(|n| !n.is_ascii())
        .take(MAX_ROUND_TRIPS)
        .map(str::to_owned)
        .collect();
    for name in non_ascii {
        checked.push(format!("tool {name:?}"));
        let params = json!({"name": name, "arguments": {}});
        let reply = cx.request("tools/call", Some(params)).await?;
        // An unknown-tool answer is a protocol error; a tool's own failure is a result.
        if reply.is_error() && !is_capability_refusal(&reply) {
            problems.push(format!(
                "calling tool {name:?} as listed: {}",
                reply.describe()
            ));
        }
    }
    if let Some((echo, arg)) = echo_tool(&tools) {
        checked.push(format!("`{echo}` with non-ASCII text"));
        let session = cx.shared().await?;
        let id = session.fresh_id();
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{},"arguments":{{{}:"{ECHO_WIRE}"}}}}}}"#,
            json!(echo),
            json!(arg)
        );
        session.send_line(&line).await?;
        let timeout = session.work_timeout.max(session.timeout);
        let reply = session.wait_reply(&id, timeout).await?;
        if let Some(problem) = echo_problem(&reply) {
            problems.push(format!("`{echo}` echoing {ECHO_TEXT:?}: {problem}"));
        }
    }
    Ok(super::verdict_over(
        &checked,
        "nothing to round-trip: no non-ASCII or percent-encoded name or URI is listed, and no `echo` tool with one string argument",
        "each name and URI to answer to exactly the listed string, and echoed text intact",
        problems,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::RpcError;

    #[test]
    fn the_wire_text_decodes_to_the_expected_text() {
        let decoded: Value = serde_json::from_str(&format!("\"{ECHO_WIRE}\"")).expect("JSON");
        assert_eq!(decoded, json!(ECHO_TEXT));
    }

    #[test]
    fn interesting_uris() {
        for (uri, interesting) in [
            ("test://unicode/caf%C3%A9", true),
            ("file:///tmp/café.txt", true),
            ("file:///a b", true),
            ("test://static-text", false),
        ] {
            assert_eq!(is_interesting_uri(uri), interesting, "{uri}");
        }
    }

    #[test]
    fn the_echo_tool_has_one_required_string() {
        let echo = json!({"name": "echo", "inputSchema": {"type": "object",
            "properties": {"message": {"type": "string"}}, "required": ["message"]}});
        assert_eq!(
            echo_tool(std::slice::from_ref(&echo)),
            Some(("echo".into(), "message".into()))
        );
        let mut two = echo.clone();
        two["inputSchema"]["required"] = json!(["message", "n"]);
        assert_eq!(echo_tool(&[two]), None);
        let mut other = echo;
        other["name"] = json!("shout");
        assert_eq!(echo_tool(&[other]), None);
    }

    #[test]
    fn echo_results_are_judged_by_their_text() {
        let ok = Reply::Result(
            json!({"content": [{"type": "text", "text": format!("Echo: {ECHO_TEXT}")}]}),
        );
        assert_eq!(echo_problem(&ok), None);
        let mangled =
            Reply::Result(json!({"content": [{"type": "text", "text": "Echo: h?llo w?rld"}]}));
        assert!(echo_problem(&mangled).is_some());
        let failed = Reply::Result(
            json!({"isError": true, "content": [{"type": "text", "text": ECHO_TEXT}]}),
        );
        assert!(echo_problem(&failed).is_some());
        let error = Reply::Error(RpcError {
            code: Some(-32602),
            message: Some("bad".into()),
            data: None,
        });
        assert!(echo_problem(&error).is_some());
    }
}
