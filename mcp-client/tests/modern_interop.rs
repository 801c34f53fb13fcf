//! Our client in the 2026-07-28 era against real peers: the TypeScript SDK v2 server
//! (`@modelcontextprotocol/server` 2.4.0, `tests/interop/modern_ts_server.cjs`) and the Python
//! `mcp` 2.3.0 server (`tests/interop/modern_py_server.py`), over stdio and Streamable HTTP.
//! The TypeScript server refuses `initialize` (stdio `legacy: "reject"`, HTTP
//! `legacy: "reject"`), so only the modern path can pass against it.

#[path = "interop/hub_support.rs"]
mod hub_support;
#[path = "interop/http_support.rs"]
mod support;

use std::path::{Path, PathBuf};

use mcp_client::http::{self, HttpClientConfig};
use mcp_client::{Client, ClientError, ClientOptions, Era, Negotiation, StdioServerConfig};
use mcp_proto::schema::{CallToolResult, ElicitResult, ReadResourceResult};
use mcp_proto::ProtocolVersion;
use serde_json::json;
use support::*;

/// Client options whose elicitation handler accepts with `confirm: true`.
fn options(negotiation: Negotiation) -> ClientOptions {
    ClientOptions::new()
        .with_name("modern")
        .with_negotiation(negotiation)
        .with_elicitation(|params| async move {
            assert!(params.message().contains("Really"), "{params:?}");
            let mut content = serde_json::Map::new();
            content.insert("confirm".into(), json!(true));
            Ok(ElicitResult::accept(Some(content)))
        })
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or_default()
        .to_owned()
}

/// Calls tool `name` (bounded) and returns the text of its result; panics on failure.
async fn call_text<C: ToolCaller>(client: &C, name: &str, args: serde_json::Value) -> String {
    let result = bounded(10, name, client.call(name, args)).await;
    text(&result.unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// A client (or a reference to one): something that calls tools.
trait ToolCaller {
    async fn call(&self, name: &str, args: serde_json::Value) -> Result<CallToolResult, String>;
}

impl<T: ToolCaller> ToolCaller for &T {
    async fn call(&self, name: &str, args: serde_json::Value) -> Result<CallToolResult, String> {
        (**self).call(name, args).await
    }
}

impl ToolCaller for Client {
    async fn call(&self, name: &str, args: serde_json::Value) -> Result<CallToolResult, String> {
        self.call_tool(name, args).await.map_err(|e| e.to_string())
    }
}

fn resource_text(result: &ReadResourceResult) -> String {
    serde_json::to_value(result).expect("json")["contents"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The TypeScript fixture on stdio in `mode` (`stdio` or `stdio-modern`).
fn ts_stdio(modules: &Path, mode: &str) -> StdioServerConfig {
    let script = script("modern_ts_server.cjs");
    StdioServerConfig::new("node", [script.to_string_lossy().into_owned(), mode.into()])
        .with_env("MCP_INTEROP_NODE_MODULES", modules.to_string_lossy())
}

fn py_stdio(python: &Path) -> StdioServerConfig {
    let script = script("modern_py_server.py");
    StdioServerConfig::new(
        python.to_string_lossy(),
        [script.to_string_lossy().into_owned(), "stdio".into()],
    )
}

/// The whole modern tour: era and version, lists, a call, an elicitation answered through the
/// `input_required` loop, a prompt and a resource. `server` is the expected server name.
async fn tour(client: &Client, server: &str) {
    assert_eq!(client.era(), Era::Modern);
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(client.server_info().name, server);
    let handshake = client.handshake();
    let discover = handshake.discover.as_ref().expect("a discover answer");
    assert!(discover
        .supported_versions
        .iter()
        .any(|v| v == "2026-07-28"));

    let tools = bounded(10, "tools/list", client.list_tools())
        .await
        .expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(
        names.contains(&"echo") && names.contains(&"confirm"),
        "{names:?}"
    );
    assert_eq!(
        call_text(&client, "echo", json!({"message": "hi"})).await,
        "echo: hi"
    );
    assert_eq!(
        call_text(&client, "confirm", json!({"action": "deploy"})).await,
        "deploy: done"
    );

    let prompts = bounded(10, "prompts/list", client.list_prompts())
        .await
        .expect("prompts");
    assert!(prompts.iter().any(|p| p.name == "greet"));
    let prompt = bounded(10, "greet", client.get_prompt("greet", [("name", "Ada")]))
        .await
        .expect("prompt");
    let prompt = serde_json::to_value(&prompt).expect("json");
    assert!(
        prompt["messages"][0]["content"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("Hello, Ada!")),
        "{prompt}"
    );
    let resources = bounded(10, "resources/list", client.list_resources())
        .await
        .expect("resources");
    assert!(resources.iter().any(|r| r.uri == "note://hello"));
    let read = bounded(10, "read", client.read_resource("note://hello"))
        .await
        .expect("read");
    assert!(resource_text(&read).starts_with("hello from"), "{read:?}");
    // `ping` and `logging/setLevel` do not exist in this era; the client maps them.
    bounded(10, "ping", client.ping()).await.expect("ping");
    client
        .set_logging_level(mcp_proto::schema::LoggingLevel::Info)
        .await
        .expect("log level");
    bounded(
        10,
        "echo after setLevel",
        client.call_tool("echo", json!({"message": "x"})),
    )
    .await
    .expect("echo with a log level");
}

fn node_modules() -> Option<PathBuf> {
    interop_var("MCP_INTEROP_NODE_MODULES")
}

fn python2() -> Option<PathBuf> {
    interop_var("MCP_INTEROP_PYTHON2")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_stdio_auto_finds_the_modern_era_of_a_server_that_refuses_initialize() {
    let Some(modules) = node_modules() else {
        return;
    };
    let client = spawn(ts_stdio(&modules, "stdio-modern"), Negotiation::Auto)
        .await
        .expect("auto connects");
    tour(&client, "ts-modern").await;
    bounded(10, "close", client.close()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_stdio_pinned_to_2026_07_28() {
    let Some(modules) = node_modules() else {
        return;
    };
    let pin = Negotiation::Pin(ProtocolVersion::V2026_07_28);
    let client = spawn(ts_stdio(&modules, "stdio"), pin)
        .await
        .expect("pinned connects");
    tour(&client, "ts-modern").await;
    bounded(10, "close", client.close()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_stdio_legacy_mode_is_refused_by_a_modern_only_server() {
    let Some(modules) = node_modules() else {
        return;
    };
    let err = spawn(ts_stdio(&modules, "stdio-modern"), Negotiation::Legacy)
        .await
        .expect_err("initialize is refused");
    let code = err.rpc_error().map(|e| e.code);
    assert_eq!(code, Some(-32022), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_stdio_dual_era_server_still_speaks_2025_in_legacy_mode() {
    let Some(modules) = node_modules() else {
        return;
    };
    let client = spawn(ts_stdio(&modules, "stdio"), Negotiation::Legacy)
        .await
        .expect("legacy connects");
    assert_eq!(client.era(), Era::Legacy);
    assert_eq!(
        call_text(&client, "echo", json!({"message": "old"})).await,
        "echo: old"
    );
    bounded(10, "close", client.close()).await;
}

/// The TypeScript fixture over HTTP (modern only).
async fn ts_http(modules: &Path) -> ServerChild {
    let node = PathBuf::from("node");
    let script = script("modern_ts_server.cjs");
    let script = script.to_string_lossy().into_owned();
    ServerChild::start(
        &node,
        &[&script, "http"],
        &[("MCP_INTEROP_NODE_MODULES", modules)],
    )
    .await
}

async fn http_client(url: String, negotiation: Negotiation) -> Result<Client, ClientError> {
    let transport = http::connect_auto(HttpClientConfig::new(url))
        .await
        .expect("a valid URL");
    bounded(
        30,
        "connect",
        Client::connect(transport, options(negotiation)),
    )
    .await
}

/// Starts `config` and connects with `negotiation` (bounded).
async fn spawn(config: StdioServerConfig, negotiation: Negotiation) -> Result<Client, ClientError> {
    bounded(
        30,
        "connect",
        Client::spawn_stdio(config, options(negotiation)),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_http_auto_finds_the_modern_era_and_mirrors_x_mcp_header() {
    let Some(modules) = node_modules() else {
        return;
    };
    let server = ts_http(&modules).await;
    let client = http_client(server.url("/mcp"), Negotiation::Auto)
        .await
        .expect("auto connects");
    tour(&client, "ts-modern").await;
    // `region` is annotated `x-mcp-header: Region`; the server checks the header.
    assert_eq!(
        call_text(
            &client,
            "regional",
            json!({"region": "eu-west", "text": "hi"})
        )
        .await,
        "eu-west/hi"
    );
    assert_eq!(
        call_text(
            &client,
            "regional",
            json!({"region": "Zürich", "text": "grüezi"})
        )
        .await,
        "Zürich/grüezi"
    );
    bounded(10, "close", client.close()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_http_pinned_and_legacy_modes() {
    let Some(modules) = node_modules() else {
        return;
    };
    let server = ts_http(&modules).await;
    let pin = Negotiation::Pin(ProtocolVersion::V2026_07_28);
    let client = http_client(server.url("/mcp"), pin)
        .await
        .expect("pinned connects");
    tour(&client, "ts-modern").await;
    // A tools/call before any tools/list on a fresh client: the header-mismatch retry lists
    // the tools and mirrors the header.
    let fresh = http_client(server.url("/mcp"), pin)
        .await
        .expect("pinned connects");
    assert_eq!(
        call_text(&fresh, "regional", json!({"region": "ap", "text": "x"})).await,
        "ap/x"
    );
    let legacy = http_client(server.url("/mcp"), Negotiation::Legacy)
        .await
        .expect_err("a modern-only server refuses initialize");
    // The server answers `initialize` with 400 (its -32022 body): a transport failure here.
    assert!(legacy.to_string().contains("initialize"), "{legacy}");
    bounded(10, "close", client.close()).await;
    bounded(10, "close", fresh.close()).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn py_stdio_auto_and_pinned() {
    let Some(python) = python2() else {
        return;
    };
    for negotiation in [
        Negotiation::Auto,
        Negotiation::Pin(ProtocolVersion::V2026_07_28),
    ] {
        let client = spawn(py_stdio(&python), negotiation)
            .await
            .expect("connects");
        tour(&client, "py-modern").await;
        bounded(10, "close", client.close()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn py_http_auto_and_pinned() {
    let Some(python) = python2() else {
        return;
    };
    let script = script("modern_py_server.py");
    let script = script.to_string_lossy().into_owned();
    let server = ServerChild::start(&python, &[&script, "http"], &[]).await;
    for negotiation in [
        Negotiation::Auto,
        Negotiation::Pin(ProtocolVersion::V2026_07_28),
    ] {
        let client = http_client(server.url("/mcp"), negotiation)
            .await
            .expect("connects");
        tour(&client, "py-modern").await;
        bounded(10, "close", client.close()).await;
    }
    server.stop().await;
}

/// Waits (bounded) for the first event `pick` accepts.
async fn next_event<T>(
    rx: &mut tokio::sync::broadcast::Receiver<mcp_client::ServerEvent>,
    what: &str,
    pick: impl Fn(&mcp_client::ServerEvent) -> Option<T>,
) -> T {
    bounded(10, what, async {
        loop {
            match rx.recv().await {
                Ok(event) => {
                    if let Some(found) = pick(&event) {
                        return found;
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("events ended: {e}"),
            }
        }
    })
    .await
}

fn acknowledged(event: &mcp_client::ServerEvent) -> Option<()> {
    matches!(event, mcp_client::ServerEvent::Other { method, .. }
        if method == "notifications/subscriptions/acknowledged")
    .then_some(())
}

/// `subscriptions/listen` behind `notifications()` and `subscribe()`: a tool list change and a
/// resource update arrive as the 2025 era's events.
async fn listen_tour(client: &Client) {
    let mut rx = client.notifications();
    next_event(&mut rx, "the listen acknowledgement", acknowledged).await;
    client.subscribe("note://hello").await.expect("subscribe");
    next_event(&mut rx, "the second acknowledgement", acknowledged).await;
    bounded(10, "grow", client.call_tool("grow", json!({})))
        .await
        .expect("grow");
    next_event(&mut rx, "tools/list_changed", |e| {
        matches!(e, mcp_client::ServerEvent::ToolsListChanged).then_some(())
    })
    .await;
    let uri = next_event(&mut rx, "resources/updated", |e| match e {
        mcp_client::ServerEvent::ResourceUpdated(p) => Some(p.uri.clone()),
        _ => None,
    })
    .await;
    assert_eq!(uri, "note://hello");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_stdio_listen_delivers_list_changes_and_updates() {
    let Some(modules) = node_modules() else {
        return;
    };
    let client = spawn(ts_stdio(&modules, "stdio-modern"), Negotiation::Auto)
        .await
        .expect("connects");
    listen_tour(&client).await;
    let tools = bounded(10, "tools/list", client.list_tools())
        .await
        .expect("tools");
    assert!(tools.iter().any(|t| t.name == "extra"), "{tools:?}");
    bounded(10, "close", client.close()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_http_listen_delivers_list_changes_and_updates() {
    let Some(modules) = node_modules() else {
        return;
    };
    let server = ts_http(&modules).await;
    let client = http_client(server.url("/mcp"), Negotiation::Auto)
        .await
        .expect("connects");
    listen_tour(&client).await;
    bounded(10, "close", client.close()).await;
    server.stop().await;
}

/// Auto over HTTP against 2025-era servers (TypeScript SDK 1.x with sessions, and its legacy
/// SSE endpoint; Python `mcp` 1.x): the modern probe is refused without a modern error body, so
/// the client falls back to `initialize` and works as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_auto_falls_back_to_2025_servers() {
    let (Some(modules), Some(python1)) = (node_modules(), interop_var("MCP_INTEROP_PYTHON")) else {
        return;
    };
    let ts = script("http_ts_server.cjs").to_string_lossy().into_owned();
    let ts = ServerChild::start(
        &PathBuf::from("node"),
        &[&ts],
        &[("MCP_INTEROP_NODE_MODULES", &modules)],
    )
    .await;
    let py = script("http_py_server.py").to_string_lossy().into_owned();
    let py = ServerChild::start(&python1, &[&py, "streamable-http"], &[]).await;
    for url in [ts.url("/mcp"), ts.url("/sse"), py.url("/mcp")] {
        let client = http_client(url.clone(), Negotiation::Auto)
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        assert_eq!(client.era(), Era::Legacy, "{url}");
        assert_eq!(
            call_text(&client, "add", json!({"a": 20, "b": 22})).await,
            "42",
            "{url}"
        );
        bounded(10, "close", client.close()).await;
    }
    // The HTTP+SSE transport itself refuses the 2026-07-28 probe, so auto takes `initialize`.
    let sse = http::HttpSseTransport::connect(HttpClientConfig::new(ts.url("/sse")))
        .await
        .expect("the SSE endpoint");
    let client = bounded(
        30,
        "connect",
        Client::connect(sse, options(Negotiation::Auto)),
    )
    .await
    .expect("connects over HTTP+SSE");
    assert_eq!(client.era(), Era::Legacy);
    assert_eq!(
        call_text(&client, "add", json!({"a": 1, "b": 2})).await,
        "3"
    );
    bounded(10, "close", client.close()).await;
    ts.stop().await;
    py.stop().await;
}
