//! The fixtures of the task scenarios: tools that run as tasks (optional and required), fail,
//! answer with a protocol error, and ask for input inside a task.

use std::time::Duration;

use mcp_server::schema::TaskSupport;
use mcp_server::{schemars, JsonSchema};
use mcp_server::{Context, HandlerError, ServerError, Tool};
use serde::Deserialize;
use serde_json::json;

use crate::core_fixtures::no_args_tool;
use crate::input_requests::{answer, ask, refused};

#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct SlowComputeArgs {
    /// How long to work, in seconds (0: answer at once).
    seconds: f64,
    /// A label echoed in the result.
    #[serde(default)]
    label: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct ConfirmDeleteArgs {
    filename: String,
}

async fn greet(args: GreetArgs) -> String {
    format!("Hello, {}!", args.name)
}

/// Works `seconds` (cancellable: a cancelled task stops here), then answers.
async fn slow_compute(args: SlowComputeArgs, ctx: Context) -> Result<String, HandlerError> {
    let label = args.label.unwrap_or_default();
    if args.seconds > 0.0 {
        let work = Duration::from_secs_f64(args.seconds.min(3600.0));
        tokio::select! {
            _ = tokio::time::sleep(work) => {}
            _ = ctx.cancelled() => return Err(HandlerError::from("cancelled")),
        }
    }
    Ok(format!("Computed {label} in {}s", args.seconds))
}

/// Fails as a tool (an `isError` result, so the task completes) after about a second.
async fn failing_job() -> Result<String, HandlerError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(HandlerError::from("the job failed (as it always does)"))
}

/// Fails with a JSON-RPC error (so the task fails) after a moment.
async fn protocol_error_job() -> Result<String, HandlerError> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    Err(HandlerError::protocol(ServerError::handler(
        "protocol_error_job: an internal error, on purpose",
    )))
}

/// Works a moment (so it becomes a task), then asks for confirmation in the task.
async fn confirm_delete(args: ConfirmDeleteArgs, ctx: Context) -> Result<String, HandlerError> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    let confirm = ctx
        .elicit(ask(
            &format!("Delete {}?", args.filename),
            "confirm",
            "boolean",
        ))
        .await
        .map_err(refused)?;
    let yes = confirm.content.as_ref().and_then(|c| c.get("confirm")) == Some(&json!(true));
    Ok(if yes {
        format!("Deleted {}", args.filename)
    } else {
        format!("Kept {}", args.filename)
    })
}

/// Works a moment, then asks two questions at once (two input requests outstanding together).
async fn multi_input(ctx: Context) -> Result<String, HandlerError> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (name, confirm) = tokio::join!(
        ctx.elicit(ask("Your name?", "name", "string")),
        ctx.elicit(ask("Proceed?", "confirm", "boolean")),
    );
    let (name, confirm) = (name.map_err(refused)?, confirm.map_err(refused)?);
    Ok(format!(
        "name={}, confirm={}",
        answer(&name, "name"),
        answer(&confirm, "confirm")
    ))
}

/// Asks for a name first (MRTR, before any task exists), then works as a task.
async fn tool_with_task(ctx: Context) -> Result<String, HandlerError> {
    let name = ctx
        .elicit_as("user_name", ask("What is your name?", "name", "string"))
        .await
        .map_err(refused)?;
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(format!("Hello, {}! (from a task)", answer(&name, "name")))
}

/// The fixtures of the tasks scenarios (suite 0.2.0-alpha.12, extension
/// `io.modelcontextprotocol/tasks`); they also run as 2025-11-25 tasks.
pub(crate) fn task_tools(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    builder
        .tool(Tool::new("greet", "Greets someone (never a task)"), greet)
        .tool(
            Tool::new("slow_compute", "Works for `seconds`, then answers")
                .task_support(TaskSupport::Optional),
            slow_compute,
        )
        .tool(
            no_args_tool("failing_job", "Fails as a tool after about a second")
                .task_support(TaskSupport::Required),
            failing_job,
        )
        .tool(
            no_args_tool("protocol_error_job", "Fails with a JSON-RPC error")
                .task_support(TaskSupport::Optional),
            protocol_error_job,
        )
        .tool(
            Tool::new("confirm_delete", "Asks to confirm a deletion, in a task")
                .task_support(TaskSupport::Optional),
            confirm_delete,
        )
        .tool(
            no_args_tool("multi_input", "Asks two questions at once, in a task")
                .task_support(TaskSupport::Optional),
            multi_input,
        )
        .tool(
            no_args_tool(
                "test_tool_with_task",
                "Asks for a name (MRTR), then runs as a task",
            )
            .task_support(TaskSupport::Required),
            tool_with_task,
        )
}
