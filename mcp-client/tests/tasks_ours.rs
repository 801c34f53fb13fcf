//! Our client's tasks against our own server (mcp-server's tasks, in process, over Streamable
//! HTTP), in each era: 2025-11-25 core tasks and the 2026-07-28 extension. A task completes with
//! its progress seen as status; a task asks for input (a 2025 request tied to the task over
//! `tasks/result`, a 2026 `inputRequests` answered with `tasks/update`) and the same elicitation
//! handler answers; a task is cancelled mid-run; and a task outlives its connection: started
//! over one HTTP connection, its result is fetched over another. (`tasks/list` is checked
//! against the TypeScript SDK: our server scopes its list to a connection key that, over a
//! 2025 HTTP session, is not yet the same for the call and the list; reported to tasks-server.)

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::bounded;
use mcp_client::http::{self, HttpClientConfig};
use mcp_client::{
    Client, ClientError, ClientOptions, Negotiation, TaskFlavour, TaskOptions, TaskStart,
};
use mcp_proto::schema::{CallToolResult, ElicitParams, ElicitResult, TaskStatus, TaskSupport};
use mcp_proto::ProtocolVersion;
use mcp_server::{Context, Server, Tool};
use serde_json::{json, Value};

fn server() -> Server {
    Server::builder("tasks-ours", "1.0.0")
        .tool(
            Tool::new("slow", "Counts `steps` steps of 30 ms").task_support(TaskSupport::Optional),
            |args: Value, ctx: Context| async move {
                let steps = args["steps"].as_u64().unwrap_or(3);
                for i in 1..=steps {
                    tokio::select! {
                        _ = ctx.cancelled() => return "cancelled".to_owned(),
                        _ = tokio::time::sleep(Duration::from_millis(30)) => {}
                    }
                    ctx.progress(
                        i as f64,
                        Some(steps as f64),
                        Some(format!("step {i} of {steps}")),
                    )
                    .await;
                }
                format!("counted {steps}")
            },
        )
        .tool(
            Tool::new("ask", "Asks for a name").task_support(TaskSupport::Required),
            |_args: Value, ctx: Context| async move {
                let params = ElicitParams::form(
                    "Your name?",
                    json!({"type": "object", "properties": {"name": {"type": "string"}}}),
                );
                match ctx.elicit(params).await {
                    Ok(answer) => format!(
                        "hello {}",
                        answer
                            .content
                            .as_ref()
                            .and_then(|c| c.get("name"))
                            .and_then(Value::as_str)
                            .unwrap_or("nobody")
                    ),
                    Err(e) => format!("no answer: {e}"),
                }
            },
        )
        .tool(
            Tool::new("forever", "Works until cancelled").task_support(TaskSupport::Required),
            |_args: Value, ctx: Context| async move {
                ctx.cancelled().await;
                "cancelled"
            },
        )
        .build()
}

fn options(negotiation: Negotiation) -> ClientOptions {
    ClientOptions::new()
        .with_name("ours")
        .with_negotiation(negotiation)
        .with_elicitation(|params| async move {
            assert!(params.message().contains("name"), "{params:?}");
            let mut content = serde_json::Map::new();
            content.insert("name".into(), json!("octocat"));
            Ok(ElicitResult::accept(Some(content)))
        })
}

async fn connect(url: &str, negotiation: Negotiation) -> Client {
    let transport = http::connect_auto(HttpClientConfig::new(url))
        .await
        .expect("transport");
    bounded(
        10,
        "connect",
        Client::connect(transport, options(negotiation)),
    )
    .await
    .expect("connects")
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or_default()
        .to_owned()
}

async fn in_era(negotiation: Negotiation, flavour: TaskFlavour) {
    let http = server()
        .serve_http("127.0.0.1:0", mcp_server::http::HttpConfig::default())
        .await
        .expect("bind");
    let url = format!("http://{}/mcp", http.local_addr());
    let client = connect(&url, negotiation).await;
    assert_eq!(client.task_flavour(), Some(flavour), "{negotiation}");

    // Completes; the progress shows as the task's status message.
    let messages = Arc::new(Mutex::new(Vec::new()));
    let seen = messages.clone();
    let result = bounded(
        20,
        "slow",
        client.call_tool_as_task(
            "slow",
            json!({"steps": 3}),
            TaskOptions::new().on_status(move |t| seen.lock().unwrap().push(t.status)),
        ),
    )
    .await
    .expect("completes");
    assert_eq!(text(&result), "counted 3");
    assert_eq!(
        messages.lock().unwrap().last().copied(),
        Some(TaskStatus::Completed)
    );

    // Input through the task, answered by the elicitation handler.
    let asked = bounded(
        20,
        "ask",
        client.call_tool_as_task("ask", json!({}), TaskOptions::new()),
    )
    .await
    .expect("answers");
    assert_eq!(text(&asked), "hello octocat", "{negotiation}");

    // Cancel mid-run.
    let TaskStart::Task(task) = bounded(
        10,
        "forever",
        client.start_tool_task("forever", json!({}), &TaskOptions::new()),
    )
    .await
    .expect("starts") else {
        panic!("a task")
    };
    bounded(10, "cancel", client.cancel_task(&task.task_id))
        .await
        .expect("cancels");
    let ended = bounded(
        10,
        "wait",
        client.wait_task(&task.task_id, &TaskOptions::new()),
    )
    .await
    .expect("ends");
    assert_eq!(ended.status, TaskStatus::Cancelled);
    let err = bounded(
        10,
        "result",
        client.await_task_result(&task.task_id, &TaskOptions::new()),
    )
    .await
    .expect_err("cancelled");
    assert!(matches!(err, ClientError::TaskEnded { .. }), "{err}");

    // Outlives its connection: started here, fetched over a new connection.
    let TaskStart::Task(task) = bounded(
        10,
        "start",
        client.start_tool_task("slow", json!({"steps": 4}), &TaskOptions::new()),
    )
    .await
    .expect("starts") else {
        panic!("a task")
    };
    bounded(10, "close", client.close()).await;
    let second = connect(&url, negotiation).await;
    let result = bounded(
        20,
        "result over a new connection",
        second.await_task_result(&task.task_id, &TaskOptions::new()),
    )
    .await
    .expect("the result outlived the connection");
    assert_eq!(text(&result), "counted 4");
    bounded(10, "close", second.close()).await;
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_server_2025_core_tasks() {
    in_era(
        Negotiation::Pin(ProtocolVersion::V2025_11_25),
        TaskFlavour::Core,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_server_2026_tasks_extension() {
    in_era(
        Negotiation::Pin(ProtocolVersion::V2026_07_28),
        TaskFlavour::Extension,
    )
    .await;
}
