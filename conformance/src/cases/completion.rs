//! Completion (`server/utilities/completion`): a completion for a prompt argument or a template
//! variable, the 100-value limit, an unknown prompt, and the error for servers without it.

use mcp_proto::jsonrpc::error_codes::{INVALID_PARAMS, METHOD_NOT_FOUND};
use mcp_proto::ProtocolVersion;
use serde_json::{json, Value};

use super::expect_code;
use crate::case;
use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::session::brief;
use crate::driver::Reply;

/// The completion cases.
pub fn cases() -> Vec<Case> {
    vec![
        case!(
            "completion.complete",
            Must,
            Versions::ALL,
            Shared,
            "server/utilities/completion",
            "completion/complete returns completion{values: ≤100 strings, total?, hasMore?}",
            complete
        ),
        case!(
            "completion.unknown-prompt",
            Should,
            Versions::ALL,
            Shared,
            "server/utilities/completion#error-handling",
            "completing an argument of an unknown prompt gets error -32602",
            unknown_prompt
        ),
        case!(
            "completion.undeclared",
            Should,
            Versions::since(ProtocolVersion::V2025_03_26),
            Shared,
            "server/utilities/completion#error-handling",
            "a server without the completions capability answers completion/complete with -32601",
            undeclared
        ),
    ]
}

/// The first template variable in an RFC 6570 template (`{name}`, `{+name}`, `{?a,b}`).
fn first_variable(template: &str) -> Option<String> {
    let start = template.find('{')?;
    let end = template[start..].find('}')? + start;
    let inner = template[start + 1..end].trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
    let name = inner.split([',', ':', '*']).next()?.trim();
    (!name.is_empty()).then(|| name.to_owned())
}

async fn complete(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("completions").await? {
        return Ok(skip);
    }
    let mut params = None;
    if cx.capability("prompts").await?.is_some() {
        let prompts = cx.list_all("prompts/list", "prompts").await?.items;
        params = prompts.iter().find_map(|p| {
            let name = p.get("name")?.as_str()?;
            let arg = p.get("arguments")?.as_array()?.first()?.get("name")?.as_str()?;
            Some(json!({"ref": {"type": "ref/prompt", "name": name}, "argument": {"name": arg, "value": ""}}))
        });
    }
    if params.is_none() && cx.capability("resources").await?.is_some() {
        let templates = cx
            .list_all("resources/templates/list", "resourceTemplates")
            .await?
            .items;
        params = templates.iter().find_map(|t| {
            let uri = t.get("uriTemplate")?.as_str()?;
            let var = first_variable(uri)?;
            Some(json!({"ref": {"type": "ref/resource", "uri": uri}, "argument": {"name": var, "value": ""}}))
        });
    }
    let Some(params) = params else {
        return Ok(Outcome::skip(
            "no prompt argument or template variable to complete",
        ));
    };
    let reply = cx
        .request("completion/complete", Some(params.clone()))
        .await?;
    let expected = format!(
        "for {}: completion{{values: [string] (≤100), total?: integer, hasMore?: boolean}}",
        brief(&params)
    );
    let result = match reply {
        Reply::Result(r) => r,
        other => return Ok(Outcome::fail(expected, other.describe())),
    };
    let Some(completion) = result.get("completion") else {
        return Ok(Outcome::fail(expected, brief(&result)));
    };
    let values_ok = completion
        .get("values")
        .and_then(Value::as_array)
        .is_some_and(|v| v.len() <= 100 && v.iter().all(Value::is_string));
    let total_ok = completion
        .get("total")
        .is_none_or(|t| t.is_u64() || t.is_i64());
    let more_ok = completion.get("hasMore").is_none_or(Value::is_boolean);
    if let Some(problem) =
        super::schema_problem::<mcp_proto::schema::CompleteResult>(&result, "the result")
    {
        return Ok(Outcome::fail(expected, problem));
    }
    Ok(if values_ok && total_ok && more_ok {
        Outcome::Pass
    } else {
        Outcome::fail(expected, brief(&result))
    })
}

async fn unknown_prompt(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("completions").await? {
        return Ok(skip);
    }
    let reply = cx
        .request(
            "completion/complete",
            Some(
                json!({"ref": {"type": "ref/prompt", "name": "conformance-no-such-prompt"},
                        "argument": {"name": "x", "value": ""}}),
            ),
        )
        .await?;
    Ok(expect_code(
        &reply,
        INVALID_PARAMS,
        "completing for an unknown prompt",
    ))
}

async fn undeclared(cx: &mut Ctx) -> CaseResult {
    if cx.capability("completions").await?.is_some() {
        return Ok(Outcome::skip("the server declares completions"));
    }
    let reply = cx
        .request(
            "completion/complete",
            Some(json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "x", "value": ""}})),
        )
        .await?;
    Ok(expect_code(
        &reply,
        METHOD_NOT_FOUND,
        "completion/complete without the capability",
    ))
}

#[cfg(test)]
mod tests {
    use super::first_variable;

    #[test]
    fn template_variables() {
        assert_eq!(first_variable("file:///{path}").as_deref(), Some("path"));
        assert_eq!(first_variable("x://{+path*}/y").as_deref(), Some("path"));
        assert_eq!(first_variable("x://a{?q,r}").as_deref(), Some("q"));
        assert_eq!(first_variable("x://plain"), None);
    }
}
