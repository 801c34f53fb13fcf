//! The HTTP+SSE transport (2024-11-05) over a real socket.

mod http_common;

use http_common::*;
use mcp_server::http::HttpConfig;
use serde_json::json;

async fn open(addr: std::net::SocketAddr) -> (SseReader, String) {
    let mut stream =
        SseReader::open(addr, "GET", "/sse", &[("Accept", "text/event-stream")], b"").await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    let endpoint = stream.next().await.expect("endpoint event");
    assert_eq!(endpoint.event.as_deref(), Some("endpoint"));
    assert!(
        endpoint.data.starts_with("/messages?sessionId="),
        "{}",
        endpoint.data
    );
    (stream, endpoint.data)
}

async fn send(addr: std::net::SocketAddr, path: &str, body: &serde_json::Value) -> Reply {
    request(
        addr,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
    .await
}

#[tokio::test]
async fn endpoint_event_then_answers_on_the_stream() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let (mut stream, path) = open(addr).await;
    let r = send(addr, &path, &initialize(1, "2024-11-05")).await;
    assert_eq!(r.status, 202);
    let event = stream.next().await.expect("answer");
    assert_eq!(event.event.as_deref(), Some("message"));
    let answer: serde_json::Value = serde_json::from_str(&event.data).expect("json");
    assert_eq!(answer["result"]["protocolVersion"], "2024-11-05");
    let r = send(
        addr,
        &path,
        &json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    )
    .await;
    assert_eq!(r.status, 202);
    let r = send(addr, &path, &call(2, "progress", json!({}))).await;
    assert_eq!(r.status, 202);
    let mut seen = Vec::new();
    loop {
        let (_, m) = stream.next_message().await.expect("message");
        let done = m["id"] == 2;
        seen.push(m);
        if done {
            break;
        }
    }
    assert_eq!(seen.len(), 7, "{seen:?}");
    assert_eq!(
        seen.iter()
            .filter(|m| m["method"] == "notifications/progress")
            .count(),
        3
    );
    assert_eq!(server.session_count(), 1);
    // Closing the stream ends the session.
    drop(stream);
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let r = send(
        addr,
        &path,
        &json!({"jsonrpc":"2.0","id":3,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 404);
    server.shutdown().await;
}

#[tokio::test]
async fn legacy_bad_input() {
    let server = start(HttpConfig {
        max_body_size: 512,
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let (_stream, path) = open(addr).await;
    let r = send(
        addr,
        "/messages",
        &json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 400);
    let r = send(
        addr,
        "/messages?sessionId=nope",
        &json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 404);
    let r = request(
        addr,
        "POST",
        &path,
        &[("Content-Type", "text/plain")],
        b"{}",
    )
    .await;
    assert_eq!(r.status, 415);
    let r = request(
        addr,
        "POST",
        &path,
        &[("Content-Type", "application/json")],
        b"{oops",
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32700);
    let big = vec![b' '; 1000];
    let r = request(
        addr,
        "POST",
        &path,
        &[("Content-Type", "application/json")],
        &big,
    )
    .await;
    assert_eq!(r.status, 413);
    let r = request(
        addr,
        "GET",
        "/sse",
        &[("Origin", "http://evil.example.com")],
        b"",
    )
    .await;
    assert_eq!(r.status, 403);
    let r = request(addr, "GET", "/sse", &[("Host", "evil.example.com")], b"").await;
    assert_eq!(r.status, 403);
    let r = request(
        addr,
        "POST",
        &path,
        &[
            ("Content-Type", "application/json"),
            ("Origin", "http://evil.example.com"),
        ],
        b"{}",
    )
    .await;
    assert_eq!(r.status, 403);
    server.shutdown().await;
}

#[tokio::test]
async fn both_transports_on_one_port() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let (mut stream, path) = open(addr).await;
    let id = open_session(addr, "2025-06-18").await;
    assert!(!path.contains(&id));
    send(
        addr,
        &path,
        &json!({"jsonrpc":"2.0","id":9,"method":"ping"}),
    )
    .await;
    let (_, m) = stream.next_message().await.expect("pong");
    assert_eq!(m["id"], 9);
    // A legacy session id is not a Streamable HTTP session, and the other way round.
    let legacy_id = path.split('=').nth(1).expect("id");
    let r = post(
        addr,
        &[("Mcp-Session-Id", legacy_id)],
        &json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 404);
    let r = send(
        addr,
        &format!("/messages?sessionId={id}"),
        &json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 404);
    server.shutdown().await;

    let only_streamable = start(HttpConfig {
        http_sse: None,
        ..HttpConfig::default()
    })
    .await;
    let r = request(only_streamable.local_addr(), "GET", "/sse", &[], b"").await;
    assert_eq!(r.status, 404);
    only_streamable.shutdown().await;
}

/// Over HTTP+SSE every POSTed message goes through the session's read loop, which a handler's
/// synchronous start (200 ms of CPU before its first `.await`) holds: a cancellation POSTed
/// meanwhile still stops its request at once, not after the burn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_burning_cpu_does_not_delay_a_cancellation() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let (mut stream, path) = open(addr).await;
    assert_eq!(
        send(addr, &path, &initialize(1, "2024-11-05")).await.status,
        202
    );
    stream.next_message().await.expect("initialize answer");
    let initialized = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    assert_eq!(send(addr, &path, &initialized).await.status, 202);
    let tag = json!({"tag": "sse-burn"});
    assert_eq!(
        send(addr, &path, &call(2, "wait_for_cancel", tag.clone()))
            .await
            .status,
        202
    );
    tokio::time::timeout(WAIT, async {
        while events("sse-burn").is_empty() {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("request 2 started");
    assert_eq!(send(addr, &path, &call(3, "burn", tag)).await.status, 202);
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled",
                        "params": {"requestId": 2, "reason": "test"}});
    assert_eq!(send(addr, &path, &cancel).await.status, 202);
    let (_, answer) = stream.next_message().await.expect("an answer");
    assert_eq!(
        answer["id"], 3,
        "the cancelled request is never answered: {answer}"
    );
    assert_eq!(
        events("sse-burn"),
        ["started", "stopped", "burnt"],
        "the cancellation waited for the other handler's synchronous start"
    );
}
