//! The HTTP client transports against a real TypeScript-SDK server (`@modelcontextprotocol/sdk`
//! 1.32.2, `tests/interop/http_ts_server.cjs`): Streamable HTTP with sessions and resumption,
//! HTTP+SSE, and the automatic fallback between them.

#[path = "interop/http_support.rs"]
mod support;

use mcp_client::http::{
    self, HttpClientConfig, HttpFlavor, HttpSseTransport, StreamableHttpTransport,
};
use mcp_proto::jsonrpc;
use mcp_proto::peer::{Progress, RequestOptions};
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_progress_and_resumption_after_a_dropped_stream() {
    let Some(server) = ts_server().await else {
        return;
    };
    let transport = StreamableHttpTransport::new(HttpClientConfig::new(server.url("/mcp")))
        .expect("valid config");
    let (peer, _) = start(transport);
    handshake(&peer, "2025-11-25").await;

    // Progress notifications arrive on the request's own SSE stream.
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
    assert_eq!(
        *seen.lock().unwrap_or_else(|e| e.into_inner()),
        vec![1.0, 2.0, 3.0]
    );

    // The server closes the stream after its priming event (retry 300 ms) and answers later:
    // the transport must GET with Last-Event-ID after the delay and take the answer from there.
    let started = std::time::Instant::now();
    let result = bounded(
        10,
        "drop_stream",
        call_tool(&peer, "drop_stream", json!({})),
    )
    .await
    .expect("the answer arrives on the resumed stream");
    assert_eq!(first_text(&result), "answered after the drop");
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(250),
        "the retry delay was honoured"
    );

    peer.close();
    bounded(10, "close", peer.closed()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_reinitializes_after_the_session_expired() {
    let Some(server) = ts_server().await else {
        return;
    };
    let transport = StreamableHttpTransport::new(HttpClientConfig::new(server.url("/mcp")))
        .expect("valid config");
    let (peer, _) = start(transport);
    handshake(&peer, "2025-06-18").await;
    let sum = bounded(10, "add", call_tool(&peer, "add", json!({"a": 1, "b": 2})))
        .await
        .expect("add");
    assert_eq!(first_text(&sum), "3");

    expire_sessions(&server).await;

    // The old session id now gets 404: the transport starts a new session and retries.
    let sum = bounded(
        10,
        "add after expiry",
        call_tool(&peer, "add", json!({"a": 5, "b": 6})),
    )
    .await
    .expect("add after re-initialization");
    assert_eq!(first_text(&sum), "11");

    peer.close();
    bounded(10, "close", peer.closed()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_expiry_is_an_error_when_reinit_is_off() {
    let Some(server) = ts_server().await else {
        return;
    };
    let mut config = HttpClientConfig::new(server.url("/mcp"));
    config.reinit_on_expiry = false;
    let (peer, _) = start(StreamableHttpTransport::new(config).expect("valid config"));
    handshake(&peer, "2025-11-25").await;
    expire_sessions(&server).await;
    let error = bounded(
        10,
        "add after expiry",
        call_tool(&peer, "add", json!({"a": 5, "b": 6})),
    )
    .await
    .expect_err("the expired session fails the call");
    let text = error.to_string();
    assert!(text.contains("404") && text.contains("expired"), "{text}");
    bounded(10, "the peer sees the end", peer.closed()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sse_handshake_and_call() {
    let Some(server) = ts_server().await else {
        return;
    };
    let transport = bounded(
        10,
        "legacy connect",
        HttpSseTransport::connect(HttpClientConfig::new(server.url("/sse"))),
    )
    .await
    .expect("the endpoint event arrives");
    assert_eq!(transport.endpoint().path(), "/messages");
    let (peer, _) = start(transport);
    let init = handshake(&peer, "2024-11-05").await;
    assert_eq!(init["protocolVersion"], "2024-11-05");
    let sum = bounded(
        10,
        "add",
        call_tool(&peer, "add", json!({"a": 20, "b": 22})),
    )
    .await
    .expect("add");
    assert_eq!(first_text(&sum), "42");
    peer.close();
    bounded(10, "close", peer.closed()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_uses_streamable_http_when_offered() {
    let Some(server) = ts_server().await else {
        return;
    };
    let transport = http::connect_auto(HttpClientConfig::new(server.url("/mcp")))
        .await
        .expect("valid config");
    let flavor = transport.flavor();
    let (peer, _) = start(transport);
    handshake(&peer, "2025-11-25").await;
    assert_eq!(flavor.get(), Some(HttpFlavor::Streamable));
    let sum = bounded(10, "add", call_tool(&peer, "add", json!({"a": 1, "b": 1})))
        .await
        .expect("add");
    assert_eq!(first_text(&sum), "2");
    peer.close();
    bounded(10, "close", peer.closed()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_falls_back_to_http_sse_on_405() {
    let Some(server) = ts_server().await else {
        return;
    };
    // POST /sse answers 405 on this server, as an old HTTP+SSE server does.
    let transport = http::connect_auto(HttpClientConfig::new(server.url("/sse")))
        .await
        .expect("valid config");
    let flavor = transport.flavor();
    let (peer, _) = start(transport);
    let init = handshake(&peer, "2025-11-25").await;
    assert_eq!(init["serverInfo"]["name"], "ts-http-interop");
    assert_eq!(flavor.get(), Some(HttpFlavor::HttpSse));
    let sum = bounded(10, "add", call_tool(&peer, "add", json!({"a": 3, "b": 4})))
        .await
        .expect("add over HTTP+SSE");
    assert_eq!(first_text(&sum), "7");
    peer.close();
    bounded(10, "close", peer.closed()).await;
    server.stop().await;
}

/// Makes the TS server forget every Streamable HTTP session.
async fn expire_sessions(server: &ServerChild) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", server.port))
        .await
        .expect("connect");
    stream
        .write_all(b"POST /admin/expire HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let mut answer = String::new();
    bounded(5, "expire", stream.read_to_string(&mut answer))
        .await
        .expect("read");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}
