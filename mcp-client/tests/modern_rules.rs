//! The client's 2026-07-28 rules against a scripted modern server on the in-memory transport:
//! every request carries the era's `_meta` and no `initialize` or `ping` is sent; `resultType`
//! is checked; the `input_required` loop retries under a new id with `requestState` echoed and
//! is bounded; a -32022 probe answer is retried with a mutual version; tools with invalid
//! `x-mcp-header` annotations are dropped; the era is remembered in an [`EraCache`].

mod common;

use std::sync::{Arc, Mutex};

use common::bounded;
use mcp_client::{
    Client, ClientError, ClientOptions, Era, EraCache, Negotiation, MAX_INPUT_ROUNDS,
};
use mcp_proto::jsonrpc::{self, ErrorObject, RawJson, Request};
use mcp_proto::peer::{memory_pair, Handler, Peer, PeerOptions, RequestContext};
use mcp_proto::schema::{ElicitResult, EmptyParams, ToolListChanged};
use mcp_proto::ProtocolVersion;
use serde_json::{json, Value};

/// A scripted modern-only server that records every request it gets.
#[derive(Default)]
struct ModernServer {
    /// (id, method, params) of every request, in order.
    seen: Mutex<Vec<(String, String, Value)>>,
}

impl Handler for ModernServer {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<RawJson, ErrorObject> {
        let params: Value = request
            .params
            .as_ref()
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or(Value::Null);
        self.seen.lock().unwrap().push((
            request.id.to_string(),
            request.method.clone(),
            params.clone(),
        ));
        let raw = |v: Value| jsonrpc::to_raw(&v).map_err(ErrorObject::internal);
        let version = params["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str();
        if version != Some("2026-07-28") {
            let mut error = ErrorObject::new(-32022, "Unsupported protocol version");
            error.data =
                jsonrpc::to_raw(&json!({"supported": ["2026-07-28"], "requested": version})).ok();
            return Err(error);
        }
        match request.method.as_str() {
            "server/discover" => raw(json!({
                "resultType": "complete",
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "ttlMs": 0, "cacheScope": "private",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "9"}}
            })),
            "tools/list" => raw(
                json!({"resultType": "complete", "ttlMs": 60000, "cacheScope": "public", "tools": [
                    {"name": "good", "inputSchema": {"type": "object", "properties": {
                        "r": {"type": "string", "x-mcp-header": "Region"}}}},
                    {"name": "bad", "inputSchema": {"type": "object", "properties": {
                        "r": {"type": "object", "x-mcp-header": "Region"}}}},
                    {"name": "plain", "inputSchema": {"type": "object"}}
                ]}),
            ),
            "tools/call" => match params["name"].as_str() {
                Some("loop") => {
                    raw(json!({"resultType": "input_required", "requestState": "again"}))
                }
                Some("change") => {
                    ctx.notify::<ToolListChanged>(&EmptyParams::default())
                        .await
                        .map_err(ErrorObject::internal)?;
                    raw(json!({"content": []}))
                }
                Some("weird") => raw(json!({"resultType": "task", "content": []})),
                Some("ask") => match params.get("requestState") {
                    None => raw(json!({
                        "resultType": "input_required",
                        "inputRequests": {"who": {"method": "elicitation/create", "params": {
                            "message": "name?", "requestedSchema": {"type": "object", "properties": {
                                "name": {"type": "string"}}}}}},
                        "requestState": "s-1 ünïcode"
                    })),
                    Some(state) => {
                        let name = &params["inputResponses"]["who"]["content"]["name"];
                        raw(
                            json!({"content": [{"type": "text", "text": format!("{state} {name}")}]}),
                        )
                    }
                },
                _ => raw(
                    json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}]}),
                ),
            },
            "resources/list" => raw(json!({"resultType": "input_required", "requestState": "x"})),
            other => Err(ErrorObject::method_not_found(other)),
        }
    }
}

fn options() -> ClientOptions {
    ClientOptions::new()
        .with_name("scripted")
        .with_elicitation(|_| async {
            let mut content = serde_json::Map::new();
            content.insert("name".into(), json!("octocat"));
            Ok(ElicitResult::accept(Some(content)))
        })
}

async fn connect(options: ClientOptions) -> (Result<Client, ClientError>, Arc<ModernServer>) {
    let (client_side, server_side) = memory_pair(64);
    let server = Arc::new(ModernServer::default());
    let _peer = Peer::start(server_side, server.clone(), PeerOptions::default());
    (Client::connect(client_side, options).await, server)
}

#[tokio::test]
async fn auto_talks_modern_with_meta_on_every_request() {
    let (client, server) = connect(options()).await;
    let client = client.expect("connects");
    assert_eq!(client.era(), Era::Modern);
    assert_eq!(client.server_info().name, "scripted");
    let tools = bounded(5, "list", client.list_tools())
        .await
        .expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["good", "plain"],
        "the invalid x-mcp-header tool is dropped"
    );
    bounded(5, "call", client.call_tool("plain", json!({})))
        .await
        .expect("call");
    bounded(5, "ping", client.ping()).await.expect("ping");
    let seen = server.seen.lock().unwrap().clone();
    for (_, method, params) in &seen {
        assert_ne!(method, "initialize");
        assert_ne!(method, "ping");
        let meta = &params["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"]["elicitation"],
            json!({}),
            "{method}"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["name"],
            "mcp-rs-client"
        );
    }
    client.close().await;
}

#[tokio::test]
async fn input_required_retries_with_a_new_id_and_the_state_echoed() {
    let (client, server) = connect(options()).await;
    let client = client.expect("connects");
    let result = bounded(5, "ask", client.call_tool("ask", json!({"a": 1})))
        .await
        .expect("answered");
    assert_eq!(
        result.content[0].as_text(),
        Some("\"s-1 ünïcode\" \"octocat\"")
    );
    let seen = server.seen.lock().unwrap().clone();
    let asks: Vec<_> = seen.iter().filter(|(_, m, _)| m == "tools/call").collect();
    assert_eq!(asks.len(), 2);
    assert_ne!(asks[0].0, asks[1].0, "the retry has a new id");
    assert_eq!(asks[1].2["arguments"], json!({"a": 1}));
    assert_eq!(asks[1].2["requestState"], "s-1 ünïcode");
    client.close().await;
}

#[tokio::test]
async fn the_loop_is_bounded_and_bad_result_types_are_refused() {
    let (client, server) = connect(options()).await;
    let client = client.expect("connects");
    let err = bounded(10, "loop", client.call_tool("loop", json!({})))
        .await
        .expect_err("never completes");
    assert!(matches!(err, ClientError::InputRequired { .. }), "{err}");
    assert!(err.to_string().contains("16 rounds"), "{err}");
    let rounds = server
        .seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, m, p)| m == "tools/call" && p["name"] == "loop")
        .count();
    assert_eq!(rounds, MAX_INPUT_ROUNDS + 1);

    let err = bounded(5, "weird", client.call_tool("weird", json!({})))
        .await
        .expect_err("unknown resultType");
    assert!(matches!(err, ClientError::InvalidResult { .. }), "{err}");
    assert!(err.to_string().contains("task"), "{err}");

    let err = bounded(5, "resources/list", client.list_resources())
        .await
        .expect_err("a list may not ask for input");
    assert!(matches!(err, ClientError::InvalidResult { .. }), "{err}");
    client.close().await;
}

#[tokio::test]
async fn no_handler_for_an_input_request_is_a_clear_error() {
    let (client, _) = connect(ClientOptions::new().with_name("scripted")).await;
    let client = client.expect("connects");
    let err = bounded(5, "ask", client.call_tool("ask", json!({})))
        .await
        .expect_err("no elicitation handler");
    assert!(
        err.to_string().contains("elicitation/create") && err.to_string().contains("no handler"),
        "{err}"
    );
    client.close().await;
}

#[tokio::test]
async fn the_era_is_remembered_and_a_legacy_pin_uses_initialize() {
    let cache = EraCache::new();
    let (client, _) = connect(options().with_era_cache(cache.clone(), "scripted")).await;
    client.expect("connects").close().await;
    assert_eq!(cache.get("scripted"), Some(ProtocolVersion::V2026_07_28));

    // The scripted server refuses anything without the modern `_meta`, `initialize` included.
    let pinned = options().with_negotiation(Negotiation::Pin(ProtocolVersion::V2025_11_25));
    let (client, server) = connect(pinned).await;
    let err = client.expect_err("initialize is refused");
    assert_eq!(err.rpc_error().map(|e| e.code), Some(-32022), "{err}");
    let seen = server.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].1, "initialize");
}

#[tokio::test]
async fn lists_are_cached_for_their_ttl_and_dropped_on_list_changed() {
    let (client, server) = connect(options()).await;
    let client = client.expect("connects");
    let count = || {
        server
            .seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, m, _)| m == "tools/list")
            .count()
    };
    bounded(5, "list", client.list_tools())
        .await
        .expect("tools");
    bounded(5, "list", client.list_tools())
        .await
        .expect("tools");
    assert_eq!(
        count(),
        1,
        "the second list comes from the cache (ttlMs 60000)"
    );
    bounded(5, "change", client.call_tool("change", json!({})))
        .await
        .expect("change");
    bounded(5, "list", client.list_tools())
        .await
        .expect("tools");
    assert_eq!(count(), 2, "list_changed dropped the cached list");
    client.close().await;
}
