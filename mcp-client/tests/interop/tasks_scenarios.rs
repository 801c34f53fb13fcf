//! The task scenarios the interop tests run against each real peer (the TypeScript and Python
//! SDK drivers `tasks_ts_server.cjs` and `tasks_py_server.py` offer the same tools): create,
//! poll to completion with status and progress, result by id, list, cancel mid-run, input
//! through the task, and what the client refuses.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::{
    Client, ClientError, ClientOptions, ServerEvent, TaskFlavour, TaskOptions, TaskStart,
};
use mcp_proto::schema::{CallToolResult, ElicitResult, TaskStatus};
use serde_json::json;

use super::bounded;

/// Client options whose elicitation handler answers "octocat".
pub fn options() -> ClientOptions {
    ClientOptions::new()
        .with_name("ts-tasks")
        .with_elicitation(|params| async move {
            assert!(params.message().contains("name"), "{params:?}");
            let mut content = serde_json::Map::new();
            content.insert("name".into(), json!("octocat"));
            Ok(ElicitResult::accept(Some(content)))
        })
}

/// The text of a result's first content.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or_default()
        .to_owned()
}

/// Create, poll to completion with status and progress, fetch the result again by id.
pub async fn completes_with_status_and_progress(client: &Client) {
    assert_eq!(client.task_flavour(), Some(TaskFlavour::Core));
    let mut events = client.notifications();
    let statuses = Arc::new(Mutex::new(Vec::<(TaskStatus, Option<String>)>::new()));
    let progress = Arc::new(Mutex::new(Vec::<f64>::new()));
    let (s, p) = (statuses.clone(), progress.clone());
    let task_options = TaskOptions::new()
        .ttl(Duration::from_secs(60))
        .on_status(move |t| s.lock().unwrap().push((t.status, t.status_message.clone())))
        .on_progress(move |pr| p.lock().unwrap().push(pr.progress));
    let result = bounded(
        30,
        "count as a task",
        client.call_tool_as_task("count", json!({"steps": 3, "delayMs": 60}), task_options),
    )
    .await
    .expect("the task completes");
    assert_eq!(text(&result), "counted 3");
    let statuses = statuses.lock().unwrap().clone();
    assert_eq!(statuses.first().map(|s| s.0), Some(TaskStatus::Working));
    assert_eq!(statuses.last().map(|s| s.0), Some(TaskStatus::Completed));
    // The status notifications of the SDK's task store arrive as events.
    let mut seen_status = false;
    while let Ok(event) = events.try_recv() {
        if let ServerEvent::TaskStatus(task) = event {
            seen_status = true;
            assert!(!task.task_id.is_empty());
        }
    }
    assert!(seen_status, "a notifications/tasks/status arrived");
    // Progress under the token we chose, valid for the task's whole life.
    // (Over HTTP they travel on the GET stream, so the last may trail the result.)
    let progress = progress.lock().unwrap().clone();
    assert!(!progress.is_empty(), "progress arrived");
    assert!(progress.windows(2).all(|w| w[0] < w[1]), "{progress:?}");
    assert!(
        progress.iter().all(|p| (1.0..=3.0).contains(p)),
        "{progress:?}"
    );

    // Started by hand: the id can be polled, waited for and its result fetched.
    let start = bounded(
        10,
        "start",
        client.start_tool_task(
            "count",
            json!({"steps": 2, "delayMs": 20}),
            &TaskOptions::new(),
        ),
    )
    .await
    .expect("starts");
    let TaskStart::Task(task) = start else {
        panic!("a task")
    };
    assert_eq!(task.status, TaskStatus::Working);
    let polled = bounded(10, "get", client.get_task(&task.task_id))
        .await
        .expect("tasks/get");
    assert_eq!(polled.task_id, task.task_id);
    let done = bounded(
        10,
        "wait",
        client.wait_task(&task.task_id, &TaskOptions::new()),
    )
    .await
    .expect("waits");
    assert_eq!(done.status, TaskStatus::Completed);
    let result = bounded(10, "result", client.task_result(&task.task_id))
        .await
        .expect("tasks/result");
    assert_eq!(text(&result), "counted 2");

    // The list has both tasks.
    let tasks = bounded(10, "list", client.list_tasks())
        .await
        .expect("tasks/list");
    assert!(tasks.iter().any(|t| t.task_id == task.task_id), "{tasks:?}");
    assert!(tasks.len() >= 2, "{tasks:?}");
}

/// Cancel a running task by id, and through a cancelled wait.
pub async fn cancels_mid_run(client: &Client) {
    let TaskStart::Task(task) = bounded(
        10,
        "start forever",
        client.start_tool_task("forever", json!({}), &TaskOptions::new()),
    )
    .await
    .expect("starts") else {
        panic!("a task")
    };
    let cancelled = bounded(10, "cancel", client.cancel_task(&task.task_id))
        .await
        .expect("tasks/cancel")
        .expect("the 2025 flavour answers with the task");
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    let again = bounded(10, "get", client.get_task(&task.task_id))
        .await
        .expect("tasks/get");
    assert_eq!(again.status, TaskStatus::Cancelled);
    // A terminal task cannot be cancelled again: -32602.
    let err = bounded(10, "cancel again", client.cancel_task(&task.task_id))
        .await
        .expect_err("terminal");
    assert_eq!(err.rpc_error().map(|e| e.code), Some(-32602), "{err}");
    let err = bounded(
        10,
        "result of cancelled",
        client.await_task_result(&task.task_id, &TaskOptions::new()),
    )
    .await
    .expect_err("cancelled");
    assert!(
        matches!(
            err,
            ClientError::TaskEnded {
                status: TaskStatus::Cancelled,
                ..
            }
        ),
        "{err}"
    );

    // Cancelling the wait cancels the task on the server.
    let token = mcp_client::CancellationToken::new();
    let trigger = token.clone();
    let ids = Arc::new(Mutex::new(None::<String>));
    let seen = ids.clone();
    let waiting = client.call_tool_as_task(
        "forever",
        json!({}),
        TaskOptions::new().cancel_with(token).on_status(move |t| {
            *seen.lock().unwrap() = Some(t.task_id.clone());
            trigger.cancel();
        }),
    );
    let err = bounded(10, "cancelled wait", waiting)
        .await
        .expect_err("cancelled");
    assert!(
        matches!(
            err,
            ClientError::TaskEnded {
                status: TaskStatus::Cancelled,
                ..
            }
        ),
        "{err}"
    );
    let id = ids.lock().unwrap().clone().expect("the task was seen");
    let after = bounded(10, "get", client.get_task(&id))
        .await
        .expect("tasks/get");
    assert_eq!(after.status, TaskStatus::Cancelled);
}

/// A task that needs input: the elicitation tied to it arrives through `tasks/result` and is
/// answered by the client's elicitation handler.
pub async fn answers_input(client: &Client) {
    let result = bounded(
        30,
        "ask as a task",
        client.call_tool_as_task("ask", json!({}), TaskOptions::new()),
    )
    .await
    .expect("the task completes");
    assert_eq!(text(&result), "hello octocat");
}

/// Unknown ids and tools that forbid tasks are refused.
pub async fn refuses_what_the_server_forbids(client: &Client) {
    let err = bounded(
        10,
        "plain as task",
        client.start_tool_task("plain", json!({}), &TaskOptions::new()),
    )
    .await
    .expect_err("forbidden");
    assert!(matches!(err, ClientError::TasksUnsupported { .. }), "{err}");
    let err = bounded(10, "unknown id", client.get_task("no-such-task"))
        .await
        .expect_err("unknown");
    assert_eq!(err.rpc_error().map(|e| e.code), Some(-32602), "{err}");
    // A plain call of a tool that requires a task is made as one.
    let asked = bounded(30, "plain ask", client.call_tool("ask", json!({})))
        .await
        .expect("called as a task");
    assert_eq!(text(&asked), "hello octocat");
    // A plain call of a tool with no task support answers directly.
    let plain = bounded(10, "plain", client.call_tool("plain", json!({})))
        .await
        .expect("plain call");
    assert_eq!(text(&plain), "plain");
}
