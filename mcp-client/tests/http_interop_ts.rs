//! The HTTP client transports against a real TypeScript-SDK server (`@modelcontextprotocol/sdk`
//! 1.32.2, `tests/interop/http_ts_server.cjs`): Streamable HTTP with sessions and resumption,
//! legacy SSE, and the automatic fallback between them.

#[path = "interop/http_support.rs"]
mod support;

use mcp_client::http::{HttpClientConfig, StreamableHttpTransport};
use serde_json::json;
use support::*;

/// Starts the TS server, or `None` when the interop peers are not installed.
async fn ts_server() -> Option<ServerChild> {
    let modules = interop_var("MCP_INTEROP_NODE_MODULES")?;
    let node = std::path::PathBuf::from("node");
    let script = script("http_ts_server.cjs");
    let script = script.to_string_lossy().into_owned();
    Some(ServerChild::start(&node, &[&script], &[("MCP_INTEROP_NODE_MODULES", &modules)]).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_handshake_list_and_call() {
    let Some(server) = ts_server().await else {
        return;
    };
    let transport = StreamableHttpTransport::new(HttpClientConfig::new(server.url("/mcp")))
        .expect("valid config");
    let (peer, _) = start(transport);
    let init = handshake(&peer, "2025-11-25").await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(init["serverInfo"]["name"], "ts-http-interop");

    let tools = bounded(10, "tools/list", request(&peer, "tools/list", json!({})))
        .await
        .expect("tools/list");
    let names = tool_names(&tools);
    assert!(names.contains(&"add".to_owned()), "{names:?}");

    let sum = bounded(10, "add", call_tool(&peer, "add", json!({"a": 2, "b": 40})))
        .await
        .expect("add");
    assert_eq!(first_text(&sum), "42");

    // Concurrent calls on one session.
    let mut calls = Vec::new();
    for i in 0..5 {
        let peer = peer.clone();
        calls.push(tokio::spawn(async move {
            call_tool(&peer, "echo", json!({ "text": format!("m{i}") })).await
        }));
    }
    for (i, call) in calls.into_iter().enumerate() {
        let result = bounded(10, "concurrent echo", call).await.expect("task");
        assert_eq!(first_text(&result.expect("echo")), format!("m{i}"));
    }

    peer.close();
    bounded(10, "close", peer.closed()).await;
    server.stop().await;
}
