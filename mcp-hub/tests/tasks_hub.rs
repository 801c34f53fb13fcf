//! Tasks through the hub against two real TypeScript SDK v1 1.32.2 task servers
//! (`tests/interop/tasks_ts_server.cjs` over stdio): a task id is routed to the server that
//! issued it, the merged list labels each task with its server, cancel reaches the right one,
//! a task asking for input is answered by the hub's elicitation handler, and an unknown id is a
//! clear not-found error.

#[path = "../../mcp-client/tests/interop/http_support.rs"]
mod support;

use mcp_client::TaskOptions;
use mcp_hub::{
    ErrorKind, Hub, HubConfig, HubError, HubOptions, HubTaskStart, UpstreamInput, Variables,
};
use mcp_proto::schema::{ElicitResult, TaskStatus};
use serde_json::json;
use support::*;

fn text(result: &mcp_proto::schema::CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hub_routes_task_ids_to_their_servers() {
    let Some(modules) = interop_var("MCP_INTEROP_NODE_MODULES") else {
        return;
    };
    let script = script("tasks_ts_server.cjs").to_string_lossy().into_owned();
    let entry = json!({"command": "node", "args": [script],
                       "env": {"MCP_INTEROP_NODE_MODULES": modules.to_string_lossy()}});
    let config = json!({"mcpServers": {"a": entry, "b": entry}}).to_string();
    let config = HubConfig::parse(&config, "hub.json", &Variables::default()).expect("config");
    let options = HubOptions {
        input: UpstreamInput::new().with_elicitation(|_server, _params| async {
            let mut content = serde_json::Map::new();
            content.insert("name".into(), json!("hub user"));
            Ok(ElicitResult::accept(Some(content)))
        }),
        ..Default::default()
    };
    let hub = bounded(60, "connect", Hub::connect(config, options)).await;

    let start = |name: &'static str, args: serde_json::Value| {
        let hub = hub.clone();
        async move {
            match bounded(
                10,
                name,
                hub.start_tool_task(name, args, &TaskOptions::new()),
            )
            .await
            .expect("starts")
            {
                HubTaskStart::Task(task) => task,
                HubTaskStart::Done(r) => panic!("{name} answered at once: {r:?}"),
            }
        }
    };
    let on_a = start("a__count", json!({"steps": 2, "delayMs": 20})).await;
    let on_b = start("b__forever", json!({})).await;
    assert_eq!((on_a.server.as_str(), on_b.server.as_str()), ("a", "b"));
    assert_eq!(hub.task_owner(&on_b.task.task_id).as_deref(), Some("b"));

    // Each id goes to its own server (the other one would answer -32602).
    let got = bounded(10, "get b", hub.get_task(&on_b.task.task_id))
        .await
        .expect("tasks/get on b");
    assert_eq!(got.server, "b");
    let done = bounded(
        10,
        "await a",
        hub.await_task_result(&on_a.task.task_id, &TaskOptions::new()),
    )
    .await
    .expect("a's result");
    assert_eq!(text(&done), "counted 2");

    // The merged list labels every task with its server.
    let tasks = bounded(10, "list", hub.list_tasks(None))
        .await
        .expect("lists");
    let find = |id: &str| {
        tasks
            .iter()
            .find(|t| t.task.task_id == id)
            .map(|t| t.server.clone())
    };
    assert_eq!(find(&on_a.task.task_id).as_deref(), Some("a"));
    assert_eq!(find(&on_b.task.task_id).as_deref(), Some("b"));

    let cancelled = bounded(10, "cancel b", hub.cancel_task(&on_b.task.task_id))
        .await
        .expect("cancels")
        .expect("2025 answers with the task");
    assert_eq!(
        (cancelled.server.as_str(), cancelled.task.status),
        ("b", TaskStatus::Cancelled)
    );

    // Input asked by a task is answered by the hub's handler.
    let asked = bounded(
        30,
        "ask",
        hub.call_tool_as_task("b__ask", json!({}), TaskOptions::new()),
    )
    .await
    .expect("answers");
    assert_eq!(text(&asked), "hello hub user");

    let err = bounded(10, "unknown", hub.get_task("no-such-task"))
        .await
        .expect_err("unknown");
    assert!(matches!(err, HubError::UnknownTask { .. }), "{err}");
    assert_eq!(err.kind(), ErrorKind::NotFound);
    bounded(20, "close", hub.close()).await;
}
