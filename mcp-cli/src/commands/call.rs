//! `mcp call NAME [JSON_ARGS] [--json] [--task [--detach]]`: calls a tool through the hub,
//! directly or as a task (see `tasks`). Progress, task status and the server's log messages go
//! to stderr; the result goes to stdout. Exit 1 when the result has `isError`, 2 for usage or
//! connection errors.

use std::process::ExitCode;
use std::sync::Arc;

use mcp_client::{CallOptions, ServerEvent};
use mcp_hub::{exposed_name, Hub, HubError, ServerStatus};

use super::{connect, load, parse_object, Failure, Outcome};
use crate::config_path::ConfigSource;
use crate::output::ProgressReporter;

/// How `mcp call` runs the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A plain `tools/call`.
    Direct,
    /// As a task, waited for.
    Task,
    /// As a task, not waited for: the id is printed.
    Detached,
}

/// Calls the tool and prints its result.
pub async fn call(
    source: &ConfigSource,
    name: &str,
    args: Option<&str>,
    as_json: bool,
    mode: Mode,
) -> Outcome {
    let arguments = parse_object(args, "JSON_ARGS (the tool arguments)")?;
    let mut config = load(source)?;
    // An exposed name `server__tool` needs only its server; a bare name needs them all.
    let owners: Vec<String> = config
        .servers
        .iter()
        .filter(|s| name.starts_with(&exposed_name(&s.name, "")))
        .map(|s| s.name.clone())
        .collect();
    if !owners.is_empty() {
        config.servers.retain(|s| owners.contains(&s.name));
    }
    let hub = connect(
        config,
        mcp_hub::HubOptions {
            restart: None,
            ..Default::default()
        },
    )
    .await;
    let result = call_on(&hub, name, arguments, mode).await;
    hub.close().await;
    match result? {
        Some(result) => super::tasks::print_result(&result, as_json),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The call itself; `None` for a detached task.
async fn call_on(
    hub: &Hub,
    name: &str,
    arguments: serde_json::Value,
    mode: Mode,
) -> Result<Option<mcp_proto::schema::CallToolResult>, Failure> {
    let tool = match hub.resolve_tool(name) {
        Ok(tool) => tool,
        Err(e @ HubError::UnknownTool { .. }) => return Err(explain_unknown(hub, name, e)),
        Err(e) => return Err(e.into()),
    };
    let client = hub.client(&tool.server)?;
    let mut events = client.notifications();
    let server = tool.server.clone();
    let logs = tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            if let ServerEvent::Log(log) = event {
                let data = match &log.data {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let level = serde_json::to_value(log.level)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                eprintln!("[{server}] {level}: {data}");
            }
        }
    });
    if mode != Mode::Direct {
        let result =
            super::tasks::call_as_task(hub, &tool.exposed, arguments, mode == Mode::Detached).await;
        logs.abort();
        return result;
    }
    let reporter = Arc::new(ProgressReporter::new());
    let on_progress = reporter.clone();
    let options = CallOptions::default().on_progress(move |p| {
        on_progress.report(p.progress, p.total, p.message.as_deref());
    });
    let result = hub.call_tool_with(&tool.exposed, arguments, options).await;
    reporter.finish();
    logs.abort();
    Ok(Some(result?))
}

/// An unknown tool whose name points at a server that failed or is disabled says so.
fn explain_unknown(hub: &Hub, name: &str, error: HubError) -> Failure {
    for s in hub.servers() {
        if name.starts_with(&exposed_name(&s.config.name, "")) {
            match &s.status {
                ServerStatus::Failed(reason) => {
                    return Failure::usage(format!(
                        "server {} failed to connect: {reason}",
                        s.config.name
                    ))
                }
                ServerStatus::Disabled => {
                    return Failure::usage(format!(
                    "server {} is disabled in the config; set \"disabled\": false to use {name}",
                    s.config.name
                ))
                }
                ServerStatus::Reconnecting { .. } => {
                    return Failure::usage(format!(
                        "server {} is {}",
                        s.config.name,
                        s.status.describe()
                    ))
                }
                ServerStatus::Connected => {}
            }
        }
    }
    error.into()
}
