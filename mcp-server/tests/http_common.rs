//! Shared by the HTTP tests: a tiny MCP handler, a server starter, and a raw HTTP/1.0 client
//! that shows exactly what went over the wire (status, headers, body, SSE events).
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_proto::jsonrpc::{self, ErrorObject, RawJson, Request};
use mcp_proto::peer::{Handler, Peer, PeerOptions, RequestContext};
use mcp_proto::sse::{SseEvent, SseParser};
use mcp_proto::version::{self, ProtocolVersion};
use mcp_server::http::{self, HttpConfig, HttpServer};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Every wait in these tests is bounded by this.
pub const WAIT: Duration = Duration::from_secs(10);

/// Answers initialize, ping, tools/list and a few tools.
pub struct TestHandler;

/// What the `wait_for_cancel` and `burn` tools did, each entry with the `tag` of its call (so
/// tests running side by side tell theirs apart).
pub static EVENTS: Mutex<Vec<(String, &'static str)>> = Mutex::new(Vec::new());

/// The events of calls tagged `tag`, in order.
pub fn events(tag: &str) -> Vec<&'static str> {
    let events = EVENTS.lock().unwrap_or_else(|e| e.into_inner());
    events
        .iter()
        .filter(|(t, _)| t == tag)
        .map(|(_, e)| *e)
        .collect()
}

fn event(tag: &str, what: &'static str) {
    let mut events = EVENTS.lock().unwrap_or_else(|e| e.into_inner());
    events.push((tag.to_owned(), what));
}

/// Records "stopped" when dropped: the `wait_for_cancel` handler ended by its cancellation.
struct StoppedOnDrop(String);

impl Drop for StoppedOnDrop {
    fn drop(&mut self) {
        event(&self.0, "stopped");
    }
}

fn raw(value: Value) -> Result<RawJson, ErrorObject> {
    jsonrpc::to_raw(&value).map_err(ErrorObject::internal)
}

fn text_result(text: &str) -> Result<RawJson, ErrorObject> {
    raw(json!({ "content": [{ "type": "text", "text": text }], "isError": false }))
}

impl Handler for TestHandler {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<RawJson, ErrorObject> {
        let params: Value = request.params_as().unwrap_or(Value::Null);
        match request.method.as_str() {
            "initialize" => {
                let asked = params["protocolVersion"].as_str().unwrap_or("");
                let v = version::negotiate(asked, &ProtocolVersion::HANDSHAKE);
                ctx.peer().set_protocol_version(v);
                raw(json!({
                    "protocolVersion": v.as_str(),
                    "capabilities": { "tools": {}, "logging": {} },
                    "serverInfo": { "name": "http-test", "version": "0.1.0" }
                }))
            }
            "ping" => raw(json!({})),
            "tools/list" => raw(json!({ "tools": [
                { "name": "echo", "description": "Echoes text",
                  "inputSchema": { "type": "object", "properties": { "text": { "type": "string" } } } },
                { "name": "progress", "description": "Reports progress, logs, then answers",
                  "inputSchema": { "type": "object" } },
                { "name": "slow", "description": "Answers after ms milliseconds",
                  "inputSchema": { "type": "object", "properties": { "ms": { "type": "number" } } } },
                { "name": "notify_then_slow", "description": "Logs, waits ms, answers",
                  "inputSchema": { "type": "object", "properties": { "ms": { "type": "number" } } } }
            ]})),
            "tools/call" => {
                let args = &params["arguments"];
                match params["name"].as_str().unwrap_or("") {
                    "echo" => text_result(args["text"].as_str().unwrap_or("")),
                    "progress" => {
                        for i in 1..=3 {
                            ctx.progress(f64::from(i), Some(3.0), Some(format!("step {i}")))
                                .await;
                            let log = jsonrpc::to_raw(
                                &json!({ "level": "info", "data": format!("log {i}") }),
                            )
                            .map_err(ErrorObject::internal)?;
                            let _ = ctx.notify_raw("notifications/message", Some(log)).await;
                        }
                        text_result("done")
                    }
                    "slow" => {
                        let ms = args["ms"].as_u64().unwrap_or(200);
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        text_result("slept")
                    }
                    "notify_then_slow" => {
                        let log = jsonrpc::to_raw(&json!({ "level": "info", "data": "started" }))
                            .map_err(ErrorObject::internal)?;
                        let _ = ctx.notify_raw("notifications/message", Some(log)).await;
                        let ms = args["ms"].as_u64().unwrap_or(200);
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        text_result("finished")
                    }
                    "wait_for_cancel" => {
                        let tag = args["tag"].as_str().unwrap_or("").to_owned();
                        event(&tag, "started");
                        let _stopped = StoppedOnDrop(tag);
                        std::future::pending::<()>().await;
                        text_result("never")
                    }
                    "burn" => {
                        // 200 ms of CPU before the first `.await`.
                        let start = std::time::Instant::now();
                        let mut spins = 0u64;
                        while start.elapsed() < Duration::from_millis(200) {
                            spins = std::hint::black_box(spins + 1);
                        }
                        event(args["tag"].as_str().unwrap_or(""), "burnt");
                        tokio::task::yield_now().await;
                        text_result("burnt")
                    }
                    "announce" => {
                        // Related to no request: travels on the standalone GET stream.
                        let _ = ctx
                            .peer()
                            .notify_raw("notifications/tools/list_changed", None, None)
                            .await;
                        text_result("announced")
                    }
                    other => Err(ErrorObject::invalid_params(format!("unknown tool {other}"))),
                }
            }
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    fn accepts_batches(&self, _peer: &mcp_proto::peer::PeerHandle) -> bool {
        true
    }
}

/// Starts a server with the test handler on 127.0.0.1, port 0.
pub async fn start(config: HttpConfig) -> HttpServer {
    let handler = Arc::new(TestHandler);
    http::bind("127.0.0.1:0", config, move |transport| {
        Peer::start(transport, handler.clone(), PeerOptions::default())
    })
    .await
    .expect("bind")
}

/// One HTTP response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    /// Every SSE event in the body.
    pub fn events(&self) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        parser.feed(&self.body);
        let mut out = Vec::new();
        while let Some(Ok(e)) = parser.next_event() {
            out.push(e);
        }
        out
    }
}

/// The standard headers of a Streamable HTTP POST.
pub const POST_HEADERS: &[(&str, &str)] = &[
    ("Accept", "application/json, text/event-stream"),
    ("Content-Type", "application/json"),
];

/// Writes a request (HTTP/1.0, so the server closes the connection after the response).
pub async fn send_request(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> TcpStream {
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    let mut head = format!("{method} {path} HTTP/1.0\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    tcp.write_all(head.as_bytes()).await.expect("write head");
    tcp.write_all(body).await.expect("write body");
    tcp
}

/// Reads the status line and headers; returns them and whatever body bytes came along.
pub async fn read_head(tcp: &mut TcpStream) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = tokio::time::timeout(WAIT, tcp.read(&mut chunk))
            .await
            .expect("head timeout")
            .expect("read head");
        assert!(
            n > 0,
            "connection closed before the response head: {:?}",
            String::from_utf8_lossy(&buf)
        );
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    (status, headers, buf[end + 4..].to_vec())
}

/// Sends a request and reads the whole response.
pub async fn request(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut tcp = send_request(addr, method, path, headers, body).await;
    let (status, headers, mut body) = read_head(&mut tcp).await;
    tokio::time::timeout(WAIT, tcp.read_to_end(&mut body))
        .await
        .expect("body timeout")
        .expect("read body");
    Reply {
        status,
        headers,
        body,
    }
}

/// POSTs a JSON-RPC body to `/mcp` with the standard headers plus `extra`.
pub async fn post(addr: std::net::SocketAddr, extra: &[(&str, &str)], body: &Value) -> Reply {
    let mut headers: Vec<(&str, &str)> = POST_HEADERS.to_vec();
    headers.extend_from_slice(extra);
    request(addr, "POST", "/mcp", &headers, body.to_string().as_bytes()).await
}

pub fn initialize(id: i64, version: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": { "name": "test", "version": "0" } } })
}

pub fn call(id: i64, tool: &str, args: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": tool, "arguments": args, "_meta": { "progressToken": "tok" } } })
}

/// Initializes a session at `version`; returns its id.
pub async fn open_session(addr: std::net::SocketAddr, version: &str) -> String {
    let reply = post(addr, &[], &initialize(1, version)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let id = reply
        .header("mcp-session-id")
        .expect("session id")
        .to_owned();
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let r = post(
        addr,
        &[("Mcp-Session-Id", &id), ("MCP-Protocol-Version", version)],
        &note,
    )
    .await;
    assert_eq!(r.status, 202);
    id
}

/// An open SSE response, read event by event.
pub struct SseReader {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    tcp: TcpStream,
    parser: SseParser,
    eof: bool,
}

impl SseReader {
    pub async fn open(
        addr: std::net::SocketAddr,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> SseReader {
        let mut tcp = send_request(addr, method, path, headers, body).await;
        let (status, headers, rest) = read_head(&mut tcp).await;
        let mut parser = SseParser::new();
        parser.feed(&rest);
        SseReader {
            status,
            headers,
            tcp,
            parser,
            eof: false,
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The next event, or `None` at end of stream.
    pub async fn next(&mut self) -> Option<SseEvent> {
        let mut chunk = [0u8; 4096];
        loop {
            if let Some(event) = self.parser.next_event() {
                return Some(event.expect("valid SSE"));
            }
            if self.eof {
                return None;
            }
            let n = tokio::time::timeout(WAIT, self.tcp.read(&mut chunk))
                .await
                .expect("SSE read timeout")
                .unwrap_or(0);
            if n == 0 {
                self.eof = true;
                self.parser.feed(b"\n\n");
            } else {
                self.parser.feed(&chunk[..n]);
            }
        }
    }

    /// Raw bytes that arrive within `d` (events are not parsed).
    pub async fn raw_for(&mut self, d: Duration) -> Vec<u8> {
        let mut out = Vec::new();
        let mut chunk = [0u8; 4096];
        let deadline = tokio::time::Instant::now() + d;
        while let Ok(Ok(n)) = tokio::time::timeout_at(deadline, self.tcp.read(&mut chunk)).await {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&chunk[..n]);
        }
        out
    }

    /// The next event carrying data (skips priming events).
    pub async fn next_message(&mut self) -> Option<(Option<String>, Value)> {
        loop {
            let event = self.next().await?;
            if !event.data.is_empty() {
                let value = serde_json::from_str(&event.data).expect("JSON data");
                return Some((event.id, value));
            }
        }
    }
}

/// The value of the interop variable `name` (set by `scripts/interop-setup.sh`), or `None` with
/// a note when it is unset; under `MCP_INTEROP_REQUIRED=1` an unset one fails the test.
pub fn interop_env(name: &str) -> Option<String> {
    match std::env::var(name) {
        Ok(value) if !value.is_empty() => Some(value),
        _ => {
            assert!(
                std::env::var("MCP_INTEROP_REQUIRED").as_deref() != Ok("1"),
                "MCP_INTEROP_REQUIRED=1 but {name} is unset; run scripts/interop-setup.sh"
            );
            eprintln!("skipping: {name} is unset (see scripts/interop-setup.sh)");
            None
        }
    }
}

/// Runs an interop driver (bounded, killed if it overruns) and returns the JSON of the last
/// line it printed, after checking it succeeded.
pub async fn run_driver_command(mut command: tokio::process::Command, mode: &str) -> Value {
    let child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the driver");
    let output = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("driver timed out")
        .expect("driver output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "driver {mode} failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
        output.status
    );
    let line = stdout.lines().last().unwrap_or("");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("driver said {line:?}: {e}"))
}
