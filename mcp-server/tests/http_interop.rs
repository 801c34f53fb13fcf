//! Interop: the official TypeScript SDK client (`@modelcontextprotocol/sdk` 1.32.2) against our
//! server, over Streamable HTTP (with and without the server closing streams early) and over
//! the HTTP+SSE transport; and the official Python SDK client over both. Needs
//! `scripts/interop-setup.sh`; skipped when `MCP_INTEROP_NODE_MODULES` / `MCP_INTEROP_PYTHON`
//! is unset unless `MCP_INTEROP_REQUIRED=1`.

mod http_common;

use std::path::PathBuf;
use std::time::Duration;

use http_common::*;
use mcp_server::http::HttpConfig;

fn node_modules() -> Option<String> {
    interop_env("MCP_INTEROP_NODE_MODULES")
}

async fn run_driver(node_modules: &str, mode: &str, url: &str) -> serde_json::Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/http_ts_client.mjs");
    let mut command = tokio::process::Command::new("node");
    command
        .arg(script)
        .arg(mode)
        .arg(url)
        .env("MCP_INTEROP_NODE_MODULES", node_modules);
    run_driver_command(command, mode).await
}

async fn run_python(python: &str, mode: &str, url: &str) -> serde_json::Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/http_py_client.py");
    let mut command = tokio::process::Command::new(python);
    command.arg(script).arg(mode).arg(url);
    run_driver_command(command, mode).await
}

#[tokio::test]
async fn ts_sdk_streamable_http_client() {
    let Some(nm) = node_modules() else { return };
    let server = start(HttpConfig::default()).await;
    let url = format!("http://{}/mcp", server.local_addr());
    let out = run_driver(&nm, "streamable", &url).await;
    assert_eq!(out["version"], "2025-11-25", "{out}");
    assert_eq!(out["sessionId"].as_str().map(str::len), Some(32), "{out}");
    assert_eq!(out["progress"], serde_json::json!([1, 2, 3]));
    // The client ended its session with DELETE.
    assert_eq!(server.session_count(), 0);
    server.shutdown().await;
}

#[tokio::test]
async fn ts_sdk_streamable_http_client_resumes_closed_streams() {
    let Some(nm) = node_modules() else { return };
    let server = start(HttpConfig {
        sse_close_after: Some(Duration::from_millis(150)),
        sse_retry: Some(Duration::from_millis(100)),
        ..HttpConfig::default()
    })
    .await;
    let url = format!("http://{}/mcp", server.local_addr());
    let out = run_driver(&nm, "polling", &url).await;
    assert_eq!(out["resumed"], true, "{out}");
    server.shutdown().await;
}

#[tokio::test]
async fn ts_sdk_http_sse_client() {
    let Some(nm) = node_modules() else { return };
    let server = start(HttpConfig::default()).await;
    let url = format!("http://{}/sse", server.local_addr());
    let out = run_driver(&nm, "sse", &url).await;
    assert!(
        out["tools"].as_array().is_some_and(|t| !t.is_empty()),
        "{out}"
    );
    assert!(out["logs"].as_u64().is_some_and(|n| n >= 3), "{out}");
    server.shutdown().await;
}

#[tokio::test]
async fn python_sdk_streamable_http_client() {
    let Some(python) = interop_env("MCP_INTEROP_PYTHON") else {
        return;
    };
    let server = start(HttpConfig::default()).await;
    let url = format!("http://{}/mcp", server.local_addr());
    let out = run_python(&python, "streamable", &url).await;
    assert_eq!(out["progress"], serde_json::json!([1.0, 2.0, 3.0]), "{out}");
    assert_eq!(out["sessionId"].as_str().map(str::len), Some(32), "{out}");
    server.shutdown().await;
}

#[tokio::test]
async fn python_sdk_http_sse_client() {
    let Some(python) = interop_env("MCP_INTEROP_PYTHON") else {
        return;
    };
    let server = start(HttpConfig::default()).await;
    let url = format!("http://{}/sse", server.local_addr());
    let out = run_python(&python, "sse", &url).await;
    assert!(
        out["tools"].as_array().is_some_and(|t| !t.is_empty()),
        "{out}"
    );
    server.shutdown().await;
}
