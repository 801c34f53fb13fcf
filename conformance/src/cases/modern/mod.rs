//! The 2026-07-28 ("modern") cases, ids `modern.*`: no handshake, every request carries its
//! version and client capabilities in `params._meta`. They run only against a target whose
//! `server/discover` answers a modern request (see [`Ctx::modern`]); each opens its own
//! connection and never sends `initialize`.
//!
//! - [`protocol`]: `server/discover`, the `_meta` errors, `resultType`, cache hints, the removed
//!   methods.
//! - [`mrtr`]: an `input_required` round trip and a forged `requestState`.
//! - [`listen`]: the `subscriptions/listen` stream.
//! - [`tasks`]: the tasks extension `io.modelcontextprotocol/tasks`.
//! - [`http`]: the Streamable HTTP header and status rules (HTTP targets only).

use serde_json::{json, Map, Value};

use crate::case::{Case, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::{Reply, Session};
use crate::error::Error;
use mcp_proto::ProtocolVersion;

pub mod http;
pub mod listen;
pub mod mrtr;
pub mod protocol;
pub mod tasks;

/// The version these cases speak.
pub const VERSION: &str = "2026-07-28";
pub use mcp_proto::schema::modern::meta_keys::{
    CLIENT_CAPABILITIES as META_CAPABILITIES, CLIENT_INFO as META_CLIENT_INFO,
    PROTOCOL_VERSION as META_VERSION, SERVER_INFO as META_SERVER_INFO,
    SUBSCRIPTION_ID as META_SUBSCRIPTION_ID,
};

/// The versions of every modern case.
pub const MODERN: Versions = Versions::since(ProtocolVersion::V2026_07_28);

/// The specification section of the 2026-07-28 base protocol.
pub const SECTION: &str = "2026-07-28 basic (per-request _meta)";

/// Every modern case.
pub fn cases() -> Vec<Case> {
    let mut cases = protocol::cases();
    cases.extend(mrtr::cases());
    cases.extend(listen::cases());
    cases.extend(tasks::cases());
    cases.extend(http::cases());
    cases
}

/// True for a case of the 2026-07-28 era.
pub fn is_modern(case: &Case) -> bool {
    case.versions.since >= ProtocolVersion::V2026_07_28
}

/// The `_meta` of a modern request declaring `capabilities`.
pub fn meta(capabilities: Value) -> Value {
    json!({
        META_VERSION: VERSION,
        META_CAPABILITIES: capabilities,
        META_CLIENT_INFO: {"name": "mcp-conformance", "version": env!("CARGO_PKG_VERSION")}
    })
}

/// `params` (an object, or nothing) with `meta` as its `_meta`.
pub fn with_meta(params: Value, meta: Value) -> Value {
    let mut object = match params {
        Value::Object(object) => object,
        _ => Map::new(),
    };
    object.insert("_meta".into(), meta);
    Value::Object(object)
}

/// Sends a modern request (no client capabilities) and waits for its reply.
pub async fn request(session: &mut Session, method: &str, params: Value) -> Result<Reply, Error> {
    let params = with_meta(params, meta(json!({})));
    session.first_request(method, Some(params)).await
}

/// A connection for a modern case (no `initialize` is sent): the one the previous
/// request/response case released ([`done`]), else a new one.
pub async fn open(cx: &mut Ctx) -> Result<Session, Error> {
    cx.reuse_or_fresh().await
}

/// Ends a case's use of a connection from [`open`] that has nothing left in flight: the next
/// modern case may use it (request/response cases only; a case that leaves a stream open
/// closes its connection instead).
pub async fn done(cx: &mut Ctx, session: Session) {
    cx.release(session).await;
}

/// The problem with `result`'s `resultType`, if any: it must be present and `expected`.
pub fn result_type_problem(result: &Value, expected: &str, what: &str) -> Option<String> {
    match result.get("resultType") {
        Some(Value::String(t)) if t == expected => None,
        Some(other) => Some(format!("{what}: resultType {other}, not {expected:?}")),
        None => Some(format!("{what}: no resultType")),
    }
}

/// The problem with the cache hints of `result`, if any: `ttlMs` a whole number ≥ 0 and
/// `cacheScope` `public` or `private`.
pub fn cache_problem(result: &Value, what: &str) -> Option<String> {
    let ttl_ok = result.get("ttlMs").and_then(Value::as_u64).is_some();
    let scope_ok = matches!(
        result.get("cacheScope").and_then(Value::as_str),
        Some("public" | "private")
    );
    match (ttl_ok, scope_ok) {
        (true, true) => None,
        _ => Some(format!(
            "{what}: ttlMs {} and cacheScope {}",
            result
                .get("ttlMs")
                .map_or("absent".into(), Value::to_string),
            result
                .get("cacheScope")
                .map_or("absent".into(), Value::to_string)
        )),
    }
}

/// The server capability `name` from the discover result, if declared.
pub fn capability<'a>(discover: &'a Value, name: &str) -> Option<&'a Value> {
    discover
        .get("capabilities")
        .and_then(|c| c.get(name))
        .filter(|v| !v.is_null())
}

/// The discover result of a modern target, or a skip when the target does not speak 2026-07-28
/// (the runner leaves modern cases out then, so this is a safety net).
pub async fn discover(cx: &mut Ctx) -> Result<Result<Value, Outcome>, Error> {
    Ok(match cx.modern().await? {
        Some(discover) => Ok(discover),
        None => Err(Outcome::skip("the server does not speak 2026-07-28")),
    })
}

/// Many problems as one failure, or a pass when there are none.
pub fn verdict(expected: &str, problems: Vec<String>) -> Outcome {
    if problems.is_empty() {
        Outcome::Pass
    } else {
        Outcome::fail(expected, problems.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_is_merged_into_params() {
        let params = with_meta(json!({"name": "t"}), meta(json!({})));
        assert_eq!(params["name"], "t");
        assert_eq!(params["_meta"][META_VERSION], VERSION);
        assert_eq!(with_meta(Value::Null, json!(1))["_meta"], 1);
    }

    #[test]
    fn cache_hints() {
        assert!(cache_problem(&json!({"ttlMs": 0, "cacheScope": "public"}), "x").is_none());
        assert!(cache_problem(&json!({"ttlMs": -1, "cacheScope": "public"}), "x").is_some());
        assert!(cache_problem(&json!({"ttlMs": 5, "cacheScope": "shared"}), "x").is_some());
        assert!(cache_problem(&json!({}), "x").is_some());
    }

    #[test]
    fn result_types() {
        let r = json!({"resultType": "complete"});
        assert!(result_type_problem(&r, "complete", "x").is_none());
        assert!(result_type_problem(&json!({}), "complete", "x").is_some());
    }
}
