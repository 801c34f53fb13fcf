//! 2026-07-28 POSTs at the Streamable HTTP endpoint, over a real socket on 127.0.0.1: served
//! statelessly beside 2025 sessions in both server modes, the mirrored headers checked against
//! the body, statuses picked from the answer's error code, SSE without ids, GET and DELETE
//! refused, and a closed response stream cancelling its request.

mod http_common;

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use http_common::*;
use mcp_proto::jsonrpc::{self, error_codes, ErrorObject, RawJson, Request};
use mcp_proto::peer::{Handler, Peer, PeerOptions, RequestContext};
use mcp_server::http::{
    self, HttpConfig, HttpServer, HttpSessionTransport, SessionFactory, ToolHeaderParam,
};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

const MODERN: &str = "2026-07-28";

/// Answers like a 2026-07-28 server core would, and reports cancellations.
struct ModernHandler {
    cancelled: mpsc::UnboundedSender<String>,
}

fn raw(value: Value) -> Result<RawJson, ErrorObject> {
    jsonrpc::to_raw(&value).map_err(ErrorObject::internal)
}

fn complete(text: &str) -> Result<RawJson, ErrorObject> {
    raw(json!({ "resultType": "complete",
                "content": [{ "type": "text", "text": text }], "isError": false }))
}

impl Handler for ModernHandler {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<RawJson, ErrorObject> {
        let params: Value = request.params_as().unwrap_or(Value::Null);
        match request.method.as_str() {
            "tools/call" => {
                let args = &params["arguments"];
                match params["name"].as_str().unwrap_or("") {
                    "echo" | "execute_sql" | "Grüße" => {
                        complete(args["text"].as_str().unwrap_or("ok"))
                    }
                    "progress" => {
                        for i in 1..=2 {
                            ctx.progress(f64::from(i), Some(2.0), None).await;
                        }
                        complete("done")
                    }
                    "wait_for_cancel" => {
                        if args["notify_first"].as_bool().unwrap_or(false) {
                            ctx.progress(1.0, None, Some("started".into())).await;
                        }
                        // The peer drops the handler when its token fires; a watcher reports it.
                        let token = ctx.cancellation().clone();
                        let report = self.cancelled.clone();
                        let id = request.id.to_string();
                        tokio::spawn(async move {
                            if tokio::time::timeout(WAIT, token.cancelled()).await.is_ok() {
                                let _ = report.send(id);
                            }
                        });
                        tokio::time::sleep(WAIT).await;
                        complete("never cancelled")
                    }
                    "needs_sampling" => Err(ErrorObject::new(
                        error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
                        "the client did not declare sampling",
                    )
                    .with_data(&json!({ "requiredCapabilities": { "sampling": {} } }))),
                    other => Err(ErrorObject::invalid_params(format!("unknown tool {other}"))),
                }
            }
            "prompts/get" => raw(json!({ "resultType": "complete", "messages": [] })),
            "resources/read" => raw(json!({ "resultType": "complete", "contents": [],
                                            "ttlMs": 0, "cacheScope": "private" })),
            "server/discover" => {
                let asked = params["_meta"]["io.modelcontextprotocol/protocolVersion"]
                    .as_str()
                    .unwrap_or("");
                if asked != MODERN {
                    return Err(ErrorObject::new(
                        error_codes::UNSUPPORTED_PROTOCOL_VERSION,
                        "Unsupported protocol version",
                    )
                    .with_data(&json!({ "supported": [MODERN], "requested": asked })));
                }
                raw(
                    json!({ "resultType": "complete", "supportedVersions": [MODERN],
                            "capabilities": { "tools": {} }, "ttlMs": 0, "cacheScope": "public" }),
                )
            }
            // The 2025 half, for sessions on the same server.
            "initialize" => raw(json!({
                "protocolVersion": params["protocolVersion"].as_str().unwrap_or("2025-11-25"),
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "modern-test", "version": "0" } })),
            other => Err(ErrorObject::method_not_found(other)),
        }
    }
}

/// Serves every session with [`ModernHandler`]; the tool `execute_sql` mirrors `region` (and
/// `opts.tenant`) into headers.
struct Factory {
    handler: Arc<ModernHandler>,
}

impl SessionFactory for Factory {
    fn start(&self, transport: HttpSessionTransport) -> Box<dyn Any + Send + Sync> {
        let options = PeerOptions {
            // Long, so a cancellation seen quickly came from the closed stream, not from the
            // end of the session's input.
            shutdown_grace: Duration::from_secs(30),
            ..PeerOptions::default()
        };
        Box::new(Peer::start(transport, self.handler.clone(), options))
    }

    fn tool_header_params(&self, tool: &str) -> Vec<ToolHeaderParam> {
        match tool {
            "execute_sql" => vec![
                ToolHeaderParam {
                    name: "Region".into(),
                    path: vec!["region".into()],
                },
                ToolHeaderParam {
                    name: "Tenant".into(),
                    path: vec!["opts".into(), "tenant".into()],
                },
            ],
            _ => Vec::new(),
        }
    }
}

async fn start_modern(config: HttpConfig) -> (HttpServer, mpsc::UnboundedReceiver<String>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let factory = Factory {
        handler: Arc::new(ModernHandler { cancelled: tx }),
    };
    let server = http::bind("127.0.0.1:0", config, factory)
        .await
        .expect("bind");
    (server, rx)
}

fn stateless() -> HttpConfig {
    HttpConfig {
        stateless: true,
        ..HttpConfig::default()
    }
}

/// A 2026-07-28 request: `params` plus the required `_meta`.
fn modern(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "0" }
    });
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// POSTs with `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method` and `extra` headers.
async fn post_modern(
    addr: std::net::SocketAddr,
    method: &str,
    extra: &[(&str, &str)],
    body: &Value,
) -> Reply {
    let mut headers = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
    headers.extend_from_slice(extra);
    post(addr, &headers, body).await
}

/// Sends a POST to `/mcp` as HTTP/1.1 with keep-alive, the way real clients do (the server
/// notices a client that goes away mid-response only on a connection it may keep).
async fn send_http11(
    addr: std::net::SocketAddr,
    headers: &[(&str, &str)],
    body: &[u8],
) -> tokio::net::TcpStream {
    let mut tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    tcp.write_all(head.as_bytes()).await.expect("write head");
    tcp.write_all(body).await.expect("write body");
    tcp
}

/// Reads until `needle` has arrived; returns everything read.
async fn read_until(tcp: &mut tokio::net::TcpStream, needle: &str) -> String {
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains(needle) {
        let n = tokio::time::timeout(WAIT, tcp.read(&mut chunk))
            .await
            .expect("read timeout")
            .expect("read");
        assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8_lossy(&seen).into_owned()
}

/// The standard POST headers plus the mirrored ones of a 2026-07-28 `tools/call` of `tool`.
fn call_headers(tool: &str) -> Vec<(&str, &str)> {
    let mut headers = POST_HEADERS.to_vec();
    headers.extend([
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ]);
    headers
}

/// Waits (at most 3 s) for the handler of request `id` to report its cancellation.
async fn assert_cancelled(cancelled: &mut mpsc::UnboundedReceiver<String>, id: &str) {
    let which = tokio::time::timeout(Duration::from_secs(3), cancelled.recv())
        .await
        .expect("the handler was not cancelled within 3 s")
        .expect("channel open");
    assert_eq!(which, id);
}

/// POSTs `method` under version 2099-01-01 (header and `_meta` agree) and checks the answer is
/// 400 with -32022.
async fn post_unsupported_version(addr: std::net::SocketAddr, method: &str) -> Reply {
    let mut body = modern(3, method, json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let headers = [
        ("MCP-Protocol-Version", "2099-01-01"),
        ("Mcp-Method", method),
    ];
    let reply = post(addr, &headers, &body).await;
    assert_eq!(reply.status, 400, "{}", reply.text());
    assert_eq!(
        error_code(&reply),
        error_codes::UNSUPPORTED_PROTOCOL_VERSION
    );
    reply
}

fn error_code(reply: &Reply) -> i64 {
    reply.json()["error"]["code"].as_i64().unwrap_or_else(|| {
        panic!("no error code: {}", reply.text());
    })
}

#[tokio::test]
async fn a_modern_post_is_served_without_a_session_in_both_modes() {
    for config in [HttpConfig::default(), stateless()] {
        let (server, _) = start_modern(config).await;
        let addr = server.local_addr();
        let body = modern(
            1,
            "tools/call",
            json!({ "name": "echo", "arguments": { "text": "hi" } }),
        );
        let reply = post_modern(addr, "tools/call", &[("Mcp-Name", "echo")], &body).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(reply.header("mcp-session-id"), None);
        let answer = reply.json();
        assert_eq!(answer["id"], 1);
        assert_eq!(answer["result"]["content"][0]["text"], "hi");
        // A session id from anywhere is ignored: not looked up (no 404), not echoed.
        let reply = post_modern(
            addr,
            "tools/call",
            &[
                ("Mcp-Name", "echo"),
                ("Mcp-Session-Id", "no-such-session"),
                ("Last-Event-ID", "1-1"),
            ],
            &body,
        )
        .await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_eq!(reply.header("mcp-session-id"), None);
        assert_eq!(server.session_count(), 0);
        server.shutdown().await;
    }
}

#[tokio::test]
async fn meta_alone_makes_a_post_modern_and_then_needs_the_version_header() {
    let (server, _) = start_modern(HttpConfig::default()).await;
    let addr = server.local_addr();
    let body = modern(1, "server/discover", json!({}));
    // No MCP-Protocol-Version: not a 2025 POST without a session (that would be 400 -32000).
    let reply = post(addr, &[("Mcp-Method", "server/discover")], &body).await;
    assert_eq!(reply.status, 400);
    assert_eq!(error_code(&reply), error_codes::HEADER_MISMATCH);
    assert_eq!(reply.json()["id"], 1);
    let message = reply.json()["error"]["message"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(message.contains("mcp-protocol-version"), "{message}");
    // A header that says another version than _meta.
    let reply = post(
        addr,
        &[
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Method", "server/discover"),
        ],
        &body,
    )
    .await;
    assert_eq!(reply.status, 400);
    assert_eq!(error_code(&reply), error_codes::HEADER_MISMATCH);
    // Both agree: served.
    let reply = post_modern(addr, "server/discover", &[], &body).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["result"]["supportedVersions"][0], MODERN);
    server.shutdown().await;
}

#[tokio::test]
async fn the_version_header_without_meta_is_missing_meta() {
    let (server, _) = start_modern(HttpConfig::default()).await;
    let addr = server.local_addr();
    let body = json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/list" });
    let reply = post_modern(addr, "tools/list", &[], &body).await;
    assert_eq!(reply.status, 400);
    assert_eq!(error_code(&reply), error_codes::INVALID_PARAMS);
    assert_eq!(reply.json()["id"], 4);
    server.shutdown().await;
}

#[tokio::test]
async fn an_unsupported_version_is_400_with_the_supported_ones() {
    let (server, _) = start_modern(stateless()).await;
    let addr = server.local_addr();
    let reply = post_unsupported_version(addr, "server/discover").await;
    assert_eq!(reply.json()["error"]["data"]["supported"][0], MODERN);
    server.shutdown().await;
}

#[tokio::test]
async fn mcp_method_must_match_the_method() {
    let (server, _) = start_modern(HttpConfig::default()).await;
    let addr = server.local_addr();
    let body = modern(1, "server/discover", json!({}));
    let missing = post(addr, &[("MCP-Protocol-Version", MODERN)], &body).await;
    assert_eq!(missing.status, 400);
    assert_eq!(error_code(&missing), error_codes::HEADER_MISMATCH);
    let wrong = post_modern(addr, "tools/list", &[], &body).await;
    assert_eq!(wrong.status, 400);
    assert_eq!(error_code(&wrong), error_codes::HEADER_MISMATCH);
    let message = wrong.json()["error"]["message"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(
        message.contains("tools/list") && message.contains("server/discover"),
        "{message}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn mcp_name_must_match_name_or_uri_and_may_be_base64() {
    let (server, _) = start_modern(HttpConfig::default()).await;
    let addr = server.local_addr();
    let call = modern(1, "tools/call", json!({ "name": "echo", "arguments": {} }));
    for (headers, status) in [
        (vec![], 400),
        (vec![("Mcp-Name", "other")], 400),
        (vec![("Mcp-Name", "echo"), ("Mcp-Name", "echo")], 400),
        (vec![("Mcp-Name", "=?base64?ZWNobw==?=")], 200),
        (vec![("Mcp-Name", "=?base64?not base64?=")], 400),
        (vec![("Mcp-Name", "echo")], 200),
    ] {
        let reply = post_modern(addr, "tools/call", &headers, &call).await;
        assert_eq!(reply.status, status, "{headers:?}: {}", reply.text());
        if status == 400 {
            assert_eq!(error_code(&reply), error_codes::HEADER_MISMATCH);
        }
    }
    // A name that is not header-safe travels Base64-encoded ("Grüße").
    let call = modern(2, "tools/call", json!({ "name": "Grüße", "arguments": {} }));
    let reply = post_modern(
        addr,
        "tools/call",
        &[("Mcp-Name", "=?base64?R3LDvMOfZQ==?=")],
        &call,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    // resources/read names its uri, prompts/get its name.
    let uri = "file:///projects/app/config.json";
    let read = modern(3, "resources/read", json!({ "uri": uri }));
    assert_eq!(
        post_modern(addr, "resources/read", &[("Mcp-Name", uri)], &read)
            .await
            .status,
        200
    );
    let wrong = post_modern(addr, "resources/read", &[("Mcp-Name", "file:///x")], &read).await;
    assert_eq!(wrong.status, 400);
    assert_eq!(error_code(&wrong), error_codes::HEADER_MISMATCH);
    let prompt = modern(4, "prompts/get", json!({ "name": "greet" }));
    assert_eq!(
        post_modern(addr, "prompts/get", &[("Mcp-Name", "greet")], &prompt)
            .await
            .status,
        200
    );
    assert_eq!(
        post_modern(addr, "prompts/get", &[], &prompt).await.status,
        400
    );
    server.shutdown().await;
}

#[tokio::test]
async fn annotated_tool_parameters_are_checked_against_mcp_param_headers() {
    let (server, _) = start_modern(HttpConfig::default()).await;
    let addr = server.local_addr();
    let args = json!({ "region": "us-west1", "query": "SELECT 1", "opts": { "tenant": 42 } });
    let call = modern(
        1,
        "tools/call",
        json!({ "name": "execute_sql", "arguments": args }),
    );
    let named = ("Mcp-Name", "execute_sql");
    for (headers, status) in [
        (
            vec![
                named,
                ("Mcp-Param-Region", "us-west1"),
                ("Mcp-Param-Tenant", "42"),
            ],
            200,
        ),
        // Header names are case-insensitive, numbers compare numerically, values may be Base64.
        (
            vec![
                named,
                ("mcp-param-region", "=?base64?dXMtd2VzdDE=?="),
                ("MCP-PARAM-TENANT", "42.0"),
            ],
            200,
        ),
        (vec![named, ("Mcp-Param-Tenant", "42")], 400),
        (
            vec![
                named,
                ("Mcp-Param-Region", "eu-north1"),
                ("Mcp-Param-Tenant", "42"),
            ],
            400,
        ),
        (
            vec![
                named,
                ("Mcp-Param-Region", "us-west1"),
                ("Mcp-Param-Tenant", "7"),
            ],
            400,
        ),
    ] {
        let reply = post_modern(addr, "tools/call", &headers, &call).await;
        assert_eq!(reply.status, status, "{headers:?}: {}", reply.text());
        if status == 400 {
            assert_eq!(error_code(&reply), error_codes::HEADER_MISMATCH);
        }
    }
    // A parameter without a value in the body needs no header.
    let call = modern(
        2,
        "tools/call",
        json!({ "name": "execute_sql",
                                              "arguments": { "query": "SELECT 1", "region": null } }),
    );
    assert_eq!(
        post_modern(addr, "tools/call", &[named], &call)
            .await
            .status,
        200
    );
    server.shutdown().await;
}

#[tokio::test]
async fn statuses_follow_the_answers_error_code() {
    let (server, _) = start_modern(HttpConfig::default()).await;
    let addr = server.local_addr();
    let unknown = post_modern(addr, "no/such", &[], &modern(1, "no/such", json!({}))).await;
    assert_eq!(unknown.status, 404);
    assert_eq!(error_code(&unknown), error_codes::METHOD_NOT_FOUND);
    assert_eq!(unknown.json()["id"], 1);
    let bad = modern(2, "tools/call", json!({ "name": "nope" }));
    let bad = post_modern(addr, "tools/call", &[("Mcp-Name", "nope")], &bad).await;
    assert_eq!(bad.status, 400);
    assert_eq!(error_code(&bad), error_codes::INVALID_PARAMS);
    let caps = modern(3, "tools/call", json!({ "name": "needs_sampling" }));
    let caps = post_modern(addr, "tools/call", &[("Mcp-Name", "needs_sampling")], &caps).await;
    assert_eq!(caps.status, 400);
    assert_eq!(
        error_code(&caps),
        error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY
    );
    assert!(caps.json()["error"]["data"]["requiredCapabilities"]["sampling"].is_object());
    server.shutdown().await;
}

#[tokio::test]
async fn a_modern_body_is_one_request_or_notification() {
    let (server, _) = start_modern(HttpConfig::default()).await;
    let addr = server.local_addr();
    let batch = json!([
        modern(1, "server/discover", json!({})),
        modern(2, "server/discover", json!({}))
    ]);
    let reply = post_modern(addr, "server/discover", &[], &batch).await;
    assert_eq!(reply.status, 400);
    assert_eq!(error_code(&reply), error_codes::INVALID_REQUEST);
    let response = json!({ "jsonrpc": "2.0", "id": 1, "result": {} });
    let reply = post_modern(addr, "server/discover", &[], &response).await;
    assert_eq!(reply.status, 400);
    assert_eq!(error_code(&reply), error_codes::INVALID_REQUEST);
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/whatever",
                       "params": { "_meta": { "io.modelcontextprotocol/protocolVersion": MODERN } } });
    let reply = post_modern(addr, "notifications/whatever", &[], &note).await;
    assert_eq!(reply.status, 202, "{}", reply.text());
    assert!(reply.body.is_empty());
    assert_eq!(reply.header("mcp-session-id"), None);
    server.shutdown().await;
}

#[tokio::test]
async fn get_and_delete_from_a_modern_client_are_405() {
    for config in [HttpConfig::default(), stateless()] {
        let (server, _) = start_modern(config).await;
        let addr = server.local_addr();
        for method in ["GET", "DELETE"] {
            let reply = request(
                addr,
                method,
                "/mcp",
                &[
                    ("Accept", "text/event-stream"),
                    ("MCP-Protocol-Version", MODERN),
                    ("Mcp-Session-Id", "whatever"),
                ],
                b"",
            )
            .await;
            assert_eq!(reply.status, 405, "{method}");
            assert_eq!(reply.header("allow"), Some("POST"));
        }
        server.shutdown().await;
    }
}

#[tokio::test]
async fn an_sse_answer_has_the_requests_notifications_then_the_response_and_no_ids() {
    let (server, _) = start_modern(HttpConfig::default()).await;
    let addr = server.local_addr();
    let mut body = modern(7, "tools/call", json!({ "name": "progress" }));
    body["params"]["_meta"]["progressToken"] = json!("tok");
    let reply = post_modern(addr, "tools/call", &[("Mcp-Name", "progress")], &body).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    assert_eq!(reply.header("mcp-session-id"), None);
    assert!(!reply.text().contains("retry:"), "{}", reply.text());
    eprintln!("RAW {:?}", reply.text());
    let events = reply.events();
    assert!(events.iter().all(|e| e.id.is_none()), "{events:?}");
    let messages: Vec<Value> = events
        .iter()
        .filter(|e| !e.data.is_empty())
        .map(|e| serde_json::from_str(&e.data).expect("JSON"))
        .collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[0]["method"], "notifications/progress");
    assert_eq!(messages[1]["method"], "notifications/progress");
    assert_eq!(messages[2]["id"], 7);
    assert_eq!(messages[2]["result"]["content"][0]["text"], "done");
    server.shutdown().await;
}

#[tokio::test]
async fn closing_the_response_stream_cancels_the_request() {
    let (server, mut cancelled) = start_modern(HttpConfig::default()).await;
    let addr = server.local_addr();
    let mut body = modern(
        9,
        "tools/call",
        json!({ "name": "wait_for_cancel", "arguments": { "notify_first": true } }),
    );
    body["params"]["_meta"]["progressToken"] = json!(1);
    let headers = call_headers("wait_for_cancel");
    let mut tcp = send_http11(addr, &headers, body.to_string().as_bytes()).await;
    let seen = read_until(&mut tcp, "notifications/progress").await;
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    assert!(!seen.contains("\nid:"), "{seen}");
    drop(tcp);
    assert_cancelled(&mut cancelled, "9").await;
    server.shutdown().await;
}

#[tokio::test]
async fn closing_the_connection_before_any_answer_cancels_the_request() {
    let (server, mut cancelled) = start_modern(stateless()).await;
    let addr = server.local_addr();
    let body = modern(11, "tools/call", json!({ "name": "wait_for_cancel" }));
    let headers = call_headers("wait_for_cancel");
    let tcp = send_http11(addr, &headers, body.to_string().as_bytes()).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    drop(tcp);
    assert_cancelled(&mut cancelled, "11").await;
    server.shutdown().await;
}

#[tokio::test]
async fn sessions_of_2025_clients_are_unaffected() {
    let (server, _) = start_modern(HttpConfig::default()).await;
    let addr = server.local_addr();
    let session = open_session(addr, "2025-11-25").await;
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    for round in 0..3 {
        let modern_call = modern(
            round,
            "tools/call",
            json!({ "name": "echo", "arguments": { "text": "m" } }),
        );
        let reply = post_modern(addr, "tools/call", &[("Mcp-Name", "echo")], &modern_call).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        let legacy = call(round, "echo", json!({ "text": "l" }));
        let reply = post(addr, &headers, &legacy).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_eq!(reply.json()["result"]["content"][0]["text"], "l");
    }
    assert_eq!(server.session_count(), 1);
    // 2025 rules still hold for 2025 POSTs: no session id is 400, GET still opens a stream.
    let reply = post(
        addr,
        &[("MCP-Protocol-Version", "2025-11-25")],
        &call(9, "echo", json!({})),
    )
    .await;
    assert_eq!(reply.status, 400);
    let get = SseReader::open(
        addr,
        "GET",
        "/mcp",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", &session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        b"",
    )
    .await;
    assert_eq!(get.status, 200);
    drop(get);
    let reply = request(
        addr,
        "DELETE",
        "/mcp",
        &[
            ("Mcp-Session-Id", &session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        b"",
    )
    .await;
    assert_eq!(reply.status, 200);
    server.shutdown().await;
}

// ---- with the real server core --------------------------------------------------------------

/// `execute_sql` mirrors `region` into `Mcp-Param-Region`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SqlArgs {
    region: String,
    query: String,
}

async fn execute_sql(args: SqlArgs) -> String {
    format!("{} in {}", args.query, args.region)
}

/// Reports its cancellation on `tx`, then never answers by itself.
async fn wait_for_cancel(
    mcp_server::State(tx): mcp_server::State<mpsc::UnboundedSender<String>>,
    ctx: mcp_server::Context,
) -> String {
    ctx.progress(1.0, None, Some("started".into())).await;
    let token = ctx.cancellation().clone();
    let id = ctx.request_id().to_string();
    tokio::spawn(async move {
        if tokio::time::timeout(WAIT, token.cancelled()).await.is_ok() {
            let _ = tx.send(id);
        }
    });
    tokio::time::sleep(WAIT).await;
    "never cancelled".into()
}

async fn start_server(config: HttpConfig) -> (HttpServer, mpsc::UnboundedReceiver<String>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let server = mcp_server::Server::builder("http-modern", "1.0.0")
        .state(tx)
        .tool(
            mcp_server::Tool::new("execute_sql", "Runs SQL in a region").input_schema(json!({
                "type": "object",
                "properties": {
                    "region": { "type": "string", "x-mcp-header": "Region" },
                    "query": { "type": "string" }
                },
                "required": ["region", "query"]
            })),
            execute_sql,
        )
        .tool(
            mcp_server::Tool::new("wait_for_cancel", "Waits to be cancelled"),
            wait_for_cancel,
        )
        .build();
    let http = server
        .serve_http("127.0.0.1:0", config)
        .await
        .expect("bind");
    (http, rx)
}

#[tokio::test]
async fn the_server_core_answers_modern_posts_in_both_modes() {
    for config in [HttpConfig::default(), stateless()] {
        let (server, _) = start_server(config).await;
        let addr = server.local_addr();
        let discover = post_modern(
            addr,
            "server/discover",
            &[],
            &modern(1, "server/discover", json!({})),
        )
        .await;
        assert_eq!(discover.status, 200, "{}", discover.text());
        assert_eq!(discover.header("mcp-session-id"), None);
        let result = &discover.json()["result"];
        assert_eq!(result["resultType"], "complete");
        assert!(result["supportedVersions"]
            .as_array()
            .is_some_and(|v| v.contains(&json!(MODERN))));
        let list = post_modern(addr, "tools/list", &[], &modern(2, "tools/list", json!({}))).await;
        assert_eq!(list.status, 200, "{}", list.text());
        assert_eq!(
            list.json()["result"]["tools"].as_array().map(Vec::len),
            Some(2)
        );
        let args = json!({ "region": "us-west1", "query": "SELECT 1" });
        let call = modern(
            3,
            "tools/call",
            json!({ "name": "execute_sql", "arguments": args }),
        );
        let reply = post_modern(
            addr,
            "tools/call",
            &[
                ("Mcp-Name", "execute_sql"),
                ("Mcp-Param-Region", "us-west1"),
            ],
            &call,
        )
        .await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        let result = &reply.json()["result"];
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["content"][0]["text"], "SELECT 1 in us-west1");
        assert!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object(),
            "{result}"
        );
        // The tool's x-mcp-header parameter, read from its input schema.
        for headers in [
            vec![("Mcp-Name", "execute_sql")],
            vec![
                ("Mcp-Name", "execute_sql"),
                ("Mcp-Param-Region", "eu-north1"),
            ],
        ] {
            let reply = post_modern(addr, "tools/call", &headers, &call).await;
            assert_eq!(reply.status, 400, "{headers:?}: {}", reply.text());
            assert_eq!(error_code(&reply), error_codes::HEADER_MISMATCH);
        }
        assert_eq!(server.session_count(), 0);
        server.shutdown().await;
    }
}

#[tokio::test]
async fn the_server_cores_errors_get_their_statuses() {
    let (server, _) = start_server(HttpConfig::default()).await;
    let addr = server.local_addr();
    // Removed in 2026-07-28, and unknown: 404 with -32601.
    for method in ["ping", "no/such/method"] {
        let reply = post_modern(addr, method, &[], &modern(1, method, json!({}))).await;
        assert_eq!(reply.status, 404, "{method}: {}", reply.text());
        assert_eq!(error_code(&reply), error_codes::METHOD_NOT_FOUND);
    }
    // Missing clientCapabilities: 400 with -32602.
    let mut body = modern(2, "tools/list", json!({}));
    body["params"]["_meta"]
        .as_object_mut()
        .map(|m| m.remove("io.modelcontextprotocol/clientCapabilities"));
    let reply = post_modern(addr, "tools/list", &[], &body).await;
    assert_eq!(reply.status, 400, "{}", reply.text());
    assert_eq!(error_code(&reply), error_codes::INVALID_PARAMS);
    // An unsupported version: 400 with -32022 and the supported ones.
    let reply = post_unsupported_version(addr, "tools/list").await;
    assert!(reply.json()["error"]["data"]["supported"].is_array());
    // An unknown tool is bad params.
    let body = modern(4, "tools/call", json!({ "name": "nope" }));
    let reply = post_modern(addr, "tools/call", &[("Mcp-Name", "nope")], &body).await;
    assert_eq!(reply.status, 400, "{}", reply.text());
    server.shutdown().await;
}

#[tokio::test]
async fn the_server_core_is_cancelled_when_the_stream_closes() {
    let (server, mut cancelled) = start_server(HttpConfig::default()).await;
    let addr = server.local_addr();
    let mut body = modern(21, "tools/call", json!({ "name": "wait_for_cancel" }));
    body["params"]["_meta"]["progressToken"] = json!("p");
    let headers = call_headers("wait_for_cancel");
    let mut tcp = send_http11(addr, &headers, body.to_string().as_bytes()).await;
    let seen = read_until(&mut tcp, "notifications/progress").await;
    assert!(seen.contains("x-accel-buffering: no"), "{seen}");
    drop(tcp);
    assert_cancelled(&mut cancelled, "21").await;
    server.shutdown().await;
}

#[tokio::test]
async fn the_server_keeps_2025_sessions_beside_modern_posts() {
    let (server, _) = start_server(HttpConfig::default()).await;
    let addr = server.local_addr();
    let session = open_session(addr, "2025-11-25").await;
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let legacy = json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call",
                         "params": { "name": "execute_sql",
                                     "arguments": { "region": "r", "query": "q" } } });
    let reply = post(addr, &headers, &legacy).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["result"]["content"][0]["text"], "q in r");
    assert!(reply.json()["result"].get("resultType").is_none());
    // 2025 ping still works in the session; the same method is gone for modern POSTs.
    let ping = json!({ "jsonrpc": "2.0", "id": 6, "method": "ping" });
    assert_eq!(post(addr, &headers, &ping).await.status, 200);
    assert_eq!(server.session_count(), 1);
    server.shutdown().await;
}

/// Reads one HTTP/1.1 response off a kept-alive connection: its head, then its body by
/// Content-Length or by chunks (the raw chunked text).
async fn read_response(tcp: &mut tokio::net::TcpStream) -> (u16, Vec<(String, String)>, String) {
    let (status, headers, mut body) = read_head(tcp).await;
    let length = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok());
    let done = |buf: &[u8]| match length {
        Some(n) => buf.len() >= n,
        None => buf.ends_with(b"0\r\n\r\n"),
    };
    let mut chunk = [0u8; 4096];
    while !done(&body) {
        let n = tokio::time::timeout(WAIT, tcp.read(&mut chunk))
            .await
            .expect("read timeout")
            .expect("read");
        assert!(n > 0, "closed early");
        body.extend_from_slice(&chunk[..n]);
    }
    (status, headers, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn one_connection_carries_many_modern_posts_with_the_same_id() {
    let (server, _) = start_modern(HttpConfig::default()).await;
    let addr = server.local_addr();
    let mut tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    for round in 0..4 {
        // The same id every time, JSON and SSE answers alternating.
        let (tool, body) = if round % 2 == 0 {
            (
                "echo",
                modern(
                    1,
                    "tools/call",
                    json!({ "name": "echo", "arguments": { "text": format!("r{round}") } }),
                ),
            )
        } else {
            let mut b = modern(1, "tools/call", json!({ "name": "progress" }));
            b["params"]["_meta"]["progressToken"] = json!(round);
            ("progress", b)
        };
        let body = body.to_string();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nMCP-Protocol-Version: {MODERN}\r\n\
             Mcp-Method: tools/call\r\nMcp-Name: {tool}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        tcp.write_all(head.as_bytes()).await.expect("write");
        tcp.write_all(body.as_bytes()).await.expect("write");
        let (status, headers, body) = read_response(&mut tcp).await;
        assert_eq!(status, 200, "{body}");
        let header = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        assert_eq!(header("mcp-session-id"), None);
        if round % 2 == 0 {
            assert!(body.contains(&format!("\"r{round}\"")), "{body}");
        } else {
            assert_eq!(header("content-type").as_deref(), Some("text/event-stream"));
            assert!(
                body.contains("notifications/progress") && body.contains("\"done\""),
                "{body}"
            );
        }
    }
    assert_eq!(server.session_count(), 0);
    server.shutdown().await;
}
