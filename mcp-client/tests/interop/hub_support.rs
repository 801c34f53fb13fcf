//! What the hub tests (and, through mcp-cli's `tests/common`, the CLI tests) share: the
//! `weather-server` binary (built on demand) and Cline config entries around it.
//!
//! An integration test cannot depend on another crate's binary, so the first test that needs
//! `weather-server` runs `cargo build -p weather-server` (same profile, same target folder;
//! bounded) when `target/<profile>/weather-server` is missing.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The frozen clock that makes weather-server's answers fixed.
pub const CLOCK: &str = "2026-08-02T07:00:00Z";

/// The folder the workspace's binaries are in: `target/<profile>`, the parent of the `deps`
/// folder this test runs from.
pub fn profile_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("target/debug"))
}

/// The `weather-server` binary, built once if missing.
pub fn weather_server() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let path = profile_dir().join("weather-server");
            if !path.exists() {
                build_weather_server(&path);
            }
            path
        })
        .clone()
}

fn build_weather_server(path: &Path) {
    let dir = profile_dir();
    let profile = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "debug".into());
    let target_dir = dir.parent().map(Path::to_path_buf).unwrap_or_default();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["build", "-p", "weather-server", "--target-dir"])
        .arg(&target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if profile != "debug" {
        command.args(["--profile", &profile]);
    }
    let mut child = command.spawn().expect("run cargo build -p weather-server");
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                assert!(status.success(), "cargo build -p weather-server failed");
                break;
            }
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(200)),
            _ => {
                let _ = child.kill();
                panic!("cargo build -p weather-server took over 10 minutes; build it first");
            }
        }
    }
    assert!(path.exists(), "{} missing after the build", path.display());
}

/// A Cline `mcpServers` entry running weather-server with the frozen clock.
pub fn weather_entry() -> serde_json::Value {
    serde_json::json!({
        "type": "stdio",
        "command": weather_server().to_string_lossy(),
        "args": ["--clock", CLOCK],
        "autoApprove": ["get_weather"]
    })
}

/// An entry whose command does not exist: it must fail alone.
pub fn broken_entry() -> serde_json::Value {
    serde_json::json!({ "command": "/nonexistent/mcp-server-that-is-not-there", "args": [] })
}

/// `@modelcontextprotocol/server-everything` over stdio, when the interop peers are set up.
pub fn everything_entry(modules: &Path) -> serde_json::Value {
    let entry = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    serde_json::json!({ "command": "node", "args": [entry.to_string_lossy(), "stdio"] })
}

/// `@modelcontextprotocol/server-filesystem` on `dir`.
pub fn filesystem_entry(modules: &Path, dir: &Path) -> serde_json::Value {
    let entry = modules.join("@modelcontextprotocol/server-filesystem/dist/index.js");
    serde_json::json!({ "command": "node", "args": [entry.to_string_lossy(), dir.to_string_lossy()] })
}

/// The FastMCP fixture server.
pub fn fastmcp_entry(python: &Path) -> serde_json::Value {
    // Through mcp-client's folder, so the path holds when mcp-cli's tests include this file.
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp-client/tests/fixtures/fastmcp_server.py");
    serde_json::json!({ "command": python.to_string_lossy(), "args": [script.to_string_lossy()] })
}
