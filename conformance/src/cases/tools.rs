//! Tools (`server/tools`): list shape and pagination, valid input and output schemas, names,
//! unknown tools, bad arguments (version-dependent), call results, and `structuredContent`
//! validated against `outputSchema` with a JSON Schema validator.
//!
//! Cases that need a successful call only call tools that are safe to call: tools annotated
//! `readOnlyHint: true` whose required arguments can be taken from the schema (`default`,
//! `const`, `enum`, `examples`), or tools given sample arguments with `--call NAME=JSON`.

use std::collections::BTreeSet;

use mcp_proto::jsonrpc::error_codes::INVALID_PARAMS;
use mcp_proto::ProtocolVersion;
use serde_json::{json, Map, Value};

use super::{content_problem, expect_code, sample_value, schema_type};
use crate::case;
use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::{Ctx, SampleCall};
use crate::driver::session::brief;
use crate::driver::Reply;
use crate::error::Error;

/// The tool cases.
pub fn cases() -> Vec<Case> {
    vec![
        case!("tools.list", Must, Versions::ALL, Shared, "server/tools#listing-tools",
            "tools/list returns tools with a string name and an object inputSchema of type \"object\"", list),
        case!("tools.pagination", Must, Versions::ALL, Shared, "server/utilities/pagination",
            "following nextCursor reads every page without errors, loops or repeated tools", pagination),
        case!("pagination.invalid-cursor", Should, Versions::ALL, Shared, "server/utilities/pagination#error-handling",
            "an invalid cursor gets error -32602", invalid_cursor),
        case!("tools.input-schemas", Must, Versions::ALL, Shared, "server/tools#tool",
            "every inputSchema is a valid JSON Schema", input_schemas),
        case!("tools.output-schemas", Must, Versions::since(ProtocolVersion::V2025_06_18), Shared, "server/tools#output-schema",
            "every outputSchema is a valid JSON Schema with root type \"object\"", output_schemas),
        case!("tools.names", Should, Versions::since(ProtocolVersion::V2025_11_25), Shared, "server/tools#tool-names",
            "tool names are 1-128 characters of [A-Za-z0-9_.-] and unique", names),
        case!("tools.unknown-tool", Should, Versions::ALL, Shared, "server/tools#error-handling",
            "calling an unknown tool gets a JSON-RPC error (protocol error), not a result", unknown_tool),
        case!("tools.bad-arguments", Should, Versions::ALL, Shared, "server/tools#error-handling",
            "missing required arguments give an isError result (2025-11-25+) or error -32602 (before)", bad_arguments),
        case!("tools.bad-arguments-legacy", Should, Versions { since: ProtocolVersion::V2024_11_05, until: Some(ProtocolVersion::V2025_11_25) }, Own,
            "server/tools#error-handling",
            "before 2025-11-25, missing required arguments get error -32602 (checked on a session at the newest such version)",
            bad_arguments_legacy),
        case!("tools.call-result", Must, Versions::ALL, Shared, "server/tools#calling-tools",
            "a tool result has a content array of valid blocks and a boolean isError if any", call_result),
        case!("tools.structured-content", Must, Versions::since(ProtocolVersion::V2025_06_18), Shared, "server/tools#structured-content",
            "a tool with an outputSchema returns structuredContent valid against it", structured_content),
        case!("tools.structured-text", Should, Versions::since(ProtocolVersion::V2025_06_18), Shared, "server/tools#structured-content",
            "a tool returning structuredContent also returns it serialized in a text block", structured_text),
    ]
}

fn name_of(tool: &Value) -> &str {
    tool.get("name")
        .and_then(Value::as_str)
        .unwrap_or("<unnamed>")
}

async fn tools_or_skip(cx: &mut Ctx) -> Result<Result<Vec<Value>, Outcome>, Error> {
    if let Some(skip) = cx.require("tools").await? {
        return Ok(Err(skip));
    }
    Ok(Ok(cx.tools().await?))
}

async fn list(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("tools").await? {
        return Ok(skip);
    }
    let listing = cx.list_all("tools/list", "tools").await?;
    let expected = "tools: [{name: string, inputSchema: {type: \"object\", …}}]";
    if let Some(problem) = listing.problems.first() {
        return Ok(Outcome::fail(expected, problem.clone()));
    }
    for tool in &listing.items {
        if !tool.get("name").is_some_and(Value::is_string) {
            return Ok(Outcome::fail(
                expected,
                format!("a tool without a string name: {}", brief(tool)),
            ));
        }
        match tool.get("inputSchema") {
            Some(schema) if schema.is_object() && schema_type(schema) == Some("object") => {}
            other => {
                return Ok(Outcome::fail(
                    expected,
                    format!(
                        "tool `{}` has inputSchema {}",
                        name_of(tool),
                        other.map_or("absent".into(), brief)
                    ),
                ))
            }
        }
        if let Some(problem) = super::schema_problem::<mcp_proto::schema::Tool>(
            tool,
            &format!("tool `{}`", name_of(tool)),
        ) {
            return Ok(Outcome::fail(expected, problem));
        }
        if tool.get("description").is_some_and(|d| !d.is_string()) {
            return Ok(Outcome::fail(
                expected,
                format!("tool `{}` has a non-string description", name_of(tool)),
            ));
        }
    }
    Ok(Outcome::Pass)
}

async fn pagination(cx: &mut Ctx) -> CaseResult {
    let tools = match tools_or_skip(cx).await? {
        Ok(t) => t,
        Err(skip) => return Ok(skip),
    };
    let listing = cx.list_all("tools/list", "tools").await?;
    if let Some(problem) = listing.problems.first() {
        return Ok(Outcome::fail(
            "every page read without errors",
            problem.clone(),
        ));
    }
    let mut seen = BTreeSet::new();
    for tool in &tools {
        if !seen.insert(name_of(tool).to_owned()) {
            return Ok(Outcome::fail(
                "each tool once across all pages",
                format!(
                    "`{}` appears twice ({} pages)",
                    name_of(tool),
                    listing.pages
                ),
            ));
        }
    }
    Ok(Outcome::Pass)
}

async fn invalid_cursor(cx: &mut Ctx) -> CaseResult {
    let method = if cx.capability("tools").await?.is_some() {
        "tools/list"
    } else if cx.capability("prompts").await?.is_some() {
        "prompts/list"
    } else if cx.capability("resources").await?.is_some() {
        "resources/list"
    } else {
        return Ok(Outcome::skip("the server has no paginated list"));
    };
    let reply = cx
        .request(
            method,
            Some(json!({"cursor": "conformance-not-a-cursor-\u{2603}"})),
        )
        .await?;
    Ok(expect_code(
        &reply,
        INVALID_PARAMS,
        &format!("`{method}` with an invalid cursor"),
    ))
}

async fn input_schemas(cx: &mut Ctx) -> CaseResult {
    let tools = match tools_or_skip(cx).await? {
        Ok(t) => t,
        Err(skip) => return Ok(skip),
    };
    for tool in &tools {
        let Some(schema) = tool.get("inputSchema") else {
            return Ok(Outcome::fail(
                "an inputSchema on every tool",
                format!("`{}` has none", name_of(tool)),
            ));
        };
        if let Err(e) = jsonschema::validator_for(schema) {
            return Ok(Outcome::fail(
                "valid JSON Schemas",
                format!("`{}`: {e}", name_of(tool)),
            ));
        }
    }
    Ok(Outcome::Pass)
}

async fn output_schemas(cx: &mut Ctx) -> CaseResult {
    let tools = match tools_or_skip(cx).await? {
        Ok(t) => t,
        Err(skip) => return Ok(skip),
    };
    let with_output: Vec<&Value> = tools
        .iter()
        .filter(|t| t.get("outputSchema").is_some())
        .collect();
    if with_output.is_empty() {
        return Ok(Outcome::skip("no tool declares an outputSchema"));
    }
    for tool in with_output {
        let schema = tool.get("outputSchema").unwrap_or(&Value::Null);
        if schema_type(schema) != Some("object") {
            return Ok(Outcome::fail(
                "outputSchema with root type \"object\"",
                format!("`{}`: {}", name_of(tool), brief(schema)),
            ));
        }
        if let Err(e) = jsonschema::validator_for(schema) {
            return Ok(Outcome::fail(
                "valid JSON Schemas",
                format!("`{}`: {e}", name_of(tool)),
            ));
        }
    }
    Ok(Outcome::Pass)
}

async fn names(cx: &mut Ctx) -> CaseResult {
    let tools = match tools_or_skip(cx).await? {
        Ok(t) => t,
        Err(skip) => return Ok(skip),
    };
    let mut seen = BTreeSet::new();
    for tool in &tools {
        let name = name_of(tool);
        let ok = (1..=128).contains(&name.chars().count())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !ok {
            return Ok(Outcome::fail(
                "names of 1-128 characters from [A-Za-z0-9_.-]",
                format!("{name:?}"),
            ));
        }
        if !seen.insert(name) {
            return Ok(Outcome::fail(
                "unique tool names",
                format!("{name:?} twice"),
            ));
        }
    }
    Ok(Outcome::Pass)
}

async fn unknown_tool(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("tools").await? {
        return Ok(skip);
    }
    let reply = cx
        .request(
            "tools/call",
            Some(json!({"name": "conformance-no-such-tool", "arguments": {}})),
        )
        .await?;
    // "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools" (2025-11-25
    // server/tools#error-handling): any JSON-RPC error is right, -32602 is the spec's example; a
    // tool result (even with isError) is not.
    Ok(match &reply {
        Reply::Error(e) if e.code.is_some() => Outcome::Pass,
        _ => Outcome::fail(
            "calling an unknown tool: a JSON-RPC error (e.g. -32602), not a tool result",
            reply.describe(),
        ),
    })
}

/// The first tool with a required argument.
fn tool_with_required(tools: &[Value]) -> Option<&Value> {
    tools.iter().find(|t| {
        t.pointer("/inputSchema/required")
            .and_then(Value::as_array)
            .is_some_and(|r| !r.is_empty())
    })
}

/// Judges the reply to a call without required arguments under `version`.
fn judge_bad_arguments(tool: &str, version: ProtocolVersion, reply: &Reply) -> Outcome {
    let is_error_result = reply
        .result()
        .and_then(|r| r.get("isError"))
        .and_then(Value::as_bool)
        == Some(true);
    if version.tool_input_errors_as_results() {
        if is_error_result {
            Outcome::Pass
        } else {
            Outcome::fail(
                format!(
                    "`{tool}` without its required arguments: a result with isError: true ({})",
                    version.as_str()
                ),
                reply.describe(),
            )
        }
    } else {
        expect_code(
            reply,
            INVALID_PARAMS,
            &format!(
                "`{tool}` without its required arguments ({})",
                version.as_str()
            ),
        )
    }
}

async fn bad_arguments(cx: &mut Ctx) -> CaseResult {
    let tools = match tools_or_skip(cx).await? {
        Ok(t) => t,
        Err(skip) => return Ok(skip),
    };
    let Some(tool) = tool_with_required(&tools) else {
        return Ok(Outcome::skip("no tool has a required argument"));
    };
    let version = cx.version().await?;
    let reply = cx
        .request(
            "tools/call",
            Some(json!({"name": name_of(tool), "arguments": {}})),
        )
        .await?;
    Ok(judge_bad_arguments(name_of(tool), version, &reply))
}

async fn bad_arguments_legacy(cx: &mut Ctx) -> CaseResult {
    let tools = match tools_or_skip(cx).await? {
        Ok(t) => t,
        Err(skip) => return Ok(skip),
    };
    let Some(tool) = tool_with_required(&tools).cloned() else {
        return Ok(Outcome::skip("no tool has a required argument"));
    };
    let answers = cx.version_answers().await?;
    let legacy = [
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2024_11_05,
    ]
    .into_iter()
    .find(|v| {
        answers
            .get(v.as_str())
            .and_then(|a| a.as_ref().ok())
            .map(String::as_str)
            == Some(v.as_str())
    });
    let Some(version) = legacy else {
        return Ok(Outcome::skip(
            "the server speaks no version before 2025-11-25",
        ));
    };
    let mut session = cx.fresh_at(version.as_str()).await?;
    let reply = session
        .request(
            "tools/call",
            Some(json!({"name": name_of(&tool), "arguments": {}})),
        )
        .await;
    session.close().await;
    Ok(judge_bad_arguments(name_of(&tool), version, &reply?))
}

/// Valid sample arguments for a tool, or `None` when none can be made safely.
fn sample_arguments(tool: &Value) -> Option<Value> {
    let schema = tool.get("inputSchema")?;
    let props = schema.get("properties").and_then(Value::as_object);
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut args = Map::new();
    for name in required.iter().filter_map(Value::as_str) {
        let prop = props.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        args.insert(name.to_owned(), sample_value(prop)?);
    }
    let args = Value::Object(args);
    let valid = jsonschema::validator_for(schema).ok()?.is_valid(&args);
    valid.then_some(args)
}

/// Calls every safely callable tool once with sample arguments; cached per run.
pub(crate) async fn sample_calls(cx: &mut Ctx) -> Result<Vec<SampleCall>, Error> {
    if let Some(calls) = &cx.sample_calls {
        return Ok(calls.clone());
    }
    let tools = cx.tools().await?;
    let slow = cx.slow_tool().await?.map(|t| t.name);
    let mut calls = Vec::new();
    for tool in tools.iter().take(64) {
        let name = name_of(tool).to_owned();
        let arguments = match cx.config.tool_args.get(&name) {
            Some(args) => args.clone(),
            None => {
                let read_only = tool
                    .pointer("/annotations/readOnlyHint")
                    .and_then(Value::as_bool)
                    == Some(true);
                if !read_only || slow.as_deref() == Some(name.as_str()) {
                    continue;
                }
                match sample_arguments(tool) {
                    Some(args) => args,
                    None => continue,
                }
            }
        };
        let reply = cx
            .request(
                "tools/call",
                Some(json!({"name": name, "arguments": arguments})),
            )
            .await?;
        calls.push(SampleCall {
            tool: tool.clone(),
            arguments,
            reply,
        });
    }
    cx.sample_calls = Some(calls.clone());
    Ok(calls)
}

const NO_CALLS: &str = "no tool could be called safely (none is readOnlyHint with arguments derivable from its schema; give samples with --call NAME=JSON)";

async fn call_result(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("tools").await? {
        return Ok(skip);
    }
    let version = cx.version().await?;
    let calls = sample_calls(cx).await?;
    if calls.is_empty() {
        return Ok(Outcome::skip(NO_CALLS));
    }
    let expected = "{content: [valid content blocks], isError?: boolean}";
    for call in &calls {
        let name = name_of(&call.tool);
        let result = match &call.reply {
            Reply::Result(r) => r,
            other => {
                return Ok(Outcome::fail(
                    format!("a result from `{name}` called with {}", call.arguments),
                    other.describe(),
                ))
            }
        };
        let Some(content) = result.get("content").and_then(Value::as_array) else {
            return Ok(Outcome::fail(
                expected,
                format!("`{name}`: no content array: {}", brief(result)),
            ));
        };
        for block in content {
            if let Some(problem) = content_problem(block, version) {
                return Ok(Outcome::fail(expected, format!("`{name}`: {problem}")));
            }
        }
        if let Some(problem) = super::schema_problem::<mcp_proto::schema::CallToolResult>(
            result,
            &format!("`{name}`'s result"),
        ) {
            return Ok(Outcome::fail(expected, problem));
        }
        if result.get("isError").is_some_and(|e| !e.is_boolean()) {
            return Ok(Outcome::fail(
                expected,
                format!("`{name}`: isError is not a boolean"),
            ));
        }
    }
    Ok(Outcome::Pass)
}

/// The sample calls of tools with an outputSchema that succeeded.
async fn structured_calls(cx: &mut Ctx) -> Result<Result<Vec<SampleCall>, Outcome>, Error> {
    if let Some(skip) = cx.require("tools").await? {
        return Ok(Err(skip));
    }
    let tools = cx.tools().await?;
    if !tools.iter().any(|t| t.get("outputSchema").is_some()) {
        return Ok(Err(Outcome::skip("no tool declares an outputSchema")));
    }
    let calls: Vec<SampleCall> = sample_calls(cx)
        .await?
        .into_iter()
        .filter(|c| c.tool.get("outputSchema").is_some())
        .filter(|c| {
            c.reply
                .result()
                .is_some_and(|r| r.get("isError").and_then(Value::as_bool) != Some(true))
        })
        .collect();
    if calls.is_empty() {
        return Ok(Err(Outcome::skip(format!(
            "no tool with an outputSchema was called successfully: {NO_CALLS}"
        ))));
    }
    Ok(Ok(calls))
}

async fn structured_content(cx: &mut Ctx) -> CaseResult {
    let calls = match structured_calls(cx).await? {
        Ok(c) => c,
        Err(skip) => return Ok(skip),
    };
    for call in &calls {
        let name = name_of(&call.tool);
        let schema = call.tool.get("outputSchema").unwrap_or(&Value::Null);
        let result = call.reply.result().unwrap_or(&Value::Null);
        let Some(structured) = result.get("structuredContent") else {
            return Ok(Outcome::fail(
                format!("`{name}` declares an outputSchema: structuredContent in its result"),
                format!("none: {}", brief(result)),
            ));
        };
        let validator = match jsonschema::validator_for(schema) {
            Ok(v) => v,
            Err(e) => {
                return Ok(Outcome::fail(
                    "a valid outputSchema",
                    format!("`{name}`: {e}"),
                ))
            }
        };
        let errors = instance_errors(&validator, structured);
        if !errors.is_empty() {
            return Ok(Outcome::fail(
                format!("`{name}`: structuredContent valid against its outputSchema"),
                format!("{} — {}", errors.join("; "), brief(structured)),
            ));
        }
    }
    Ok(Outcome::Pass)
}

/// The first few reasons `instance` does not validate against `validator`; empty when it does.
pub(crate) fn instance_errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .take(3)
        .map(|e| e.to_string())
        .collect()
}

async fn structured_text(cx: &mut Ctx) -> CaseResult {
    let calls = match structured_calls(cx).await? {
        Ok(c) => c,
        Err(skip) => return Ok(skip),
    };
    for call in &calls {
        let name = name_of(&call.tool);
        let result = call.reply.result().unwrap_or(&Value::Null);
        let Some(structured) = result.get("structuredContent") else {
            continue;
        };
        let mirrored = result
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .any(|t| serde_json::from_str::<Value>(t).ok().as_ref() == Some(structured));
        if !mirrored {
            return Ok(Outcome::fail(
                format!("`{name}`: a text block holding the structuredContent as JSON"),
                format!(
                    "content {}",
                    brief(result.get("content").unwrap_or(&Value::Null))
                ),
            ));
        }
    }
    Ok(Outcome::Pass)
}
