//! The TypeScript SDK v2 client (`@modelcontextprotocol/client` 2.4.0, from
//! `scripts/interop-setup.sh`) against weather-server in the 2026-07-28 era, in `auto` mode
//! (it probes `server/discover`) and pinned to 2026-07-28: list, call, an elicitation answered
//! through MRTR, resources, a prompt and a completion (`tests/interop/ts_v2_client.mjs`), over
//! stdio and over Streamable HTTP (stateful and stateless servers alike serve it statelessly).
//! Without `MCP_INTEROP_NODE_MODULES` the tests skip, unless `MCP_INTEROP_REQUIRED=1`.

mod common;

use std::path::{Path, PathBuf};

use common::{drive_node, node_modules_with, HttpServer, BIN, CLOCK};

fn node_modules() -> Option<PathBuf> {
    node_modules_with("@modelcontextprotocol/client")
}

/// Runs `tests/interop/ts_v2_client.mjs` with `args`; returns its output after checking it.
async fn drive(node_modules: &Path, args: &[&str]) -> String {
    drive_node("ts_v2_client.mjs", node_modules, args, "OK 2026-07-28").await
}

async fn over_stdio(negotiation: &str) {
    let Some(modules) = node_modules() else {
        return;
    };
    let out = drive(&modules, &[negotiation, "stdio", BIN, "--clock", CLOCK]).await;
    assert!(out.contains("Springfield, Missouri:"), "{out}");
}

#[tokio::test]
async fn typescript_v2_client_auto_over_stdio() {
    over_stdio("auto").await;
}

#[tokio::test]
async fn typescript_v2_client_pinned_over_stdio() {
    over_stdio("pin").await;
}

async fn over_http(negotiation: &str, extra: &[&str]) {
    let Some(modules) = node_modules() else {
        return;
    };
    let server = HttpServer::start(extra).await;
    let out = drive(&modules, &[negotiation, "http", &server.url("/mcp")]).await;
    assert!(out.contains("Springfield, Missouri:"), "{out}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v2_client_auto_over_streamable_http() {
    over_http("auto", &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v2_client_pinned_over_streamable_http() {
    over_http("pin", &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_v2_client_pinned_over_stateless_http() {
    over_http("pin", &["--stateless"]).await;
}
