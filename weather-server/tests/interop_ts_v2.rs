//! The TypeScript SDK v2 client (`@modelcontextprotocol/client` 2.4.0, from
//! `scripts/interop-setup.sh`) in `auto` mode and pinned to 2026-07-28 against the weather server
//! over stdio and Streamable HTTP (stateful and stateless): lists, calls, reads, gets a prompt and
//! completes, all in the 2026-07-28 era. Without `MCP_INTEROP_NODE_MODULES` the tests skip,
//! unless `MCP_INTEROP_REQUIRED=1`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{bounded, HttpServer, BIN, CLOCK};
use tokio::process::Command;

/// The installed node_modules holding the v2 client, or `None` (the test skips).
fn node_modules() -> Option<PathBuf> {
    match std::env::var_os("MCP_INTEROP_NODE_MODULES") {
        Some(path) if Path::new(&path).join("@modelcontextprotocol/client").exists() => {
            Some(PathBuf::from(path))
        }
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!("MCP_INTEROP_NODE_MODULES does not hold @modelcontextprotocol/client but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh");
            }
            eprintln!("skipped: MCP_INTEROP_NODE_MODULES is not set; run `eval \"$(scripts/interop-setup.sh)\"` to enable");
            None
        }
    }
}

/// Runs the v2 driver with `args` and checks it printed `OK` in the 2026-07-28 era.
async fn drive(node_modules: &Path, args: &[&str]) -> String {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/ts_v2_client.mjs");
    let mut command = Command::new("node");
    command
        .arg(driver)
        .arg(node_modules)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let output = bounded(60, "the TypeScript v2 driver", command.output())
        .await
        .expect("node starts");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.starts_with("OK"),
        "driver failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
        output.status
    );
    eprintln!("{}", stdout.trim());
    assert!(
        stdout.contains("era=modern version=2026-07-28"),
        "{stdout}"
    );
    assert!(stdout.contains("thunderstorms"), "{stdout}");
    stdout
}

async fn over_stdio(negotiation: &str) {
    let Some(modules) = node_modules() else {
        return;
    };
    drive(&modules, &[negotiation, "stdio", BIN, "--clock", CLOCK]).await;
}

async fn over_http(negotiation: &str, extra: &[&str]) {
    let Some(modules) = node_modules() else {
        return;
    };
    let server = HttpServer::start(extra).await;
    drive(&modules, &[negotiation, "http", &server.url("/mcp")]).await;
    server.stop().await;
}

#[tokio::test]
async fn typescript_v2_client_auto_over_stdio() {
    over_stdio("auto").await;
}

#[tokio::test]
async fn typescript_v2_client_pinned_over_stdio() {
    over_stdio("pin").await;
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
