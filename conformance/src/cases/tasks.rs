//! Tasks of 2025-11-25 (`basic/utilities/tasks`, experimental), ids `tasks.*`: the `tasks`
//! capability, a task-augmented `tools/call` answered with a `CreateTaskResult`, `tasks/get`,
//! `tasks/result` with the related-task `_meta`, `tasks/list`, `tasks/cancel` (and -32602 on a
//! terminal task), an unknown task id, and a task-support declaration honoured.
//!
//! The fixture is the first tool whose `execution.taskSupport` is `optional` or `required`,
//! called with its `--call NAME=JSON` sample arguments or values from its schema.

use std::time::{Duration, Instant};

use mcp_proto::ProtocolVersion;
use serde_json::{json, Map, Value};

use super::sample_value;
use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::session::brief;
use crate::driver::{Reply, Session};
use crate::error::Error;

const SECTION: &str = "basic/utilities/tasks";
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
const V: Versions = Versions::only(ProtocolVersion::V2025_11_25);

/// The task cases of 2025-11-25.
pub fn cases() -> Vec<Case> {
    vec![
        crate::case!("tasks.capability", Must, V, Shared, SECTION,
            "a server with task-supporting tools declares tasks.requests.tools.call", capability),
        crate::case!("tasks.create-get-result", Must, V, Shared, SECTION,
            "a tools/call with `task` returns a CreateTaskResult; tasks/get finds it; tasks/result returns the result with the related-task _meta", create_get_result),
        crate::case!("tasks.cancel", Must, V, Shared, SECTION,
            "tasks/cancel moves a working task to cancelled; cancelling it again gets -32602", cancel),
        crate::case!("tasks.unknown-id", Must, V, Shared, SECTION,
            "tasks/get, tasks/result and tasks/cancel of an unknown task id get -32602", unknown_id),
        crate::case!("tasks.list", Must, V, Shared, SECTION,
            "tasks/list lists a task the session created (when tasks.list is declared)", list),
        crate::case!("tasks.required-without-task", Must, V, Shared, SECTION,
            "a tool whose taskSupport is required, called without `task`, gets -32601", required_without_task),
    ]
}

/// A task-supporting tool and its arguments.
pub(crate) struct TaskTool {
    pub(crate) name: String,
    pub(crate) args: Value,
}

/// The first tool declaring task support whose arguments are known or can be sampled.
pub(crate) async fn task_tool(cx: &mut Ctx) -> Result<Option<TaskTool>, Error> {
    for tool in cx.tools().await? {
        let support = tool
            .pointer("/execution/taskSupport")
            .and_then(Value::as_str)
            .unwrap_or("forbidden");
        if support == "forbidden" {
            continue;
        }
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let args = match cx.config.tool_args.get(name) {
            Some(args) => Some(args.clone()),
            None => sampled_args(&tool),
        };
        if let Some(args) = args {
            return Ok(Some(TaskTool {
                name: name.to_owned(),
                args,
            }));
        }
    }
    Ok(None)
}

fn sampled_args(tool: &Value) -> Option<Value> {
    let props = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object);
    let mut args = Map::new();
    let required = tool
        .pointer("/inputSchema/required")
        .and_then(Value::as_array);
    for prop in required.into_iter().flatten().filter_map(Value::as_str) {
        let schema = props.and_then(|p| p.get(prop)).unwrap_or(&Value::Null);
        args.insert(prop.to_owned(), sample_value(schema)?);
    }
    Some(Value::Object(args))
}

const NO_TOOL: &str = "no tool declares execution.taskSupport optional or required (with arguments known or from its schema; --call NAME=JSON)";

async fn capability(cx: &mut Ctx) -> CaseResult {
    let declared = cx.capability("tasks").await?;
    let has_tool = task_tool(cx).await?.is_some();
    Ok(match (declared, has_tool) {
        (None, false) => Outcome::skip(NO_TOOL),
        (None, true) => Outcome::fail(
            "the tasks capability, as a tool declares taskSupport",
            "no tasks capability",
        ),
        (Some(caps), _) => match caps.pointer("/requests/tools/call") {
            Some(Value::Object(_)) => Outcome::Pass,
            _ => Outcome::fail(
                "tasks.requests.tools.call: {}",
                format!("tasks: {}", brief(&caps)),
            ),
        },
    })
}

/// Starts a task of `tool`; its id, or a failure.
async fn start(
    session: &mut Session,
    tool: &TaskTool,
) -> Result<Result<(String, Value), Outcome>, Error> {
    let params = json!({"name": tool.name, "arguments": tool.args, "task": {"ttl": 300000}});
    let reply = session.request("tools/call", Some(params)).await?;
    let Some(task) = reply.result().and_then(|r| r.get("task")).cloned() else {
        return Ok(Err(Outcome::fail(
            "a CreateTaskResult ({\"task\": {...}})",
            reply.describe(),
        )));
    };
    let mut problems = Vec::new();
    let id = task
        .get("taskId")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if id.is_none() {
        problems.push("no string taskId".to_owned());
    }
    for field in ["status", "createdAt", "lastUpdatedAt"] {
        if !task.get(field).is_some_and(Value::is_string) {
            problems.push(format!("no string {field}"));
        }
    }
    if task.get("ttl").is_none() {
        problems.push("no ttl (a number, or null for unlimited)".into());
    }
    match (id, problems.is_empty()) {
        (Some(id), true) => Ok(Ok((id, task))),
        _ => Ok(Err(Outcome::fail(
            "a Task with taskId, status, createdAt, lastUpdatedAt and ttl",
            format!("{}: {}", problems.join(", "), brief(&task)),
        ))),
    }
}

async fn create_get_result(cx: &mut Ctx) -> CaseResult {
    let Some(tool) = task_tool(cx).await? else {
        return Ok(Outcome::skip(NO_TOOL));
    };
    let case_timeout = cx.config.case_timeout;
    let session = cx.shared().await?;
    let (id, _) = match start(session, &tool).await? {
        Ok(started) => started,
        Err(outcome) => return Ok(outcome),
    };
    let got = session
        .request("tasks/get", Some(json!({"taskId": id})))
        .await?;
    if got
        .result()
        .and_then(|r| r.get("taskId"))
        .and_then(Value::as_str)
        != Some(&id)
    {
        return Ok(Outcome::fail(
            format!("tasks/get of {id} answers its state"),
            got.describe(),
        ));
    }
    let waited = session
        .request_within(
            "tasks/result",
            Some(json!({"taskId": id})),
            case_timeout.saturating_sub(Duration::from_secs(5)),
        )
        .await?;
    Ok(match waited {
        Reply::Result(result) => {
            let related = result
                .pointer(&format!(
                    "/_meta/{}/taskId",
                    RELATED_TASK.replace('/', "~1")
                ))
                .and_then(Value::as_str);
            if related != Some(&id) {
                Outcome::fail(
                    format!("the result's _meta[{RELATED_TASK}].taskId = {id}"),
                    brief(&result),
                )
            } else {
                Outcome::Pass
            }
        }
        // A tool may fail as a protocol error; the error is then the task's result.
        Reply::Error(_) => {
            let state = session
                .request("tasks/get", Some(json!({"taskId": id})))
                .await?;
            match state
                .result()
                .and_then(|r| r.get("status"))
                .and_then(Value::as_str)
            {
                Some("failed") => Outcome::Pass,
                _ => Outcome::fail(
                    "tasks/result: the result, or the error of a failed task",
                    format!("{} (task: {})", waited.describe(), state.describe()),
                ),
            }
        }
    })
}

async fn cancel(cx: &mut Ctx) -> CaseResult {
    let Some(tool) = task_tool(cx).await? else {
        return Ok(Outcome::skip(NO_TOOL));
    };
    let session = cx.shared().await?;
    let (id, task) = match start(session, &tool).await? {
        Ok(started) => started,
        Err(outcome) => return Ok(outcome),
    };
    if task.get("status").and_then(Value::as_str) != Some("working") {
        return Ok(Outcome::skip(format!(
            "the task was not working when created: {}",
            brief(&task)
        )));
    }
    let cancelled = session
        .request("tasks/cancel", Some(json!({"taskId": id})))
        .await?;
    let status = cancelled
        .result()
        .and_then(|r| r.get("status"))
        .and_then(Value::as_str);
    match status {
        Some("cancelled") => {}
        // It may have finished first; then the cancel is refused as terminal.
        _ if cancelled.error_code() == Some(-32602) => {
            return Ok(Outcome::skip(
                "the task finished before it could be cancelled",
            ))
        }
        _ => {
            return Ok(Outcome::fail(
                "tasks/cancel answers the task, status cancelled",
                cancelled.describe(),
            ))
        }
    }
    let again = session
        .request("tasks/cancel", Some(json!({"taskId": id})))
        .await?;
    Ok(super::expect_code(
        &again,
        -32602,
        "cancelling a cancelled (terminal) task",
    ))
}

async fn unknown_id(cx: &mut Ctx) -> CaseResult {
    if cx.capability("tasks").await?.is_none() {
        return Ok(Outcome::skip(
            "the server does not declare the `tasks` capability",
        ));
    }
    let session = cx.shared().await?;
    let mut problems = Vec::new();
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let reply = session
            .request(
                method,
                Some(json!({"taskId": "mcp-conformance-no-such-task-0"})),
            )
            .await?;
        if reply.error_code() != Some(-32602) {
            problems.push(format!("{method}: {}", reply.describe()));
        }
    }
    Ok(super::modern::verdict(
        "-32602 for an unknown task id",
        problems,
    ))
}

async fn list(cx: &mut Ctx) -> CaseResult {
    let listed = cx
        .capability("tasks")
        .await?
        .is_some_and(|t| t.get("list").is_some_and(|l| !l.is_null()));
    if !listed {
        return Ok(Outcome::skip("the server does not declare tasks.list"));
    }
    let Some(tool) = task_tool(cx).await? else {
        return Ok(Outcome::skip(NO_TOOL));
    };
    let session = cx.shared().await?;
    let (id, _) = match start(session, &tool).await? {
        Ok(started) => started,
        Err(outcome) => return Ok(outcome),
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut cursor: Option<Value> = None;
    let mut pages = 0;
    let found = loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let reply = session.request("tasks/list", Some(params)).await?;
        let Some(result) = reply.result() else {
            return Ok(Outcome::fail("a tasks/list result", reply.describe()));
        };
        let tasks = result.get("tasks").and_then(Value::as_array);
        if tasks.is_none() {
            return Ok(Outcome::fail("tasks/list: a `tasks` array", brief(result)));
        }
        if tasks
            .into_iter()
            .flatten()
            .any(|t| t.get("taskId").and_then(Value::as_str) == Some(&id))
        {
            break true;
        }
        pages += 1;
        cursor = result.get("nextCursor").cloned();
        if cursor.is_none() || pages >= 100 || Instant::now() > deadline {
            break false;
        }
    };
    // Leave nothing running.
    let _ = session
        .request("tasks/cancel", Some(json!({"taskId": id})))
        .await?;
    Ok(if found {
        Outcome::Pass
    } else {
        Outcome::fail(format!("tasks/list includes {id}"), "it does not")
    })
}

async fn required_without_task(cx: &mut Ctx) -> CaseResult {
    let mut required = None;
    for tool in cx.tools().await? {
        if tool
            .pointer("/execution/taskSupport")
            .and_then(Value::as_str)
            == Some("required")
        {
            required = tool.get("name").and_then(Value::as_str).map(str::to_owned);
            break;
        }
    }
    let Some(name) = required else {
        return Ok(Outcome::skip("no tool declares taskSupport required"));
    };
    let session = cx.shared().await?;
    let reply = session
        .request("tools/call", Some(json!({"name": name, "arguments": {}})))
        .await?;
    Ok(super::expect_code(
        &reply,
        -32601,
        "a required-task tool called without `task`",
    ))
}
