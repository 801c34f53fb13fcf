//! The 2026-07-28 base protocol: `server/discover`, the per-request `_meta` errors, `resultType`
//! and `serverInfo` on every result, cache hints, and the methods the era removed.

use serde_json::{json, Value};

use super::{
    cache_problem, capability, discover, meta, open, request, result_type_problem, verdict,
    with_meta, META_CAPABILITIES, META_CLIENT_INFO, META_SERVER_INFO, META_VERSION, MODERN,
    SECTION, VERSION,
};
use crate::case::{Case, CaseResult, Outcome};
use crate::cases::expect_code;
use crate::context::Ctx;
use crate::driver::{Reply, Session};

/// Error code: the requested protocol version is not supported.
pub const UNSUPPORTED_VERSION: i64 = -32022;
/// Error code: invalid params (also a missing `_meta` field, and an unknown resource).
pub const INVALID_PARAMS: i64 = -32602;
/// Error code: method not found.
pub const METHOD_NOT_FOUND: i64 = -32601;

/// A version no server speaks.
const FUTURE_VERSION: &str = "2099-01-01";

/// The base protocol cases.
pub fn cases() -> Vec<Case> {
    vec![
        crate::case!(
            "modern.discover",
            Must,
            MODERN,
            Own,
            "2026-07-28 basic/lifecycle#server-discover",
            "server/discover answers supportedVersions (with 2026-07-28), capabilities, ttlMs, cacheScope",
            discover_shape
        ),
        crate::case!(
            "modern.server-info",
            Should,
            MODERN,
            Own,
            SECTION,
            "results carry _meta[io.modelcontextprotocol/serverInfo] with a name and a version",
            server_info
        ),
        crate::case!(
            "modern.meta-missing-version",
            Must,
            MODERN,
            Own,
            SECTION,
            "a request whose _meta has no protocolVersion gets -32602",
            missing_version
        ),
        crate::case!(
            "modern.meta-missing-capabilities",
            Must,
            MODERN,
            Own,
            SECTION,
            "a request whose _meta has no clientCapabilities gets -32602",
            missing_capabilities
        ),
        crate::case!(
            "modern.meta-no-client-info",
            Must,
            MODERN,
            Own,
            SECTION,
            "a request whose _meta has no clientInfo is served (clientInfo is a SHOULD)",
            no_client_info
        ),
        crate::case!(
            "modern.unsupported-version",
            Must,
            MODERN,
            Own,
            SECTION,
            "an unsupported version gets -32022 with data.supported and data.requested",
            unsupported_version
        ),
        crate::case!(
            "modern.result-type",
            Must,
            MODERN,
            Own,
            SECTION,
            "every result carries resultType, and list results are \"complete\"",
            result_type
        ),
        crate::case!(
            "modern.cache-hints",
            Must,
            MODERN,
            Own,
            "2026-07-28 basic/utilities/caching",
            "list results and resources/read carry ttlMs (>= 0) and cacheScope (public|private)",
            cache_hints
        ),
        crate::case!(
            "modern.removed-methods",
            Must,
            MODERN,
            Own,
            SECTION,
            "ping, logging/setLevel and resources/subscribe sent as modern get -32601, initialize an error",
            removed_methods
        ),
        crate::case!(
            "modern.unknown-method",
            Must,
            MODERN,
            Own,
            SECTION,
            "an unknown method gets -32601",
            unknown_method
        ),
        crate::case!(
            "modern.resource-not-found",
            Must,
            MODERN,
            Own,
            "2026-07-28 server/resources#error-handling",
            "reading an unknown resource gets -32602 with data.uri",
            resource_not_found
        ),
    ]
}

async fn discover_shape(cx: &mut Ctx) -> CaseResult {
    let mut session = open(cx).await?;
    let reply = request(&mut session, "server/discover", json!({})).await;
    super::done(cx, session).await;
    let result = match reply? {
        Reply::Result(result) => result,
        other => return Ok(Outcome::fail("a server/discover result", other.describe())),
    };
    let mut problems = Vec::new();
    match result.get("supportedVersions").and_then(Value::as_array) {
        Some(versions) if versions.iter().any(|v| v == VERSION) => {}
        Some(versions) => problems.push(format!("supportedVersions {versions:?} lacks {VERSION}")),
        None => problems.push("no supportedVersions array".into()),
    }
    if !result.get("capabilities").is_some_and(Value::is_object) {
        problems.push("no capabilities object".into());
    }
    problems.extend(cache_problem(&result, "server/discover"));
    problems.extend(result_type_problem(&result, "complete", "server/discover"));
    Ok(verdict(
        "supportedVersions, capabilities, ttlMs, cacheScope and resultType \"complete\"",
        problems,
    ))
}

/// The methods whose results a modern client can ask for without arguments, given `discover`.
fn list_methods(discover: &Value) -> Vec<&'static str> {
    let mut methods = vec!["server/discover"];
    if capability(discover, "tools").is_some() {
        methods.push("tools/list");
    }
    if capability(discover, "prompts").is_some() {
        methods.push("prompts/list");
    }
    if capability(discover, "resources").is_some() {
        methods.push("resources/list");
        methods.push("resources/templates/list");
    }
    methods
}

/// The results of every list method (and discover) on one fresh connection, left open for
/// more requests; an error reply is a problem.
struct Lists {
    session: Session,
    discover: Value,
    results: Vec<(&'static str, Value)>,
    problems: Vec<String>,
}

/// [`Lists`], or the skip for a target that does not speak 2026-07-28.
async fn lists(cx: &mut Ctx) -> Result<Result<Lists, Outcome>, crate::error::Error> {
    let discover = match discover(cx).await? {
        Ok(d) => d,
        Err(skip) => return Ok(Err(skip)),
    };
    let mut session = open(cx).await?;
    let mut results = Vec::new();
    let mut problems = Vec::new();
    for method in list_methods(&discover) {
        match request(&mut session, method, json!({})).await? {
            Reply::Result(result) => results.push((method, result)),
            other => problems.push(format!("{method}: {}", other.describe())),
        }
    }
    Ok(Ok(Lists {
        session,
        discover,
        results,
        problems,
    }))
}

async fn server_info(cx: &mut Ctx) -> CaseResult {
    let Lists {
        session,
        results,
        mut problems,
        ..
    } = match lists(cx).await? {
        Ok(lists) => lists,
        Err(skip) => return Ok(skip),
    };
    super::done(cx, session).await;
    let pointer = format!("/_meta/{}", META_SERVER_INFO.replace('/', "~1"));
    for (method, result) in results {
        let named = result.pointer(&pointer).is_some_and(|i| {
            i.get("name").is_some_and(Value::is_string)
                && i.get("version").is_some_and(Value::is_string)
        });
        if !named {
            problems.push(format!(
                "{method}: no serverInfo {{name, version}} in _meta"
            ));
        }
    }
    Ok(verdict("serverInfo in the _meta of every result", problems))
}

/// The `_meta` of a modern request with `key` changed to `value` (removed when `None`).
pub fn meta_with(key: &str, value: Option<Value>) -> Value {
    let mut meta = meta(json!({}));
    if let Some(object) = meta.as_object_mut() {
        match value {
            Some(v) => object.insert(key.to_owned(), v),
            None => object.remove(key),
        };
    }
    meta
}

/// The reply to a server/discover carrying `meta`, on a fresh connection.
async fn discover_reply(cx: &mut Ctx, meta: Value) -> Result<Reply, crate::error::Error> {
    let mut session = open(cx).await?;
    // A request without the version is era-ambiguous: a dual-era server may take it for a
    // legacy one and serve the connection that way from then on. Such a connection is not
    // handed to the next case, whose verdict must not depend on this one.
    let ambiguous = meta.get(META_VERSION).is_none();
    let reply = session
        .first_request("server/discover", Some(json!({"_meta": meta})))
        .await;
    match ambiguous {
        true => session.close().await,
        false => super::done(cx, session).await,
    }
    reply
}

/// A request without `io.modelcontextprotocol/protocolVersion` is malformed for a modern-only
/// server ("A request missing any required field is malformed; the server MUST reject it with
/// JSON-RPC error code -32602", 2026-07-28 basic/index#_meta). A dual-era server cannot tell it
/// from a legacy request ("A request carrying modern per-request `_meta` is served statelessly
/// according to this revision. An `initialize` request selects legacy semantics",
/// basic/versioning#backward-compatibility), so from one any error is right; only a result is
/// wrong.
async fn missing_version(cx: &mut Ctx) -> CaseResult {
    let reply = discover_reply(cx, meta_with(META_VERSION, None)).await?;
    let dual_era = cx.speaks_legacy().await;
    Ok(match (&reply, dual_era) {
        (Reply::Error(_), true) => Outcome::Pass,
        (_, true) => Outcome::fail(
            "a request without protocolVersion: an error (-32602, or, from a dual-era server, \
             the legacy era's answer)",
            reply.describe(),
        ),
        (_, false) => expect_code(&reply, INVALID_PARAMS, "a request without protocolVersion"),
    })
}

async fn missing_capabilities(cx: &mut Ctx) -> CaseResult {
    let reply = discover_reply(cx, meta_with(META_CAPABILITIES, None)).await?;
    Ok(expect_code(
        &reply,
        INVALID_PARAMS,
        "a request without clientCapabilities",
    ))
}

async fn no_client_info(cx: &mut Ctx) -> CaseResult {
    Ok(
        match discover_reply(cx, meta_with(META_CLIENT_INFO, None)).await? {
            Reply::Result(_) => Outcome::Pass,
            other => Outcome::fail("a server/discover result", other.describe()),
        },
    )
}

async fn unsupported_version(cx: &mut Ctx) -> CaseResult {
    let reply = discover_reply(cx, meta_with(META_VERSION, Some(json!(FUTURE_VERSION)))).await?;
    let expected = "error -32022 with data.supported (listing 2026-07-28) and data.requested";
    let Reply::Error(error) = &reply else {
        return Ok(Outcome::fail(expected, reply.describe()));
    };
    let mut problems = Vec::new();
    if error.code != Some(UNSUPPORTED_VERSION) {
        problems.push(reply.describe());
    }
    let data = error.data.clone().unwrap_or(Value::Null);
    match data.get("supported").and_then(Value::as_array) {
        Some(list) if list.iter().any(|v| v == VERSION) => {}
        _ => problems.push(format!(
            "data.supported is {}",
            data.get("supported").unwrap_or(&Value::Null)
        )),
    }
    if data.get("requested").and_then(Value::as_str) != Some(FUTURE_VERSION) {
        problems.push(format!(
            "data.requested is {}, not {FUTURE_VERSION:?}",
            data.get("requested").unwrap_or(&Value::Null)
        ));
    }
    Ok(verdict(expected, problems))
}

async fn result_type(cx: &mut Ctx) -> CaseResult {
    let Lists {
        mut session,
        discover,
        results,
        mut problems,
    } = match lists(cx).await? {
        Ok(lists) => lists,
        Err(skip) => return Ok(skip),
    };
    for (method, result) in &results {
        problems.extend(result_type_problem(result, "complete", method));
    }
    if capability(&discover, "completions").is_some() {
        // A completion of nothing in particular: a result or an error, but a result is typed.
        let params = json!({
            "ref": {"type": "ref/prompt", "name": "-"},
            "argument": {"name": "-", "value": ""}
        });
        if let Reply::Result(result) = request(&mut session, "completion/complete", params).await? {
            problems.extend(result_type_problem(
                &result,
                "complete",
                "completion/complete",
            ));
        }
    }
    super::done(cx, session).await;
    Ok(verdict("resultType \"complete\" on every result", problems))
}

async fn cache_hints(cx: &mut Ctx) -> CaseResult {
    let Lists {
        mut session,
        results,
        mut problems,
        ..
    } = match lists(cx).await? {
        Ok(lists) => lists,
        Err(skip) => return Ok(skip),
    };
    let mut first_resource = None;
    for (method, result) in &results {
        problems.extend(cache_problem(result, method));
        if *method == "resources/list" {
            first_resource = result
                .pointer("/resources/0/uri")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
    }
    if let Some(uri) = first_resource {
        match request(&mut session, "resources/read", json!({"uri": uri})).await? {
            Reply::Result(result) if result.get("resultType") == Some(&json!("complete")) => {
                problems.extend(cache_problem(&result, "resources/read"));
            }
            // An input_required read has no hints; an error is another case's business.
            _ => {}
        }
    }
    super::done(cx, session).await;
    Ok(verdict(
        "ttlMs and cacheScope on every cacheable result",
        problems,
    ))
}

async fn removed_methods(cx: &mut Ctx) -> CaseResult {
    let mut session = cx.fresh().await?;
    let mut problems = Vec::new();
    let calls = [
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "debug"})),
        ("resources/subscribe", json!({"uri": "test://conformance"})),
        (
            "resources/unsubscribe",
            json!({"uri": "test://conformance"}),
        ),
        (
            "initialize",
            json!({
                "protocolVersion": VERSION,
                "capabilities": {},
                "clientInfo": {"name": "mcp-conformance", "version": "0"}
            }),
        ),
    ];
    for (method, params) in calls {
        let reply = request(&mut session, method, params).await?;
        // `initialize` sent as a modern request gets "a JSON-RPC error; the exact code is
        // implementation-defined" (2026-07-28 basic/versioning, compatibility matrix).
        let ok = match method {
            "initialize" => reply.is_error(),
            _ => reply.error_code() == Some(METHOD_NOT_FOUND),
        };
        if !ok {
            problems.push(format!("{method}: {}", reply.describe()));
        }
    }
    // `initialize` selects legacy semantics for a stdio process: the connection is not reused.
    session.close().await;
    Ok(verdict("-32601 for each removed method", problems))
}

async fn unknown_method(cx: &mut Ctx) -> CaseResult {
    let mut session = open(cx).await?;
    let reply = request(&mut session, "conformance/no-such-method", json!({})).await;
    super::done(cx, session).await;
    Ok(expect_code(&reply?, METHOD_NOT_FOUND, "an unknown method"))
}

async fn resource_not_found(cx: &mut Ctx) -> CaseResult {
    let discover = match discover(cx).await? {
        Ok(d) => d,
        Err(skip) => return Ok(skip),
    };
    if capability(&discover, "resources").is_none() {
        return Ok(Outcome::skip("the server does not declare `resources`"));
    }
    let uri = "test://mcp-conformance/no-such-resource";
    let mut session = open(cx).await?;
    let reply = request(&mut session, "resources/read", json!({"uri": uri})).await;
    super::done(cx, session).await;
    let reply = reply?;
    let expected = "error -32602 with data.uri";
    Ok(match &reply {
        Reply::Error(e) if e.code == Some(INVALID_PARAMS) => {
            match e.data.as_ref().and_then(|d| d.get("uri")) {
                Some(v) if v == uri => Outcome::Pass,
                other => Outcome::fail(expected, format!("data.uri {other:?}")),
            }
        }
        other => Outcome::fail(expected, other.describe()),
    })
}

/// `params` for a modern request with `capabilities` declared.
pub fn params_with(params: Value, capabilities: Value) -> Value {
    with_meta(params, meta(capabilities))
}
