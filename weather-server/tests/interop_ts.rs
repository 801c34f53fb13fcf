//! The official TypeScript SDK client (`@modelcontextprotocol/sdk`, from
//! `scripts/interop-setup.sh`) calls `get_weather` over stdio and over Streamable HTTP.
//! Without `MCP_INTEROP_NODE_MODULES` the tests skip, unless `MCP_INTEROP_REQUIRED=1`.

mod common;

use std::path::{Path, PathBuf};

use common::{drive_node, node_modules_with, HttpServer, BIN, CLOCK};

fn node_modules() -> Option<PathBuf> {
    node_modules_with("@modelcontextprotocol/sdk")
}

/// Runs `tests/interop/ts_client.mjs` with `args`; returns its output after checking it.
async fn drive(node_modules: &Path, args: &[&str]) -> String {
    drive_node("ts_client.mjs", node_modules, args, "OK").await
}

#[tokio::test]
async fn typescript_client_over_stdio() {
    let Some(modules) = node_modules() else {
        return;
    };
    let out = drive(&modules, &["stdio", BIN, "--clock", CLOCK]).await;
    assert!(out.contains("Shenzhen: thunderstorms"), "{out}");
}

async fn over_http(extra: &[&str]) {
    let Some(modules) = node_modules() else {
        return;
    };
    let server = HttpServer::start(extra).await;
    let out = drive(&modules, &["http", &server.url("/mcp")]).await;
    assert!(out.contains("Shenzhen: thunderstorms"), "{out}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_client_over_streamable_http() {
    over_http(&[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_client_over_stateless_http() {
    over_http(&["--stateless"]).await;
}
