//! The weather server over HTTP, driven by our `Client`: Streamable HTTP with sessions,
//! stateless Streamable HTTP, and HTTP+SSE at `/sse`; subscriptions over a session;
//! the `Host` check.

mod common;

use std::time::Duration;

use common::suite::{self, call};
use common::{bounded, first_text, HttpServer, SHENZHEN_PREFIX};
use mcp_client::http::StreamableHttpTransport;
use mcp_client::http::{self, HttpClientConfig, HttpFlavor, HttpSseTransport};
use mcp_client::{Client, ClientOptions};
use serde_json::json;

/// The suite checks the 2025 era (sessions, logging/setLevel); pin it.
fn options() -> ClientOptions {
    ClientOptions::new()
        .with_request_timeout(Duration::from_secs(20))
        .with_negotiation(mcp_client::Negotiation::Legacy)
}

async fn streamable(server: &HttpServer) -> Client {
    let transport = StreamableHttpTransport::new(HttpClientConfig::new(server.url("/mcp")))
        .expect("valid config");
    bounded(20, "connect", Client::connect(transport, options()))
        .await
        .expect("handshake over Streamable HTTP")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_with_sessions() {
    let server = HttpServer::start(&[]).await;
    let client = streamable(&server).await;
    suite::check_everything(&client).await;
    bounded(10, "close", client.close()).await;
    server.stop().await;
}

/// Stateless Streamable HTTP: every POST is served by a fresh `Server` session that starts out
/// initialized with the version of the request's `MCP-Protocol-Version` header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_stateless() {
    let server = HttpServer::start(&["--stateless"]).await;
    let mut config = HttpClientConfig::new(server.url("/mcp"));
    // A stateless server has no stream for server-initiated messages.
    config.open_get_stream = false;
    let transport = StreamableHttpTransport::new(config).expect("valid config");
    let client = bounded(20, "connect", Client::connect(transport, options()))
        .await
        .expect("handshake over stateless HTTP");
    suite::check_stateless(&client).await;
    bounded(10, "close", client.close()).await;
    server.stop().await;
}

async fn legacy(server: &HttpServer) -> Client {
    let transport = bounded(
        20,
        "legacy connect",
        HttpSseTransport::connect(HttpClientConfig::new(server.url("/sse"))),
    )
    .await
    .expect("the endpoint event arrives");
    bounded(20, "connect", Client::connect(transport, options()))
        .await
        .expect("handshake over HTTP+SSE")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sse() {
    let server = HttpServer::start(&[]).await;
    let client = legacy(&server).await;
    suite::check_everything(&client).await;
    bounded(10, "close", client.close()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sse_subscriptions() {
    let server = HttpServer::start(&["--update-interval", "0.3"]).await;
    let client = legacy(&server).await;
    suite::check_subscription(&client).await;
    bounded(10, "close", client.close()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_over_a_session() {
    let server = HttpServer::start(&["--update-interval", "0.3"]).await;
    let client = streamable(&server).await;
    suite::check_subscription(&client).await;
    // A second session that did not subscribe hears nothing.
    let quiet = streamable(&server).await;
    let mut events = quiet.notifications();
    tokio::time::sleep(Duration::from_millis(900)).await;
    while let Ok(event) = events.try_recv() {
        assert!(
            !matches!(event, mcp_client::ServerEvent::ResourceUpdated(_)),
            "{event:?}"
        );
    }
    bounded(10, "close", client.close()).await;
    bounded(10, "close", quiet.close()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_picks_streamable_and_many_concurrent_calls() {
    let server = HttpServer::start(&[]).await;
    let transport = http::connect_auto(HttpClientConfig::new(server.url("/mcp")))
        .await
        .expect("valid config");
    let flavor = transport.flavor();
    let client = bounded(20, "connect", Client::connect(transport, options()))
        .await
        .expect("handshake");
    assert_eq!(flavor.get(), Some(HttpFlavor::Streamable));
    let mut calls = Vec::new();
    for _ in 0..16 {
        let client = client.clone();
        calls.push(tokio::spawn(async move {
            call(&client, "get_weather", json!({"city": "深圳"})).await
        }));
    }
    for c in calls {
        let out = bounded(20, "concurrent call", c).await.expect("task");
        assert!(first_text(&out).starts_with(SHENZHEN_PREFIX), "{out}");
    }
    bounded(10, "close", client.close()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_host_and_origin_are_refused() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = HttpServer::start(&[]).await;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for (host, origin) in [
        ("evil.example", None),
        ("127.0.0.1", Some("http://evil.example")),
    ] {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", server.port))
            .await
            .expect("connect");
        let origin = origin
            .map(|o| format!("Origin: {o}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\n{origin}Content-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n{body}",
            port = server.port,
            len = body.len()
        );
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut answer = String::new();
        bounded(10, "answer", stream.read_to_string(&mut answer))
            .await
            .expect("read");
        assert!(
            answer.starts_with("HTTP/1.1 403"),
            "{host} {origin}: {answer}"
        );
    }
    server.stop().await;
}
