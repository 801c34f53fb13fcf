//! The official TypeScript SDK client (`@modelcontextprotocol/sdk`, from
//! `scripts/interop-setup.sh`) calls `get_weather` over stdio and over Streamable HTTP.
//! Without `MCP_INTEROP_NODE_MODULES` the tests skip, unless `MCP_INTEROP_REQUIRED=1`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{bounded, HttpServer, BIN, CLOCK};
use tokio::process::Command;

fn node_modules() -> Option<PathBuf> {
    match std::env::var_os("MCP_INTEROP_NODE_MODULES") {
        Some(path) if Path::new(&path).exists() => Some(PathBuf::from(path)),
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!("MCP_INTEROP_NODE_MODULES is not set (or does not exist) but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh");
            }
            eprintln!("skipped: MCP_INTEROP_NODE_MODULES is not set; run `eval \"$(scripts/interop-setup.sh)\"` to enable");
            None
        }
    }
}

/// Runs the driver with `args` and checks it printed `OK`.
async fn drive(node_modules: &Path, args: &[&str]) -> String {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/ts_client.mjs");
    let mut command = Command::new("node");
    command
        .arg(driver)
        .arg(node_modules)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let output = bounded(60, "the TypeScript driver", command.output())
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
    stdout
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
