//! The HTTP client transports against a real Python-SDK server (PyPI `mcp` 1.30.0, FastMCP,
//! `tests/interop/http_py_server.py`): Streamable HTTP with SSE and with JSON answers, legacy
//! SSE, and the automatic fallback.

#[path = "interop/http_support.rs"]
mod support;

use mcp_client::http::{
    self, HttpClientConfig, HttpFlavor, HttpSseTransport, StreamableHttpTransport,
};
use mcp_proto::jsonrpc;
use mcp_proto::peer::{PeerHandle, Progress, RequestOptions};
use serde_json::json;
use support::*;

/// Starts the Python server in `mode`, or `None` when the interop peers are not installed.
async fn py_server(mode: &str) -> Option<ServerChild> {
    let python = interop_var("MCP_INTEROP_PYTHON")?;
    let script = script("http_py_server.py");
    let script = script.to_string_lossy().into_owned();
    Some(ServerChild::start(&python, &[&script, mode], &[]).await)
}

/// tools/list, add and progress over an initialized peer; returns the progress seen.
async fn exercise(peer: &PeerHandle) -> Vec<f64> {
    let tools = bounded(10, "tools/list", request(peer, "tools/list", json!({})))
        .await
        .expect("tools/list");
    let mut names = tool_names(&tools);
    names.sort();
    assert_eq!(names, ["add", "echo", "progress"]);

    let sum = bounded(10, "add", call_tool(peer, "add", json!({"a": 2, "b": 40})))
        .await
        .expect("add");
    assert_eq!(first_text(&sum), "42");

    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let options = RequestOptions {
        on_progress: Some(std::sync::Arc::new(move |p: Progress| {
            sink.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(p.progress)
        })),
        ..RequestOptions::default()
    };
    let params =
        jsonrpc::to_raw(&json!({"name": "progress", "arguments": {"steps": 3}})).expect("params");
    let result = bounded(
        10,
        "progress",
        peer.request_raw("tools/call", Some(params), options),
    )
    .await
    .expect("progress call");
    let result: serde_json::Value = serde_json::from_str(result.get()).expect("json");
    assert_eq!(first_text(&result), "done 3");
    // Progress travels on the request's SSE stream or the GET stream; with JSON answers the
    // Python server drops it, so only check what arrived is in order.
    let seen = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_streamable_http_with_sse_answers() {
    let Some(server) = py_server("streamable-http").await else {
        return;
    };
    let transport = StreamableHttpTransport::new(HttpClientConfig::new(server.url("/mcp")))
        .expect("valid config");
    let (peer, _) = start(transport);
    let init = handshake(&peer, "2025-11-25").await;
    assert_eq!(init["serverInfo"]["name"], "py-http-interop");
    assert_eq!(exercise(&peer).await, [1.0, 2.0, 3.0]);
    peer.close();
    bounded(10, "close", peer.closed()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_streamable_http_with_json_answers() {
    let Some(server) = py_server("streamable-http-json").await else {
        return;
    };
    let transport = StreamableHttpTransport::new(HttpClientConfig::new(server.url("/mcp")))
        .expect("valid config");
    let (peer, _) = start(transport);
    let init = handshake(&peer, "2025-06-18").await;
    assert_eq!(init["protocolVersion"], "2025-06-18");
    // With JSON answers this server has nowhere to put progress, so it sends none.
    exercise(&peer).await;
    peer.close();
    bounded(10, "close", peer.closed()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_http_sse() {
    let Some(server) = py_server("sse").await else {
        return;
    };
    let transport = bounded(
        10,
        "legacy connect",
        HttpSseTransport::connect(HttpClientConfig::new(server.url("/sse"))),
    )
    .await
    .expect("the endpoint event arrives");
    assert_eq!(transport.endpoint().path(), "/messages/");
    let (peer, _) = start(transport);
    handshake(&peer, "2024-11-05").await;
    assert_eq!(exercise(&peer).await, [1.0, 2.0, 3.0]);
    peer.close();
    bounded(10, "close", peer.closed()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_auto_falls_back_to_sse() {
    let Some(server) = py_server("sse").await else {
        return;
    };
    let transport = http::connect_auto(HttpClientConfig::new(server.url("/sse")))
        .await
        .expect("valid config");
    let flavor = transport.flavor();
    let (peer, _) = start(transport);
    handshake(&peer, "2025-11-25").await;
    assert_eq!(flavor.get(), Some(HttpFlavor::HttpSse));
    exercise(&peer).await;
    peer.close();
    bounded(10, "close", peer.closed()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_auto_picks_streamable_http() {
    let Some(server) = py_server("streamable-http").await else {
        return;
    };
    let transport = http::connect_auto(HttpClientConfig::new(server.url("/mcp")))
        .await
        .expect("valid config");
    let flavor = transport.flavor();
    let (peer, _) = start(transport);
    handshake(&peer, "2025-11-25").await;
    assert_eq!(flavor.get(), Some(HttpFlavor::Streamable));
    exercise(&peer).await;
    peer.close();
    bounded(10, "close", peer.closed()).await;
    server.stop().await;
}
