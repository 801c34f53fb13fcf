//! Streamable HTTP over a real socket: sessions, JSON and SSE answers, header checks, bad input.

mod http_common;

use std::time::Duration;

use http_common::*;
use mcp_server::http::HttpConfig;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const V: &str = "2025-11-25";

#[tokio::test]
async fn initialize_assigns_a_session_and_answers_json() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let reply = post(addr, &[], &initialize(1, "2025-06-18")).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let body = reply.json();
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["protocolVersion"], "2025-06-18");
    let id = reply.header("mcp-session-id").expect("session id");
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    let other = post(addr, &[], &initialize(1, "2025-06-18")).await;
    assert_ne!(other.header("mcp-session-id"), Some(id));

    let headers = [
        ("Mcp-Session-Id", id),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let list = post(
        addr,
        &headers,
        &json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
    )
    .await;
    assert_eq!(list.status, 200);
    assert_eq!(list.json()["result"]["tools"][0]["name"], "echo");
    let echo = post(addr, &headers, &call(3, "echo", json!({"text":"hi"}))).await;
    assert_eq!(echo.status, 200);
    assert_eq!(echo.json()["result"]["content"][0]["text"], "hi");
    let unknown = post(
        addr,
        &headers,
        &json!({"jsonrpc":"2.0","id":4,"method":"nope"}),
    )
    .await;
    assert_eq!(unknown.status, 200);
    assert_eq!(unknown.json()["error"]["code"], -32601);
    assert_eq!(server.session_count(), 2);
    server.shutdown().await;
}

#[tokio::test]
async fn notifications_and_responses_get_202_without_body() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let headers = [("Mcp-Session-Id", id.as_str()), ("MCP-Protocol-Version", V)];
    let r = post(
        addr,
        &headers,
        &json!({"jsonrpc":"2.0","method":"notifications/roots/list_changed"}),
    )
    .await;
    assert_eq!(r.status, 202);
    assert!(r.body.is_empty());
    let r = post(
        addr,
        &headers,
        &json!({"jsonrpc":"2.0","id":99,"result":{}}),
    )
    .await;
    assert_eq!(r.status, 202);
    assert!(r.body.is_empty());
    server.shutdown().await;
}

#[tokio::test]
async fn session_header_rules() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let ping = json!({"jsonrpc":"2.0","id":5,"method":"ping"});
    let missing = post(addr, &[], &ping).await;
    assert_eq!(missing.status, 400, "{}", missing.text());
    let unknown = post(
        addr,
        &[("Mcp-Session-Id", "0123456789abcdef0123456789abcdef")],
        &ping,
    )
    .await;
    assert_eq!(unknown.status, 404);
    let again = post(addr, &[("Mcp-Session-Id", &id)], &initialize(9, V)).await;
    assert_eq!(again.status, 400);
    // DELETE ends the session; later requests get 404.
    let del = request(addr, "DELETE", "/mcp", &[("Mcp-Session-Id", &id)], b"").await;
    assert_eq!(del.status, 200);
    let after = post(addr, &[("Mcp-Session-Id", &id)], &ping).await;
    assert_eq!(after.status, 404);
    let del = request(addr, "DELETE", "/mcp", &[("Mcp-Session-Id", &id)], b"").await;
    assert_eq!(del.status, 404);
    let del = request(addr, "DELETE", "/mcp", &[], b"").await;
    assert_eq!(del.status, 400);
    server.shutdown().await;
}

#[tokio::test]
async fn delete_can_be_disabled() {
    let server = start(HttpConfig {
        allow_delete: false,
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let del = request(addr, "DELETE", "/mcp", &[("Mcp-Session-Id", &id)], b"").await;
    assert_eq!(del.status, 405);
    assert!(del.header("allow").is_some_and(|a| !a.contains("DELETE")));
    server.shutdown().await;
}

#[tokio::test]
async fn bad_input_is_refused_with_the_right_status() {
    let server = start(HttpConfig {
        max_body_size: 1024,
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let body = initialize(1, V).to_string();
    let only_json = [
        ("Accept", "application/json"),
        ("Content-Type", "application/json"),
    ];
    let r = request(addr, "POST", "/mcp", &only_json, body.as_bytes()).await;
    assert_eq!(r.status, 406);
    let only_sse = [
        ("Accept", "text/event-stream"),
        ("Content-Type", "application/json"),
    ];
    let r = request(addr, "POST", "/mcp", &only_sse, body.as_bytes()).await;
    assert_eq!(r.status, 406);
    let text = [
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "text/plain"),
    ];
    let r = request(addr, "POST", "/mcp", &text, body.as_bytes()).await;
    assert_eq!(r.status, 415);
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{{\"p\":\"{}\"}}}}",
        "a".repeat(2000)
    );
    let r = request(addr, "POST", "/mcp", POST_HEADERS, big.as_bytes()).await;
    assert_eq!(r.status, 413);
    let r = request(addr, "POST", "/mcp", POST_HEADERS, b"{not json").await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32700);
    assert!(r.json()["id"].is_null());
    let r = request(
        addr,
        "POST",
        "/mcp",
        POST_HEADERS,
        br#"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32600);
    let r = request(addr, "PUT", "/mcp", POST_HEADERS, b"{}").await;
    assert_eq!(r.status, 405);
    let r = request(addr, "POST", "/elsewhere", POST_HEADERS, body.as_bytes()).await;
    assert_eq!(r.status, 404);
    // Nothing above created a session.
    assert_eq!(server.session_count(), 0);
    server.shutdown().await;
}

#[tokio::test]
async fn protocol_version_header() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let id = open_session(addr, "2025-06-18").await;
    let ping = json!({"jsonrpc":"2.0","id":5,"method":"ping"});
    let r = post(
        addr,
        &[
            ("Mcp-Session-Id", &id),
            ("MCP-Protocol-Version", "1999-01-01"),
        ],
        &ping,
    )
    .await;
    assert_eq!(r.status, 400);
    assert!(r.text().contains("MCP-Protocol-Version"), "{}", r.text());
    // Missing: taken as 2025-03-26, accepted.
    let r = post(addr, &[("Mcp-Session-Id", &id)], &ping).await;
    assert_eq!(r.status, 200);
    let r = post(
        addr,
        &[
            ("Mcp-Session-Id", &id),
            ("MCP-Protocol-Version", "2025-03-26"),
        ],
        &ping,
    )
    .await;
    assert_eq!(r.status, 200);
    server.shutdown().await;
}

#[tokio::test]
async fn host_and_origin_are_checked_on_loopback() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let body = initialize(1, V);
    let r = post(addr, &[("Origin", "http://evil.example.com")], &body).await;
    assert_eq!(r.status, 403);
    let r = post(addr, &[("Host", "evil.example.com")], &body).await;
    assert_eq!(r.status, 403);
    let r = post(
        addr,
        &[
            ("Host", "localhost:1234"),
            ("Origin", "http://localhost:5173"),
        ],
        &body,
    )
    .await;
    assert_eq!(r.status, 200);
    let legacy = request(
        addr,
        "GET",
        "/sse",
        &[("Origin", "http://evil.example.com")],
        b"",
    )
    .await;
    assert_eq!(legacy.status, 403);
    server.shutdown().await;

    let open = start(HttpConfig {
        dns_rebinding_protection: Some(false),
        ..HttpConfig::default()
    })
    .await;
    let r = post(open.local_addr(), &[("Host", "evil.example.com")], &body).await;
    assert_eq!(r.status, 200);
    open.shutdown().await;

    let custom = start(HttpConfig {
        allowed_hosts: vec!["mcp.example.com".into()],
        allowed_origins: vec!["https://app.example.com".into()],
        ..HttpConfig::default()
    })
    .await;
    let addr = custom.local_addr();
    let r = post(
        addr,
        &[
            ("Host", "mcp.example.com:8443"),
            ("Origin", "https://app.example.com"),
        ],
        &body,
    )
    .await;
    assert_eq!(r.status, 200);
    let r = post(addr, &[], &body).await;
    assert_eq!(r.status, 403);
    custom.shutdown().await;
}

#[tokio::test]
async fn notifications_before_the_result_make_an_sse_response() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let headers = [("Mcp-Session-Id", id.as_str()), ("MCP-Protocol-Version", V)];
    let r = post(addr, &headers, &call(7, "progress", json!({}))).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert!(r.text().starts_with("retry: 1000"), "{}", r.text());
    let events = r.events();
    // Priming event first: an id and empty data.
    assert!(events[0].id.is_some());
    assert!(events[0].data.is_empty());
    let messages: Vec<serde_json::Value> = events[1..]
        .iter()
        .map(|e| serde_json::from_str(&e.data).expect("json"))
        .collect();
    assert_eq!(messages.len(), 7, "{messages:?}");
    let progress: Vec<f64> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| {
            assert_eq!(m["params"]["progressToken"], "tok");
            m["params"]["progress"].as_f64().expect("number")
        })
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    assert_eq!(
        messages
            .iter()
            .filter(|m| m["method"] == "notifications/message")
            .count(),
        3
    );
    assert_eq!(messages[6]["id"], 7);
    assert_eq!(messages[6]["result"]["content"][0]["text"], "done");
    let mut ids: Vec<_> = events.iter().filter_map(|e| e.id.clone()).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "event ids are unique");

    // Priming follows the negotiated version even when the header says 2025-03-26.
    let headers = [
        ("Mcp-Session-Id", id.as_str()),
        ("MCP-Protocol-Version", "2025-03-26"),
    ];
    let r = post(addr, &headers, &call(9, "progress", json!({}))).await;
    assert!(r.events()[0].data.is_empty(), "{}", r.text());

    // A 2025-06-18 client gets SSE without priming or retry.
    let old = open_session(addr, "2025-06-18").await;
    let headers = [
        ("Mcp-Session-Id", old.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let r = post(addr, &headers, &call(8, "progress", json!({}))).await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert!(r.events().iter().all(|e| !e.data.is_empty()));
    assert!(!r.text().contains("retry:"));
    server.shutdown().await;
}

#[tokio::test]
async fn concurrent_posts_on_one_session() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let mut tasks = Vec::new();
    for i in 0..8 {
        let id = id.clone();
        tasks.push(tokio::spawn(async move {
            let headers = [("Mcp-Session-Id", id.as_str()), ("MCP-Protocol-Version", V)];
            let tool = if i % 2 == 0 { "slow" } else { "echo" };
            let r = post(
                addr,
                &headers,
                &call(100 + i, tool, json!({"ms": 50, "text": "x"})),
            )
            .await;
            assert_eq!(r.status, 200);
            assert_eq!(r.json()["id"], 100 + i);
        }));
    }
    for t in tasks {
        t.await.expect("task");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn standalone_get_stream() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let headers = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", id.as_str()),
        ("MCP-Protocol-Version", V),
    ];
    let mut stream = SseReader::open(addr, "GET", "/mcp", &headers, b"").await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    let priming = stream.next().await.expect("priming");
    assert!(priming.data.is_empty() && priming.id.is_some());
    let second = request(addr, "GET", "/mcp", &headers, b"").await;
    assert_eq!(second.status, 409);
    let r = request(
        addr,
        "GET",
        "/mcp",
        &[("Accept", "application/json"), ("Mcp-Session-Id", &id)],
        b"",
    )
    .await;
    assert_eq!(r.status, 406);
    let r = request(addr, "GET", "/mcp", &[("Accept", "text/event-stream")], b"").await;
    assert_eq!(r.status, 400);
    // DELETE ends the stream.
    let del = request(addr, "DELETE", "/mcp", &[("Mcp-Session-Id", &id)], b"").await;
    assert_eq!(del.status, 200);
    assert!(stream.next().await.is_none());
    server.shutdown().await;

    let no_get = start(HttpConfig {
        standalone_stream: false,
        ..HttpConfig::default()
    })
    .await;
    let addr = no_get.local_addr();
    let id = open_session(addr, V).await;
    let r = request(
        addr,
        "GET",
        "/mcp",
        &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &id)],
        b"",
    )
    .await;
    assert_eq!(r.status, 405);
    no_get.shutdown().await;
}

#[tokio::test]
async fn resumption_after_a_dropped_stream() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let mut headers: Vec<(&str, &str)> = POST_HEADERS.to_vec();
    headers.extend([("Mcp-Session-Id", id.as_str()), ("MCP-Protocol-Version", V)]);
    let body = call(11, "notify_then_slow", json!({"ms": 300})).to_string();
    let mut stream = SseReader::open(addr, "POST", "/mcp", &headers, body.as_bytes()).await;
    assert_eq!(stream.status, 200);
    let (event_id, log) = stream.next_message().await.expect("log");
    assert_eq!(log["method"], "notifications/message");
    let event_id = event_id.expect("event id");
    drop(stream); // the connection drops before the result
    tokio::time::sleep(Duration::from_millis(400)).await;
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", id.as_str()),
        ("MCP-Protocol-Version", V),
        ("Last-Event-ID", event_id.as_str()),
    ];
    let mut resumed = SseReader::open(addr, "GET", "/mcp", &get, b"").await;
    assert_eq!(resumed.status, 200);
    let (_, result) = resumed.next_message().await.expect("result");
    assert_eq!(result["id"], 11);
    assert_eq!(result["result"]["content"][0]["text"], "finished");
    assert!(
        resumed.next_message().await.is_none(),
        "the stream ends after its answer"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn server_closes_streams_early_and_the_client_polls() {
    let server = start(HttpConfig {
        sse_close_after: Some(Duration::from_millis(100)),
        sse_retry: Some(Duration::from_millis(50)),
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let mut headers: Vec<(&str, &str)> = POST_HEADERS.to_vec();
    headers.extend([("Mcp-Session-Id", id.as_str()), ("MCP-Protocol-Version", V)]);
    let body = call(12, "notify_then_slow", json!({"ms": 400})).to_string();
    let mut stream = SseReader::open(addr, "POST", "/mcp", &headers, body.as_bytes()).await;
    let mut last = None;
    let mut got_result = false;
    while let Some(event) = stream.next().await {
        last = event.id.clone().or(last);
        got_result |= event.data.contains("finished");
    }
    assert!(!got_result, "the connection closed before the result");
    let mut polls = 0;
    while !got_result {
        polls += 1;
        assert!(polls < 50, "no result after {polls} polls");
        tokio::time::sleep(Duration::from_millis(50)).await;
        let last_id = last.clone().expect("an event id to resume from");
        let get = [
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", id.as_str()),
            ("MCP-Protocol-Version", V),
            ("Last-Event-ID", last_id.as_str()),
        ];
        let mut resumed = SseReader::open(addr, "GET", "/mcp", &get, b"").await;
        assert_eq!(resumed.status, 200);
        while let Some(event) = resumed.next().await {
            last = event.id.clone().or(last);
            got_result |= event.data.contains("finished");
        }
    }
    assert_eq!(polls, 1, "the resumed GET stays open until the answer");
    server.shutdown().await;
}

#[tokio::test]
async fn batches_only_under_2025_03_26() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let id = open_session(addr, "2025-03-26").await;
    let batch = json!([
        {"jsonrpc":"2.0","id":1,"method":"ping"},
        {"jsonrpc":"2.0","method":"notifications/roots/list_changed"},
        {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}
    ]);
    let r = post(
        addr,
        &[
            ("Mcp-Session-Id", &id),
            ("MCP-Protocol-Version", "2025-03-26"),
        ],
        &batch,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let answers = r.json();
    assert_eq!(answers.as_array().map(Vec::len), Some(2), "{answers}");
    let r = post(
        addr,
        &[
            ("Mcp-Session-Id", &id),
            ("MCP-Protocol-Version", "2025-06-18"),
        ],
        &batch,
    )
    .await;
    assert_eq!(r.status, 400);
    let notes = json!([{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]);
    let r = post(addr, &[("Mcp-Session-Id", &id)], &notes).await;
    assert_eq!(r.status, 202);
    server.shutdown().await;
}

#[tokio::test]
async fn a_batch_that_repeats_an_id_is_answered_and_ends() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let id = open_session(addr, "2025-03-26").await;
    let headers = [
        ("Mcp-Session-Id", id.as_str()),
        ("MCP-Protocol-Version", "2025-03-26"),
    ];
    let batch = json!([
        {"jsonrpc":"2.0","id":20,"method":"ping"},
        {"jsonrpc":"2.0","id":20,"method":"ping"}
    ]);
    // Before the fix the reply was an SSE stream that never ended.
    let r = tokio::time::timeout(Duration::from_secs(10), post(addr, &headers, &batch))
        .await
        .expect("the POST's reply ends");
    assert_eq!(r.status, 200, "{}", r.text());
    let answers = r.json();
    let answers = answers.as_array().expect("a batch reply");
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert!(answers.iter().all(|a| a["id"] == 20), "{answers:?}");
    assert_eq!(answers[0]["result"], json!({}), "{answers:?}");
    assert_eq!(answers[1]["error"]["code"], -32600, "{answers:?}");
    // The session is not held: it still answers.
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        post(
            addr,
            &headers,
            &json!({"jsonrpc":"2.0","id":21,"method":"ping"}),
        ),
    )
    .await
    .expect("answered");
    assert_eq!(r.json()["result"], json!({}));
    server.shutdown().await;
}

/// Sends raw HTTP/1.1 request text and returns the status.
async fn raw_status(addr: std::net::SocketAddr, head: &str) -> u16 {
    let body = initialize(1, V).to_string();
    let mut tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let text = format!(
        "{head}Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
         Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    tcp.write_all(text.as_bytes()).await.expect("write");
    read_head(&mut tcp).await.0
}

#[tokio::test]
async fn host_headers_are_all_checked() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let local = format!("Host: {addr}\r\n");
    // RFC 9112 §3.2: two Host headers (in either order), or none in HTTP/1.1, are a 400.
    for head in [
        format!("POST /mcp HTTP/1.1\r\n{local}Host: evil.example.com\r\n"),
        format!("POST /mcp HTTP/1.1\r\nHost: evil.example.com\r\n{local}"),
        format!("POST /mcp HTTP/1.1\r\n{local}{local}"),
        "POST /mcp HTTP/1.1\r\n".to_owned(),
    ] {
        assert_eq!(raw_status(addr, &head).await, 400, "{head}");
    }
    // The absolute-form target is checked too (and wins over Host, RFC 9112 §3.2.2).
    let head = format!("POST http://evil.example.com/mcp HTTP/1.1\r\n{local}");
    assert_eq!(raw_status(addr, &head).await, 403, "{head}");
    let head = format!("POST http://{addr}/mcp HTTP/1.1\r\n{local}");
    assert_eq!(raw_status(addr, &head).await, 200, "{head}");
    assert_eq!(
        raw_status(addr, &format!("POST /mcp HTTP/1.1\r\n{local}")).await,
        200
    );
    server.shutdown().await;
}

#[tokio::test]
async fn stateless_mode() {
    let server = start(HttpConfig {
        stateless: true,
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let r = post(addr, &[], &initialize(1, V)).await;
    assert_eq!(r.status, 200);
    assert!(r.header("mcp-session-id").is_none());
    let r = post(
        addr,
        &[("MCP-Protocol-Version", V)],
        &call(2, "echo", json!({"text":"s"})),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["content"][0]["text"], "s");
    let r = post(
        addr,
        &[("MCP-Protocol-Version", V)],
        &call(3, "progress", json!({})),
    )
    .await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert!(r.text().contains("\"done\""));
    let r = post(
        addr,
        &[],
        &json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    )
    .await;
    assert_eq!(r.status, 202);
    let r = request(addr, "GET", "/mcp", &[("Accept", "text/event-stream")], b"").await;
    assert_eq!(r.status, 405);
    let r = request(addr, "DELETE", "/mcp", &[], b"").await;
    assert_eq!(r.status, 405);
    assert_eq!(server.session_count(), 0);
    server.shutdown().await;
}

#[tokio::test]
async fn sessions_are_capped_and_expire() {
    let server = start(HttpConfig {
        max_sessions: 2,
        session_idle_timeout: Duration::from_millis(300),
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let a = open_session(addr, V).await;
    let _b = open_session(addr, V).await;
    let r = post(addr, &[], &initialize(1, V)).await;
    assert_eq!(r.status, 503);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let ping = json!({"jsonrpc":"2.0","id":5,"method":"ping"});
    let r = post(addr, &[("Mcp-Session-Id", &a)], &ping).await;
    assert_eq!(r.status, 404, "expired");
    // An open stream keeps a session alive past the idle timeout.
    let c = open_session(addr, V).await;
    let headers = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", c.as_str()),
    ];
    let _stream = SseReader::open(addr, "GET", "/mcp", &headers, b"").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let r = post(addr, &[("Mcp-Session-Id", &c)], &ping).await;
    assert_eq!(
        r.status, 200,
        "a session with an open stream does not expire"
    );
    assert!(server.session_count() <= 2);
    server.shutdown().await;
}

#[tokio::test]
async fn headers_sent_byte_by_byte() {
    let server = start(HttpConfig {
        header_read_timeout: Duration::from_millis(500),
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let body = initialize(1, V).to_string();
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    // A slow but steady client within the timeout is served.
    let mut tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    for b in raw.as_bytes() {
        tcp.write_all(std::slice::from_ref(b)).await.expect("write");
        tcp.flush().await.expect("flush");
    }
    let (status, _, _) = read_head(&mut tcp).await;
    assert_eq!(status, 200);

    // A client that dribbles its headers past the timeout is cut off.
    let mut tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let started = std::time::Instant::now();
    let mut closed = false;
    for b in raw.as_bytes() {
        if tcp.write_all(std::slice::from_ref(b)).await.is_err() {
            closed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        if started.elapsed() > Duration::from_secs(5) {
            break;
        }
    }
    if !closed {
        let mut buf = Vec::new();
        let read = tokio::time::timeout(WAIT, tcp.read_to_end(&mut buf)).await;
        let text = String::from_utf8_lossy(&buf);
        closed = read.is_ok() && !text.contains(" 200 ");
    }
    assert!(closed, "the server kept a slow-header connection open");
    assert!(started.elapsed() < Duration::from_secs(5));
    server.shutdown().await;
}

#[tokio::test]
async fn slow_body_times_out() {
    let server = start(HttpConfig {
        body_read_timeout: Duration::from_millis(200),
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let mut tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "POST /mcp HTTP/1.0\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
    );
    tcp.write_all(head.as_bytes()).await.expect("write");
    let (status, _, _) = read_head(&mut tcp).await;
    assert_eq!(status, 408);
    server.shutdown().await;
}

#[tokio::test]
async fn bearer_auth_and_protected_resource_metadata() {
    use mcp_server::auth::{AuthError, AuthIdentity, ProtectedResourceMetadata};
    use mcp_server::http::AuthConfig;
    let auth = AuthConfig::new(|t: &str| match t {
        "good" => Ok(AuthIdentity::new("alice", "https://as.example.com")),
        "narrow" => Err(AuthError::InsufficientScope {
            scope: "mcp:tools".into(),
        }),
        _ => Err(AuthError::InvalidToken("unknown token".into())),
    })
    .with_metadata(ProtectedResourceMetadata::new(
        "http://localhost/mcp",
        "https://as.example.com",
    ));
    let server = start(HttpConfig {
        auth: Some(auth),
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let body = initialize(1, V);
    let r = post(addr, &[], &body).await;
    assert_eq!(r.status, 401);
    let challenge = r.header("www-authenticate").expect("challenge");
    assert!(challenge.starts_with("Bearer"), "{challenge}");
    assert!(challenge.contains("resource_metadata="), "{challenge}");
    let r = post(addr, &[("Authorization", "Bearer bad")], &body).await;
    assert_eq!(r.status, 401);
    assert!(r
        .header("www-authenticate")
        .is_some_and(|c| c.contains("invalid_token")));
    let r = post(addr, &[("Authorization", "Bearer narrow")], &body).await;
    assert_eq!(r.status, 403);
    let r = post(addr, &[("Authorization", "Bearer good")], &body).await;
    assert_eq!(r.status, 200);
    let meta = request(
        addr,
        "GET",
        "/.well-known/oauth-protected-resource",
        &[],
        b"",
    )
    .await;
    assert_eq!(meta.status, 200);
    assert_eq!(
        meta.json()["authorization_servers"][0],
        "https://as.example.com"
    );
    let meta = request(
        addr,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        b"",
    )
    .await;
    assert_eq!(meta.status, 200);
    server.shutdown().await;
}

#[tokio::test]
async fn graceful_shutdown_finishes_in_flight_requests() {
    let server = start(HttpConfig {
        shutdown_grace: Duration::from_secs(3),
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let in_flight = tokio::spawn(async move {
        let headers = [("Mcp-Session-Id", id.as_str()), ("MCP-Protocol-Version", V)];
        post(addr, &headers, &call(1, "slow", json!({"ms": 300}))).await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = std::time::Instant::now();
    tokio::time::timeout(WAIT, server.shutdown())
        .await
        .expect("shutdown in time");
    assert!(started.elapsed() < Duration::from_secs(3));
    let reply = in_flight.await.expect("task");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["result"]["content"][0]["text"], "slept");
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "no longer accepting"
    );
}

#[tokio::test]
async fn quiet_long_calls_switch_to_resumable_sse() {
    let server = start(HttpConfig {
        sse_after: Some(Duration::from_millis(50)),
        sse_close_after: Some(Duration::from_millis(100)),
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let mut headers: Vec<(&str, &str)> = POST_HEADERS.to_vec();
    headers.extend([("Mcp-Session-Id", id.as_str()), ("MCP-Protocol-Version", V)]);
    // A fast call still gets JSON.
    let fast = call(20, "echo", json!({"text": "quick"})).to_string();
    let r = request(addr, "POST", "/mcp", &headers, fast.as_bytes()).await;
    assert_eq!(r.header("content-type"), Some("application/json"));
    // A slow, silent call gets a priming event, then the connection closes; GET resumes it.
    let slow = call(21, "slow", json!({"ms": 400})).to_string();
    let mut stream = SseReader::open(addr, "POST", "/mcp", &headers, slow.as_bytes()).await;
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    let priming = stream.next().await.expect("priming");
    assert!(priming.data.is_empty());
    let last = priming.id.expect("priming id");
    assert!(stream.next().await.is_none(), "closed early");
    tokio::time::sleep(Duration::from_millis(450)).await;
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", id.as_str()),
        ("MCP-Protocol-Version", V),
        ("Last-Event-ID", last.as_str()),
    ];
    let mut resumed = SseReader::open(addr, "GET", "/mcp", &get, b"").await;
    let (_, result) = resumed.next_message().await.expect("result");
    assert_eq!(result["id"], 21);
    assert_eq!(result["result"]["content"][0]["text"], "slept");
    server.shutdown().await;
}

#[tokio::test]
async fn quiet_streams_get_keep_alive_comments() {
    let server = start(HttpConfig {
        sse_keep_alive: Some(Duration::from_millis(50)),
        ..HttpConfig::default()
    })
    .await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let headers = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", id.as_str()),
    ];
    let mut stream = SseReader::open(addr, "GET", "/mcp", &headers, b"").await;
    let raw = stream.raw_for(Duration::from_millis(300)).await;
    let text = String::from_utf8_lossy(&raw);
    assert!(text.matches(": keep-alive").count() >= 2, "{text}");
    server.shutdown().await;
}

#[tokio::test]
async fn unrelated_messages_use_the_standalone_stream_and_replay() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let post_headers = [("Mcp-Session-Id", id.as_str()), ("MCP-Protocol-Version", V)];
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", id.as_str()),
        ("MCP-Protocol-Version", V),
    ];
    let mut stream = SseReader::open(addr, "GET", "/mcp", &get, b"").await;
    assert!(stream.next().await.expect("priming").data.is_empty());
    let r = post(addr, &post_headers, &call(30, "announce", json!({}))).await;
    // The POST gets only its answer, as JSON: the notification went elsewhere.
    assert_eq!(r.header("content-type"), Some("application/json"));
    let (first_id, note) = stream.next_message().await.expect("notification");
    assert_eq!(note["method"], "notifications/tools/list_changed");
    let first_id = first_id.expect("event id");
    drop(stream);
    // Two more while nobody listens; a GET with Last-Event-ID gets both.
    post(addr, &post_headers, &call(31, "announce", json!({}))).await;
    post(addr, &post_headers, &call(32, "announce", json!({}))).await;
    let mut resume: Vec<(&str, &str)> = get.to_vec();
    resume.push(("Last-Event-ID", first_id.as_str()));
    let mut resumed = SseReader::open(addr, "GET", "/mcp", &resume, b"").await;
    assert_eq!(resumed.status, 200);
    for _ in 0..2 {
        let (event_id, note) = resumed.next_message().await.expect("replayed");
        assert_eq!(note["method"], "notifications/tools/list_changed");
        assert_ne!(event_id.as_deref(), Some(first_id.as_str()));
    }
    // Shutdown ends the standalone stream.
    tokio::time::timeout(WAIT, server.shutdown())
        .await
        .expect("shutdown");
    assert!(resumed.next_message().await.is_none());
}

#[tokio::test]
async fn duplicate_in_flight_request_ids_are_refused() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    let id = open_session(addr, V).await;
    let sid = id.clone();
    let first = tokio::spawn(async move {
        let headers = [
            ("Mcp-Session-Id", sid.as_str()),
            ("MCP-Protocol-Version", V),
        ];
        post(addr, &headers, &call(40, "slow", json!({"ms": 300}))).await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let headers = [("Mcp-Session-Id", id.as_str()), ("MCP-Protocol-Version", V)];
    let second = post(addr, &headers, &call(40, "echo", json!({"text": "dup"}))).await;
    assert_eq!(second.status, 400);
    let first = first.await.expect("task");
    assert_eq!(first.json()["result"]["content"][0]["text"], "slept");
    server.shutdown().await;
}
