//! Tasks over Streamable HTTP on 127.0.0.1: a 2025-11-25 task started in one session and its
//! result fetched in another after the first was deleted, and a 2026-07-28 task polled with
//! plain POSTs (no session), its `Mcp-Name` checked against `params.taskId`.

mod http_common;

use std::time::Duration;

use http_common::*;
use mcp_server::http::HttpConfig;
use mcp_server::schema::TaskSupport;
use mcp_server::{Server, Tool};
use serde::Deserialize;
use serde_json::{json, Value};

const V2025: &str = "2025-11-25";
const V2026: &str = "2026-07-28";

#[derive(Deserialize, schemars::JsonSchema)]
struct Wait {
    ms: u64,
}

fn server() -> Server {
    Server::builder("http-tasks", "0.1.0")
        .tool(
            Tool::new("work", "Works ms, then answers").task_support(TaskSupport::Optional),
            |args: Wait| async move {
                tokio::time::sleep(Duration::from_millis(args.ms)).await;
                format!("worked {} ms", args.ms)
            },
        )
        .build()
}

/// The JSON-RPC message of a reply, JSON or the last SSE event.
fn message(reply: &Reply) -> Value {
    if reply
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/event-stream"))
    {
        let events = reply.events();
        let last = events
            .iter()
            .rev()
            .find(|e| !e.data.is_empty())
            .expect("an event");
        serde_json::from_str(&last.data).expect("JSON event")
    } else {
        reply.json()
    }
}

#[tokio::test]
async fn a_task_started_in_one_session_is_fetched_in_another() {
    let http = server()
        .serve_http(("127.0.0.1", 0), HttpConfig::default())
        .await
        .expect("bind");
    let addr = http.local_addr();
    let first = open_session(addr, V2025).await;
    let session = [
        ("Mcp-Session-Id", first.as_str()),
        ("MCP-Protocol-Version", V2025),
    ];
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "work", "arguments": {"ms": 200}, "task": {"ttl": 60000}}});
    let created = message(&post(addr, &session, &call).await);
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no task: {created}"))
        .to_owned();
    assert_eq!(created["result"]["task"]["status"], "working");
    // The first session ends while the task runs.
    let deleted = request(addr, "DELETE", "/mcp", &[("Mcp-Session-Id", &first)], b"").await;
    assert!(
        deleted.status == 200 || deleted.status == 204,
        "{}",
        deleted.status
    );

    let second = open_session(addr, V2025).await;
    assert_ne!(first, second);
    let session = [
        ("Mcp-Session-Id", second.as_str()),
        ("MCP-Protocol-Version", V2025),
    ];
    let get = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": id}});
    assert_eq!(
        message(&post(addr, &session, &get).await)["result"]["taskId"],
        id.as_str()
    );
    let fetch =
        json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/result", "params": {"taskId": id}});
    let result = message(&post(addr, &session, &fetch).await);
    assert_eq!(
        result["result"]["content"][0]["text"], "worked 200 ms",
        "{result}"
    );
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    http.shutdown().await;
}

fn modern(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": V2026,
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test]
async fn a_modern_task_is_polled_with_plain_posts() {
    let http = server()
        .serve_http(("127.0.0.1", 0), HttpConfig::default())
        .await
        .expect("bind");
    let addr = http.local_addr();
    let headers = |method: &'static str, name: String| {
        vec![
            ("MCP-Protocol-Version", V2026.to_owned()),
            ("Mcp-Method", method.to_owned()),
            ("Mcp-Name", name),
        ]
    };
    let send = |method: &'static str, name: String, body: Value| async move {
        let owned = headers(method, name);
        let extra: Vec<(&str, &str)> = owned.iter().map(|(k, v)| (*k, v.as_str())).collect();
        post(addr, &extra, &body).await
    };
    let created = message(
        &send(
            "tools/call",
            "work".into(),
            modern(
                1,
                "tools/call",
                json!({"name": "work", "arguments": {"ms": 100}}),
            ),
        )
        .await,
    );
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // Mcp-Name must name the task.
    let wrong = send(
        "tasks/get",
        "another-task".into(),
        modern(2, "tasks/get", json!({"taskId": id})),
    )
    .await;
    assert_eq!(wrong.status, 400);
    assert_eq!(message(&wrong)["error"]["code"], -32020);
    let deadline = tokio::time::Instant::now() + WAIT;
    let done = loop {
        let got = message(
            &send(
                "tasks/get",
                id.clone(),
                modern(3, "tasks/get", json!({"taskId": id})),
            )
            .await,
        );
        if got["result"]["status"] == "completed" {
            break got;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never completed: {got}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(
        done["result"]["result"]["content"][0]["text"],
        "worked 100 ms"
    );
    http.shutdown().await;
}
