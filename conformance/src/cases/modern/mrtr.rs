//! Input requests under 2026-07-28 (MRTR): a tool that needs input answers `input_required`
//! with `inputRequests` and/or a `requestState`; the client retries under a new id with
//! `inputResponses` and the state echoed. The fixture is the tool named by `--input-tool` (with
//! its arguments when given as `NAME=JSON`), else
//! the first of the tools named by `--call` or named like `*input_required*`/`*elicit*` that
//! answers `input_required`.

use serde_json::{json, Map, Value};

use super::protocol::params_with;
use super::{capability, discover, open, request, result_type_problem, verdict, MODERN};
use crate::case::{Case, CaseResult, Outcome};
use crate::cases::sample_value;
use crate::context::Ctx;
use crate::driver::{Reply, Session};
use crate::error::Error;

const SECTION: &str = "2026-07-28 basic/utilities/input-requests";

/// Error code: a client capability the request needs was not declared.
pub const MISSING_CAPABILITY: i64 = -32021;
/// The most rounds one call may take before the runner gives up.
const MAX_ROUNDS: usize = 5;
/// The most tools probed for the fixture.
const MAX_PROBES: usize = 12;
/// What the runner declares when it wants to be asked for input.
fn all_capabilities() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

/// The MRTR cases.
pub fn cases() -> Vec<Case> {
    vec![
        crate::case!(
            "modern.mrtr-round-trip",
            Must,
            MODERN,
            Own,
            SECTION,
            "input_required carries inputRequests or requestState; the retry with inputResponses completes",
            round_trip
        ),
        crate::case!(
            "modern.mrtr-forged-state",
            Must,
            MODERN,
            Own,
            SECTION,
            "a retry with a forged requestState is refused with an error",
            forged_state
        ),
        crate::case!(
            "modern.mrtr-undeclared-capability",
            Must,
            MODERN,
            Own,
            SECTION,
            "without declared capabilities the server asks for nothing it may not (-32021 or no such request)",
            undeclared_capability
        ),
    ]
}

/// The tool that asks for input, with its arguments and its first answer.
struct Fixture {
    name: String,
    arguments: Value,
    first: Value,
}

/// Arguments for `tool`: the `--call` sample, else values for its required properties.
fn arguments(cx: &Ctx, tool: &Value) -> Option<Value> {
    let name = tool.get("name")?.as_str()?;
    if cx.config.input_tool.as_deref() == Some(name) {
        if let Some(args) = &cx.config.input_args {
            return Some(args.clone());
        }
    }
    if let Some(args) = cx.config.tool_args.get(name) {
        return Some(args.clone());
    }
    let props = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object);
    let mut args = Map::new();
    let required = tool
        .pointer("/inputSchema/required")
        .and_then(Value::as_array);
    for prop in required.into_iter().flatten().filter_map(Value::as_str) {
        let schema = props.and_then(|p| p.get(prop)).unwrap_or(&Value::Null);
        args.insert(prop.to_owned(), sample_value(schema)?);
    }
    Some(Value::Object(args))
}

/// Calls `tools/call` as a modern request declaring `capabilities`.
async fn call(
    session: &mut Session,
    name: &str,
    arguments: &Value,
    extra: Map<String, Value>,
    capabilities: Value,
) -> Result<Reply, Error> {
    let mut params = json!({"name": name, "arguments": arguments});
    if let Some(object) = params.as_object_mut() {
        object.extend(extra);
    }
    session
        .first_request("tools/call", Some(params_with(params, capabilities)))
        .await
}

/// Finds the fixture: the first candidate tool whose call answers `input_required`.
async fn fixture(cx: &mut Ctx, session: &mut Session) -> Result<Option<Fixture>, Error> {
    let tools = match request(session, "tools/list", json!({})).await? {
        Reply::Result(result) => result
            .get("tools")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        Reply::Error(_) => return Ok(None),
    };
    let named = |t: &Value| t.get("name").and_then(Value::as_str).map(str::to_owned);
    let wanted = cx.config.input_tool.clone();
    let mut candidates: Vec<&Value> = Vec::new();
    let matches: [&dyn Fn(&str) -> bool; 3] = [
        &|n| wanted.as_deref() == Some(n),
        &|n| cx.config.tool_args.contains_key(n),
        &|n| n.contains("input_required") || n.contains("elicit"),
    ];
    for rule in matches {
        for tool in &tools {
            if named(tool).is_some_and(|n| rule(&n))
                && !candidates.iter().any(|c| named(c) == named(tool))
            {
                candidates.push(tool);
            }
        }
    }
    for tool in candidates.into_iter().take(MAX_PROBES) {
        let (Some(name), Some(args)) = (named(tool), arguments(cx, tool)) else {
            continue;
        };
        let reply = call(session, &name, &args, Map::new(), all_capabilities()).await?;
        if let Reply::Result(result) = reply {
            if result.get("resultType") == Some(&json!("input_required")) {
                return Ok(Some(Fixture {
                    name,
                    arguments: args,
                    first: result,
                }));
            }
        }
    }
    Ok(None)
}

/// What the runner answers to one input request; `Err` for a method MRTR does not allow.
fn respond(request: &Value) -> Result<Value, String> {
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    match method {
        "elicitation/create" => {
            let mut content = Map::new();
            let props = request
                .pointer("/params/requestedSchema/properties")
                .and_then(Value::as_object);
            for (name, schema) in props.into_iter().flatten() {
                let value = match schema.get("type").and_then(Value::as_str) {
                    Some("string") => schema
                        .get("enum")
                        .and_then(|e| e.get(0))
                        .cloned()
                        .unwrap_or(json!("mcp-conformance")),
                    Some("boolean") => json!(true),
                    _ => sample_value(schema).unwrap_or(Value::Null),
                };
                content.insert(name.clone(), value);
            }
            Ok(json!({"action": "accept", "content": content}))
        }
        "sampling/createMessage" => Ok(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "Paris"},
            "model": "mcp-conformance",
            "stopReason": "endTurn"
        })),
        "roots/list" => Ok(json!({
            "roots": [{"uri": "file:///tmp/mcp-conformance", "name": "conformance"}]
        })),
        other => Err(format!("an input request for {other:?}")),
    }
}

/// Problems with an `input_required` result, and the responses to its requests.
fn answer(result: &Value) -> (Vec<String>, Map<String, Value>) {
    let mut problems = Vec::new();
    let mut responses = Map::new();
    let requests = result.get("inputRequests");
    if requests.is_none() && result.get("requestState").is_none() {
        problems.push("input_required with neither inputRequests nor requestState".into());
    }
    if let Some(state) = result.get("requestState") {
        if !state.is_string() {
            problems.push(format!("requestState is not a string: {state}"));
        }
    }
    match requests {
        None => {}
        Some(Value::Object(requests)) => {
            for (key, request) in requests {
                match respond(request) {
                    Ok(response) => {
                        responses.insert(key.clone(), response);
                    }
                    Err(e) => problems.push(format!("inputRequests[{key:?}] is {e}")),
                }
            }
        }
        Some(other) => problems.push(format!("inputRequests is not an object: {other}")),
    }
    (problems, responses)
}

/// The retry's extra params: the responses and the state, as the spec wants them echoed.
fn retry_params(result: &Value, responses: Map<String, Value>) -> Map<String, Value> {
    let mut extra = Map::new();
    extra.insert("inputResponses".into(), Value::Object(responses));
    if let Some(state) = result.get("requestState") {
        extra.insert("requestState".into(), state.clone());
    }
    extra
}

/// Finds the fixture on a fresh session: `Ok((session, fixture))`, or the skip.
async fn with_fixture(cx: &mut Ctx) -> Result<Result<(Session, Fixture), Outcome>, Error> {
    let discover = match discover(cx).await? {
        Ok(d) => d,
        Err(skip) => return Ok(Err(skip)),
    };
    if capability(&discover, "tools").is_none() {
        return Ok(Err(Outcome::skip("the server does not declare `tools`")));
    }
    let mut session = open(cx).await?;
    match fixture(cx, &mut session).await? {
        Some(f) => Ok(Ok((session, f))),
        None => {
            super::done(cx, session).await;
            Ok(Err(Outcome::skip(
                "no tool answered input_required (name one with --input-tool NAME=JSON)",
            )))
        }
    }
}

async fn round_trip(cx: &mut Ctx) -> CaseResult {
    let (mut session, fixture) = match with_fixture(cx).await? {
        Ok(found) => found,
        Err(skip) => return Ok(skip),
    };
    let requests_before = cx.journal.server_requests().len();
    let mut problems = Vec::new();
    let mut result = fixture.first.clone();
    let mut rounds = 1;
    let outcome = loop {
        if result.get("resultType") != Some(&json!("input_required")) {
            problems.extend(result_type_problem(&result, "complete", "the final result"));
            break verdict(
                "each round well formed and the last one complete",
                std::mem::take(&mut problems),
            );
        }
        if rounds > MAX_ROUNDS {
            break Outcome::fail(
                format!("a complete result within {MAX_ROUNDS} rounds"),
                format!("still input_required after {MAX_ROUNDS} rounds"),
            );
        }
        let (round_problems, responses) = answer(&result);
        problems.extend(round_problems);
        let extra = retry_params(&result, responses);
        let reply = call(
            &mut session,
            &fixture.name,
            &fixture.arguments,
            extra,
            all_capabilities(),
        )
        .await?;
        rounds += 1;
        match reply {
            Reply::Result(next) => result = next,
            other => {
                break Outcome::fail(
                    "the retry answered with a result",
                    format!("round {rounds}: {}", other.describe()),
                )
            }
        }
    };
    super::done(cx, session).await;
    let requests = cx.journal.server_requests();
    if requests.len() > requests_before {
        return Ok(Outcome::fail(
            "no JSON-RPC request from the server to a modern client",
            format!("it sent {:?}", &requests[requests_before..]),
        ));
    }
    Ok(outcome)
}

/// `state` changed so that no honest server can accept it.
fn forge(state: &str) -> String {
    let mut forged: Vec<char> = state.chars().collect();
    let middle = forged.len() / 2;
    if let Some(c) = forged.get_mut(middle) {
        *c = if *c == 'A' { 'B' } else { 'A' };
    }
    let mut forged: String = forged.into_iter().collect();
    forged.push_str("-forged");
    forged
}

async fn forged_state(cx: &mut Ctx) -> CaseResult {
    let (mut session, fixture) = match with_fixture(cx).await? {
        Ok(found) => found,
        Err(skip) => return Ok(skip),
    };
    let Some(state) = fixture.first.get("requestState").and_then(Value::as_str) else {
        super::done(cx, session).await;
        return Ok(Outcome::skip(format!(
            "{} answered input_required without a requestState",
            fixture.name
        )));
    };
    let (_, responses) = answer(&fixture.first);
    let mut extra = Map::new();
    extra.insert("inputResponses".into(), Value::Object(responses));
    extra.insert("requestState".into(), json!(forge(state)));
    let reply = call(
        &mut session,
        &fixture.name,
        &fixture.arguments,
        extra,
        all_capabilities(),
    )
    .await;
    super::done(cx, session).await;
    Ok(match reply? {
        Reply::Error(_) => Outcome::Pass,
        other => Outcome::fail(
            "a JSON-RPC error for the forged requestState",
            other.describe(),
        ),
    })
}

async fn undeclared_capability(cx: &mut Ctx) -> CaseResult {
    let (mut session, fixture) = match with_fixture(cx).await? {
        Ok(found) => found,
        Err(skip) => return Ok(skip),
    };
    let reply = call(
        &mut session,
        &fixture.name,
        &fixture.arguments,
        Map::new(),
        json!({}),
    )
    .await;
    super::done(cx, session).await;
    let reply = reply?;
    let expected =
        "-32021 with data.requiredCapabilities, or no input request the client cannot answer";
    Ok(match &reply {
        Reply::Error(e) if e.code == Some(MISSING_CAPABILITY) => {
            match e.data.as_ref().and_then(|d| d.get("requiredCapabilities")) {
                Some(Value::Object(_)) => Outcome::Pass,
                other => Outcome::fail(expected, format!("data.requiredCapabilities {other:?}")),
            }
        }
        Reply::Result(result) => {
            let asked: Vec<String> = result
                .get("inputRequests")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(key, r)| {
                    r.get("method")
                        .and_then(Value::as_str)
                        .map(|m| format!("{key}: {m}"))
                })
                .collect();
            if asked.is_empty() {
                Outcome::Pass
            } else {
                Outcome::fail(expected, format!("it asked for {asked:?}"))
            }
        }
        other => Outcome::fail(expected, other.describe()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_each_kind() {
        let result = json!({
            "resultType": "input_required",
            "inputRequests": {
                "name": {"method": "elicitation/create", "params": {"message": "?",
                    "requestedSchema": {"type": "object", "properties": {
                        "name": {"type": "string"}, "ok": {"type": "boolean"}}}}},
                "llm": {"method": "sampling/createMessage", "params": {}},
                "roots": {"method": "roots/list"}
            },
            "requestState": "s"
        });
        let (problems, responses) = answer(&result);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(responses["name"]["content"]["ok"], true);
        assert_eq!(responses["llm"]["role"], "assistant");
        assert!(responses["roots"]["roots"].is_array());
        let extra = retry_params(&result, responses);
        assert_eq!(extra["requestState"], "s");
    }

    #[test]
    fn refuses_other_requests_and_empty_results() {
        let (problems, _) = answer(&json!({"inputRequests": {"x": {"method": "ping"}}}));
        assert_eq!(problems.len(), 1);
        let (problems, _) = answer(&json!({"resultType": "input_required"}));
        assert_eq!(problems.len(), 1);
    }

    #[test]
    fn forged_state_differs() {
        assert_ne!(forge("abc"), "abc");
        assert_ne!(forge(""), "");
    }
}
