//! Interop with the official SDKs: the TypeScript client and the Python client each spawn the
//! test server over stdio, list and call tools, read resources, get prompts, and receive
//! progress and logging. Peers come from `scripts/interop-setup.sh`; without them the tests
//! skip, unless `MCP_INTEROP_REQUIRED=1`.

mod fixture;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

const LIMIT: Duration = Duration::from_secs(60);

fn peer_path(var: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(path) if Path::new(&path).exists() => Some(PathBuf::from(path)),
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!("{var} is not set (or does not exist) but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh");
            }
            eprintln!(
                "skipped: {var} is not set; run `eval \"$(scripts/interop-setup.sh)\"` to enable"
            );
            None
        }
    }
}

fn driver(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(name)
}

async fn run(mut command: Command) -> String {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let output = tokio::time::timeout(LIMIT, command.output())
        .await
        .expect("the interop driver finished in time")
        .expect("the interop driver starts");
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
async fn typescript_sdk_client() {
    let Some(node_modules) = peer_path("MCP_INTEROP_NODE_MODULES") else {
        return;
    };
    let mut command = Command::new("node");
    command
        .arg(driver("ts_client.mjs"))
        .arg(node_modules)
        .arg(fixture::test_server().await);
    run(command).await;
}

#[tokio::test]
async fn python_sdk_client() {
    let Some(python) = peer_path("MCP_INTEROP_PYTHON") else {
        return;
    };
    let mut command = Command::new(python);
    command
        .arg(driver("py_client.py"))
        .arg(fixture::test_server().await);
    run(command).await;
}
