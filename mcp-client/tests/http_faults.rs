//! The Streamable HTTP and HTTP+SSE client transports against a small scripted hyper server
//! that misbehaves on purpose: error statuses, dropped streams with and without event ids,
//! expired sessions, a GET stream offered or refused, an unreachable server, and checks of the
//! headers the client sends (session id, protocol version, custom headers, `Last-Event-ID`).

#[path = "interop/http_support.rs"]
mod support;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming};
use hyper::header::HeaderValue;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use mcp_client::http::{
    self, HttpClientConfig, HttpFlavor, HttpSseTransport, StreamableHttpTransport,
};
use mcp_proto::peer::{PeerError, RequestOptions};
use serde_json::{json, Value};
use support::*;
use tokio::sync::mpsc;

/// A response body fed from a channel, so a test can stream SSE and cut it off.
struct ChannelBody(mpsc::Receiver<Bytes>);

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b))))
    }
}

type Reply = Response<ChannelBody>;

/// One request the server saw.
#[derive(Clone, Debug)]
struct Seen {
    method: Method,
    path: String,
    session: Option<String>,
    version: Option<String>,
    last_event_id: Option<String>,
    authorization: Option<String>,
    api_key: Option<String>,
    accept: Option<String>,
    rpc_method: Option<String>,
    body: Value,
}

/// What the scripted server does and has seen.
#[derive(Default)]
struct Script {
    seen: Vec<Seen>,
    /// Sessions issued so far; the current one is valid, older ones are expired.
    sessions: u32,
    /// When set, every session id gets 404.
    expire_all: bool,
    /// Status for GET on /mcp when there is no replay: None = offer a stream.
    get_status: Option<StatusCode>,
    /// Status for POST on /mcp before anything else (simulates an old server).
    post_status: Option<StatusCode>,
    /// Replays for `Last-Event-ID`: id -> SSE text to send.
    replays: Vec<(String, String)>,
    /// Messages to push on the GET stream once it opens.
    get_stream_messages: VecDeque<Value>,
    /// Raw SSE text for the first GET stream, which is then closed (not parked).
    get_stream_raw_once: Option<String>,
    /// Legacy mode: the sender of the open SSE stream.
    legacy_tx: Option<mpsc::Sender<Bytes>>,
    /// Legacy mode: the endpoint to announce.
    legacy_endpoint: String,
    /// Keeps streams open that tests want to hang.
    parked: Vec<mpsc::Sender<Bytes>>,
}

type Shared = Arc<Mutex<Script>>;

fn lock(s: &Shared) -> std::sync::MutexGuard<'_, Script> {
    s.lock().unwrap_or_else(|p| p.into_inner())
}

fn reply(status: StatusCode, content_type: Option<&str>, body: impl Into<Bytes>) -> Reply {
    let (tx, rx) = mpsc::channel(8);
    let body = body.into();
    if !body.is_empty() {
        let _ = tx.try_send(body);
    }
    drop(tx);
    let mut r = Response::new(ChannelBody(rx));
    *r.status_mut() = status;
    if let Some(ct) = content_type {
        r.headers_mut()
            .insert("content-type", HeaderValue::from_str(ct).expect("ct"));
    }
    r
}

fn sse_reply(tx_capacity: usize) -> (mpsc::Sender<Bytes>, Reply) {
    let (tx, rx) = mpsc::channel(tx_capacity);
    let mut r = Response::new(ChannelBody(rx));
    r.headers_mut().insert(
        "content-type",
        HeaderValue::from_static("text/event-stream"),
    );
    (tx, r)
}

fn event(data: &Value) -> Bytes {
    Bytes::from(format!("event: message\ndata: {data}\n\n"))
}

fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn text_result(id: &Value, text: &str) -> Value {
    result(id, json!({"content": [{"type": "text", "text": text}]}))
}

fn header(req: &Request<Incoming>, name: &str) -> Option<String> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

async fn handle(state: Shared, req: Request<Incoming>) -> Result<Reply, Infallible> {
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let query = req.uri().query().unwrap_or("").to_owned();
    let mut seen = Seen {
        method: method.clone(),
        path: path.clone(),
        session: header(&req, "mcp-session-id"),
        version: header(&req, "mcp-protocol-version"),
        last_event_id: header(&req, "last-event-id"),
        authorization: header(&req, "authorization"),
        api_key: header(&req, "x-api-key"),
        accept: header(&req, "accept"),
        rpc_method: None,
        body: Value::Null,
    };
    let bytes = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    seen.rpc_method = body["method"].as_str().map(str::to_owned);
    seen.body = body.clone();
    lock(&state).seen.push(seen.clone());

    match (method.clone(), path.as_str()) {
        (Method::GET, "/legacy") => {
            let (tx, reply) = sse_reply(64);
            let endpoint = lock(&state).legacy_endpoint.clone();
            let _ = tx.try_send(Bytes::from(format!(
                ": hello\n\nevent: endpoint\ndata: {endpoint}\n\n"
            )));
            lock(&state).legacy_tx = Some(tx);
            Ok(reply)
        }
        (Method::POST, "/legacy") => {
            let status = lock(&state).post_status.unwrap_or(StatusCode::NOT_FOUND);
            Ok(reply(status, Some("text/plain"), "use GET"))
        }
        (Method::POST, "/legacy-post") => {
            let _ = query;
            let tx = lock(&state).legacy_tx.clone();
            let Some(tx) = tx else {
                return Ok(reply(StatusCode::NOT_FOUND, None, "no stream"));
            };
            if let Some(answer) = answer_for(&state, &body) {
                let _ = tx.send(event(&answer)).await;
            }
            Ok(reply(StatusCode::ACCEPTED, None, "Accepted"))
        }
        (Method::POST, "/legacy-post-fails") => Ok(reply(
            StatusCode::INTERNAL_SERVER_ERROR,
            Some("text/plain"),
            "the database is on fire",
        )),
        (Method::DELETE, "/mcp") => Ok(reply(StatusCode::OK, None, "")),
        (Method::GET, "/mcp") => Ok(open_get(&state, &seen)),
        (Method::POST, "/mcp") => Ok(post_mcp(&state, &seen, &body).await),
        _ => Ok(reply(
            StatusCode::NOT_FOUND,
            Some("text/plain"),
            "no such path",
        )),
    }
}

fn current_session(state: &Shared) -> String {
    format!("session-{}", lock(state).sessions)
}

fn open_get(state: &Shared, seen: &Seen) -> Reply {
    if let Some(last) = &seen.last_event_id {
        let replay = lock(state)
            .replays
            .iter()
            .find(|(id, _)| id == last)
            .map(|(_, text)| text.clone());
        return match replay {
            Some(text) => {
                let (tx, reply) = sse_reply(8);
                let _ = tx.try_send(Bytes::from(text));
                reply
            }
            None => reply(StatusCode::NOT_FOUND, None, "unknown event id"),
        };
    }
    let mut s = lock(state);
    if let Some(status) = s.get_status {
        return reply(status, None, "");
    }
    let (tx, r) = sse_reply(64);
    if let Some(raw) = s.get_stream_raw_once.take() {
        let _ = tx.try_send(Bytes::from(raw));
        return r;
    }
    while let Some(m) = s.get_stream_messages.pop_front() {
        let _ = tx.try_send(event(&m));
    }
    s.parked.push(tx);
    r
}

/// The JSON-RPC answer of the scripted server to a request (None for notifications/responses).
fn answer_for(state: &Shared, body: &Value) -> Option<Value> {
    let id = body.get("id")?;
    let method = body["method"].as_str()?;
    let answer = match method {
        "initialize" => result(
            id,
            json!({
                "protocolVersion": body["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "scripted", "version": "1"}
            }),
        ),
        "tools/list" => result(id, json!({"tools": []})),
        "tools/call" => {
            let n = lock(state).sessions;
            text_result(id, &format!("ok in session {n}"))
        }
        _ => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}}),
    };
    Some(answer)
}

async fn post_mcp(state: &Shared, seen: &Seen, body: &Value) -> Reply {
    if let Some(status) = lock(state).post_status {
        return reply(status, Some("text/plain"), "POST is not supported here");
    }
    let rpc = seen.rpc_method.clone().unwrap_or_default();
    let is_request = body.get("id").is_some() && body.get("method").is_some();
    if rpc == "initialize" {
        let sid = {
            let mut s = lock(state);
            s.sessions += 1;
            format!("session-{}", s.sessions)
        };
        let answer = answer_for(state, body).unwrap_or(Value::Null);
        let mut r = reply(StatusCode::OK, Some("application/json"), answer.to_string());
        r.headers_mut()
            .insert("mcp-session-id", HeaderValue::from_str(&sid).expect("sid"));
        return r;
    }
    // Session check for everything else.
    let expire_all = lock(state).expire_all;
    let current = current_session(state);
    match &seen.session {
        Some(sid) if expire_all || *sid != current => {
            return reply(StatusCode::NOT_FOUND, Some("text/plain"), "session expired");
        }
        None => {
            return reply(
                StatusCode::BAD_REQUEST,
                Some("text/plain"),
                "missing session",
            )
        }
        Some(_) => {}
    }
    if !is_request {
        return reply(StatusCode::ACCEPTED, None, "");
    }
    let id = body["id"].clone();
    let tool = body["params"]["name"].as_str().unwrap_or("").to_owned();
    match (rpc.as_str(), tool.as_str()) {
        ("tools/call", t) if t.starts_with("status_") => {
            let code: u16 = t["status_".len()..].parse().unwrap_or(500);
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            reply(status, Some("text/plain"), format!("custom failure {code}"))
        }
        ("tools/call", "drop_without_id") => {
            let (tx, r) = sse_reply(8);
            let _ = tx.try_send(Bytes::from_static(b": nothing to resume from\n\n"));
            r
        }
        ("tools/call", "drop_with_id") => {
            let (tx, r) = sse_reply(8);
            let _ = tx.try_send(Bytes::from_static(b"id: e1\nretry: 150\ndata:\n\n"));
            let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": "before the drop"}});
            let replay = format!(
                "id: e2\ndata: {}\n\n",
                text_result(&id, "replayed after the drop")
            );
            let _ = tx.try_send(event(&note));
            lock(state).replays.push(("e1".into(), replay));
            r
        }
        ("tools/call", "hang") => {
            let (tx, r) = sse_reply(8);
            let _ = tx.try_send(Bytes::from_static(b": working\n\n"));
            lock(state).parked.push(tx);
            r
        }
        ("tools/call", "sse") => {
            let (tx, r) = sse_reply(8);
            let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": "on the stream"}});
            let _ = tx.try_send(event(&note));
            let _ = tx.try_send(event(&text_result(&id, "streamed")));
            r
        }
        ("tools/call", "plain_text") => reply(StatusCode::OK, Some("text/plain"), "hello"),
        _ => {
            let answer = answer_for(state, body).unwrap_or(Value::Null);
            reply(StatusCode::OK, Some("application/json"), answer.to_string())
        }
    }
}

/// Serves the script on a free port of 127.0.0.1; returns the state and the port.
async fn serve(script: Script) -> (Shared, u16) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let state: Shared = Arc::new(Mutex::new(script));
    let st = state.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let st = st.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| handle(st.clone(), req));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (state, port)
}

fn seen(state: &Shared) -> Vec<Seen> {
    lock(state).seen.clone()
}

fn url(port: u16, path: &str) -> String {
    format!("http://127.0.0.1:{port}{path}")
}

async fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// What the transport said about a call it could not carry (no answer from the server).
fn transport_error_text(error: &PeerError) -> String {
    match error {
        PeerError::Transport { detail, .. } => detail.clone(),
        other => panic!("expected a transport error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_session_and_version_are_sent_and_delete_ends_the_session() {
    let (state, port) = serve(Script {
        get_status: Some(StatusCode::METHOD_NOT_ALLOWED),
        ..Script::default()
    })
    .await;
    let config = HttpClientConfig::new(url(port, "/mcp")).bearer_token("t0ken");
    let (peer, _) = start(StreamableHttpTransport::new(config).expect("config"));
    handshake(&peer, "2025-06-18").await;
    let r = bounded(5, "call", call_tool(&peer, "x", json!({})))
        .await
        .expect("call");
    assert_eq!(first_text(&r), "ok in session 1");
    // The GET stream opens on its own after the handshake; under load it can come after the
    // call, so the close waits for it.
    wait_until("the GET stream", || {
        seen(&state).iter().any(|s| s.method == "GET")
    })
    .await;
    peer.close();
    bounded(5, "close", peer.closed()).await;

    let seen = seen(&state);
    let init = &seen[0];
    assert_eq!(init.rpc_method.as_deref(), Some("initialize"));
    assert_eq!(init.session, None);
    assert_eq!(init.version, None);
    assert_eq!(init.authorization.as_deref(), Some("Bearer t0ken"));
    let accept = init.accept.clone().unwrap_or_default();
    assert!(accept.contains("application/json") && accept.contains("text/event-stream"));
    for s in &seen[1..] {
        assert_eq!(s.session.as_deref(), Some("session-1"), "{s:?}");
        assert_eq!(s.version.as_deref(), Some("2025-06-18"), "{s:?}");
        assert_eq!(s.authorization.as_deref(), Some("Bearer t0ken"), "{s:?}");
    }
    // The initialized notification precedes the call; a GET was tried (405: no stream);
    // the session was ended with DELETE.
    let order: Vec<String> = seen
        .iter()
        .map(|s| format!("{} {}", s.method, s.rpc_method.clone().unwrap_or_default()))
        .collect();
    let pos = |x: &str| order.iter().position(|o| o == x);
    assert!(
        pos("POST notifications/initialized") < pos("POST tools/call"),
        "{order:?}"
    );
    assert!(pos("GET ").is_some(), "{order:?}");
    assert_eq!(
        order.last().map(String::as_str),
        Some("DELETE "),
        "{order:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_status_fails_the_call_with_url_status_and_body() {
    let (_state, port) = serve(Script {
        get_status: Some(StatusCode::NOT_FOUND),
        ..Script::default()
    })
    .await;
    let (peer, _) = start(
        StreamableHttpTransport::new(HttpClientConfig::new(url(port, "/mcp"))).expect("config"),
    );
    handshake(&peer, "2025-11-25").await;
    for code in [400u16, 401, 403, 409, 413, 429, 500, 502, 503] {
        let error = bounded(
            5,
            "failing call",
            call_tool(&peer, &format!("status_{code}"), json!({})),
        )
        .await
        .expect_err("an error status fails the call");
        let text = transport_error_text(&error);
        assert!(text.contains(&format!("HTTP {code}")), "{text}");
        assert!(text.contains(&url(port, "/mcp")), "{text}");
        assert!(text.contains(&format!("custom failure {code}")), "{text}");
        assert!(
            matches!(&error, PeerError::Transport { method, .. } if method == "tools/call"),
            "the error names the call: {error:?}"
        );
        assert!(error.rpc_error().is_none(), "no made-up JSON-RPC error");
        let shown = error.to_string();
        assert!(
            shown.starts_with("tools/call failed in the transport: HTTP"),
            "{shown}"
        );
    }
    // An answer that is neither JSON nor SSE.
    let error = bounded(5, "plain text", call_tool(&peer, "plain_text", json!({})))
        .await
        .expect_err("a text/plain answer fails the call");
    assert!(transport_error_text(&error).contains("text/plain"));
    // The session survives all of that.
    let r = bounded(5, "call", call_tool(&peer, "x", json!({})))
        .await
        .expect("call");
    assert_eq!(first_text(&r), "ok in session 1");
    peer.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sse_answers_deliver_notifications_before_the_result() {
    let (_state, port) = serve(Script {
        get_status: Some(StatusCode::METHOD_NOT_ALLOWED),
        ..Script::default()
    })
    .await;
    let (peer, client) = start(
        StreamableHttpTransport::new(HttpClientConfig::new(url(port, "/mcp"))).expect("config"),
    );
    handshake(&peer, "2025-11-25").await;
    let r = bounded(5, "sse call", call_tool(&peer, "sse", json!({})))
        .await
        .expect("call");
    assert_eq!(first_text(&r), "streamed");
    let notes = client
        .notifications
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    assert!(notes.iter().any(|n| n.method == "notifications/message"));
    drop(notes);
    peer.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_resumes_with_last_event_id_after_the_retry_delay() {
    let (state, port) = serve(Script {
        get_status: Some(StatusCode::METHOD_NOT_ALLOWED),
        ..Script::default()
    })
    .await;
    // Without the server's `retry` the client would wait 2 s: the upper bound below shows the
    // server's 150 ms were used.
    let mut config = HttpClientConfig::new(url(port, "/mcp"));
    config.reconnect.initial_delay = Duration::from_secs(2);
    let (peer, client) = start(StreamableHttpTransport::new(config).expect("config"));
    handshake(&peer, "2025-11-25").await;
    let started = Instant::now();
    let r = bounded(
        5,
        "resumed call",
        call_tool(&peer, "drop_with_id", json!({})),
    )
    .await
    .expect("the answer comes from the resumed stream");
    let waited = started.elapsed();
    assert_eq!(first_text(&r), "replayed after the drop");
    assert!(
        waited >= Duration::from_millis(140),
        "waited only {waited:?}"
    );
    assert!(
        waited < Duration::from_millis(1500),
        "waited {waited:?} for a 150 ms retry"
    );
    let resume = seen(&state)
        .into_iter()
        .find(|s| s.method == Method::GET && s.last_event_id.is_some())
        .expect("a GET with Last-Event-ID");
    assert_eq!(resume.last_event_id.as_deref(), Some("e1"));
    assert_eq!(resume.session.as_deref(), Some("session-1"));
    assert!(resume
        .accept
        .unwrap_or_default()
        .contains("text/event-stream"));
    let notes = client
        .notifications
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    assert!(notes.iter().any(|n| n.method == "notifications/message"));
    drop(notes);
    peer.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_without_event_id_fails_the_call() {
    let (_state, port) = serve(Script {
        get_status: Some(StatusCode::METHOD_NOT_ALLOWED),
        ..Script::default()
    })
    .await;
    let (peer, _) = start(
        StreamableHttpTransport::new(HttpClientConfig::new(url(port, "/mcp"))).expect("config"),
    );
    handshake(&peer, "2025-11-25").await;
    let error = bounded(
        5,
        "dropped call",
        call_tool(&peer, "drop_without_id", json!({})),
    )
    .await
    .expect_err("nothing to resume from");
    let text = transport_error_text(&error);
    assert!(text.contains("without an event id"), "{text}");
    peer.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_session_is_reinitialized_once_and_the_request_retried() {
    let (state, port) = serve(Script {
        get_status: Some(StatusCode::METHOD_NOT_ALLOWED),
        ..Script::default()
    })
    .await;
    let (peer, _) = start(
        StreamableHttpTransport::new(HttpClientConfig::new(url(port, "/mcp"))).expect("config"),
    );
    handshake(&peer, "2025-06-18").await;
    // A new session on the server makes session-1 expire (404).
    lock(&state).sessions += 1;
    let mut calls = Vec::new();
    for _ in 0..3 {
        let peer = peer.clone();
        calls.push(tokio::spawn(async move {
            call_tool(&peer, "x", json!({})).await
        }));
    }
    for call in calls {
        let r = bounded(5, "retried call", call)
            .await
            .expect("task")
            .expect("call");
        assert_eq!(first_text(&r), "ok in session 3");
    }
    let seen = seen(&state);
    let inits: Vec<&Seen> = seen
        .iter()
        .filter(|s| s.rpc_method.as_deref() == Some("initialize"))
        .collect();
    assert_eq!(inits.len(), 2, "three concurrent 404s re-initialize once");
    assert_eq!(inits[1].session, None);
    assert_eq!(
        inits[1].body["params"], inits[0].body["params"],
        "the original params replayed"
    );
    let after: Vec<&Seen> = seen
        .iter()
        .skip_while(|s| !std::ptr::eq(*s, inits[1]))
        .collect();
    assert!(
        after.iter().any(
            |s| s.rpc_method.as_deref() == Some("notifications/initialized")
                && s.session.as_deref() == Some("session-3")
        ),
        "the initialized notification is replayed in the new session"
    );
    // If the new session is refused as well, the call fails and the transport closes.
    lock(&state).expire_all = true;
    let error = bounded(5, "expired again", call_tool(&peer, "x", json!({})))
        .await
        .expect_err("the new session is refused too");
    assert!(error.to_string().contains("expired"), "{error}");
    bounded(5, "transport closes", peer.closed()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_get_stream_carries_server_messages_and_our_answers_go_back() {
    let (state, port) = serve(Script {
        get_stream_messages: VecDeque::from([
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
            json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}),
        ]),
        ..Script::default()
    })
    .await;
    let (peer, client) = start(
        StreamableHttpTransport::new(HttpClientConfig::new(url(port, "/mcp"))).expect("config"),
    );
    handshake(&peer, "2025-11-25").await;
    wait_until("the list_changed notification", || {
        client
            .notifications
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .any(|n| n.method == "notifications/tools/list_changed")
    })
    .await;
    wait_until("our answer to the server's ping", || {
        seen(&state).iter().any(|s| {
            s.method == Method::POST && s.body["id"] == "srv-1" && s.body.get("result").is_some()
        })
    })
    .await;
    let get = seen(&state)
        .into_iter()
        .find(|s| s.method == Method::GET)
        .expect("a GET");
    assert_eq!(get.session.as_deref(), Some("session-1"));
    peer.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_and_cancellation_work_as_over_stdio() {
    let (_state, port) = serve(Script {
        get_status: Some(StatusCode::METHOD_NOT_ALLOWED),
        ..Script::default()
    })
    .await;
    let (peer, _) = start(
        StreamableHttpTransport::new(HttpClientConfig::new(url(port, "/mcp"))).expect("config"),
    );
    handshake(&peer, "2025-11-25").await;
    let params = mcp_proto::jsonrpc::to_raw(&json!({"name": "hang", "arguments": {}})).expect("p");
    let error = bounded(
        5,
        "timed out call",
        peer.request_raw(
            "tools/call",
            Some(params),
            RequestOptions::timeout(Duration::from_millis(200)),
        ),
    )
    .await
    .expect_err("times out");
    assert!(matches!(error, PeerError::Timeout { .. }), "{error}");
    // The session still works.
    let r = bounded(5, "call", call_tool(&peer, "x", json!({})))
        .await
        .expect("call");
    assert_eq!(first_text(&r), "ok in session 1");
    peer.close();
    bounded(5, "close", peer.closed()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_fails_initialize_at_once() {
    // Bind and drop a listener to find a port nobody listens on.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let (peer, _) = start(
        StreamableHttpTransport::new(HttpClientConfig::new(url(port, "/mcp"))).expect("config"),
    );
    let error = bounded(
        5,
        "initialize",
        request(&peer, "initialize", initialize_params("2025-11-25")),
    )
    .await
    .expect_err("nobody listens");
    let text = transport_error_text(&error);
    assert!(
        text.contains(&format!("POST {}", url(port, "/mcp"))),
        "{text}"
    );
    peer.close();

    let error = bounded(
        5,
        "legacy connect",
        HttpSseTransport::connect(HttpClientConfig::new(url(port, "/sse"))),
    )
    .await
    .err()
    .expect("nobody listens");
    assert!(error.to_string().contains(&url(port, "/sse")), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_urls_and_headers_are_refused_up_front() {
    for bad in ["not a url", "/relative/only", "ftp://host/x"] {
        let error = StreamableHttpTransport::new(HttpClientConfig::new(bad))
            .err()
            .expect("refused");
        assert!(error.to_string().contains("invalid server URL"), "{error}");
    }
    let error = StreamableHttpTransport::new(
        HttpClientConfig::new("http://127.0.0.1:1/mcp").header("bad header", "x"),
    )
    .err()
    .expect("refused");
    assert!(error.to_string().contains("invalid header"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sse_posts_to_the_announced_endpoint() {
    let (state, port) = serve(Script {
        legacy_endpoint: "/legacy-post?sessionId=abc".into(),
        ..Script::default()
    })
    .await;
    let config = HttpClientConfig::new(url(port, "/legacy")).header("X-Api-Key", "k1");
    let transport = bounded(5, "connect", HttpSseTransport::connect(config))
        .await
        .expect("connect");
    assert_eq!(
        transport.endpoint().to_string(),
        url(port, "/legacy-post?sessionId=abc")
    );
    let (peer, _) = start(transport);
    handshake(&peer, "2024-11-05").await;
    let r = bounded(5, "call", call_tool(&peer, "x", json!({})))
        .await
        .expect("call");
    assert_eq!(first_text(&r), "ok in session 0");
    peer.close();
    bounded(5, "close", peer.closed()).await;
    let seen = seen(&state);
    assert!(seen.len() >= 4, "{seen:?}");
    assert!(seen
        .iter()
        .all(|s| s.method == Method::GET || s.path == "/legacy-post"));
    assert!(
        seen.iter().all(|s| s.api_key.as_deref() == Some("k1")),
        "{seen:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sse_refuses_an_endpoint_on_another_origin() {
    let (_state, port) = serve(Script {
        legacy_endpoint: "http://evil.example/steal".into(),
        ..Script::default()
    })
    .await;
    let error = bounded(
        5,
        "connect",
        HttpSseTransport::connect(HttpClientConfig::new(url(port, "/legacy"))),
    )
    .await
    .err()
    .expect("refused");
    assert!(error.to_string().contains("another origin"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sse_post_errors_fail_the_call_and_stream_end_closes() {
    let (state, port) = serve(Script {
        legacy_endpoint: "/legacy-post-fails".into(),
        ..Script::default()
    })
    .await;
    let transport = bounded(
        5,
        "connect",
        HttpSseTransport::connect(HttpClientConfig::new(url(port, "/legacy"))),
    )
    .await
    .expect("connect");
    let (peer, _) = start(transport);
    let error = bounded(
        5,
        "initialize",
        request(&peer, "initialize", initialize_params("2024-11-05")),
    )
    .await
    .expect_err("the POST fails");
    let text = transport_error_text(&error);
    assert!(
        text.contains("HTTP 500") && text.contains("the database is on fire"),
        "{text}"
    );
    // The server ends the SSE stream: the peer sees the connection close with the reason.
    lock(&state).legacy_tx = None;
    bounded(5, "stream end closes the peer", peer.closed()).await;
    let error = request(&peer, "tools/list", json!({}))
        .await
        .expect_err("closed");
    assert!(error.to_string().contains("ended"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_falls_back_on_400_404_405_only() {
    for status in [
        StatusCode::BAD_REQUEST,
        StatusCode::NOT_FOUND,
        StatusCode::METHOD_NOT_ALLOWED,
    ] {
        let (_state, port) = serve(Script {
            post_status: Some(status),
            legacy_endpoint: "/legacy-post".into(),
            ..Script::default()
        })
        .await;
        // The scripted legacy server lives at /legacy; POST there gets `status`.
        let transport = http::connect_auto(HttpClientConfig::new(url(port, "/legacy")))
            .await
            .expect("config");
        let flavor = transport.flavor();
        let (peer, _) = start(transport);
        let answer = bounded(
            5,
            "initialize",
            request(&peer, "initialize", initialize_params("2025-11-25")),
        )
        .await;
        assert!(answer.is_ok(), "{status}: {answer:?}");
        assert_eq!(flavor.get(), Some(HttpFlavor::HttpSse), "{status}");
        peer.close();
    }
    // 500 is not a reason to fall back: the error is reported.
    let (_state, port) = serve(Script {
        post_status: Some(StatusCode::INTERNAL_SERVER_ERROR),
        ..Script::default()
    })
    .await;
    let transport = http::connect_auto(HttpClientConfig::new(url(port, "/mcp")))
        .await
        .expect("config");
    let flavor = transport.flavor();
    let (peer, _) = start(transport);
    let error = bounded(
        5,
        "initialize",
        request(&peer, "initialize", initialize_params("2025-11-25")),
    )
    .await
    .expect_err("500 fails");
    assert!(transport_error_text(&error).contains("HTTP 500"));
    assert_eq!(flavor.get(), Some(HttpFlavor::Streamable));
    peer.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_get_stream_reconnects_with_last_event_id_when_it_drops() {
    let first = json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"});
    let second = json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"});
    let (state, port) = serve(Script {
        get_stream_raw_once: Some(format!("retry: 100\nid: g1\ndata: {first}\n\n")),
        replays: vec![("g1".into(), format!("id: g2\ndata: {second}\n\n"))],
        ..Script::default()
    })
    .await;
    let (peer, client) = start(
        StreamableHttpTransport::new(HttpClientConfig::new(url(port, "/mcp"))).expect("config"),
    );
    handshake(&peer, "2025-11-25").await;
    wait_until("both notifications", || {
        let notes = client
            .notifications
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let has = |m: &str| notes.iter().any(|n| n.method == m);
        has("notifications/resources/list_changed") && has("notifications/prompts/list_changed")
    })
    .await;
    let gets: Vec<Seen> = seen(&state)
        .into_iter()
        .filter(|s| s.method == Method::GET)
        .collect();
    assert!(gets.len() >= 2, "{gets:?}");
    assert_eq!(gets[0].last_event_id, None);
    assert_eq!(gets[1].last_event_id.as_deref(), Some("g1"));
    peer.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_and_fallback_failures_name_the_status_and_url() {
    let (_state, port) = serve(Script::default()).await;
    // GET on an unknown path: 404 with a body.
    let error = bounded(
        5,
        "legacy connect",
        HttpSseTransport::connect(HttpClientConfig::new(url(port, "/nowhere"))),
    )
    .await
    .err()
    .expect("404");
    let text = error.to_string();
    assert_eq!(error.status(), Some(StatusCode::NOT_FOUND));
    assert!(
        text.contains("HTTP 404 Not Found from GET") && text.contains(&url(port, "/nowhere")),
        "{text}"
    );
    assert!(text.contains("no such path"), "{text}");

    // Auto: POST gets 404 so it falls back, and the GET fails too: both are reported.
    let transport = http::connect_auto(HttpClientConfig::new(url(port, "/nowhere")))
        .await
        .expect("config");
    let (peer, _) = start(transport);
    let error = bounded(
        5,
        "initialize",
        request(&peer, "initialize", initialize_params("2025-11-25")),
    )
    .await
    .expect_err("neither transport works");
    let text = transport_error_text(&error);
    assert!(
        text.contains("Streamable HTTP initialize got 404") && text.contains("from GET"),
        "{text}"
    );
    peer.close();
}
