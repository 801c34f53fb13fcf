//! Resources (`server/resources`): list, read every listed resource, templates, not found,
//! subscribe and unsubscribe.

use mcp_proto::jsonrpc::error_codes::RESOURCE_NOT_FOUND;
use serde_json::{json, Value};

use super::{expect_code, is_base64};
use crate::case;
use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::session::brief;
use crate::driver::Reply;

/// The most resources read by `resources.read-all`.
const MAX_READS: usize = 50;

/// The resource cases.
pub fn cases() -> Vec<Case> {
    vec![
        case!("resources.list", Must, Versions::ALL, Shared, "server/resources#listing-resources",
            "resources/list (all pages) returns resources with string uri and name", list),
        case!("resources.read-all", Must, Versions::ALL, Shared, "server/resources#reading-resources",
            "every listed resource reads as contents [{uri, text | base64 blob}]", read_all),
        case!("resources.templates", Must, Versions::ALL, Shared, "server/resources#resource-templates",
            "resources/templates/list returns resourceTemplates with string uriTemplate and name", templates),
        case!("resources.not-found", Should, Versions::ALL, Shared, "server/resources#error-handling",
            "reading an unknown resource gets error -32002", not_found),
        case!("resources.subscribe", Must, Versions::ALL, Shared, "server/resources#subscriptions",
            "with subscribe: true, resources/subscribe and resources/unsubscribe return empty results", subscribe),
    ]
}

async fn list(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("resources").await? {
        return Ok(skip);
    }
    let listing = cx.list_all("resources/list", "resources").await?;
    let expected = "resources: [{uri: string, name: string, …}]";
    if let Some(problem) = listing.problems.first() {
        return Ok(Outcome::fail(expected, problem.clone()));
    }
    for r in &listing.items {
        if !r.get("uri").is_some_and(Value::is_string)
            || !r.get("name").is_some_and(Value::is_string)
        {
            return Ok(Outcome::fail(expected, brief(r)));
        }
        if let Some(problem) = super::schema_problem::<mcp_proto::schema::Resource>(r, "a resource")
        {
            return Ok(Outcome::fail(expected, problem));
        }
    }
    Ok(Outcome::Pass)
}

/// A problem with a `resources/read` result, if any.
pub fn read_problem(result: &Value) -> Option<String> {
    if let Some(problem) =
        super::schema_problem::<mcp_proto::schema::ReadResourceResult>(result, "the result")
    {
        return Some(problem);
    }
    let Some(contents) = result.get("contents").and_then(Value::as_array) else {
        return Some(format!("no contents array: {}", brief(result)));
    };
    for c in contents {
        if !c.get("uri").is_some_and(Value::is_string) {
            return Some(format!("a content without a string uri: {}", brief(c)));
        }
        match (c.get("text"), c.get("blob")) {
            (Some(Value::String(_)), None) => {}
            (None, Some(Value::String(b))) if is_base64(b) => {}
            (None, Some(Value::String(_))) => {
                return Some("a blob that is not valid base64".into())
            }
            _ => {
                return Some(format!(
                    "a content without exactly one of text or blob: {}",
                    brief(c)
                ))
            }
        }
    }
    None
}

async fn read_all(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("resources").await? {
        return Ok(skip);
    }
    let listing = cx.list_all("resources/list", "resources").await?;
    let uris: Vec<String> = listing
        .items
        .iter()
        .filter_map(|r| r.get("uri").and_then(Value::as_str).map(str::to_owned))
        .take(MAX_READS)
        .collect();
    if uris.is_empty() {
        return Ok(Outcome::skip("the server lists no resources"));
    }
    for uri in uris {
        let reply = cx
            .request("resources/read", Some(json!({"uri": uri})))
            .await?;
        let result = match reply {
            Reply::Result(r) => r,
            other => return Ok(Outcome::fail(format!("`{uri}` readable"), other.describe())),
        };
        if let Some(problem) = read_problem(&result) {
            return Ok(Outcome::fail(
                format!("`{uri}`: contents [{{uri, text | blob}}]"),
                problem,
            ));
        }
    }
    Ok(Outcome::Pass)
}

async fn templates(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("resources").await? {
        return Ok(skip);
    }
    let listing = cx
        .list_all("resources/templates/list", "resourceTemplates")
        .await?;
    let expected = "resourceTemplates: [{uriTemplate: string, name: string, …}]";
    if let Some(problem) = listing.problems.first() {
        return Ok(Outcome::fail(expected, problem.clone()));
    }
    for t in &listing.items {
        if !t.get("uriTemplate").is_some_and(Value::is_string)
            || !t.get("name").is_some_and(Value::is_string)
        {
            return Ok(Outcome::fail(expected, brief(t)));
        }
        if let Some(problem) =
            super::schema_problem::<mcp_proto::schema::ResourceTemplate>(t, "a template")
        {
            return Ok(Outcome::fail(expected, problem));
        }
    }
    Ok(Outcome::Pass)
}

async fn not_found(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("resources").await? {
        return Ok(skip);
    }
    let version = cx.version().await?;
    let code = if version.is_stateless_era() {
        version.resource_not_found_code()
    } else {
        RESOURCE_NOT_FOUND
    };
    let reply = cx
        .request(
            "resources/read",
            Some(json!({"uri": "conformance://no-such-resource/42"})),
        )
        .await?;
    Ok(expect_code(&reply, code, "reading an unknown resource"))
}

async fn subscribe(cx: &mut Ctx) -> CaseResult {
    let Some(caps) = cx.capability("resources").await? else {
        return Ok(Outcome::skip(
            "the server does not declare the `resources` capability",
        ));
    };
    if caps.get("subscribe").and_then(Value::as_bool) != Some(true) {
        return Ok(Outcome::skip(
            "the server does not declare resources.subscribe",
        ));
    }
    let listing = cx.list_all("resources/list", "resources").await?;
    let Some(uri) = listing
        .items
        .iter()
        .find_map(|r| r.get("uri").and_then(Value::as_str))
        .map(str::to_owned)
    else {
        return Ok(Outcome::skip(
            "the server lists no resources to subscribe to",
        ));
    };
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        match cx.request(method, Some(json!({"uri": uri}))).await? {
            Reply::Result(Value::Object(m)) if m.keys().all(|k| k == "_meta") => {}
            other => {
                return Ok(Outcome::fail(
                    format!("`{method}` {uri}: an empty result"),
                    other.describe(),
                ))
            }
        }
    }
    Ok(Outcome::Pass)
}
