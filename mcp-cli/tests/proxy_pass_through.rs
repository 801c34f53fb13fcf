//! The proxy hands an upstream's `tools/call` result on as the upstream wrote it when the hub
//! has nothing to do to it: content, structured content, `isError`, unknown fields and the
//! result's own `_meta` arrive unchanged and in the upstream's order (a result read into types
//! and written again would come out in the type's field order), for a 2025 and a 2026-07-28
//! upstream alike. Only the heads change: the upstream's 2026-07-28 head stays upstream, and a
//! 2026-07-28 client gets the proxy's. A result limit or shaping still applies (the hub reads the
//! result then).

mod common;

use std::sync::{Arc, Mutex};

use common::bounded;
use mcp_cli::input_forwarding::InputForwarder;
use mcp_cli::proxy::{proxy_server, PROXY_NAME};
use mcp_client::{CallOptions, Client, ClientOptions, Negotiation};
use mcp_hub::{CallObserver, CallRecord, Hub, HubConfig, HubOptions, Shaping, Variables};
use mcp_proto::schema::PassThroughResult;
use mcp_proto::ProtocolVersion;
use mcp_server::RunningConnection;
use serde_json::{json, Value};

/// What the upstream answers: fields in an order no type writes them in, an unknown field, a
/// block with `_meta` and an unknown field, and the result's own `_meta`.
const RICH: &str = r#"{"x-vendor":{"kept":[1,"two",null]},"structuredContent":{"temp":21,"city":"Oslo"},"_meta":{"vendor/trace":"abc"},"content":[{"type":"text","text":"Oslo: 21","_meta":{"k":true},"x-block":1}],"isError":false}"#;
/// A failure the tool reports, as the upstream wrote it.
const FAILED: &str =
    r#"{"isError":true,"content":[{"type":"text","text":"upstream says no"}],"x-why":"quota"}"#;

const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// `text` answered as it is.
fn pass_through(text: &str) -> mcp_server::ToolOutput {
    let result = PassThroughResult::from_json(text.into()).expect("a result object");
    mcp_server::ToolOutput::pass_through(result)
}

/// An upstream over Streamable HTTP with the tools `rich` and `failing`; its URL.
async fn upstream() -> (String, mcp_server::http::HttpServer) {
    let server = mcp_server::Server::builder("upstream", "1.0.0")
        .tool(mcp_server::Tool::new("rich", "A rich result"), || async {
            pass_through(RICH)
        })
        .tool(
            mcp_server::Tool::new("failing", "A failed call"),
            || async { pass_through(FAILED) },
        )
        .build();
    let http = mcp_server::http::bind(
        "127.0.0.1:0",
        mcp_server::http::HttpConfig::default(),
        move |t| server.serve(t),
    )
    .await
    .expect("bind");
    (format!("http://{}/mcp", http.local_addr()), http)
}

/// A hub of `servers` (each the upstream under `protocol`, with extra config fields).
async fn connect_hub(
    url: &str,
    protocol: &str,
    servers: &[(&str, Value)],
    options: HubOptions,
) -> Hub {
    let mut entries = serde_json::Map::new();
    for (name, extra) in servers {
        let mut entry = json!({"type": "streamableHttp", "url": url, "protocol": protocol});
        if let (Value::Object(entry), Value::Object(extra)) = (&mut entry, extra) {
            entry.extend(extra.clone());
        }
        entries.insert((*name).to_owned(), entry);
    }
    let text = json!({ "mcpServers": entries }).to_string();
    let config = HubConfig::parse(&text, "test.json", &Variables::default()).expect("config");
    let hub = bounded(30, "connect", Hub::connect(config, options)).await;
    assert_eq!(hub.tools().len(), 2 * servers.len(), "{:?}", hub.servers());
    hub
}

/// A client of the proxy in front of `hub`, speaking `version`, and the proxy's session.
async fn proxy_client(hub: &Hub, version: ProtocolVersion) -> (Client, RunningConnection) {
    let proxy = proxy_server(hub, &InputForwarder::new());
    let (near, far) = mcp_proto::peer::memory_pair(64);
    let session = proxy.serve(near);
    let options = ClientOptions::new().with_negotiation(Negotiation::Pin(version));
    let client = bounded(10, "connect to the proxy", Client::connect(far, options))
        .await
        .expect("proxy client");
    (client, session)
}

/// `tools/call name` through the proxy: the result as the client received it.
async fn call(client: &Client, name: &str) -> Value {
    let params = json!({"name": name, "arguments": {}});
    bounded(
        10,
        name,
        client.request("tools/call", Some(params), CallOptions::default()),
    )
    .await
    .expect("call")
}

/// `result` as text in its own order, with the proxy's head checked and taken off when `modern`.
fn without_proxy_head(mut result: Value, modern: bool) -> String {
    if modern {
        let object = result.as_object_mut().expect("an object");
        assert_eq!(object.shift_remove("resultType"), Some(json!("complete")));
        let meta = object
            .get_mut("_meta")
            .and_then(Value::as_object_mut)
            .expect("_meta");
        let info = meta.shift_remove(SERVER_INFO).expect("the proxy's info");
        assert_eq!(info["name"], PROXY_NAME);
        if meta.is_empty() {
            object.shift_remove("_meta");
        }
    }
    result.to_string()
}

#[tokio::test]
async fn results_pass_through_unchanged_in_every_era() {
    let (url, http) = upstream().await;
    for upstream_protocol in ["legacy", "2026-07-28"] {
        let records = Arc::new(Mutex::new(Vec::<CallRecord>::new()));
        let sink = records.clone();
        let options = HubOptions {
            on_call: Some(CallObserver::new(move |r| {
                sink.lock().expect("records").push(r)
            })),
            ..HubOptions::default()
        };
        let hub = connect_hub(&url, upstream_protocol, &[("up", json!({}))], options).await;
        for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            let modern = version == ProtocolVersion::V2026_07_28;
            let (client, _session) = proxy_client(&hub, version).await;
            let at = format!("upstream {upstream_protocol}, client {version}");
            let rich = call(&client, "up__rich").await;
            assert_eq!(without_proxy_head(rich, modern), RICH, "{at}");
            let failed = call(&client, "up__failing").await;
            assert_eq!(without_proxy_head(failed, modern), FAILED, "{at}");
            client.close().await;
        }
        // The call log still learns each result's size and outcome.
        let records = records.lock().expect("records").clone();
        assert_eq!(records.len(), 4);
        assert_eq!(records[0].outcome, "ok");
        assert_eq!(records[0].result_bytes, Some(RICH.len()));
        assert_eq!(records[1].outcome, "tool_error");
        hub.close().await;
    }
    // A client from before structured content gets none.
    let hub = connect_hub(
        &url,
        "2026-07-28",
        &[("up", json!({}))],
        HubOptions::default(),
    )
    .await;
    let (client, _session) = proxy_client(&hub, ProtocolVersion::V2025_03_26).await;
    let mut expected: Value = serde_json::from_str(RICH).expect("json");
    expected
        .as_object_mut()
        .map(|o| o.shift_remove("structuredContent"));
    assert_eq!(
        call(&client, "up__rich").await.to_string(),
        expected.to_string()
    );
    client.close().await;
    hub.close().await;
    http.shutdown().await;
}

#[tokio::test]
async fn limits_and_shaping_still_apply() {
    let (url, http) = upstream().await;
    let servers = [
        ("up", json!({})),
        ("capped", json!({"resultLimits": {"text": 4}})),
    ];
    let hub = connect_hub(&url, "2026-07-28", &servers, HubOptions::default()).await;
    let (client, _session) = proxy_client(&hub, ProtocolVersion::V2025_11_25).await;
    let capped = call(&client, "capped__rich").await;
    let text = capped["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("Oslo"), "{capped}");
    assert!(text.contains("truncated"), "{capped}");
    // Read and written again: in the type's order, the unknown fields kept.
    assert!(capped.to_string().starts_with("{\"content\""), "{capped}");
    assert_eq!(capped["x-vendor"], json!({"kept": [1, "two", null]}));
    // The server without a limit still passes through.
    assert_eq!(call(&client, "up__rich").await.to_string(), RICH);
    client.close().await;
    hub.close().await;

    let shaping = Shaping {
        include_structured: false,
        ..Shaping::default()
    };
    let options = HubOptions {
        shaping,
        ..HubOptions::default()
    };
    let hub = connect_hub(&url, "legacy", &servers[..1], options).await;
    let (client, _session) = proxy_client(&hub, ProtocolVersion::V2025_11_25).await;
    let shaped = call(&client, "up__rich").await;
    assert!(shaped.get("structuredContent").is_none(), "{shaped}");
    assert_eq!(shaped["content"][0]["text"], "Oslo: 21");
    client.close().await;
    hub.close().await;
    http.shutdown().await;
}
