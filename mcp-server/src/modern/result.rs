//! What every 2026-07-28 result carries besides its own fields: `resultType`, the server's info
//! in `_meta`, and, on cacheable results, `ttlMs` and `cacheScope`. Written into the raw result
//! without a `serde_json::Value` round trip when the result has no `_meta` or `resultType` of
//! its own (the common case); merged field by field when it has.

use std::sync::LazyLock;

use mcp_proto::json_text::{self, KeySearch};
use mcp_proto::jsonrpc::{self, RawJson};
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::{CacheScope, JsonObject};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::ServerError;

/// How long and by whom a cacheable result may be cached (`ttlMs`, `cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// How long, in milliseconds, a client may reuse the result; 0 means immediately stale.
    pub ttl_ms: u64,
    /// Whether caches may share the result across users (`public`) or not (`private`).
    pub scope: CacheScope,
}

impl CacheHint {
    /// A hint of `ttl_ms` milliseconds for `scope`.
    pub fn new(ttl_ms: u64, scope: CacheScope) -> Self {
        CacheHint { ttl_ms, scope }
    }

    fn scope_str(self) -> &'static str {
        match self.scope {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

impl Default for CacheHint {
    /// Immediately stale and private: safe for any server until its author says otherwise.
    fn default() -> Self {
        CacheHint::new(0, CacheScope::Private)
    }
}

/// The fields every complete 2026-07-28 result starts with, for a result serialized with them
/// in one pass (flattened in front of its own fields) instead of spliced in afterwards.
#[derive(Serialize)]
pub(crate) struct ResultHead<'a> {
    #[serde(rename = "resultType")]
    result_type: &'static str,
    #[serde(rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(rename = "cacheScope", skip_serializing_if = "Option::is_none")]
    cache_scope: Option<&'static str>,
    #[serde(rename = "_meta")]
    meta: ServerInfoMeta<'a>,
    /// The hint the two fields above were written from, for [`ResultHead::complete`].
    #[serde(skip)]
    cache: Option<CacheHint>,
}

#[derive(Serialize)]
struct ServerInfoMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: &'a RawValue,
}

impl<'a> ResultHead<'a> {
    /// The head of a complete result from the server whose info is `server_info`, with
    /// `ttlMs`/`cacheScope` when `cache` is given.
    pub(crate) fn new(server_info: &'a RawValue, cache: Option<CacheHint>) -> Self {
        ResultHead {
            result_type: "complete",
            ttl_ms: cache.map(|c| c.ttl_ms),
            cache_scope: cache.map(CacheHint::scope_str),
            meta: ServerInfoMeta { server_info },
            cache,
        }
    }

    /// `raw` (a result serialized without this head) completed with it.
    pub(crate) fn complete(&self, raw: &RawJson) -> Result<RawJson, ServerError> {
        complete(raw, self.meta.server_info, self.cache)
    }

    /// Appends the head's members (no braces, no trailing comma) to a result being written.
    pub(crate) fn push_fields(&self, out: &mut String) {
        push_head(out, self.meta.server_info, self.cache);
    }

    /// About how many bytes [`push_fields`](Self::push_fields) writes.
    pub(crate) fn len_hint(&self) -> usize {
        HEAD_ROOM + self.meta.server_info.get().len()
    }
}

/// The bytes of a head besides the server's info, with room to spare.
const HEAD_ROOM: usize = 128;

/// Writes `"resultType":"complete"`, then `"ttlMs"`/`"cacheScope"` when `cache` is given, then
/// `"_meta":{"io.modelcontextprotocol/serverInfo":INFO}`, in the order serde writes
/// [`ResultHead`].
fn push_head(out: &mut String, server_info: &RawValue, cache: Option<CacheHint>) {
    out.push_str("\"resultType\":\"complete\",");
    if let Some(hint) = cache {
        out.push_str("\"ttlMs\":");
        out.push_str(&hint.ttl_ms.to_string());
        out.push_str(",\"cacheScope\":\"");
        out.push_str(hint.scope_str());
        out.push_str("\",");
    }
    out.push_str("\"_meta\":{\"");
    out.push_str(meta_keys::SERVER_INFO);
    out.push_str("\":");
    out.push_str(server_info.get());
    out.push('}');
}

/// `raw` as a complete 2026-07-28 result: with `resultType`, `serverInfo` (`server_info` is its
/// JSON) and, when `cache` is given and the result has none of its own, `ttlMs`/`cacheScope`.
pub(crate) fn complete(
    raw: &RawJson,
    server_info: &RawValue,
    cache: Option<CacheHint>,
) -> Result<RawJson, ServerError> {
    let text = raw.get();
    if !is_plain(text) {
        return merged(text, server_info, cache);
    }
    let rest = text[1..].trim_start();
    let mut out = String::with_capacity(text.len() + HEAD_ROOM + server_info.get().len());
    out.push('{');
    push_head(&mut out, server_info, cache);
    if !rest.starts_with('}') {
        out.push(',');
    }
    out.push_str(rest);
    // Valid by construction: JSON values and literals around the result's own members.
    Ok(json_text::written(out))
}

/// The members of a result that the head writes, so that a result with one of them at its top
/// level is merged, not spliced (`cacheScope` too: a splice would repeat it).
const HEAD_KEYS: [&str; 4] = ["_meta", "resultType", "ttlMs", "cacheScope"];

/// Whether `text` (a result, valid JSON) is an object that starts with `{` and has none of the
/// [`HEAD_KEYS`] at its top level, so the head can be spliced in front of its members. A fast
/// path: a result that certainly has none of them anywhere (see [`KeySearch`]) is not read;
/// any other is read by its slow twin, [`is_plain_parsed`], and fuzz-checks compares the two.
pub(crate) fn is_plain(text: &str) -> bool {
    // Searchers built once: building one per call cost more than the search.
    static HEAD_SEARCH: LazyLock<[KeySearch; 4]> = LazyLock::new(|| HEAD_KEYS.map(KeySearch::new));
    if !text.starts_with('{') {
        return false;
    }
    HEAD_SEARCH.iter().all(|key| key.certainly_absent(text)) || is_plain_parsed(text)
}

/// [`is_plain`] from the result's members as serde_json reads them (a key inside a value, or in
/// a nested `_meta`, is not one of the result's).
pub(crate) fn is_plain_parsed(text: &str) -> bool {
    text.starts_with('{')
        && json_text::object_members_parsed(text).is_some_and(|members| {
            members
                .iter()
                .all(|(key, _)| !HEAD_KEYS.contains(&key.as_ref()))
        })
}

/// The slow path: the result carries fields of its own that must be kept.
fn merged(
    text: &str,
    server_info: &RawValue,
    cache: Option<CacheHint>,
) -> Result<RawJson, ServerError> {
    let mut map: JsonObject = serde_json::from_str(text).map_err(|e| {
        ServerError::handler(format!("a handler's result is not a JSON object: {e}"))
    })?;
    map.entry("resultType")
        .or_insert_with(|| Value::String("complete".into()));
    if let Some(hint) = cache {
        if !map.contains_key("ttlMs") {
            map.insert("ttlMs".into(), Value::from(hint.ttl_ms));
        }
        map.entry("cacheScope")
            .or_insert_with(|| Value::String(hint.scope_str().into()));
    }
    let info: Value = serde_json::from_str(server_info.get()).map_err(ServerError::handler)?;
    match map
        .entry("_meta")
        .or_insert_with(|| Value::Object(JsonObject::new()))
    {
        Value::Object(meta) => {
            meta.entry(meta_keys::SERVER_INFO).or_insert(info);
        }
        _ => {
            return Err(ServerError::handler(
                "a handler's result has a _meta that is not an object",
            ))
        }
    }
    jsonrpc::to_raw(&map).map_err(ServerError::handler)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn info() -> Box<RawValue> {
        serde_json::value::to_raw_value(&json!({"name": "s", "version": "1"})).unwrap()
    }

    fn run(raw: Value, cache: Option<CacheHint>) -> Value {
        let raw = jsonrpc::to_raw(&raw).unwrap();
        serde_json::from_str(complete(&raw, &info(), cache).unwrap().get()).unwrap()
    }

    #[test]
    fn plain_results_get_every_field() {
        let hint = CacheHint::new(5000, CacheScope::Public);
        assert_eq!(
            run(json!({"tools": []}), Some(hint)),
            json!({"resultType": "complete", "ttlMs": 5000, "cacheScope": "public",
                   "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
                   "tools": []})
        );
        assert_eq!(
            run(json!({}), None),
            json!({"resultType": "complete",
                   "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}})
        );
    }

    #[test]
    fn a_head_serialized_in_front_matches_the_splice() {
        #[derive(Serialize)]
        struct Body<'a> {
            #[serde(flatten)]
            head: Option<&'a ResultHead<'a>>,
            tools: [u8; 0],
        }
        let info = info();
        let hint = CacheHint::new(5000, CacheScope::Public);
        let head = ResultHead::new(&info, Some(hint));
        let one_pass = jsonrpc::to_raw(&Body {
            head: Some(&head),
            tools: [],
        })
        .unwrap();
        let plain = jsonrpc::to_raw(&Body {
            head: None,
            tools: [],
        })
        .unwrap();
        assert_eq!(one_pass.get(), head.complete(&plain).unwrap().get());
        assert_eq!(
            serde_json::from_str::<Value>(one_pass.get()).unwrap(),
            run(json!({"tools": []}), Some(hint))
        );
    }

    #[test]
    fn escaped_head_keys_are_merged_not_repeated() {
        let info = info();
        for text in [
            r#"{"content":[],"\u005fmeta":{"k":1}}"#,
            r#"{"content":[],"result\u0054ype":"complete"}"#,
            r#"{"content":[],"cacheScope":"public"}"#,
        ] {
            assert!(!is_plain(text), "{text}");
            let raw = RawJson::from_string(text.into()).unwrap();
            let hint = Some(CacheHint::default());
            let out = complete(&raw, &info, hint).unwrap();
            let members = json_text::object_members_parsed(out.get()).unwrap();
            let mut keys: Vec<&str> = members.iter().map(|(k, _)| k.as_ref()).collect();
            keys.sort_unstable();
            let count = keys.len();
            keys.dedup();
            assert_eq!(keys.len(), count, "a repeated member in {}", out.get());
        }
    }

    #[test]
    fn head_keys_below_the_top_or_in_values_keep_a_result_plain() {
        for text in [
            r#"{"content":[{"type":"text","text":"\"_meta\":1","_meta":{"k":1}}]}"#,
            r#"{"structuredContent":{"resultType":"x","ttlMs":1,"cacheScope":"y"}}"#,
            r#"{"content":[],"k":"resultType"}"#,
        ] {
            assert!(is_plain(text), "{text}");
            assert!(is_plain_parsed(text), "{text}");
        }
    }

    #[test]
    fn own_fields_are_kept() {
        let out = run(
            json!({"contents": [], "ttlMs": 7, "_meta": {"x": 1}}),
            Some(CacheHint::default()),
        );
        assert_eq!(out["ttlMs"], json!(7));
        assert_eq!(out["cacheScope"], json!("private"));
        assert_eq!(out["_meta"]["x"], json!(1));
        assert_eq!(out["_meta"][meta_keys::SERVER_INFO]["name"], json!("s"));
        assert_eq!(out["resultType"], json!("complete"));
    }
}
