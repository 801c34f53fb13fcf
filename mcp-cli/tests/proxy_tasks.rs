//! `mcp proxy` passes tasks through: in front of the TypeScript SDK v1 1.32.2 task server
//! (`mcp-client/tests/interop/tasks_ts_server.cjs`, stdio), a client of the proxy sees the
//! upstream tools' task support, creates tasks, polls them to their result, cancels one
//! mid-run and lists them, in both eras (2025-11-25 core tasks and the 2026-07-28 extension).

mod common;

use std::path::{Path, PathBuf};

use common::{bounded, mcp_bin, node_modules, scratch, write_config};
use mcp_client::{
    Client, ClientError, ClientOptions, Negotiation, StdioServerConfig, TaskFlavour, TaskOptions,
    TaskStart,
};
use mcp_proto::schema::{CallToolResult, TaskStatus, TaskSupport};
use mcp_proto::ProtocolVersion;
use serde_json::json;

fn tasks_entry(modules: &Path) -> serde_json::Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp-client/tests/interop/tasks_ts_server.cjs");
    json!({"command": "node", "args": [script.to_string_lossy()],
           "env": {"MCP_INTEROP_NODE_MODULES": modules.to_string_lossy()}})
}

async fn proxy_client(home: &Path, config: &Path, negotiation: Negotiation) -> Client {
    let stdio = StdioServerConfig::new(
        mcp_bin().to_string_lossy(),
        [
            "--config".to_owned(),
            config.to_string_lossy().into_owned(),
            "proxy".to_owned(),
        ],
    )
    .with_cwd(home)
    .with_env("HOME", home.to_string_lossy());
    let options = ClientOptions::new()
        .with_name("proxy")
        .with_negotiation(negotiation);
    bounded(
        60,
        "connect to the proxy",
        Client::spawn_stdio(stdio, options),
    )
    .await
    .expect("the proxy answers")
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_client_runs_upstream_tools_as_tasks_through_the_proxy() {
    let Some(modules) = node_modules() else {
        return;
    };
    let home = scratch("proxy-tasks-2025");
    let config = write_config(&home, json!({"ts": tasks_entry(&modules)}));
    let client = proxy_client(&home, &config, Negotiation::Legacy).await;
    assert_eq!(client.task_flavour(), Some(TaskFlavour::Core));
    let tools = bounded(10, "list", client.list_tools())
        .await
        .expect("tools");
    let support = |name: &str| {
        tools
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.execution.as_ref())
            .and_then(|e| e.task_support)
    };
    assert_eq!(support("ts__count"), Some(TaskSupport::Optional));
    assert_eq!(support("ts__forever"), Some(TaskSupport::Required));

    let result = bounded(
        30,
        "count through the proxy",
        client.call_tool_as_task(
            "ts__count",
            json!({"steps": 2, "delayMs": 20}),
            TaskOptions::new(),
        ),
    )
    .await
    .expect("completes");
    assert_eq!(text(&result), "counted 2");

    // A tool the upstream runs only as a task works as a plain call through the proxy too.
    let TaskStart::Task(task) = bounded(
        10,
        "start forever",
        client.start_tool_task("ts__forever", json!({}), &TaskOptions::new()),
    )
    .await
    .expect("starts") else {
        panic!("a task")
    };
    let listed = bounded(10, "list tasks", client.list_tasks())
        .await
        .expect("lists");
    assert!(
        listed.iter().any(|t| t.task_id == task.task_id),
        "{listed:?}"
    );
    let cancelled = bounded(10, "cancel", client.cancel_task(&task.task_id))
        .await
        .expect("cancels")
        .expect("the task");
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    let err = bounded(
        10,
        "result of the cancelled",
        client.await_task_result(&task.task_id, &TaskOptions::new()),
    )
    .await
    .expect_err("cancelled");
    assert!(matches!(err, ClientError::TaskEnded { .. }), "{err}");
    bounded(20, "close", client.close()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_gets_tasks_through_the_proxy() {
    let Some(modules) = node_modules() else {
        return;
    };
    let home = scratch("proxy-tasks-2026");
    let config = write_config(&home, json!({"ts": tasks_entry(&modules)}));
    let client = proxy_client(
        &home,
        &config,
        Negotiation::Pin(ProtocolVersion::V2026_07_28),
    )
    .await;
    assert_eq!(client.task_flavour(), Some(TaskFlavour::Extension));
    let statuses = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = statuses.clone();
    let result = bounded(
        30,
        "count through the proxy",
        client.call_tool_as_task(
            "ts__count",
            json!({"steps": 3, "delayMs": 50}),
            TaskOptions::new().on_status(move |t| seen.lock().unwrap().push(t.status)),
        ),
    )
    .await
    .expect("completes");
    assert_eq!(text(&result), "counted 3");
    let plain = bounded(30, "plain", client.call_tool("ts__plain", json!({})))
        .await
        .expect("plain");
    assert_eq!(text(&plain), "plain");

    let start = bounded(
        10,
        "start forever",
        client.start_tool_task("ts__forever", json!({}), &TaskOptions::new()),
    )
    .await
    .expect("starts");
    if let TaskStart::Task(task) = start {
        bounded(10, "cancel", client.cancel_task(&task.task_id))
            .await
            .expect("acknowledged");
        let now = bounded(
            10,
            "wait",
            client.wait_task(&task.task_id, &TaskOptions::new()),
        )
        .await
        .expect("ends");
        assert_eq!(now.status, TaskStatus::Cancelled);
    } else {
        panic!("forever never ends, so the proxy must make it a task");
    }
    bounded(20, "close", client.close()).await;
}

/// In process, so the upstream can be watched through the hub: cancelling the proxy's task
/// cancels the upstream task it waits for, and the ids are routed per server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_proxy_task_cancels_the_upstream_task() {
    let Some(modules) = node_modules() else {
        return;
    };
    let text_config = json!({"mcpServers": {"ts": tasks_entry(&modules)}}).to_string();
    let config =
        mcp_hub::HubConfig::parse(&text_config, "hub.json", &mcp_hub::Variables::default())
            .expect("config");
    let hub = bounded(
        30,
        "connect",
        mcp_hub::Hub::connect(config, mcp_hub::HubOptions::default()),
    )
    .await;
    let proxy =
        mcp_cli::proxy::proxy_server(&hub, &mcp_cli::input_forwarding::InputForwarder::new());
    let (near, far) = mcp_proto::peer::memory_pair(64);
    let _session = proxy.serve(near);
    let client = bounded(
        10,
        "connect to the proxy",
        Client::connect(
            far,
            ClientOptions::new().with_negotiation(Negotiation::Legacy),
        ),
    )
    .await
    .expect("proxy client");
    let TaskStart::Task(task) = bounded(
        10,
        "start",
        client.start_tool_task("ts__forever", json!({}), &TaskOptions::new()),
    )
    .await
    .expect("starts") else {
        panic!("a task")
    };
    // Wait until the proxy's handler has started the upstream task.
    let upstream = bounded(10, "the upstream task", async {
        loop {
            let tasks = hub.list_tasks(Some("ts")).await.expect("upstream tasks");
            if let Some(t) = tasks.into_iter().next() {
                return t;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await;
    assert_eq!(upstream.task.status, TaskStatus::Working);
    assert_eq!(
        hub.task_owner(&upstream.task.task_id).as_deref(),
        Some("ts")
    );
    bounded(10, "cancel", client.cancel_task(&task.task_id))
        .await
        .expect("cancels");
    bounded(10, "the upstream is cancelled", async {
        loop {
            let now = hub
                .get_task(&upstream.task.task_id)
                .await
                .expect("tasks/get");
            if now.task.status == TaskStatus::Cancelled {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await;
    client.close().await;
    bounded(20, "close", hub.close()).await;
}
