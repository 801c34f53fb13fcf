//! Tasks from the command line: `mcp call --task` (status and progress on stderr, the result
//! on stdout; `--detach` prints the task id and returns at once), `mcp tasks [SERVER]`, and
//! `mcp task get|result|cancel ID [--server S]`. A task id is routed to the server that owns
//! it (the hub asks each server offering tasks when it has not seen the id).

use std::process::ExitCode;
use std::sync::Arc;

use mcp_client::TaskOptions;
use mcp_hub::{Hub, HubTask, HubTaskStart};
use mcp_proto::schema::{CallToolResult, Task};

use super::{open_hub, Failure, Outcome, EXIT_TOOL_ERROR};
use crate::config_path::ConfigSource;
use crate::output::{render_result, table, ProgressReporter};

/// What `mcp task` does with an id.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum TaskAction {
    /// The task's status now.
    Get {
        /// The task id.
        id: String,
        /// Only ask this server (default: every server that offers tasks).
        #[arg(long)]
        server: Option<String>,
        /// Print the task as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Waits for the task to end and prints its result.
    Result {
        /// The task id.
        id: String,
        /// Only ask this server.
        #[arg(long)]
        server: Option<String>,
        /// Print the raw result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Cancels the task.
    Cancel {
        /// The task id.
        id: String,
        /// Only ask this server.
        #[arg(long)]
        server: Option<String>,
    },
}

/// One line about a task: status, message.
fn describe(task: &Task) -> String {
    let status = serde_json::to_value(task.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    match &task.status_message {
        Some(message) => format!("{status}: {message}"),
        None => status,
    }
}

/// Calls a tool as a task: the id and every status change go to stderr, progress as for any
/// call, the result to stdout. With `detach`, prints the id to stdout and returns.
pub async fn call_as_task(
    hub: &Hub,
    exposed: &str,
    arguments: serde_json::Value,
    detach: bool,
) -> Result<Option<CallToolResult>, Failure> {
    let reporter = Arc::new(ProgressReporter::new());
    let on_progress = reporter.clone();
    let options = TaskOptions::new().on_progress(move |p| {
        on_progress.report(p.progress, p.total, p.message.as_deref());
    });
    if detach {
        return match hub.start_tool_task(exposed, arguments, &options).await? {
            HubTaskStart::Task(HubTask { server, task }) => {
                outln!("{}", task.task_id);
                eprintln!(
                    "mcp: task {} on {server}: {}",
                    task.task_id,
                    describe(&task)
                );
                Ok(None)
            }
            HubTaskStart::Done(result) => Ok(Some(result)),
        };
    }
    let status_reporter = reporter.clone();
    let options = options.on_status(move |task| {
        status_reporter.finish();
        eprintln!("mcp: task {}: {}", task.task_id, describe(task));
    });
    let result = hub.call_tool_as_task(exposed, arguments, options).await;
    reporter.finish();
    Ok(Some(result?))
}

/// `mcp tasks [SERVER]`: the tasks of one server or of every server that lists tasks.
pub async fn list(source: &ConfigSource, server: Option<&str>, as_json: bool) -> Outcome {
    let hub = open_hub(source, server).await;
    let hub = hub?;
    let tasks = hub.list_tasks(server).await;
    hub.close().await;
    let tasks = tasks?;
    if as_json {
        let rows: Vec<serde_json::Value> = tasks
            .iter()
            .map(|t| serde_json::json!({"server": t.server, "task": t.task}))
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".into())
        );
        return Ok(ExitCode::SUCCESS);
    }
    if tasks.is_empty() {
        eprintln!("mcp: no tasks");
        return Ok(ExitCode::SUCCESS);
    }
    let mut rows = vec![vec![
        "SERVER".to_owned(),
        "TASK".to_owned(),
        "STATUS".to_owned(),
        "UPDATED".to_owned(),
    ]];
    for t in &tasks {
        rows.push(vec![
            t.server.clone(),
            t.task.task_id.clone(),
            describe(&t.task),
            t.task.last_updated_at.clone(),
        ]);
    }
    out!("{}", table(&rows));
    Ok(ExitCode::SUCCESS)
}

/// `mcp task get|result|cancel ID`.
pub async fn task(source: &ConfigSource, action: TaskAction) -> Outcome {
    let server = match &action {
        TaskAction::Get { server, .. }
        | TaskAction::Result { server, .. }
        | TaskAction::Cancel { server, .. } => server.clone(),
    };
    let hub = open_hub(source, server.as_deref()).await?;
    let outcome = run_action(&hub, action).await;
    hub.close().await;
    outcome
}

async fn run_action(hub: &Hub, action: TaskAction) -> Outcome {
    match action {
        TaskAction::Get { id, json, .. } => {
            let HubTask { server, task } = hub.get_task(&id).await?;
            if json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(
                        &serde_json::json!({"server": server, "task": task})
                    )
                    .unwrap_or_else(|_| "{}".into())
                );
            } else {
                outln!("{} on {server}: {}", task.task_id, describe(&task));
            }
            Ok(ExitCode::SUCCESS)
        }
        TaskAction::Result { id, json, .. } => {
            let result = hub.await_task_result(&id, &TaskOptions::new()).await?;
            print_result(&result, json)
        }
        TaskAction::Cancel { id, .. } => {
            match hub.cancel_task(&id).await? {
                Some(HubTask { server, task }) => {
                    outln!("{} on {server}: {}", task.task_id, describe(&task))
                }
                None => outln!("{id}: cancellation requested"),
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Prints a tool result as `mcp call` does; exit 1 when it has `isError`.
pub fn print_result(result: &CallToolResult, as_json: bool) -> Outcome {
    if as_json {
        outln!(
            "{}",
            serde_json::to_string_pretty(result).unwrap_or_else(|_| "{}".into())
        );
    } else {
        let text = render_result(result);
        if !text.is_empty() {
            outln!("{text}");
        }
    }
    if result.is_error() {
        return Ok(ExitCode::from(EXIT_TOOL_ERROR));
    }
    Ok(ExitCode::SUCCESS)
}
