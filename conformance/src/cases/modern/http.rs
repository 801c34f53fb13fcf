//! Streamable HTTP under 2026-07-28: `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` must
//! match the body (400 with -32020 otherwise), errors map to statuses (400 for `_meta` and
//! version errors, 404 for an unknown method), GET and DELETE get 405, and no session id is
//! minted. These talk raw HTTP so they see statuses and headers exactly as sent.

use hyper::{Method, StatusCode};
use serde_json::{json, Value};

use super::protocol::{meta_with, INVALID_PARAMS, METHOD_NOT_FOUND, UNSUPPORTED_VERSION};
use super::{capability, discover, meta, verdict, with_meta, META_VERSION, MODERN, VERSION};
use crate::case::{Case, CaseResult, Outcome};
use crate::context::Ctx;
use crate::driver::http::{
    base64, modern_headers, HttpTarget, RawResponse, ACCEPT_BOTH, MCP_METHOD, MCP_NAME,
    PROTOCOL_VERSION, SESSION_ID,
};
use crate::driver::Kind;
use crate::error::Error;

const SECTION: &str = "2026-07-28 basic/transports#streamable-http";
/// Error code: a header does not match the body.
pub const HEADER_MISMATCH: i64 = -32020;

/// The modern HTTP cases.
pub fn cases() -> Vec<Case> {
    vec![
        crate::case!(
            "modern.http.version-header-mismatch",
            Must,
            MODERN,
            Own,
            Http,
            SECTION,
            "MCP-Protocol-Version unlike the _meta version gets 400 with -32020",
            version_mismatch
        ),
        crate::case!(
            "modern.http.method-header-mismatch",
            Must,
            MODERN,
            Own,
            Http,
            SECTION,
            "Mcp-Method unlike the body's method gets 400 with -32020",
            method_mismatch
        ),
        crate::case!(
            "modern.http.method-header-missing",
            Must,
            MODERN,
            Own,
            Http,
            SECTION,
            "a POST without Mcp-Method gets 400 with -32020",
            method_missing
        ),
        crate::case!(
            "modern.http.name-header-mismatch",
            Must,
            MODERN,
            Own,
            Http,
            SECTION,
            "tools/call whose Mcp-Name is not the tool's name gets 400 with -32020",
            name_mismatch
        ),
        crate::case!(
            "modern.http.name-header-base64",
            Must,
            MODERN,
            Own,
            Http,
            SECTION,
            "an Mcp-Name in the =?base64?…?= form is decoded before it is compared",
            name_base64
        ),
        crate::case!(
            "modern.http.error-statuses",
            Must,
            MODERN,
            Own,
            Http,
            SECTION,
            "-32602 (missing _meta field) and -32022 (unsupported version) come with HTTP 400",
            error_statuses
        ),
        crate::case!(
            "modern.http.unknown-method",
            Must,
            MODERN,
            Own,
            Http,
            SECTION,
            "an unknown method gets 404 with -32601",
            unknown_method
        ),
        crate::case!(
            "modern.http.get-delete",
            Should,
            MODERN,
            Own,
            Http,
            SECTION,
            "GET and DELETE from a modern client get 405",
            get_delete
        ),
        crate::case!(
            "modern.http.no-session-id",
            Should,
            MODERN,
            Own,
            Http,
            SECTION,
            "a modern POST is answered without an Mcp-Session-Id",
            no_session_id
        ),
    ]
}

fn target(cx: &Ctx) -> Result<HttpTarget, Error> {
    match cx.kind() {
        Kind::Http(t) => Ok(t),
        _ => Err(Error::Protocol("an HTTP target".into())),
    }
}

/// POSTs `body` with its modern headers, changed by `overrides` (an empty value removes one).
async fn post(
    cx: &mut Ctx,
    body: &Value,
    overrides: &[(&str, &str)],
) -> Result<RawResponse, Error> {
    let target = target(cx)?;
    let mut headers: Vec<(String, String)> = modern_headers(body);
    headers.retain(|(name, _)| !overrides.iter().any(|(o, _)| o.eq_ignore_ascii_case(name)));
    let mut extra: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    extra.extend(overrides.iter().copied());
    extra.push(("accept", ACCEPT_BOTH));
    extra.push(("content-type", "application/json"));
    let bytes = serde_json::to_vec(body)?;
    target
        .client
        .raw(Method::POST, &target.url, &extra, bytes)
        .await
}

/// A modern request body.
fn body(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": with_meta(params, meta(json!({})))})
}

/// The problem with `answer` unless it is `status` with a JSON-RPC error `code`.
fn status_problem(
    answer: &RawResponse,
    status: StatusCode,
    code: i64,
    what: &str,
) -> Option<String> {
    let got_code = answer
        .json()
        .and_then(|v| v.pointer("/error/code").and_then(Value::as_i64));
    (answer.status != status || got_code != Some(code)).then(|| {
        format!(
            "{what}: wanted HTTP {} with {code}, got {}",
            status.as_u16(),
            answer.describe()
        )
    })
}

/// One request whose answer must be 400 with -32020.
async fn expect_mismatch(
    cx: &mut Ctx,
    body: &Value,
    overrides: &[(&str, &str)],
    what: &str,
) -> CaseResult {
    let answer = post(cx, body, overrides).await?;
    Ok(
        match status_problem(&answer, StatusCode::BAD_REQUEST, HEADER_MISMATCH, what) {
            None => Outcome::Pass,
            Some(problem) => Outcome::fail("HTTP 400 with -32020", problem),
        },
    )
}

async fn version_mismatch(cx: &mut Ctx) -> CaseResult {
    let body = body("server/discover", json!({}));
    expect_mismatch(
        cx,
        &body,
        &[(PROTOCOL_VERSION, "2025-11-25")],
        "header 2025-11-25, _meta 2026-07-28",
    )
    .await
}

async fn method_mismatch(cx: &mut Ctx) -> CaseResult {
    let body = body("server/discover", json!({}));
    expect_mismatch(
        cx,
        &body,
        &[(MCP_METHOD, "tools/list")],
        "Mcp-Method tools/list on server/discover",
    )
    .await
}

async fn method_missing(cx: &mut Ctx) -> CaseResult {
    let body = body("server/discover", json!({}));
    expect_mismatch(cx, &body, &[(MCP_METHOD, "")], "no Mcp-Method").await
}

/// The name of the server's first tool, or a skip.
async fn first_tool(cx: &mut Ctx) -> Result<Result<String, Outcome>, Error> {
    let discover = match discover(cx).await? {
        Ok(d) => d,
        Err(skip) => return Ok(Err(skip)),
    };
    if capability(&discover, "tools").is_none() {
        return Ok(Err(Outcome::skip("the server does not declare `tools`")));
    }
    let answer = post(cx, &body("tools/list", json!({})), &[]).await?;
    let name = answer.json().and_then(|v| {
        v.pointer("/result/tools/0/name")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    Ok(name.ok_or_else(|| Outcome::skip("tools/list named no tool")))
}

async fn name_mismatch(cx: &mut Ctx) -> CaseResult {
    let tool = match first_tool(cx).await? {
        Ok(t) => t,
        Err(skip) => return Ok(skip),
    };
    let body = body("tools/call", json!({"name": tool, "arguments": {}}));
    expect_mismatch(
        cx,
        &body,
        &[(MCP_NAME, "mcp-conformance-not-this-tool")],
        "a wrong Mcp-Name",
    )
    .await
}

async fn name_base64(cx: &mut Ctx) -> CaseResult {
    let tool = match first_tool(cx).await? {
        Ok(t) => t,
        Err(skip) => return Ok(skip),
    };
    // The plain name in the encoded form, which a client may use for any value.
    let encoded = format!("=?base64?{}?=", base64(tool.as_bytes()));
    let body = body("tools/call", json!({"name": tool, "arguments": {}}));
    let answer = post(cx, &body, &[(MCP_NAME, encoded.as_str())]).await?;
    let code = answer
        .json()
        .and_then(|v| v.pointer("/error/code").and_then(Value::as_i64));
    Ok(if code == Some(HEADER_MISMATCH) {
        Outcome::fail(
            "the base64 Mcp-Name accepted as the tool's name",
            answer.describe(),
        )
    } else {
        Outcome::Pass
    })
}

async fn error_statuses(cx: &mut Ctx) -> CaseResult {
    let mut problems = Vec::new();
    let no_caps = meta_with(super::META_CAPABILITIES, None);
    let missing = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": no_caps}});
    let answer = post(cx, &missing, &[]).await?;
    problems.extend(status_problem(
        &answer,
        StatusCode::BAD_REQUEST,
        INVALID_PARAMS,
        "no clientCapabilities",
    ));
    let future = meta_with(META_VERSION, Some(json!("2099-01-01")));
    let unsupported = json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover",
        "params": {"_meta": future}});
    let answer = post(cx, &unsupported, &[]).await?;
    problems.extend(status_problem(
        &answer,
        StatusCode::BAD_REQUEST,
        UNSUPPORTED_VERSION,
        "version 2099-01-01",
    ));
    Ok(verdict(
        "HTTP 400 with the JSON-RPC error in the body",
        problems,
    ))
}

async fn unknown_method(cx: &mut Ctx) -> CaseResult {
    let answer = post(cx, &body("conformance/no-such-method", json!({})), &[]).await?;
    Ok(
        match status_problem(
            &answer,
            StatusCode::NOT_FOUND,
            METHOD_NOT_FOUND,
            "an unknown method",
        ) {
            None => Outcome::Pass,
            Some(problem) => Outcome::fail("HTTP 404 with -32601", problem),
        },
    )
}

async fn get_delete(cx: &mut Ctx) -> CaseResult {
    let target = target(cx)?;
    let mut problems = Vec::new();
    for method in [Method::GET, Method::DELETE] {
        let extra = [(PROTOCOL_VERSION, VERSION), ("accept", "text/event-stream")];
        let answer = target
            .client
            .raw(method.clone(), &target.url, &extra, Vec::new())
            .await?;
        if answer.status != StatusCode::METHOD_NOT_ALLOWED {
            problems.push(format!("{method}: {}", answer.describe()));
        }
    }
    Ok(verdict("405 Method Not Allowed", problems))
}

async fn no_session_id(cx: &mut Ctx) -> CaseResult {
    let answer = post(cx, &body("server/discover", json!({})), &[]).await?;
    Ok(match answer.header(SESSION_ID) {
        None => Outcome::Pass,
        Some(id) => Outcome::fail("no Mcp-Session-Id header", format!("Mcp-Session-Id: {id}")),
    })
}
