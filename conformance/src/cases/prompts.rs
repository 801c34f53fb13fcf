//! Prompts (`server/prompts`): list, get (with sample arguments), unknown prompt, missing
//! required argument.

use mcp_proto::jsonrpc::error_codes::INVALID_PARAMS;
use serde_json::{json, Map, Value};

use super::{content_problem, expect_code};
use crate::case;
use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::session::brief;
use crate::driver::Reply;

/// The most prompts fetched by `prompts.get`.
const MAX_GETS: usize = 20;

/// The prompt cases.
pub fn cases() -> Vec<Case> {
    vec![
        case!("prompts.list", Must, Versions::ALL, Shared, "server/prompts#listing-prompts",
            "prompts/list (all pages) returns prompts with a string name and well-formed arguments", list),
        case!("prompts.get", Must, Versions::ALL, Shared, "server/prompts#getting-a-prompt",
            "prompts/get returns messages [{role: user|assistant, content}] (prompts without required arguments must succeed)", get),
        case!("prompts.unknown", Should, Versions::ALL, Shared, "server/prompts#error-handling",
            "getting an unknown prompt gets error -32602", unknown),
        case!("prompts.missing-argument", Should, Versions::ALL, Shared, "server/prompts#error-handling",
            "getting a prompt without a required argument gets error -32602", missing_argument),
    ]
}

fn required_args(prompt: &Value) -> Vec<String> {
    prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|a| a.get("required").and_then(Value::as_bool) == Some(true))
        .filter_map(|a| a.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

async fn list(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("prompts").await? {
        return Ok(skip);
    }
    let listing = cx.list_all("prompts/list", "prompts").await?;
    let expected = "prompts: [{name: string, arguments?: [{name: string, required?: boolean}]}]";
    if let Some(problem) = listing.problems.first() {
        return Ok(Outcome::fail(expected, problem.clone()));
    }
    for p in &listing.items {
        let args_ok = match p.get("arguments") {
            None | Some(Value::Null) => true,
            Some(Value::Array(args)) => args.iter().all(|a| {
                a.get("name").is_some_and(Value::is_string)
                    && a.get("required").is_none_or(Value::is_boolean)
            }),
            Some(_) => false,
        };
        if !p.get("name").is_some_and(Value::is_string) || !args_ok {
            return Ok(Outcome::fail(expected, brief(p)));
        }
        if let Some(problem) = super::schema_problem::<mcp_proto::schema::Prompt>(p, "a prompt") {
            return Ok(Outcome::fail(expected, problem));
        }
    }
    Ok(Outcome::Pass)
}

/// True when an error says the request needs a client capability: -32021
/// (MissingRequiredClientCapability, 2026-07-28) or, in the 2025 era, which has no code for it,
/// a message naming a capability or the client feature it needs.
fn needs_client_capability(e: &crate::driver::RpcError) -> bool {
    if e.code == Some(-32021) {
        return true;
    }
    let message = e
        .message
        .as_deref()
        .unwrap_or_default()
        .to_ascii_lowercase();
    ["capabilit", "elicitation", "sampling", "roots"]
        .iter()
        .any(|word| message.contains(word))
}

async fn get(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("prompts").await? {
        return Ok(skip);
    }
    let version = cx.version().await?;
    let prompts = cx.list_all("prompts/list", "prompts").await?.items;
    if prompts.is_empty() {
        return Ok(Outcome::skip("the server lists no prompts"));
    }
    let mut succeeded = 0;
    for prompt in prompts.iter().take(MAX_GETS) {
        let Some(name) = prompt.get("name").and_then(Value::as_str) else {
            continue;
        };
        let required = required_args(prompt);
        let mut args = Map::new();
        for arg in &required {
            let guess = guess_argument(cx, name, arg).await?;
            args.insert(arg.clone(), json!(guess));
        }
        let reply = cx
            .request(
                "prompts/get",
                Some(json!({"name": name, "arguments": args})),
            )
            .await?;
        let result = match reply {
            Reply::Result(r) => r,
            Reply::Error(_) if !required.is_empty() => continue,
            // The runner declares no client capabilities: a prompt that needs one (elicitation,
            // sampling, roots) is rightly refused and is not this case's to judge.
            Reply::Error(e) if needs_client_capability(&e) => continue,
            other => {
                return Ok(Outcome::fail(
                    format!("prompt `{name}` (no required arguments): a result"),
                    other.describe(),
                ))
            }
        };
        let expected = format!("prompt `{name}`: messages [{{role: user|assistant, content}}]");
        if let Some(problem) =
            super::schema_problem::<mcp_proto::schema::GetPromptResult>(&result, "the result")
        {
            return Ok(Outcome::fail(expected, problem));
        }
        let Some(messages) = result.get("messages").and_then(Value::as_array) else {
            return Ok(Outcome::fail(expected, brief(&result)));
        };
        for m in messages {
            let role_ok = matches!(
                m.get("role").and_then(Value::as_str),
                Some("user" | "assistant")
            );
            let content_issue = match m.get("content") {
                Some(c) => content_problem(c, version),
                None => Some("no content".into()),
            };
            if !role_ok {
                return Ok(Outcome::fail(expected, format!("a message {}", brief(m))));
            }
            if let Some(problem) = content_issue {
                return Ok(Outcome::fail(expected, problem));
            }
        }
        succeeded += 1;
    }
    Ok(if succeeded == 0 {
        Outcome::skip("every prompt needs arguments the runner could not guess")
    } else {
        Outcome::Pass
    })
}

async fn unknown(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("prompts").await? {
        return Ok(skip);
    }
    let reply = cx
        .request(
            "prompts/get",
            Some(json!({"name": "conformance-no-such-prompt"})),
        )
        .await?;
    Ok(expect_code(
        &reply,
        INVALID_PARAMS,
        "getting an unknown prompt",
    ))
}

async fn missing_argument(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("prompts").await? {
        return Ok(skip);
    }
    let prompts = cx.list_all("prompts/list", "prompts").await?.items;
    let Some(prompt) = prompts.iter().find(|p| !required_args(p).is_empty()) else {
        return Ok(Outcome::skip("no prompt has a required argument"));
    };
    let name = prompt
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let reply = cx
        .request("prompts/get", Some(json!({"name": name, "arguments": {}})))
        .await?;
    Ok(expect_code(
        &reply,
        INVALID_PARAMS,
        &format!("prompt `{name}` without its required arguments"),
    ))
}

/// A value for a required prompt argument: the server's first completion when it offers
/// completions, else `"1"`.
async fn guess_argument(
    cx: &mut Ctx,
    prompt: &str,
    argument: &str,
) -> Result<String, crate::error::Error> {
    let params = json!({
        "ref": {"type": "ref/prompt", "name": prompt},
        "argument": {"name": argument, "value": ""}
    });
    if let Reply::Result(r) = cx.request("completion/complete", Some(params)).await? {
        if let Some(first) = r.pointer("/completion/values/0").and_then(Value::as_str) {
            return Ok(first.to_owned());
        }
    }
    Ok("1".to_owned())
}
