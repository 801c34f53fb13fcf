//! Helpers the HTTP client tests share (included with `#[path]`): a peer over a transport with a
//! trivial handler, the handshake and tool calls through `request_raw`, interop servers started
//! as children that are killed at the end, and a bound on every wait.

#![allow(dead_code)]

use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_proto::jsonrpc::{self, ErrorObject, Notification, RawJson, Request};
use mcp_proto::peer::{
    Handler, Peer, PeerError, PeerHandle, PeerOptions, RequestContext, RequestOptions, Transport,
};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// A client-side handler: answers `ping`, records notifications.
#[derive(Default)]
pub struct TestClient {
    pub notifications: Mutex<Vec<Notification>>,
}

impl Handler for TestClient {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<RawJson, ErrorObject> {
        match request.method.as_str() {
            "ping" => Ok(jsonrpc::empty_object()),
            "roots/list" => Ok(jsonrpc::raw_json(r#"{"roots":[]}"#)),
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    fn handle_notification(&self, notification: Notification, _peer: &PeerHandle) {
        self.notifications
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(notification);
    }
}

/// Starts a client peer over `transport` with a 20 s default timeout.
pub fn start<T: Transport>(transport: T) -> (PeerHandle, Arc<TestClient>) {
    let handler = Arc::new(TestClient::default());
    let options = PeerOptions {
        name: "http-test-client".into(),
        reply_to_invalid: false,
        default_timeout: Some(Duration::from_secs(20)),
        ..PeerOptions::default()
    };
    (Peer::start(transport, handler.clone(), options), handler)
}

/// The params of our `initialize`.
pub fn initialize_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": { "roots": { "listChanged": false } },
        "clientInfo": { "name": "mcp-rs-http-test", "version": "0.1.0" }
    })
}

/// Sends a raw request and parses the result as JSON.
pub async fn request(peer: &PeerHandle, method: &str, params: Value) -> Result<Value, PeerError> {
    let raw = jsonrpc::to_raw(&params).expect("params serialize");
    let result = peer
        .request_raw(method, Some(raw), RequestOptions::default())
        .await?;
    Ok(serde_json::from_str(result.get()).expect("result is JSON"))
}

/// `initialize` + `notifications/initialized`; returns the initialize result.
pub async fn handshake(peer: &PeerHandle, version: &str) -> Value {
    let result = bounded(
        15,
        "initialize",
        request(peer, "initialize", initialize_params(version)),
    )
    .await
    .expect("initialize succeeds");
    peer.notify_raw("notifications/initialized", None, None)
        .await
        .expect("initialized notification queued");
    result
}

/// `tools/call` of `name` with `arguments`; returns the result.
pub async fn call_tool(
    peer: &PeerHandle,
    name: &str,
    arguments: Value,
) -> Result<Value, PeerError> {
    request(
        peer,
        "tools/call",
        json!({ "name": name, "arguments": arguments }),
    )
    .await
}

/// The text of the first content block of a tool result.
pub fn first_text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The names of the tools in a `tools/list` result.
pub fn tool_names(result: &Value) -> Vec<String> {
    result["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Awaits `f`, failing the test if it takes longer than `secs` seconds.
pub async fn bounded<F: Future>(secs: u64, what: &str, f: F) -> F::Output {
    match tokio::time::timeout(Duration::from_secs(secs), f).await {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish within {secs}s"),
    }
}

/// Reads an interop variable; `None` (with a note) when unset, unless `MCP_INTEROP_REQUIRED=1`.
pub fn interop_var(name: &str) -> Option<PathBuf> {
    match std::env::var_os(name) {
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!(
                    "{name} is not set but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh"
                );
            }
            eprintln!("skipped: {name} is not set (eval \"$(scripts/interop-setup.sh)\")");
            None
        }
    }
}

/// A script in mcp-client's `tests/interop` (also when included by mcp-hub's tests).
pub fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp-client/tests/interop")
        .join(name)
}

/// A server child process, killed when dropped, and the port it listens on.
pub struct ServerChild {
    pub child: Child,
    pub port: u16,
}

impl ServerChild {
    /// Starts `program args…` and waits (up to 30 s) for a `LISTENING <port>` line on stdout.
    pub async fn start(
        program: &std::path::Path,
        args: &[&str],
        envs: &[(&str, &std::path::Path)],
    ) -> ServerChild {
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        for (k, v) in envs {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("server starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        let port = bounded(30, "the server's LISTENING line", async {
            loop {
                let line = lines
                    .next_line()
                    .await
                    .expect("server stdout readable")
                    .expect("server exited before listening");
                if let Some(port) = line.trim().strip_prefix("LISTENING ") {
                    return port.parse::<u16>().expect("a port number");
                }
            }
        })
        .await;
        // Keep draining stdout so the child never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        ServerChild { child, port }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Kills the child and waits for it (bounded).
    pub async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
    }
}
