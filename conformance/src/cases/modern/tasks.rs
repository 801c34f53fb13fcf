//! The 2026-07-28 tasks extension `io.modelcontextprotocol/tasks` (SEP-2663), ids
//! `modern.tasks-*`: declared under `capabilities.extensions` (not `tasks`), its methods refused
//! with -32021 to a request that does not declare it, a task-supporting `tools/call` answered
//! with a flat `CreateTaskResult` (`resultType: "task"`, `ttlMs`) or at once, `tasks/get` that
//! inlines the result, ack-only `tasks/cancel`, the removed `tasks/result` and `tasks/list`
//! (-32601), and -32602 for an unknown task.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::protocol::params_with;
use super::{discover, open, result_type_problem, verdict, MODERN};
use crate::case::{Case, CaseResult, Outcome};
use crate::cases::tasks::task_tool;
use crate::context::Ctx;
use crate::driver::session::brief;
use crate::driver::{Reply, Session};
use crate::error::Error;

const SECTION: &str = "extension io.modelcontextprotocol/tasks (SEP-2663)";
const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The tasks-extension cases.
pub fn cases() -> Vec<Case> {
    vec![
        crate::case!("modern.tasks-extension", Must, MODERN, Own, SECTION,
            "a server with task-supporting tools declares the extension under capabilities.extensions, not capabilities.tasks", extension),
        crate::case!("modern.tasks-gated", Must, MODERN, Own, SECTION,
            "tasks/get, tasks/update and tasks/cancel without the extension declared get -32021", gated),
        crate::case!("modern.tasks-lifecycle", Must, MODERN, Own, SECTION,
            "a task-supporting tools/call answers a flat CreateTaskResult (or at once); tasks/get finds it and inlines the result; tasks/cancel is an empty ack", lifecycle),
        crate::case!("modern.tasks-removed-methods", Must, MODERN, Own, SECTION,
            "tasks/result and tasks/list do not exist (-32601); an unknown task id gets -32602", removed_methods),
    ]
}

fn with_extension() -> Value {
    json!({"extensions": {EXTENSION: {}}})
}

/// Sends a modern request declaring the extension (or not).
async fn send(
    session: &mut Session,
    method: &str,
    params: Value,
    extension: bool,
) -> Result<Reply, Error> {
    let caps = if extension {
        with_extension()
    } else {
        json!({})
    };
    session
        .first_request(method, Some(params_with(params, caps)))
        .await
}

/// The extension's entry in discover, or a skip when the server has none.
async fn declared(cx: &mut Ctx) -> Result<Result<Value, Outcome>, Error> {
    let discovered = match discover(cx).await? {
        Ok(d) => d,
        Err(skip) => return Ok(Err(skip)),
    };
    Ok(
        match discovered.pointer(&format!(
            "/capabilities/extensions/{}",
            EXTENSION.replace('/', "~1")
        )) {
            Some(entry) => Ok(entry.clone()),
            None => Err(Outcome::skip(format!(
                "the server does not declare the {EXTENSION} extension"
            ))),
        },
    )
}

async fn extension(cx: &mut Ctx) -> CaseResult {
    let discovered = match discover(cx).await? {
        Ok(d) => d,
        Err(skip) => return Ok(skip),
    };
    let has_tool = task_tool(cx).await?.is_some();
    let caps = discovered
        .get("capabilities")
        .cloned()
        .unwrap_or(Value::Null);
    let entry = caps
        .get("extensions")
        .and_then(|e| e.get(EXTENSION))
        .cloned();
    let mut problems = Vec::new();
    if caps.get("tasks").is_some_and(|t| !t.is_null()) {
        problems.push("capabilities.tasks is declared (the 2025 capability)".to_owned());
    }
    match entry {
        None if has_tool => problems.push(format!(
            "a tool declares taskSupport but capabilities.extensions has no {EXTENSION}"
        )),
        None => return Ok(Outcome::skip("the server has no task-supporting tool")),
        Some(Value::Object(_)) => {}
        Some(other) => problems.push(format!(
            "the extension's settings are not an object: {other}"
        )),
    }
    Ok(verdict(
        "the extension under capabilities.extensions only",
        problems,
    ))
}

async fn gated(cx: &mut Ctx) -> CaseResult {
    if let Err(skip) = declared(cx).await? {
        return Ok(skip);
    }
    let mut session = open(cx).await?;
    let mut problems = Vec::new();
    for (method, params) in [
        ("tasks/get", json!({"taskId": "mcp-conformance-gate"})),
        (
            "tasks/update",
            json!({"taskId": "mcp-conformance-gate", "inputResponses": {}}),
        ),
        ("tasks/cancel", json!({"taskId": "mcp-conformance-gate"})),
    ] {
        let reply = send(&mut session, method, params, false).await?;
        if reply.error_code() != Some(-32021) {
            problems.push(format!("{method}: {}", reply.describe()));
        }
    }
    session.close().await;
    Ok(verdict("-32021 without the extension declared", problems))
}

/// The problems with a `CreateTaskResult`, if any.
fn create_problems(created: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if created.get("task").is_some() {
        problems.push("a nested `task` (the result must be flat)".to_owned());
    }
    if !created.get("taskId").is_some_and(Value::is_string) {
        problems.push("no string taskId".into());
    }
    for field in ["status", "createdAt", "lastUpdatedAt"] {
        if !created.get(field).is_some_and(Value::is_string) {
            problems.push(format!("no string {field}"));
        }
    }
    match created.get("ttlMs") {
        Some(Value::Null) => {}
        Some(v) if v.as_u64().is_some() => {}
        other => problems.push(format!("ttlMs {other:?} (an integer or null)")),
    }
    for legacy in ["ttl", "pollInterval"] {
        if created.get(legacy).is_some() {
            problems.push(format!("the 2025 field {legacy}"));
        }
    }
    for inlined in ["result", "error", "inputRequests", "requestState"] {
        if created.get(inlined).is_some() {
            problems.push(format!("{inlined} on the CreateTaskResult"));
        }
    }
    problems
}

async fn lifecycle(cx: &mut Ctx) -> CaseResult {
    if let Err(skip) = declared(cx).await? {
        return Ok(skip);
    }
    let Some(tool) = task_tool(cx).await? else {
        return Ok(Outcome::skip(
            "no task-supporting tool with known arguments (--call NAME=JSON)",
        ));
    };
    let wait = cx
        .config
        .case_timeout
        .saturating_sub(Duration::from_secs(5));
    let mut session = open(cx).await?;
    let params = json!({"name": tool.name, "arguments": tool.args});
    let reply = send(&mut session, "tools/call", params, true).await?;
    let Some(created) = reply.result().cloned() else {
        session.close().await;
        return Ok(Outcome::fail("a tools/call result", reply.describe()));
    };
    match created.get("resultType").and_then(Value::as_str) {
        Some("task") => {}
        // The server may answer at once; a required-task tool answered so is still valid.
        Some("complete") => {
            session.close().await;
            return Ok(if created.get("content").is_some_and(Value::is_array) {
                Outcome::skip(format!("`{}` answered at once, with no task", tool.name))
            } else {
                Outcome::fail("a CallToolResult or a CreateTaskResult", brief(&created))
            });
        }
        _ => {
            session.close().await;
            return Ok(Outcome::fail(
                "resultType \"task\" or \"complete\"",
                brief(&created),
            ));
        }
    }
    let mut problems = create_problems(&created);
    let Some(id) = created
        .get("taskId")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        session.close().await;
        return Ok(verdict("a flat CreateTaskResult", problems));
    };
    // Durable before the answer: found at once, then polled to a terminal status.
    let deadline = Instant::now() + wait;
    let mut last = Value::Null;
    loop {
        let got = send(&mut session, "tasks/get", json!({"taskId": id}), true).await?;
        let Some(state) = got.result().cloned() else {
            problems.push(format!("tasks/get: {}", got.describe()));
            break;
        };
        if let Some(p) = result_type_problem(&state, "complete", "tasks/get") {
            problems.push(p);
            break;
        }
        let status = state.get("status").and_then(Value::as_str).unwrap_or("");
        match status {
            "completed" => {
                if !state.get("result").is_some_and(Value::is_object) {
                    problems.push("a completed task without an inlined result".into());
                }
                last = state;
                break;
            }
            "failed" => {
                if !state.get("error").is_some_and(Value::is_object) {
                    problems.push("a failed task without an inlined error".into());
                }
                last = state;
                break;
            }
            "cancelled" => {
                last = state;
                break;
            }
            "input_required" => {
                if !state.get("inputRequests").is_some_and(Value::is_object) {
                    problems.push("an input_required task without inputRequests".into());
                }
                last = state;
                break;
            }
            "working" => {}
            other => {
                problems.push(format!("status {other:?}"));
                break;
            }
        }
        if Instant::now() > deadline {
            problems.push(format!("still working after {} s", wait.as_secs()));
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Cancel is an empty ack, whatever the status.
    let ack = send(&mut session, "tasks/cancel", json!({"taskId": id}), true).await?;
    match ack.result() {
        Some(ack) => {
            if let Some(p) = result_type_problem(ack, "complete", "tasks/cancel") {
                problems.push(p);
            }
            for field in ["taskId", "status", "result", "error"] {
                if ack.get(field).is_some() {
                    problems.push(format!("tasks/cancel ack carries {field}"));
                }
            }
        }
        None => problems.push(format!("tasks/cancel: {}", ack.describe())),
    }
    session.close().await;
    if problems.is_empty() && last.is_null() {
        problems.push("no terminal state seen".into());
    }
    Ok(verdict("the extension's task lifecycle", problems))
}

async fn removed_methods(cx: &mut Ctx) -> CaseResult {
    if let Err(skip) = declared(cx).await? {
        return Ok(skip);
    }
    let mut session = open(cx).await?;
    let mut problems = Vec::new();
    for method in ["tasks/result", "tasks/list"] {
        let reply = send(&mut session, method, json!({"taskId": "x"}), true).await?;
        if reply.error_code() != Some(-32601) {
            problems.push(format!("{method}: {}", reply.describe()));
        }
    }
    let reply = send(
        &mut session,
        "tasks/get",
        json!({"taskId": "mcp-conformance-no-such-task-0"}),
        true,
    )
    .await?;
    if reply.error_code() != Some(-32602) {
        problems.push(format!("tasks/get of an unknown id: {}", reply.describe()));
    }
    session.close().await;
    Ok(verdict(
        "-32601 for the removed methods, -32602 for an unknown id",
        problems,
    ))
}
