//! Our client against our server over HTTP, on 127.0.0.1 port 0: Streamable HTTP with sessions
//! and stateless, HTTP+SSE (directly and by fallback from `connect_auto`), resumption of a
//! dropped SSE answer with `Last-Event-ID`, re-initialization after a session expires, and the
//! HTTP error statuses our server sends as our client reports them.
//!
//! Every wait is bounded; no assertion depends on tight timing.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::http::{
    self, HttpClientConfig, HttpFlavor, HttpSseTransport, StreamableHttpTransport,
};
use mcp_client::{CallOptions, Client, ClientError, ClientOptions, Negotiation, ServerEvent};
use mcp_proto::schema::CallToolResult;
use mcp_server::http::{HttpConfig, HttpServer};
use mcp_server::{Context, LoggingLevel, Server, Tool};
use serde_json::{json, Value};

/// The bound on any single step of a test.
const WAIT: Duration = Duration::from_secs(30);

async fn bounded<F: Future>(what: &str, f: F) -> F::Output {
    tokio::time::timeout(WAIT, f)
        .await
        .unwrap_or_else(|_| panic!("{what}: no result within {WAIT:?}"))
}

fn server() -> Server {
    Server::builder("ours", "0.1.0")
        .tool(
            Tool::new("echo", "Echoes `text`").input_schema(json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            })),
            |args: Value, _ctx: Context| async move {
                args["text"].as_str().unwrap_or_default().to_owned()
            },
        )
        .tool(
            Tool::new("work", "Reports progress and logs, then answers"),
            |_: Value, ctx: Context| async move {
                for i in 1..=3 {
                    ctx.progress(f64::from(i), Some(3.0), Some(format!("step {i}")))
                        .await;
                    ctx.log(LoggingLevel::Info, json!({"step": i})).await;
                }
                "worked"
            },
        )
        .tool(
            Tool::new("slow", "Answers after 500 ms"),
            |_: Value, _ctx: Context| async move {
                tokio::time::sleep(Duration::from_millis(500)).await;
                "slept"
            },
        )
        .build()
}

async fn serve(config: HttpConfig) -> (HttpServer, String) {
    let http = bounded("bind", server().serve_http("127.0.0.1:0", config))
        .await
        .expect("bind 127.0.0.1:0");
    let base = format!("http://{}", http.local_addr());
    (http, base)
}

/// A TCP relay in front of the server that keeps every byte both ways, so a test can check
/// which requests (and answers) actually crossed the wire.
#[derive(Clone, Default)]
struct Tap {
    to_server: Arc<Mutex<Vec<u8>>>,
    to_client: Arc<Mutex<Vec<u8>>>,
}

impl Tap {
    /// Listens on a fresh port and relays to `base` (`http://host:port`); returns the relay's base.
    async fn start(base: &str) -> (Tap, String) {
        let target = base.trim_start_matches("http://").to_owned();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relay = format!("http://{}", listener.local_addr().unwrap());
        let tap = Tap::default();
        let t = tap.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = tokio::net::TcpStream::connect(&target).await else {
                    continue;
                };
                let (cr, cw) = client.into_split();
                let (sr, sw) = server.into_split();
                tokio::spawn(pump(cr, sw, t.to_server.clone()));
                tokio::spawn(pump(sr, cw, t.to_client.clone()));
            }
        });
        (tap, relay)
    }

    fn sent(&self) -> String {
        String::from_utf8_lossy(&self.to_server.lock().unwrap()).to_lowercase()
    }

    fn received(&self) -> String {
        String::from_utf8_lossy(&self.to_client.lock().unwrap()).to_lowercase()
    }
}

async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    log: Arc<Mutex<Vec<u8>>>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                log.lock().unwrap().extend_from_slice(&buf[..n]);
                if to.write_all(&buf[..n]).await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown().await;
}

/// The 2025 era: these tests check its sessions, streams and resumption, and our server also
/// serves 2026-07-28, which `auto` would pick.
fn legacy() -> ClientOptions {
    ClientOptions::new().with_negotiation(Negotiation::Legacy)
}

async fn connect_streamable(config: HttpClientConfig) -> Result<Client, ClientError> {
    let transport = StreamableHttpTransport::new(config).expect("valid client config");
    bounded("handshake", Client::connect(transport, legacy())).await
}

fn text(result: &CallToolResult) -> String {
    let value = serde_json::to_value(result).expect("serializable result");
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {value}"))
        .to_owned()
}

async fn echo(client: &Client, word: &str) -> Result<String, ClientError> {
    bounded(
        "tools/call echo",
        client.call_tool("echo", json!({ "text": word })),
    )
    .await
    .map(|r| text(&r))
}

/// Handshake, tools/list, a few calls.
async fn exercise(client: &Client) {
    assert_eq!(client.server_info().name, "ours");
    let tools = bounded("tools/list", client.list_tools()).await.unwrap();
    let mut names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    names.sort();
    assert_eq!(names, ["echo", "slow", "work"]);
    for word in ["one", "two", "three"] {
        assert_eq!(echo(client, word).await.unwrap(), word);
    }
}

#[tokio::test]
async fn streamable_sessions_progress_logging_and_concurrency() {
    let (http, base) = serve(HttpConfig::default()).await;
    let (tap, relay) = Tap::start(&base).await;
    let client = connect_streamable(HttpClientConfig::new(format!("{relay}/mcp")))
        .await
        .expect("handshake");
    exercise(&client).await;

    // Progress and log notifications go out on the POST's SSE answer before the result.
    let mut events = client.notifications();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let options = CallOptions::default().on_progress(move |p| sink.lock().unwrap().push(p));
    let result = bounded(
        "tools/call work",
        client.call_tool_with("work", json!({}), options),
    )
    .await
    .expect("work");
    assert_eq!(text(&result), "worked");
    {
        let progress = seen.lock().unwrap();
        let steps: Vec<f64> = progress.iter().map(|p| p.progress).collect();
        assert_eq!(steps, [1.0, 2.0, 3.0], "all progress before the result");
        assert_eq!(progress[2].total, Some(3.0));
        assert_eq!(progress[0].message.as_deref(), Some("step 1"));
    }
    let mut logs = Vec::new();
    while logs.len() < 3 {
        match bounded("log notification", events.recv()).await.unwrap() {
            ServerEvent::Log(entry) => logs.push(entry.data),
            _ => continue,
        }
    }
    assert_eq!(
        logs,
        [json!({"step": 1}), json!({"step": 2}), json!({"step": 3})]
    );
    assert!(
        tap.received().contains("content-type: text/event-stream"),
        "the server never answered with SSE"
    );

    // 16 calls at once on one session.
    let client = Arc::new(client);
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..16 {
        let client = client.clone();
        tasks.spawn(async move { (i, echo(&client, &format!("call {i}")).await) });
    }
    let mut done = 0;
    while let Some(joined) = bounded("concurrent calls", tasks.join_next()).await {
        let (i, answer) = joined.expect("task");
        assert_eq!(answer.expect("concurrent call"), format!("call {i}"));
        done += 1;
    }
    assert_eq!(done, 16);

    bounded("close", client.close()).await;
    bounded("shutdown", http.shutdown()).await;
}

/// A 2025-era call whose arguments merely hold the 2026-07-28 `_meta` key (as text, or as a
/// key of the arguments' own `_meta`) is a 2025-era call: the era comes from the request's
/// `_meta`, not from the presence of text.
#[tokio::test]
async fn a_protocol_key_in_the_arguments_is_user_data() {
    let (http, base) = serve(HttpConfig::default()).await;
    let client = connect_streamable(HttpClientConfig::new(format!("{base}/mcp")))
        .await
        .expect("handshake");
    let key = "io.modelcontextprotocol/protocolVersion";
    assert_eq!(echo(&client, key).await.expect("the key as a value"), key);
    let nested = json!({"text": "nested", "_meta": {key: "2026-07-28"}, key: 1});
    let result = bounded("tools/call echo", client.call_tool("echo", nested))
        .await
        .expect("the key in the arguments' _meta");
    assert_eq!(text(&result), "nested");
    bounded("close", client.close()).await;
    bounded("shutdown", http.shutdown()).await;
}

#[tokio::test]
async fn stateless_handshake_and_calls() {
    let config = HttpConfig {
        stateless: true,
        ..HttpConfig::default()
    };
    let (http, base) = serve(config).await;
    let mut config = HttpClientConfig::new(format!("{base}/mcp"));
    config.open_get_stream = false;
    let client = connect_streamable(config).await.expect("handshake");
    exercise(&client).await;
    let seen = Arc::new(Mutex::new(0usize));
    let sink = seen.clone();
    let options = CallOptions::default().on_progress(move |_| *sink.lock().unwrap() += 1);
    let result = bounded(
        "tools/call work",
        client.call_tool_with("work", json!({}), options),
    )
    .await
    .expect("work");
    assert_eq!(text(&result), "worked");
    assert_eq!(*seen.lock().unwrap(), 3);
    bounded("close", client.close()).await;
    bounded("shutdown", http.shutdown()).await;
}

#[tokio::test]
async fn http_sse_direct() {
    let (http, base) = serve(HttpConfig::default()).await;
    let transport = bounded(
        "legacy connect",
        HttpSseTransport::connect(HttpClientConfig::new(format!("{base}/sse"))),
    )
    .await
    .expect("endpoint event");
    assert!(transport.endpoint().path().starts_with("/messages"));
    let client = bounded("handshake", Client::connect(transport, legacy()))
        .await
        .expect("handshake");
    exercise(&client).await;
    let count = Arc::new(Mutex::new(0usize));
    let sink = count.clone();
    let options = CallOptions::default().on_progress(move |_| *sink.lock().unwrap() += 1);
    let result = bounded(
        "tools/call work",
        client.call_tool_with("work", json!({}), options),
    )
    .await
    .expect("work");
    assert_eq!(text(&result), "worked");
    assert_eq!(*count.lock().unwrap(), 3);
    bounded("close", client.close()).await;
    bounded("shutdown", http.shutdown()).await;
}

#[tokio::test]
async fn auto_falls_back_to_http_sse() {
    // The Streamable endpoint lives elsewhere; the client is given the SSE URL, whose POST
    // fails, so it GETs it and finds an `endpoint` event.
    let config = HttpConfig {
        endpoint: "/streamable".into(),
        ..HttpConfig::default()
    };
    let (http, base) = serve(config).await;
    let (tap, relay) = Tap::start(&base).await;
    let transport = http::connect_auto(HttpClientConfig::new(format!("{relay}/sse")))
        .await
        .expect("auto transport");
    let flavor = transport.flavor();
    let client = bounded("handshake", Client::connect(transport, legacy()))
        .await
        .expect("handshake after fallback");
    assert_eq!(flavor.get(), Some(HttpFlavor::HttpSse));
    exercise(&client).await;
    let sent = tap.sent();
    assert!(
        sent.contains("post /sse http/1.1"),
        "no Streamable HTTP attempt"
    );
    assert!(sent.contains("get /sse http/1.1"), "no SSE stream");
    assert!(sent.contains("post /messages?sessionid="), "no legacy POST");
    bounded("close", client.close()).await;
    bounded("shutdown", http.shutdown()).await;
}

#[tokio::test]
async fn auto_picks_streamable_when_available() {
    let (http, base) = serve(HttpConfig::default()).await;
    let transport = http::connect_auto(HttpClientConfig::new(format!("{base}/mcp")))
        .await
        .expect("auto transport");
    let flavor = transport.flavor();
    let client = bounded("handshake", Client::connect(transport, legacy()))
        .await
        .expect("handshake");
    assert_eq!(flavor.get(), Some(HttpFlavor::Streamable));
    exercise(&client).await;
    bounded("close", client.close()).await;
    bounded("shutdown", http.shutdown()).await;
}

#[tokio::test]
async fn dropped_answer_stream_is_resumed() {
    // The answer turns into SSE after 50 ms and its connection is closed after 100 ms; the
    // result comes at 500 ms, so the client must reconnect with `Last-Event-ID` to get it.
    let config = HttpConfig {
        sse_after: Some(Duration::from_millis(50)),
        sse_close_after: Some(Duration::from_millis(100)),
        sse_retry: Some(Duration::from_millis(100)),
        ..HttpConfig::default()
    };
    let (http, base) = serve(config).await;
    let (tap, relay) = Tap::start(&base).await;
    let client = connect_streamable(HttpClientConfig::new(format!("{relay}/mcp")))
        .await
        .expect("handshake");
    for _ in 0..2 {
        let result = bounded("tools/call slow", client.call_tool("slow", json!({})))
            .await
            .expect("resumed call");
        assert_eq!(text(&result), "slept");
    }
    // Two at once, each on its own resumed stream.
    let (a, b) = bounded("two slow calls", async {
        tokio::join!(
            client.call_tool("slow", json!({})),
            client.call_tool("slow", json!({}))
        )
    })
    .await;
    assert_eq!(text(&a.expect("first")), "slept");
    assert_eq!(text(&b.expect("second")), "slept");
    assert_eq!(echo(&client, "after").await.unwrap(), "after");
    let sent = tap.sent();
    assert!(
        sent.contains("last-event-id:"),
        "no resumption GET was sent"
    );
    bounded("close", client.close()).await;
    bounded("shutdown", http.shutdown()).await;
}

fn expiring() -> HttpConfig {
    HttpConfig {
        session_idle_timeout: Duration::from_secs(1),
        ..HttpConfig::default()
    }
}

/// Well past the 1 s idle timeout (which leaves a loaded machine room between calls).
const PAST_EXPIRY: Duration = Duration::from_secs(4);

#[tokio::test]
async fn reinitializes_after_expiry() {
    let (http, base) = serve(expiring()).await;
    let (tap, relay) = Tap::start(&base).await;
    let mut config = HttpClientConfig::new(format!("{relay}/mcp"));
    // An open GET stream would keep the session alive.
    config.open_get_stream = false;
    let client = connect_streamable(config).await.expect("handshake");
    assert_eq!(echo(&client, "before").await.unwrap(), "before");
    tokio::time::sleep(PAST_EXPIRY).await;
    assert_eq!(echo(&client, "after").await.unwrap(), "after");
    tokio::time::sleep(PAST_EXPIRY).await;
    assert_eq!(echo(&client, "again").await.unwrap(), "again");
    let initializes = tap.sent().matches("\"method\":\"initialize\"").count();
    assert_eq!(initializes, 3, "one handshake and two re-initializations");
    assert!(
        tap.received().contains("http/1.1 404"),
        "the server never expired it"
    );
    bounded("close", client.close()).await;
    bounded("shutdown", http.shutdown()).await;
}

#[tokio::test]
async fn expired_session_without_reinit_is_a_clear_404() {
    let (http, base) = serve(expiring()).await;
    let url = format!("{base}/mcp");
    let mut config = HttpClientConfig::new(&url);
    config.open_get_stream = false;
    config.reinit_on_expiry = false;
    let client = connect_streamable(config).await.expect("handshake");
    assert_eq!(echo(&client, "before").await.unwrap(), "before");
    tokio::time::sleep(PAST_EXPIRY).await;
    let err = echo(&client, "after").await.expect_err("session expired");
    let message = err.to_string();
    assert!(message.contains("404"), "{message}");
    assert!(message.contains(&url), "{message}");
    bounded("close", client.close()).await;
    bounded("shutdown", http.shutdown()).await;
}

#[tokio::test]
async fn body_over_the_limit_is_413() {
    let config = HttpConfig {
        max_body_size: 16 * 1024,
        ..HttpConfig::default()
    };
    let (http, base) = serve(config).await;
    let client = connect_streamable(HttpClientConfig::new(format!("{base}/mcp")))
        .await
        .expect("handshake");
    let huge = "x".repeat(64 * 1024);
    let err = echo(&client, &huge).await.expect_err("too large");
    let message = err.to_string();
    assert!(message.contains("413"), "{message}");
    assert!(message.contains("POST"), "{message}");
    // The session is still usable with a small body.
    assert_eq!(echo(&client, "small").await.unwrap(), "small");
    bounded("close", client.close()).await;
    bounded("shutdown", http.shutdown()).await;
}

#[tokio::test]
async fn foreign_origin_and_host_are_403() {
    let (http, base) = serve(HttpConfig::default()).await;
    let url = format!("{base}/mcp");
    for (name, value) in [("Origin", "http://evil.example"), ("Host", "evil.example")] {
        let config = HttpClientConfig::new(&url).header(name, value);
        let err = connect_streamable(config)
            .await
            .err()
            .unwrap_or_else(|| panic!("{name}: {value} was accepted"));
        let message = err.to_string();
        assert!(message.contains("403"), "{name}: {message}");
    }
    // Ours is fine.
    let config = HttpClientConfig::new(&url).header("Origin", base.as_str());
    let client = connect_streamable(config).await.expect("own origin");
    assert_eq!(echo(&client, "ok").await.unwrap(), "ok");
    bounded("close", client.close()).await;
    bounded("shutdown", http.shutdown()).await;
}

#[tokio::test]
async fn refused_get_stream_is_no_stream_not_an_error() {
    let config = HttpConfig {
        standalone_stream: false,
        allow_delete: false,
        ..HttpConfig::default()
    };
    let (http, base) = serve(config).await;
    let (tap, relay) = Tap::start(&base).await;
    // The client asks for the GET stream (default) and gets 405.
    let client = connect_streamable(HttpClientConfig::new(format!("{relay}/mcp")))
        .await
        .expect("handshake");
    exercise(&client).await;
    let result = bounded("tools/call work", client.call_tool("work", json!({})))
        .await
        .expect("work");
    assert_eq!(text(&result), "worked");
    // DELETE refused with 405 on close: closing still completes.
    bounded("close", client.close()).await;
    assert!(
        tap.sent().contains("get /mcp http/1.1"),
        "no GET stream was asked for"
    );
    assert!(tap.received().contains("http/1.1 405"), "no 405 was sent");
    bounded("shutdown", http.shutdown()).await;
}
