//! `climate_report` as a task over stdio, in both eras: a 2025-11-25 task (`params.task`) whose
//! progress shows as its status message and whose result `tasks/result` returns, a cancelled
//! one, and a 2026-07-28 task (the extension) polled with `tasks/get` until it inlines the report.

mod common;

use std::time::Duration;

use common::{bounded, frozen_args, stdio_client, BIN};
use mcp_client::{CallOptions, Client};
use serde_json::{json, Value};

const CITIES: [&str; 3] = ["Paris", "Tokyo", "Shenzhen"];

async fn raw(client: &Client, method: &str, params: Value) -> Value {
    bounded(
        20,
        method,
        client.request(method, Some(params), CallOptions::default()),
    )
    .await
    .unwrap_or_else(|e| panic!("{method}: {e}"))
}

#[tokio::test]
async fn climate_report_runs_as_a_2025_task() {
    let client = stdio_client(&[]).await;
    let args = json!({"cities": CITIES, "perCityMs": 30});
    let created = raw(
        &client,
        "tools/call",
        json!({"name": "climate_report", "arguments": args, "task": {"ttl": 60000}}),
    )
    .await;
    let id = created["task"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let result = raw(&client, "tasks/result", json!({"taskId": id})).await;
    let report = &result["structuredContent"];
    assert_eq!(
        report["cities"].as_array().map(Vec::len),
        Some(3),
        "{result}"
    );
    assert!(report["warmest"].is_string() && report["meanTemperatureC"].is_number());
    let done = raw(&client, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["statusMessage"], "3/3 cities: Shenzhen", "{done}");

    // Cancelled mid-run: the report stops; the task stays cancelled.
    let slow = json!({"cities": CITIES, "perCityMs": 10000});
    let created = raw(
        &client,
        "tools/call",
        json!({"name": "climate_report", "arguments": slow, "task": {}}),
    )
    .await;
    let id = created["task"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let cancelled = raw(&client, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["status"], "cancelled");
    let listed = raw(&client, "tasks/list", json!({})).await;
    assert_eq!(
        listed["tasks"].as_array().map(Vec::len),
        Some(2),
        "{listed}"
    );
    bounded(10, "close", client.close()).await;
}

/// A raw JSON-lines connection to a weather-server child (our client fills `_meta` itself, and
/// this test needs to declare the tasks extension in it).
struct Raw {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    next: i64,
}

impl Raw {
    fn spawn() -> Raw {
        let mut child = tokio::process::Command::new(BIN)
            .args(frozen_args(&[]))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start weather-server");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        use tokio::io::AsyncBufReadExt;
        Raw {
            child,
            stdin,
            lines: tokio::io::BufReader::new(stdout).lines(),
            next: 0,
        }
    }

    /// Sends a request and returns its `result` (skipping anything else).
    async fn call(&mut self, method: &str, params: Value) -> Value {
        use tokio::io::AsyncWriteExt;
        self.next += 1;
        let id = self.next;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write");
        loop {
            let line = bounded(20, method, self.lines.next_line())
                .await
                .expect("read")
                .expect("a reply before end of output");
            let message: Value = serde_json::from_str(&line).expect("JSON");
            if message["id"] == id {
                return message
                    .get("result")
                    .cloned()
                    .unwrap_or_else(|| panic!("{method}: {message}"));
            }
        }
    }
}

#[tokio::test]
async fn climate_report_runs_as_a_modern_task() {
    let mut server = Raw::spawn();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    });
    let args = json!({"cities": CITIES, "perCityMs": 30});
    let created = server
        .call(
            "tools/call",
            json!({"name": "climate_report", "arguments": args, "_meta": meta}),
        )
        .await;
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().expect("a task id").to_owned();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let done = loop {
        let got = server
            .call("tasks/get", json!({"taskId": id, "_meta": meta}))
            .await;
        if got["status"] == "completed" {
            break got;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never completed: {got}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let report = &done["result"]["structuredContent"];
    assert_eq!(report["cities"].as_array().map(Vec::len), Some(3), "{done}");
    let _ = server.child.start_kill();
}
