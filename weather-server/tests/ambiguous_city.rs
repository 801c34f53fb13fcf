//! "Springfield" means three cities: the weather tools ask the user which one through
//! elicitation, in both protocol eras, over the real binary's stdio with exact JSON lines:
//! a server-to-client `elicitation/create` under 2025-11-25, an `input_required` result and a
//! retry under 2026-07-28, and the choices as a tool error for a client that cannot ask.

mod common;

use std::process::Stdio;

use common::{bounded, frozen_args, BIN};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The weather server as a child, spoken to in JSON lines.
struct JsonLines {
    _child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl JsonLines {
    fn start() -> Self {
        let mut child = Command::new(BIN)
            .args(frozen_args(&[]))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("weather-server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        JsonLines {
            _child: child,
            stdin,
            stdout,
        }
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.stdin
            .write_all(line.as_bytes())
            .await
            .expect("the server reads");
    }

    /// The next message the server writes.
    async fn recv(&mut self) -> Value {
        let line = bounded(10, "a message from the server", self.stdout.next_line())
            .await
            .expect("stdout is readable")
            .expect("the server is still writing");
        serde_json::from_str(&line).expect("the server writes JSON lines")
    }

    /// The response to request `id`, skipping notifications.
    async fn response(&mut self, id: i64) -> Value {
        for _ in 0..100 {
            let m = self.recv().await;
            if m.get("id") == Some(&json!(id)) && m.get("method").is_none() {
                return m;
            }
        }
        panic!("no response to {id} within 100 messages")
    }
}

fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    })
}

#[tokio::test]
async fn modern_clients_answer_through_input_required() {
    let mut server = JsonLines::start();
    let params = |extra: Value| {
        let mut p = json!({
            "name": "get_weather",
            "arguments": {"city": "Springfield"},
            "_meta": modern_meta(json!({"elicitation": {}}))
        });
        if let (Some(p), Some(e)) = (p.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        p
    };
    server
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params(json!({}))}),
        )
        .await;
    let first = server.response(1).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], json!("input_required"), "{first}");
    let (key, asked) = result["inputRequests"]
        .as_object()
        .and_then(|m| m.iter().next())
        .expect("one input request");
    assert_eq!(asked["method"], json!("elicitation/create"));
    let choices = &asked["params"]["requestedSchema"]["properties"]["city"]["enum"];
    assert_eq!(choices.as_array().map(Vec::len), Some(3), "{asked}");

    let retry = params(json!({
        "inputResponses": {key.clone(): {"action": "accept", "content": {"city": "Springfield, Missouri"}}},
        "requestState": result["requestState"]
    }));
    server
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry}))
        .await;
    let done = server.response(2).await;
    assert_eq!(done["result"]["resultType"], json!("complete"), "{done}");
    assert_ne!(done["result"]["isError"], json!(true), "{done}");
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.starts_with("Springfield, Missouri:"), "{text}");
}

#[tokio::test]
async fn handshake_clients_get_an_elicitation_request() {
    let mut server = JsonLines::start();
    server
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "t", "version": "1"}
            }}),
        )
        .await;
    server.response(1).await;
    server
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    server
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "get_forecast", "arguments": {"city": "springfield", "days": 1}}}))
        .await;
    let ask = server.recv().await;
    assert_eq!(ask["method"], json!("elicitation/create"), "{ask}");
    let id = ask["id"].clone();
    server
        .send(json!({"jsonrpc": "2.0", "id": id, "result":
                     {"action": "accept", "content": {"city": "Springfield, Illinois"}}}))
        .await;
    let done = server.response(2).await;
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("Springfield, Illinois"), "{done}");
}

#[tokio::test]
async fn clients_that_cannot_ask_get_the_choices() {
    let mut server = JsonLines::start();
    server
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "get_weather", "arguments": {"city": "Springfield"},
                "_meta": modern_meta(json!({}))
            }}),
        )
        .await;
    let done = server.response(1).await;
    assert_eq!(done["result"]["isError"], json!(true), "{done}");
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    for state in ["Illinois", "Massachusetts", "Missouri"] {
        assert!(text.contains(state), "{text}");
    }
}
