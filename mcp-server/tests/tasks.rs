//! Tasks over the in-memory transport, both flavours: 2025-11-25 core tasks (`params.task`,
//! `tasks/get|result|list|cancel`) and the 2026-07-28 extension (server-directed, `tasks/get`
//! inlining the result, `tasks/update`, ack-only `tasks/cancel`): cancellation stopping the
//! handler, expiry, forged ids, input asked for from inside a task in each era, and a task
//! fetched over a connection other than the one that started it.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{RawClient, WAIT};
use mcp_server::schema::{ElicitParams, TaskSupport};
use mcp_server::{Context, HandlerError, Server, Tool};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::Notify;

const V2025: &str = "2025-11-25";
const V2026: &str = "2026-07-28";
const TASKS_EXT: &str = "io.modelcontextprotocol/tasks";

#[derive(Deserialize, schemars::JsonSchema)]
struct Wait {
    /// Milliseconds to work.
    ms: u64,
}

/// Sets its flag when dropped: tells a handler that was stopped from one that ran out.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

struct Probe {
    /// The `until_released` handler was dropped (cancelled) or returned.
    dropped: Arc<AtomicBool>,
    /// Handlers of `until_released` that finished normally.
    finished: Arc<AtomicUsize>,
    release: Arc<Notify>,
}

fn server(probe: &Probe) -> Server {
    let (dropped, finished, release) = (
        probe.dropped.clone(),
        probe.finished.clone(),
        probe.release.clone(),
    );
    Server::builder("tasks-test", "0.1.0")
        .tool(
            Tool::new("work", "Works ms, then answers").task_support(TaskSupport::Optional),
            |args: Wait| async move {
                tokio::time::sleep(Duration::from_millis(args.ms)).await;
                format!("worked {} ms", args.ms)
            },
        )
        .tool(
            Tool::new("until_released", "Waits until the test releases it")
                .task_support(TaskSupport::Optional),
            move || {
                let (dropped, finished, release) =
                    (dropped.clone(), finished.clone(), release.clone());
                async move {
                    let _flag = DropFlag(dropped);
                    release.notified().await;
                    finished.fetch_add(1, Ordering::SeqCst);
                    "released"
                }
            },
        )
        .tool(
            Tool::new("only_task", "Runs only as a task").task_support(TaskSupport::Required),
            || async {
                tokio::time::sleep(Duration::from_millis(20)).await;
                "done as a task"
            },
        )
        .tool(Tool::new("plain", "Never a task"), || async { "plain" })
        .tool(
            Tool::new("ask_name", "Works, then asks for a name")
                .task_support(TaskSupport::Optional),
            |ctx: Context| async move {
                tokio::time::sleep(Duration::from_millis(10)).await;
                let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
                let answer = ctx
                    .elicit(ElicitParams::form("Proceed?", schema))
                    .await
                    .map_err(HandlerError::protocol)?;
                let task = ctx.task_id().unwrap_or("none").to_owned();
                Ok::<_, HandlerError>(format!(
                    "answer={} task={}",
                    Value::Object(answer.content.unwrap_or_default()),
                    !task.is_empty() && task != "none"
                ))
            },
        )
        .build()
}

fn probe() -> Probe {
    Probe {
        dropped: Arc::new(AtomicBool::new(false)),
        finished: Arc::new(AtomicUsize::new(0)),
        release: Arc::new(Notify::new()),
    }
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

/// Polls `tasks/get` (2025) until the task has `status`, within the wait limit.
async fn until_status(client: &mut RawClient, id: &str, status: &str) -> Value {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let task = client.call("tasks/get", json!({"taskId": id})).await;
        if task["status"] == status {
            return task;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never {status}: {task}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn legacy_task_lifecycle_result_meta_and_listing() {
    let probe = probe();
    let server = server(&probe);
    let mut client = RawClient::initialized(&server, V2025, json!({})).await;
    let init = client.initialize(V2025, json!({})).await;
    assert!(init.get("error").is_some(), "initialize once");

    let mut other = RawClient::connect(&server);
    let caps = other.initialize(V2025, json!({})).await["result"]["capabilities"].clone();
    assert_eq!(caps["tasks"]["requests"]["tools"]["call"], json!({}));
    assert_eq!(caps["tasks"]["list"], json!({}));
    assert_eq!(caps["tasks"]["cancel"], json!({}));
    assert!(caps.get("extensions").is_none(), "{caps}");
    other.notify("notifications/initialized", json!({})).await;

    let tools = client.call("tools/list", json!({})).await;
    let work = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "work")
        .unwrap()
        .clone();
    assert_eq!(work["execution"]["taskSupport"], "optional");

    let created = client
        .call(
            "tools/call",
            json!({"name": "work", "arguments": {"ms": 50}, "task": {"ttl": 60000}}),
        )
        .await;
    let task = &created["task"];
    let id = task["taskId"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32, "128 random bits, hex: {id}");
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 60000);
    assert!(task["pollInterval"].as_u64().unwrap() > 0);
    assert!(task["createdAt"].as_str().unwrap().ends_with('Z'));

    let got = client.call("tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["taskId"], id.as_str());

    let result = client.call("tasks/result", json!({"taskId": id})).await;
    assert_eq!(text_of(&result), "worked 50 ms");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    assert_eq!(
        client.call("tasks/get", json!({"taskId": id})).await["status"],
        "completed"
    );

    // Listed to the connection that made it; reachable by id from another one.
    let listed = client.call("tasks/list", json!({})).await;
    assert!(listed["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["taskId"] == id.as_str()));
    assert_eq!(
        other.call("tasks/list", json!({})).await["tasks"],
        json!([])
    );
    assert_eq!(
        text_of(&other.call("tasks/result", json!({"taskId": id})).await),
        "worked 50 ms"
    );

    // Status notifications went to the connection that started the task.
    client.drain(Duration::from_millis(50)).await;
    let statuses: Vec<Value> = client
        .notifications_named("notifications/tasks/status")
        .iter()
        .map(|n| n["params"]["status"].clone())
        .collect();
    assert!(statuses.contains(&json!("completed")), "{statuses:?}");
}

#[tokio::test]
async fn legacy_task_support_is_enforced() {
    let probe = probe();
    let server = server(&probe);
    let mut client = RawClient::initialized(&server, V2025, json!({})).await;
    let e = client
        .call_err("tools/call", json!({"name": "only_task", "arguments": {}}))
        .await;
    assert_eq!(e["code"], -32601, "{e}");
    let e = client
        .call_err(
            "tools/call",
            json!({"name": "plain", "arguments": {}, "task": {}}),
        )
        .await;
    assert_eq!(e["code"], -32601, "{e}");
    // Optional: without `task` it is a plain call.
    let r = client
        .call(
            "tools/call",
            json!({"name": "work", "arguments": {"ms": 1}}),
        )
        .await;
    assert_eq!(text_of(&r), "worked 1 ms");
    // Before 2025-11-25 there are no tasks: no capability, a required tool runs plainly.
    let mut old = RawClient::connect(&server);
    let init = old.initialize("2025-06-18", json!({})).await;
    assert!(init["result"]["capabilities"].get("tasks").is_none());
    old.notify("notifications/initialized", json!({})).await;
    let r = old
        .call("tools/call", json!({"name": "only_task", "arguments": {}}))
        .await;
    assert_eq!(text_of(&r), "done as a task");
    let e = old.call_err("tasks/get", json!({"taskId": "x"})).await;
    assert_eq!(e["code"], -32601);
}

#[tokio::test]
async fn cancellation_stops_the_handler_mid_run() {
    let probe = probe();
    let server = server(&probe);
    let mut client = RawClient::initialized(&server, V2025, json!({})).await;
    let created = client
        .call(
            "tools/call",
            json!({"name": "until_released", "arguments": {}, "task": {}}),
        )
        .await;
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    until_status(&mut client, &id, "working").await;
    let cancelled = client.call("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(
        cancelled["status"], "cancelled",
        "cancelled before the answer"
    );
    // The handler's future was dropped, not run to its end.
    let deadline = tokio::time::Instant::now() + WAIT;
    while !probe.dropped.load(Ordering::SeqCst) {
        assert!(tokio::time::Instant::now() < deadline, "handler still runs");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    probe.release.notify_waiters();
    assert_eq!(probe.finished.load(Ordering::SeqCst), 0);
    assert_eq!(
        until_status(&mut client, &id, "cancelled").await["status"],
        "cancelled"
    );
    // Terminal: cancelling again is -32602; the result is an error.
    let e = client.call_err("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(e["code"], -32602);
    let e = client.call_err("tasks/result", json!({"taskId": id})).await;
    assert!(e["message"].as_str().unwrap().contains("cancelled"), "{e}");
}

#[tokio::test]
async fn expired_tasks_are_gone() {
    let probe = probe();
    let server = server(&probe);
    let mut client = RawClient::initialized(&server, V2025, json!({})).await;
    let created = client
        .call(
            "tools/call",
            json!({"name": "work", "arguments": {"ms": 0}, "task": {"ttl": 30}}),
        )
        .await;
    assert_eq!(created["task"]["ttl"], 30);
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let response = client.request("tasks/get", json!({"taskId": id})).await;
        if let Some(error) = response.get("error") {
            assert_eq!(error["code"], -32602, "{error}");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "never expired");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let e = client.call_err("tasks/result", json!({"taskId": id})).await;
    assert_eq!(e["code"], -32602);
}

#[tokio::test]
async fn forged_task_ids_are_not_found_in_either_era() {
    let probe = probe();
    let server = server(&probe);
    let mut client = RawClient::initialized(&server, V2025, json!({})).await;
    // A real task exists; ids near it or made up find nothing.
    let created = client
        .call(
            "tools/call",
            json!({"name": "work", "arguments": {"ms": 0}, "task": {}}),
        )
        .await;
    let real = created["task"]["taskId"].as_str().unwrap().to_owned();
    let mut forged = real.clone();
    forged.replace_range(0..1, if real.starts_with('0') { "1" } else { "0" });
    for id in [forged.as_str(), "0", "../etc/passwd", ""] {
        for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
            let e = client.call_err(method, json!({"taskId": id})).await;
            assert_eq!(e["code"], -32602, "{method} {id}: {e}");
        }
    }
    let mut modern = RawClient::connect(&server);
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let e = modern
            .call_err(
                method,
                modern_params(json!({"taskId": forged, "inputResponses": {}}), true),
            )
            .await;
        assert_eq!(e["code"], -32602, "{method}: {e}");
    }
}

#[tokio::test]
async fn legacy_task_asks_for_input_over_tasks_result() {
    let probe = probe();
    let server = server(&probe);
    let mut client = RawClient::initialized(&server, V2025, json!({"elicitation": {}})).await;
    let created = client
        .call(
            "tools/call",
            json!({"name": "ask_name", "arguments": {}, "task": {}}),
        )
        .await;
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    until_status(&mut client, &id, "input_required").await;
    // tasks/result carries the input request; the test client answers it.
    let result = client.call("tasks/result", json!({"taskId": id})).await;
    assert_eq!(text_of(&result), r#"answer={"ok":true} task=true"#);
    let asked = &client.requests[0];
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(
        asked["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    client.drain(Duration::from_millis(50)).await;
    let statuses: Vec<Value> = client
        .notifications_named("notifications/tasks/status")
        .iter()
        .map(|n| n["params"]["status"].clone())
        .collect();
    assert!(statuses.contains(&json!("input_required")), "{statuses:?}");
}

/// 2026-07-28 params: `params` plus the per-request `_meta`, declaring the tasks extension or not.
fn modern_params(mut params: Value, extension: bool) -> Value {
    let mut caps = json!({"elicitation": {}});
    if extension {
        caps["extensions"] = json!({ TASKS_EXT: {} });
    }
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": V2026,
        "io.modelcontextprotocol/clientCapabilities": caps
    });
    params
}

/// Polls the extension's `tasks/get` until `status`.
async fn until_modern(client: &mut RawClient, id: &str, status: &str) -> Value {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let task = client
            .call("tasks/get", modern_params(json!({"taskId": id}), true))
            .await;
        if task["status"] == status {
            return task;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never {status}: {task}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn modern_task_asks_for_input_through_tasks_update() {
    let probe = probe();
    let server = server(&probe);
    let mut client = RawClient::connect(&server);
    let discover = client
        .call("server/discover", modern_params(json!({}), true))
        .await;
    assert_eq!(discover["capabilities"]["extensions"][TASKS_EXT], json!({}));
    assert!(discover["capabilities"].get("tasks").is_none());

    let created = client
        .call(
            "tools/call",
            modern_params(json!({"name": "ask_name", "arguments": {}}), true),
        )
        .await;
    assert_eq!(created["resultType"], "task", "{created}");
    assert!(created.get("task").is_none(), "flat: {created}");
    assert!(created["ttlMs"].as_u64().is_some() && created["pollIntervalMs"].as_u64().is_some());
    let id = created["taskId"].as_str().unwrap().to_owned();

    let waiting = until_modern(&mut client, &id, "input_required").await;
    let requests = waiting["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{waiting}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create");
    let ack = client
        .call(
            "tasks/update",
            modern_params(
                json!({"taskId": id, "inputResponses": {
                    key.as_str(): {"action": "accept", "content": {"ok": false}},
                    "never-asked": {"action": "accept"}
                }}),
                true,
            ),
        )
        .await;
    assert_eq!(ack["resultType"], "complete");
    assert!(
        ack.get("taskId").is_none() && ack.get("status").is_none(),
        "{ack}"
    );
    let done = until_modern(&mut client, &id, "completed").await;
    assert_eq!(text_of(&done["result"]), r#"answer={"ok":false} task=true"#);
    assert!(done["result"]["_meta"]
        .get("io.modelcontextprotocol/related-task")
        .is_none());
    // Ack-only cancel, also on a finished task; tasks/result and tasks/list do not exist.
    let ack = client
        .call("tasks/cancel", modern_params(json!({"taskId": id}), true))
        .await;
    assert_eq!(ack["resultType"], "complete");
    for method in ["tasks/result", "tasks/list"] {
        let e = client
            .call_err(method, modern_params(json!({"taskId": id}), true))
            .await;
        assert_eq!(e["code"], -32601, "{method}");
    }
}

#[tokio::test]
async fn modern_tasks_need_the_extension() {
    let probe = probe();
    let server = server(&probe);
    let mut client = RawClient::connect(&server);
    // Without the extension: optional tools run plainly, required ones are -32021.
    let r = client
        .call(
            "tools/call",
            modern_params(json!({"name": "work", "arguments": {"ms": 20}}), false),
        )
        .await;
    assert_eq!(r["resultType"], "complete");
    assert_eq!(text_of(&r), "worked 20 ms");
    let e = client
        .call_err(
            "tools/call",
            modern_params(json!({"name": "only_task", "arguments": {}}), false),
        )
        .await;
    assert_eq!(e["code"], -32021);
    assert_eq!(
        e["data"]["requiredCapabilities"]["extensions"][TASKS_EXT],
        json!({})
    );
    let e = client
        .call_err("tasks/get", modern_params(json!({"taskId": "x"}), false))
        .await;
    assert_eq!(e["code"], -32021);
    // With it: a task; cancelling it mid-run stops the handler.
    let created = client
        .call(
            "tools/call",
            modern_params(json!({"name": "until_released", "arguments": {}}), true),
        )
        .await;
    let id = created["taskId"].as_str().unwrap().to_owned();
    client
        .call("tasks/cancel", modern_params(json!({"taskId": id}), true))
        .await;
    until_modern(&mut client, &id, "cancelled").await;
    let deadline = tokio::time::Instant::now() + WAIT;
    while !probe.dropped.load(Ordering::SeqCst) {
        assert!(tokio::time::Instant::now() < deadline, "handler still runs");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // A required tool that finishes at once is still answered as a task, completed.
    let created = client
        .call(
            "tools/call",
            modern_params(json!({"name": "only_task", "arguments": {}}), true),
        )
        .await;
    let id = created["taskId"].as_str().unwrap().to_owned();
    let done = until_modern(&mut client, &id, "completed").await;
    assert_eq!(text_of(&done["result"]), "done as a task");
}

#[tokio::test]
async fn a_task_outlives_its_connection() {
    let probe = probe();
    let server = server(&probe);
    let mut first = RawClient::initialized(&server, V2025, json!({})).await;
    let created = first
        .call(
            "tools/call",
            json!({"name": "work", "arguments": {"ms": 100}, "task": {}}),
        )
        .await;
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    let (_source, session) = first.close_input();
    tokio::time::timeout(WAIT, session.closed())
        .await
        .expect("the first connection closes");
    let mut second = RawClient::initialized(&server, V2025, json!({})).await;
    let result = second.call("tasks/result", json!({"taskId": id})).await;
    assert_eq!(text_of(&result), "worked 100 ms");
}
