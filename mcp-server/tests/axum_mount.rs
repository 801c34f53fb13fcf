//! `examples/axum.rs` as it is (its router, middleware and shutdown, included below), on
//! 127.0.0.1 port 0: the app's own routes beside MCP at `/mcp`; its bearer middleware (401
//! without a token, the identity reaching the tool through `Context::auth`); our own client over
//! the 2025 handshake, 2026-07-28 and HTTP+SSE under the prefix; the DNS-rebinding guard, body
//! limit and session binding holding mounted; and the app's graceful shutdown ending open MCP
//! streams. The official TypeScript SDK clients (v1: Streamable HTTP and HTTP+SSE; v2:
//! 2026-07-28) drive it too, through `tests/interop/axum_ts_client.mjs`, when
//! `scripts/interop-setup.sh` installed them (else they skip, unless `MCP_INTEROP_REQUIRED=1`).

#[path = "../examples/axum.rs"]
#[allow(dead_code)]
mod example;
mod http_common;

use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;

use http_common::{
    initialize, interop_env, read_head, request, run_driver_command, Reply, SseReader, WAIT,
};
use mcp_client::http::{HttpClientConfig, HttpSseTransport, StreamableHttpTransport};
use mcp_client::{Client, ClientOptions, Negotiation};
use mcp_proto::version::ProtocolVersion;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::sync::oneshot;

async fn bounded<F: Future>(what: &str, f: F) -> F::Output {
    tokio::time::timeout(WAIT, f)
        .await
        .unwrap_or_else(|_| panic!("{what}: no result within {WAIT:?}"))
}

/// The example app, serving until [`stop`](Self::stop).
struct App {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl App {
    async fn start() -> App {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let (stop, stopped) = oneshot::channel::<()>();
        let serving = tokio::spawn(example::serve(listener, async {
            let _ = stopped.await;
        }));
        App {
            addr,
            stop,
            serving,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Shuts the app down the way its Ctrl-C does, and waits until axum has returned.
    async fn stop(self) {
        let _ = self.stop.send(());
        bounded("the app's graceful shutdown", self.serving)
            .await
            .expect("the app's task")
            .expect("axum::serve");
    }
}

const ALICE: &str = "Bearer alice-token";
const POST_HEADERS: [(&str, &str); 2] = [
    ("Accept", "application/json, text/event-stream"),
    ("Content-Type", "application/json"),
];

async fn post(addr: SocketAddr, extra: &[(&str, &str)], body: &Value) -> Reply {
    let mut headers = POST_HEADERS.to_vec();
    headers.extend_from_slice(extra);
    request(addr, "POST", "/mcp", &headers, body.to_string().as_bytes()).await
}

fn client_config(url: String, token: &str) -> HttpClientConfig {
    HttpClientConfig::new(url).bearer_token(token)
}

/// Our client over Streamable HTTP at `/mcp` with `config`, negotiating as told.
async fn connect(
    app: &App,
    config: impl FnOnce(String) -> HttpClientConfig,
    negotiation: Negotiation,
) -> Result<Client, mcp_client::ClientError> {
    let transport = StreamableHttpTransport::new(config(app.url("/mcp"))).expect("client config");
    let options = ClientOptions::new().with_negotiation(negotiation);
    bounded("the handshake", Client::connect(transport, options)).await
}

async fn whoami(client: &Client) -> String {
    let tools = bounded("tools/list", client.list_tools())
        .await
        .expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "whoami"), "tools: {tools:?}");
    let result = bounded("tools/call", client.call_tool("whoami", json!({})))
        .await
        .expect("tools/call whoami");
    let value = serde_json::to_value(&result).expect("serializable result");
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {value}"))
        .to_owned()
}

#[tokio::test]
async fn the_apps_own_routes_and_its_bearer_check() {
    let app = App::start().await;
    let home = request(app.addr, "GET", "/", &[], b"").await;
    assert_eq!(home.status, 200);
    assert!(
        home.text().contains("speaks MCP at /mcp"),
        "{}",
        home.text()
    );
    let health = request(app.addr, "GET", "/health", &[], b"").await;
    assert_eq!((health.status, health.text().as_str()), (200, "ok\n"));

    // The app's middleware refuses MCP requests without a token, on every MCP path.
    let refused = post(app.addr, &[], &initialize(1, "2025-11-25")).await;
    assert_eq!(refused.status, 401, "{}", refused.text());
    assert_eq!(refused.header("www-authenticate"), Some("Bearer"));
    let wrong = post(
        app.addr,
        &[("Authorization", "Bearer mallory")],
        &initialize(1, "2025-11-25"),
    )
    .await;
    assert_eq!(wrong.status, 401);
    let sse = request(app.addr, "GET", "/mcp/sse", &[], b"").await;
    assert_eq!(sse.status, 401);
    let err = connect(&app, HttpClientConfig::new, Negotiation::Legacy)
        .await
        .expect_err("no token, no session");
    assert!(err.to_string().contains("401"), "{err}");
    app.stop().await;
}

/// Our client over Streamable HTTP with `user`'s token, in the era `negotiation` leads to: the
/// tool greets `user`, call after call.
async fn our_client_as(user: &str, negotiation: Negotiation, era: ProtocolVersion) {
    let app = App::start().await;
    let token = format!("{user}-token");
    let with_token = |url| client_config(url, &token);
    let client = connect(&app, with_token, negotiation)
        .await
        .expect("connected");
    assert_eq!(client.protocol_version(), era);
    for _ in 0..2 {
        assert_eq!(whoami(&client).await, format!("hello, {user}"));
    }
    client.close().await;
    app.stop().await;
}

#[tokio::test]
async fn our_client_with_the_2025_handshake() {
    our_client_as("alice", Negotiation::Legacy, ProtocolVersion::V2025_11_25).await;
}

#[tokio::test]
async fn our_client_in_the_2026_era() {
    let era = ProtocolVersion::V2026_07_28;
    our_client_as("bob", Negotiation::Pin(era), era).await;
}

#[tokio::test]
async fn our_client_over_http_sse_under_the_prefix() {
    let app = App::start().await;
    let transport = bounded(
        "the endpoint event",
        HttpSseTransport::connect(client_config(app.url("/mcp/sse"), "alice-token")),
    )
    .await
    .expect("HTTP+SSE");
    // The service saw `/sse`; the endpoint it announced carries the mount path.
    assert_eq!(transport.endpoint().path(), "/mcp/messages");
    let options = ClientOptions::new().with_negotiation(Negotiation::Legacy);
    let client = bounded("the handshake", Client::connect(transport, options))
        .await
        .expect("initialize");
    assert_eq!(whoami(&client).await, "hello, alice");
    client.close().await;
    app.stop().await;
}

#[tokio::test]
async fn guards_and_limits_hold_mounted() {
    let app = App::start().await;
    let auth = ("Authorization", ALICE);
    // DNS-rebinding protection: a foreign Host or Origin is refused by the service itself.
    for foreign in [
        ("Host", "evil.example.com"),
        ("Origin", "http://evil.example.com"),
    ] {
        let refused = post(app.addr, &[auth, foreign], &initialize(1, "2025-11-25")).await;
        assert_eq!(refused.status, 403, "{foreign:?}: {}", refused.text());
    }

    // The body limit (4 MiB by default): refused from the declared length, before reading.
    let mut tcp = tokio::net::TcpStream::connect(app.addr)
        .await
        .expect("connect");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: {ALICE}\r\nAccept: application/json, \
         text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        app.addr,
        5 * 1024 * 1024
    );
    tcp.write_all(head.as_bytes()).await.expect("write head");
    let (status, _, _) = read_head(&mut tcp).await;
    assert_eq!(status, 413);
    drop(tcp);

    // A 2025 session stays with the identity that opened it.
    let opened = post(app.addr, &[auth], &initialize(1, "2025-11-25")).await;
    assert_eq!(opened.status, 200, "{}", opened.text());
    let session = opened
        .header("mcp-session-id")
        .expect("session id")
        .to_owned();
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" });
    let bob = post(
        app.addr,
        &[
            ("Authorization", "Bearer bob-token"),
            ("Mcp-Session-Id", &session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        &list,
    )
    .await;
    assert_eq!(
        bob.status,
        404,
        "another principal's session: {}",
        bob.text()
    );
    app.stop().await;
}

#[tokio::test]
async fn the_apps_graceful_shutdown_ends_open_mcp_streams() {
    let app = App::start().await;
    // A HTTP+SSE stream stays open until the server ends it.
    let mut stream = SseReader::open(
        app.addr,
        "GET",
        "/mcp/sse",
        &[("Authorization", ALICE), ("Accept", "text/event-stream")],
        b"",
    )
    .await;
    assert_eq!(stream.status, 200);
    let endpoint = bounded("the endpoint event", stream.next())
        .await
        .expect("an endpoint event");
    assert_eq!(endpoint.event.as_deref(), Some("endpoint"));
    assert!(
        endpoint.data.starts_with("/mcp/messages?sessionId="),
        "{}",
        endpoint.data
    );
    app.stop().await;
    assert!(
        bounded("the stream's end", stream.next()).await.is_none(),
        "the stream ended with the shutdown"
    );
}

// The official TypeScript SDK clients.

fn node_modules() -> Option<String> {
    interop_env("MCP_INTEROP_NODE_MODULES")
}

/// Runs the driver in `mode` against `url` with alice's token; returns what it printed.
async fn drive(node_modules: &str, mode: &str, url: &str) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/axum_ts_client.mjs");
    let mut command = tokio::process::Command::new("node");
    command
        .arg(script)
        .arg(node_modules)
        .args([mode, url, "alice-token"]);
    run_driver_command(command, mode).await
}

async fn typescript(mode: &str, path: &str) -> Option<Value> {
    let modules = node_modules()?;
    let app = App::start().await;
    let out = drive(&modules, mode, &app.url(path)).await;
    eprintln!("{out}");
    assert_eq!(out["text"], "hello, alice", "{out}");
    assert!(out["refused"].as_str().is_some(), "{out}");
    app.stop().await;
    Some(out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v1_client_over_streamable_http() {
    if let Some(out) = typescript("streamable", "/mcp").await {
        assert_eq!(out["version"], "2025-11-25", "{out}");
        assert_eq!(out["sessionId"].as_str().map(str::len), Some(32), "{out}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v1_client_over_http_sse() {
    typescript("sse", "/mcp/sse").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v2_client_in_the_2026_era() {
    if let Some(out) = typescript("modern", "/mcp").await {
        assert_eq!(out["version"], "2026-07-28", "{out}");
    }
}
