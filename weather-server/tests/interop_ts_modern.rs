//! The TypeScript SDK v2 client (`@modelcontextprotocol/client` 2.4.0, from
//! `scripts/interop-setup.sh`) against weather-server in the 2026-07-28 era, in `auto` mode
//! (it probes `server/discover`) and pinned to 2026-07-28: list, call, an elicitation answered
//! through MRTR, resources, a prompt and a completion (`tests/interop/ts_v2_client.mjs`).
//! Without `MCP_INTEROP_NODE_MODULES` the tests skip, unless `MCP_INTEROP_REQUIRED=1`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{bounded, BIN, CLOCK};
use tokio::process::Command;

fn node_modules() -> Option<PathBuf> {
    match std::env::var_os("MCP_INTEROP_NODE_MODULES") {
        Some(path)
            if Path::new(&path)
                .join("@modelcontextprotocol/client")
                .exists() =>
        {
            Some(PathBuf::from(path))
        }
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!("the TypeScript SDK v2 is not installed but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh");
            }
            eprintln!("skipped: MCP_INTEROP_NODE_MODULES has no @modelcontextprotocol/client; run `eval \"$(scripts/interop-setup.sh)\"` to enable");
            None
        }
    }
}

/// Runs the v2 driver with `args` and returns what it printed after checking it said `OK`.
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
        output.status.success() && stdout.starts_with("OK 2026-07-28"),
        "driver failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
        output.status
    );
    eprintln!("{}", stdout.trim());
    stdout
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
