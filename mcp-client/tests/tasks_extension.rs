//! Our client's 2026-07-28 `io.modelcontextprotocol/tasks` extension against a scripted
//! server on the in-memory transport (no SDK has the extension yet, and our own server's
//! support is being written on another branch): the extension is declared on every request,
//! a task handle is polled at its `pollIntervalMs`, its `inputRequests` are answered with the
//! client's elicitation handler through `tasks/update` (once per key, even when a later poll
//! still shows them), the inlined result or error is taken, cancel is acknowledged, and there
//! is no `tasks/list`.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use common::bounded;
use mcp_client::{
    Client, ClientError, ClientOptions, TaskFlavour, TaskOptions, TaskStart, TASKS_EXTENSION,
};
use mcp_proto::jsonrpc::{self, ErrorObject, RawJson, Request};
use mcp_proto::peer::{memory_pair, Handler, Peer, PeerOptions, RequestContext};
use mcp_proto::schema::{CallToolResult, ElicitResult, TaskStatus};
use serde_json::{json, Value};

/// One scripted task: which tool made it, how often it was polled, what was answered.
#[derive(Default, Clone)]
struct Scripted {
    tool: String,
    polls: u32,
    name: Option<String>,
    polls_after_update: u32,
    cancelled: bool,
}

/// A modern server that offers the tasks extension and scripts three kinds of task.
#[derive(Default)]
struct TaskServer {
    tasks: Mutex<HashMap<String, Scripted>>,
    /// Method of every request, in order.
    methods: Mutex<Vec<String>>,
    /// Whether every request declared the extension.
    all_declared: Mutex<bool>,
}

fn task_json(id: &str, status: &str, extra: Value) -> Value {
    let mut task = json!({
        "taskId": id, "status": status, "createdAt": "2026-07-28T00:00:00Z",
        "lastUpdatedAt": "2026-07-28T00:00:01Z", "ttlMs": 60000, "pollIntervalMs": 10
    });
    if let (Value::Object(task), Value::Object(extra)) = (&mut task, extra) {
        task.extend(extra);
    }
    task
}

impl TaskServer {
    fn get(&self, id: &str) -> Result<Value, ErrorObject> {
        let mut tasks = self.tasks.lock().unwrap();
        let task = tasks
            .get_mut(id)
            .ok_or_else(|| ErrorObject::invalid_params(format!("no task {id}")))?;
        task.polls += 1;
        if task.cancelled {
            return Ok(task_json(id, "cancelled", json!({})));
        }
        Ok(match task.tool.as_str() {
            "report" => match (&task.name, task.polls) {
                (None, 1) => task_json(id, "working", json!({"statusMessage": "1 of 2 cities"})),
                (None, _) => task_json(
                    id,
                    "input_required",
                    json!({"statusMessage": "which name?", "inputRequests": {"who": {
                        "method": "elicitation/create",
                        "params": {"message": "Your name?", "requestedSchema": {
                            "type": "object", "properties": {"name": {"type": "string"}}}}}}}),
                ),
                (Some(name), _) => {
                    task.polls_after_update += 1;
                    // Eventually consistent: the first poll after the update still shows the
                    // request, which the client must not answer twice.
                    if task.polls_after_update == 1 {
                        task_json(
                            id,
                            "input_required",
                            json!({"inputRequests": {"who": {
                                "method": "elicitation/create",
                                "params": {"message": "Your name?", "requestedSchema": {
                                    "type": "object", "properties": {}}}}}}),
                        )
                    } else {
                        task_json(
                            id,
                            "completed",
                            json!({"result": {"content": [
                                {"type": "text", "text": format!("report for {name}")}]}}),
                        )
                    }
                }
            },
            "doomed" => task_json(
                id,
                "failed",
                json!({"error": {"code": -32603, "message": "the report broke"}}),
            ),
            _ => task_json(id, "working", json!({})),
        })
    }
}

impl Handler for TaskServer {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<RawJson, ErrorObject> {
        let params: Value = request
            .params
            .as_ref()
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or(Value::Null);
        self.methods.lock().unwrap().push(request.method.clone());
        let declared = params["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
            .get(TASKS_EXTENSION)
            .is_some();
        if !declared {
            *self.all_declared.lock().unwrap() = false;
        }
        let complete = |mut v: Value| {
            v["resultType"] = json!("complete");
            jsonrpc::to_raw(&v).map_err(ErrorObject::internal)
        };
        match request.method.as_str() {
            "server/discover" => complete(json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}, "extensions": {TASKS_EXTENSION: {}}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tasks", "version": "1"}}
            })),
            "tools/list" => complete(json!({"tools": [
                {"name": "report", "inputSchema": {"type": "object"}},
                {"name": "doomed", "inputSchema": {"type": "object"}},
                {"name": "slow", "inputSchema": {"type": "object"}},
                {"name": "quick", "inputSchema": {"type": "object"}}
            ]})),
            "tools/call" => {
                let tool = params["name"].as_str().unwrap_or_default().to_owned();
                if tool == "quick" {
                    return complete(json!({"content": [{"type": "text", "text": "quick"}]}));
                }
                if !declared {
                    let mut error = ErrorObject::new(-32021, "Missing required client capability");
                    error.data = jsonrpc::to_raw(&json!({"requiredCapabilities":
                        {"extensions": {TASKS_EXTENSION: {}}}}))
                    .ok();
                    return Err(error);
                }
                let mut tasks = self.tasks.lock().unwrap();
                let id = format!("task-{}", tasks.len() + 1);
                tasks.insert(
                    id.clone(),
                    Scripted {
                        tool,
                        ..Default::default()
                    },
                );
                let mut handle = task_json(&id, "working", json!({}));
                handle["resultType"] = json!("task");
                jsonrpc::to_raw(&handle).map_err(ErrorObject::internal)
            }
            "tasks/get" => complete(self.get(params["taskId"].as_str().unwrap_or_default())?),
            "tasks/update" => {
                let id = params["taskId"].as_str().unwrap_or_default();
                let name = params["inputResponses"]["who"]["content"]["name"]
                    .as_str()
                    .ok_or_else(|| ErrorObject::invalid_params("no answer for who"))?;
                let mut tasks = self.tasks.lock().unwrap();
                let task = tasks
                    .get_mut(id)
                    .ok_or_else(|| ErrorObject::invalid_params("no such task"))?;
                task.name = Some(name.to_owned());
                complete(json!({}))
            }
            "tasks/cancel" => {
                let id = params["taskId"].as_str().unwrap_or_default();
                let mut tasks = self.tasks.lock().unwrap();
                let task = tasks
                    .get_mut(id)
                    .ok_or_else(|| ErrorObject::invalid_params("no such task"))?;
                task.cancelled = true;
                complete(json!({}))
            }
            other => Err(ErrorObject::method_not_found(other)),
        }
    }
}

async fn connect() -> (Client, Arc<TaskServer>) {
    let (client_side, server_side) = memory_pair(64);
    let server = Arc::new(TaskServer {
        all_declared: Mutex::new(true),
        ..Default::default()
    });
    let _peer = Peer::start(server_side, server.clone(), PeerOptions::default());
    let options = ClientOptions::new()
        .with_name("ext")
        .with_elicitation(|params| async move {
            assert!(params.message().contains("name"), "{params:?}");
            let mut content = serde_json::Map::new();
            content.insert("name".into(), json!("octocat"));
            Ok(ElicitResult::accept(Some(content)))
        });
    let client = bounded(5, "connect", Client::connect(client_side, options))
        .await
        .expect("connects");
    (client, server)
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_task_is_polled_fed_input_once_and_its_result_taken() {
    let (client, server) = connect().await;
    assert_eq!(client.task_flavour(), Some(TaskFlavour::Extension));
    let statuses = Arc::new(Mutex::new(Vec::new()));
    let seen = statuses.clone();
    let result = bounded(
        10,
        "report",
        client.call_tool_as_task(
            "report",
            json!({}),
            TaskOptions::new().on_status(move |t| seen.lock().unwrap().push(t.status)),
        ),
    )
    .await
    .expect("completes");
    assert_eq!(text(&result), "report for octocat");
    // The callback sees each change of status or message; in order, the statuses were:
    let mut statuses = statuses.lock().unwrap().clone();
    statuses.dedup();
    assert_eq!(
        statuses,
        vec![
            TaskStatus::Working,
            TaskStatus::InputRequired,
            TaskStatus::Completed
        ]
    );
    let methods = server.methods.lock().unwrap().clone();
    let updates = methods.iter().filter(|m| *m == "tasks/update").count();
    assert_eq!(updates, 1, "{methods:?}");
    assert!(
        *server.all_declared.lock().unwrap(),
        "every request declared the extension"
    );

    // A plain call that gets a task handle polls it to its end as well.
    let plain = bounded(10, "plain report", client.call_tool("report", json!({})))
        .await
        .expect("completes");
    assert_eq!(text(&plain), "report for octocat");
    // A server may answer at once.
    let quick = bounded(
        10,
        "quick",
        client.start_tool_task("quick", json!({}), &TaskOptions::new()),
    )
    .await
    .expect("answers");
    assert!(matches!(quick, TaskStart::Done(r) if text(&r) == "quick"));
}

#[tokio::test]
async fn a_failed_task_gives_its_error_and_a_cancelled_one_ends() {
    let (client, _server) = connect().await;
    let err = bounded(
        10,
        "doomed",
        client.call_tool_as_task("doomed", json!({}), TaskOptions::new()),
    )
    .await
    .expect_err("fails");
    assert_eq!(err.rpc_error().map(|e| e.code), Some(-32603), "{err}");
    assert!(err.to_string().contains("the report broke"), "{err}");

    let TaskStart::Task(task) = bounded(
        10,
        "slow",
        client.start_tool_task("slow", json!({}), &TaskOptions::new()),
    )
    .await
    .expect("starts") else {
        panic!("a task")
    };
    let err = bounded(10, "result too early", client.task_result(&task.task_id))
        .await
        .expect_err("not done");
    assert!(matches!(err, ClientError::TaskNotDone { .. }), "{err}");
    let ack = bounded(10, "cancel", client.cancel_task(&task.task_id))
        .await
        .expect("acknowledged");
    assert!(ack.is_none(), "the extension only acknowledges");
    let now = bounded(10, "get", client.get_task(&task.task_id))
        .await
        .expect("tasks/get");
    assert_eq!(now.status, TaskStatus::Cancelled);
    let err = bounded(
        10,
        "await",
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
    let err = bounded(10, "list", client.list_tasks())
        .await
        .expect_err("no list");
    assert!(matches!(err, ClientError::TasksUnsupported { .. }), "{err}");
}

#[tokio::test]
async fn a_cancelled_wait_cancels_the_task() {
    let (client, server) = connect().await;
    let token = mcp_client::CancellationToken::new();
    let trigger = token.clone();
    let err = bounded(
        10,
        "cancelled wait",
        client.call_tool_as_task(
            "slow",
            json!({}),
            TaskOptions::new()
                .cancel_with(token)
                .on_status(move |_| trigger.cancel()),
        ),
    )
    .await
    .expect_err("cancelled");
    assert!(matches!(err, ClientError::TaskEnded { .. }), "{err}");
    let methods = server.methods.lock().unwrap().clone();
    assert!(methods.iter().any(|m| m == "tasks/cancel"), "{methods:?}");
}
