//! The test server binary spawned as a child and driven with raw NDJSON lines.

mod fixture;

use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

const WAIT: Duration = Duration::from_secs(10);

struct ChildServer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl ChildServer {
    async fn spawn() -> Self {
        let mut child = Command::new(fixture::test_server().await)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("the test server starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        ChildServer {
            child,
            stdin,
            stdout,
        }
    }

    async fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line.as_bytes()).await.expect("write");
        stdin.write_all(b"\n").await.expect("write");
        stdin.flush().await.expect("flush");
    }

    /// The next line from stdout, parsed: every line on stdout must be JSON.
    async fn recv(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(WAIT, self.stdout.next_line())
            .await
            .expect("the server answered in time")
            .expect("read stdout")?;
        Some(
            serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}")),
        )
    }

    async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        )
        .await;
        loop {
            let message = self.recv().await.expect("a response before end of output");
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
        }
    }

    async fn initialize(&mut self, version: &str) {
        let r = self
            .request(
                0,
                "initialize",
                json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
            )
            .await;
        assert_eq!(r["result"]["protocolVersion"], version, "{r}");
        self.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
    }
}

#[tokio::test]
async fn malformed_json_gets_parse_error_and_the_session_goes_on() {
    let mut server = ChildServer::spawn().await;
    server
        .send_line(r#"{"jsonrpc":"2.0","id":1,"method":"#)
        .await;
    let error = server.recv().await.expect("an answer");
    assert_eq!(error["error"]["code"], -32700, "{error}");
    assert!(error["id"].is_null(), "{error}");
    let pong = server.request(2, "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
}

#[tokio::test]
async fn unknown_method_and_request_before_initialize() {
    let mut server = ChildServer::spawn().await;
    let early = server.request(1, "tools/list", json!({})).await;
    assert_eq!(early["error"]["code"], -32600, "{early}");
    server.initialize("2025-11-25").await;
    let unknown = server.request(2, "no/such/method", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let tools = server.request(3, "tools/list", json!({})).await;
    assert!(tools["result"]["tools"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
}

#[tokio::test]
async fn batch_is_served_under_2025_03_26_only() {
    let mut server = ChildServer::spawn().await;
    server.initialize("2025-03-26").await;
    server
        .send_line(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"in a batch"}}}]"#)
        .await;
    let answer = server.recv().await.expect("an answer");
    let items = answer
        .as_array()
        .unwrap_or_else(|| panic!("a batch answer: {answer}"));
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["id"], 1);
    assert_eq!(items[1]["result"]["content"][0]["text"], "in a batch");

    let mut modern = ChildServer::spawn().await;
    modern.initialize("2025-06-18").await;
    modern
        .send_line(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
        .await;
    let refused = modern.recv().await.expect("an answer");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(refused["id"].is_null());
}

#[tokio::test]
async fn end_of_input_answers_what_was_in_flight_and_exits_zero() {
    let mut server = ChildServer::spawn().await;
    server.initialize("2025-11-25").await;
    server
        .send_line(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","arguments":{"steps":3,"delay_ms":100}}}"#)
        .await;
    server
        .send_line(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"last"}}}"#)
        .await;
    drop(server.stdin.take());
    let mut answered = Vec::new();
    while let Some(message) = server.recv().await {
        if let Some(id) = message.get("id").and_then(Value::as_i64) {
            answered.push((id, message["result"]["content"][0]["text"].clone()));
        }
    }
    answered.sort_by_key(|(id, _)| *id);
    assert_eq!(
        answered,
        [(5, json!("done after 3 steps")), (6, json!("last"))]
    );
    let status = tokio::time::timeout(WAIT, server.child.wait())
        .await
        .expect("the server exits in time")
        .expect("wait");
    assert!(status.success(), "{status}");
}
