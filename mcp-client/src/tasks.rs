//! Tasks: a tool call that answers with a handle at once and is polled, cancelled or fetched
//! later, in both flavours the spec has.
//!
//! - 2025-11-25 core tasks: the server declares `tasks.requests.tools.call`, a tool declares
//!   `execution.taskSupport`, the client asks with `params.task`, then polls `tasks/get`,
//!   fetches with `tasks/result` (which also carries the server's requests for input while the
//!   task is `input_required`), lists with `tasks/list` and cancels with `tasks/cancel`.
//! - The 2026-07-28 extension `io.modelcontextprotocol/tasks`: the client declares the
//!   extension in every request's capabilities, the server decides per call whether to answer
//!   with `resultType: "task"`; `tasks/get` carries the result, the error or the pending
//!   `inputRequests` (answered with `tasks/update`), `tasks/cancel` cancels; there is no list.
//!
//! [`Client::task_flavour`] says which one a server offers; the calls below pick it from that.
//! Both are shown to callers as the same [`Task`] (the extension's `ttlMs`/`pollIntervalMs`
//! read as `ttl`/`pollInterval`; its `result`, `error` and `inputRequests` stay in
//! [`Task::extra`]).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use mcp_proto::jsonrpc::ErrorObject;
use mcp_proto::peer::{PeerError, Progress, ProgressCallback};
use mcp_proto::schema::{
    CallTool, CallToolParams, CallToolResult, CancelTask, ClientCapabilities, GetTask,
    GetTaskPayload, InputRequests, ListTasks, PaginatedParams, RequestType, Task, TaskIdParams,
    TaskMetadata, TaskStatus, TaskSupport, UpdateTask,
};
use serde_json::{Map, Value};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::client::Client;
use crate::era::Era;
use crate::error::ClientError;
use crate::handler::ServerEvent;
use crate::input::InputRound;
use crate::options::{CallOptions, MAX_TIMEOUT};

pub use mcp_proto::schema::TASKS_EXTENSION;
/// The shortest wait between two polls, whatever the server suggests.
pub const MIN_POLL_INTERVAL: Duration = Duration::from_millis(50);
/// The longest wait between two polls, whatever the server suggests.
pub const MAX_POLL_INTERVAL: Duration = Duration::from_secs(30);
/// The wait between two polls when the server suggests none.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// How many distinct input requests one task may ask (2026-07-28) before the client gives up.
pub const MAX_TASK_INPUTS: usize = 64;
/// How many pages `tasks/list` follows.
const MAX_TASK_PAGES: usize = 100;

/// Which tasks a server offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskFlavour {
    /// 2025-11-25 core tasks (`params.task`, `tasks/get|result|list|cancel`).
    Core,
    /// The 2026-07-28 `io.modelcontextprotocol/tasks` extension (`tasks/get|update|cancel`).
    Extension,
}

impl std::fmt::Display for TaskFlavour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TaskFlavour::Core => "2025-11-25 tasks",
            TaskFlavour::Extension => TASKS_EXTENSION,
        })
    }
}

/// What a tool call started as a task gave back.
#[derive(Clone, Debug)]
pub enum TaskStart {
    /// The task the server created; poll it, fetch its result or cancel it.
    Task(Task),
    /// The server answered at once (a 2026-07-28 server may decline to make a task).
    Done(Box<CallToolResult>),
}

impl TaskStart {
    /// Reads a `tools/call` answer: a 2025 `CreateTaskResult` (`{task: {...}}`), a 2026
    /// task handle (`resultType: "task"`), else the tool's result.
    pub(crate) fn read(server: &str, value: Value) -> Result<TaskStart, ClientError> {
        let invalid = |reason: String| ClientError::InvalidResult {
            server: server.to_owned(),
            method: CallTool::METHOD.to_owned(),
            reason,
        };
        let Value::Object(mut object) = value else {
            return Err(invalid("the result is not a JSON object".into()));
        };
        if object.get("resultType").and_then(Value::as_str) == Some("task") {
            return extension_task(object).map(TaskStart::Task).map_err(invalid);
        }
        if object.get("task").is_some_and(Value::is_object) && !object.contains_key("content") {
            let task = object.remove("task").unwrap_or_default();
            return serde_json::from_value(task)
                .map(TaskStart::Task)
                .map_err(|e| invalid(format!("a CreateTaskResult with a bad task: {e}")));
        }
        serde_json::from_value(Value::Object(object))
            .map(|r| TaskStart::Done(Box::new(r)))
            .map_err(|e| invalid(e.to_string()))
    }
}

/// Called with a task each time its status or status message changes.
pub type TaskStatusCallback = Arc<dyn Fn(&Task) + Send + Sync>;

/// How a task is started and waited for.
#[derive(Clone, Default)]
pub struct TaskOptions {
    /// How long the server should keep the task (2025-11-25 `params.task.ttl`).
    pub ttl: Option<Duration>,
    /// Sees every change of status (from polls and from status notifications).
    pub on_status: Option<TaskStatusCallback>,
    /// Sees the task's progress notifications (2025-11-25: sent under a progress token this
    /// client chooses, valid for the task's whole life).
    pub on_progress: Option<ProgressCallback>,
    /// Cancels the task (`tasks/cancel`) when cancelled while waiting.
    pub cancel: Option<CancellationToken>,
    /// How long to wait for the task in all (default and cap [`MAX_TIMEOUT`]).
    pub wait: Option<Duration>,
    /// The timeout of each request (default: the client's).
    pub request_timeout: Option<Duration>,
}

impl std::fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskOptions")
            .field("ttl", &self.ttl)
            .field("on_status", &self.on_status.is_some())
            .field("on_progress", &self.on_progress.is_some())
            .field("cancel", &self.cancel.is_some())
            .field("wait", &self.wait)
            .finish()
    }
}

impl TaskOptions {
    /// Options with nothing set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the server to keep the task for `ttl`.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// Calls `f` on every change of the task's status.
    pub fn on_status(mut self, f: impl Fn(&Task) + Send + Sync + 'static) -> Self {
        self.on_status = Some(Arc::new(f));
        self
    }

    /// Calls `f` with every progress update of the task.
    pub fn on_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(f));
        self
    }

    /// Cancels the task when `token` is cancelled.
    pub fn cancel_with(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Waits at most `wait` for the task in all.
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = Some(wait);
        self
    }

    /// The task options of a plain call that the server turned into a task.
    pub(crate) fn from_call(call: &CallOptions) -> Self {
        TaskOptions {
            on_progress: call.on_progress.clone(),
            cancel: call.cancel.clone(),
            wait: call.max_total_timeout.or(call.timeout),
            request_timeout: call.timeout,
            ..Default::default()
        }
    }

    fn call_options(&self, left: Duration) -> CallOptions {
        CallOptions {
            timeout: Some(self.request_timeout.unwrap_or(left).min(left)),
            ..Default::default()
        }
    }
}

/// The capabilities of a 2026-07-28 request: the callbacks' ones plus the tasks extension, so
/// a server may answer a tool call with a task (which [`Client::call_tool`] then polls).
pub(crate) fn with_tasks_extension(mut capabilities: ClientCapabilities) -> ClientCapabilities {
    capabilities
        .extensions
        .get_or_insert_with(Map::new)
        .insert(TASKS_EXTENSION.into(), Value::Object(Map::new()));
    capabilities
}

/// Reads a 2026 task object (a handle, a `tasks/get` answer or a notification) into a
/// [`Task`]: `ttlMs`/`pollIntervalMs` become `ttl`/`pollInterval`, `resultType` is dropped,
/// everything else (`result`, `error`, `inputRequests`) stays in `extra`.
pub(crate) fn extension_task(mut object: Map<String, Value>) -> Result<Task, String> {
    object.remove("resultType");
    object.remove("_meta");
    if let Some(ttl) = object.remove("ttlMs") {
        object.insert("ttl".into(), ttl);
    }
    if let Some(poll) = object.remove("pollIntervalMs") {
        object.insert("pollInterval".into(), poll);
    }
    serde_json::from_value(Value::Object(object))
        .map_err(|e| format!("a task that is not valid: {e}"))
}

/// When the next poll of `task` is due: its `pollInterval`, bounded.
pub fn poll_interval(task: &Task) -> Duration {
    task.poll_interval
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_POLL_INTERVAL)
        .clamp(MIN_POLL_INTERVAL, MAX_POLL_INTERVAL)
}

/// A task's end and, when known, what it ended with.
struct Ending {
    task: Task,
    /// The underlying result (or error) when the way of waiting already fetched it.
    payload: Option<Result<Value, ClientError>>,
}

/// Runs a progress forwarder for the life of a wait: `notifications/progress` carrying our
/// token go to the callback.
struct ProgressForward(Option<tokio::task::JoinHandle<()>>);

impl Drop for ProgressForward {
    fn drop(&mut self) {
        if let Some(task) = self.0.take() {
            task.abort();
        }
    }
}

/// Sends status changes to the callback, once per change.
#[derive(Default)]
struct StatusSeen {
    last: Option<(TaskStatus, Option<String>)>,
}

impl StatusSeen {
    fn see(&mut self, task: &Task, options: &TaskOptions) {
        let now = (task.status, task.status_message.clone());
        if self.last.as_ref() != Some(&now) {
            self.last = Some(now);
            if let Some(f) = &options.on_status {
                f(task);
            }
        }
    }
}

impl Client {
    /// The tasks this server offers for tool calls: 2025-11-25 core tasks when it declared
    /// `tasks.requests.tools.call`, the 2026-07-28 extension when it declared it under
    /// `extensions`, else none.
    pub fn task_flavour(&self) -> Option<TaskFlavour> {
        let handshake = self.handshake();
        let capabilities = &handshake.result.capabilities;
        match handshake.era() {
            Era::Legacy => capabilities
                .tasks
                .as_ref()
                .and_then(|t| t.requests.as_ref())
                .and_then(|r| r.tools.as_ref())
                .and_then(|t| t.call.as_ref())
                .map(|_| TaskFlavour::Core),
            Era::Modern => capabilities
                .extensions
                .as_ref()
                .filter(|e| e.contains_key(TASKS_EXTENSION))
                .map(|_| TaskFlavour::Extension),
        }
    }

    /// Whether tool `name` declares `execution.taskSupport: "required"` on a server offering
    /// 2025-11-25 tasks (so a plain call of it is refused), as of the last `tools/list` (made
    /// once here when there was none).
    pub(crate) async fn requires_task(&self, name: &str) -> bool {
        if self.task_flavour() != Some(TaskFlavour::Core) {
            return false;
        }
        if self.task_only_tools().is_none() && Box::pin(self.list_tools()).await.is_err() {
            return false;
        }
        self.task_only_tools()
            .is_some_and(|tools| tools.contains(name))
    }

    /// The flavour the task calls of this connection speak, or why there is none.
    fn flavour_or_unsupported(&self) -> Result<TaskFlavour, ClientError> {
        self.task_flavour().ok_or_else(|| {
            self.unsupported(match self.era() {
                Era::Legacy => "the server did not declare tasks.requests.tools.call".to_owned(),
                Era::Modern => {
                    format!("the server did not declare the {TASKS_EXTENSION} extension")
                }
            })
        })
    }

    /// The flavour to speak for a task id: the one offered, else the era's.
    fn flavour_for_ids(&self) -> TaskFlavour {
        self.task_flavour().unwrap_or(match self.era() {
            Era::Legacy => TaskFlavour::Core,
            Era::Modern => TaskFlavour::Extension,
        })
    }

    fn unsupported(&self, reason: String) -> ClientError {
        ClientError::TasksUnsupported {
            server: self.name().to_owned(),
            reason,
        }
    }

    /// Calls tool `name` as a task: only when the server offers tasks for tool calls and (2025)
    /// the tool's `execution.taskSupport` allows it. Returns the task created, or the result
    /// when a 2026-07-28 server chose to answer at once. (Progress needs a waiting caller: use
    /// [`call_tool_as_task`](Self::call_tool_as_task) for it.)
    pub async fn start_tool_task(
        &self,
        name: &str,
        arguments: Value,
        options: &TaskOptions,
    ) -> Result<TaskStart, ClientError> {
        self.start_with_token(name, arguments, options, None).await
    }

    /// [`start_tool_task`](Self::start_tool_task), sending `progress_token` (2025) when given.
    async fn start_with_token(
        &self,
        name: &str,
        arguments: Value,
        options: &TaskOptions,
        progress_token: Option<&str>,
    ) -> Result<TaskStart, ClientError> {
        let flavour = self.flavour_or_unsupported()?;
        let mut params = CallToolParams::new(name).with_arguments(arguments);
        if flavour == TaskFlavour::Core {
            let tools = self.list_tools().await?;
            let tool = tools.iter().find(|t| t.name == name).ok_or_else(|| {
                self.unsupported(format!("the server lists no tool named {name:?}"))
            })?;
            let support = tool
                .execution
                .as_ref()
                .and_then(|e| e.task_support)
                .unwrap_or_default();
            if support == TaskSupport::Forbidden {
                return Err(self.unsupported(format!(
                    "tool {name:?} does not allow tasks (its execution.taskSupport is absent or \
                     \"forbidden\")"
                )));
            }
            params.task = Some(TaskMetadata {
                ttl: options
                    .ttl
                    .map(|t| t.as_millis().try_into().unwrap_or(u64::MAX)),
                ..Default::default()
            });
            if let Some(token) = progress_token {
                params
                    .meta
                    .get_or_insert_with(Map::new)
                    .insert("progressToken".into(), Value::String(token.to_owned()));
            }
        }
        let wait = clamp_wait(options.wait);
        self.call_tool_raw(&params, options.call_options(wait))
            .await
    }

    /// Calls tool `name` as a task and waits for its result: polls at the server's
    /// `pollInterval` (bounded by [`MIN_POLL_INTERVAL`]..[`MAX_POLL_INTERVAL`]), answers its
    /// requests for input with the client's handlers, reports status and progress to the
    /// options' callbacks, and cancels it with `tasks/cancel` when the options' token fires.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        options: TaskOptions,
    ) -> Result<CallToolResult, ClientError> {
        let token = options
            .on_progress
            .as_ref()
            .map(|_| format!("task-progress-{}", progress_token_suffix()));
        let _forward = self.forward_progress(&options, token.clone());
        match self
            .start_with_token(name, arguments, &options, token.as_deref())
            .await?
        {
            TaskStart::Done(result) => Ok(*result),
            TaskStart::Task(task) => {
                if let Some(f) = &options.on_status {
                    f(&task);
                }
                let ending = self.drive(&task.task_id, &options, Some(&task)).await?;
                self.ending_result(ending).await
            }
        }
    }

    /// Forwards the notifications of progress `token` to the options' callback.
    fn forward_progress(&self, options: &TaskOptions, token: Option<String>) -> ProgressForward {
        let (Some(callback), Some(token)) = (options.on_progress.clone(), token) else {
            return ProgressForward(None);
        };
        let mut events = self.events();
        ProgressForward(Some(tokio::spawn(async move {
            loop {
                match events.recv().await {
                    Ok(ServerEvent::Progress(p)) => {
                        if matches!(&p.progress_token, mcp_proto::jsonrpc::RequestId::String(s) if **s == *token)
                        {
                            callback(Progress {
                                progress: p.progress,
                                total: p.total,
                                message: p.message,
                            });
                        }
                    }
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        })))
    }

    /// Waits for task `task_id` to end and returns its result (an error when it failed or
    /// was cancelled).
    pub async fn await_task_result(
        &self,
        task_id: &str,
        options: &TaskOptions,
    ) -> Result<CallToolResult, ClientError> {
        let ending = self.drive(task_id, options, None).await?;
        self.ending_result(ending).await
    }

    /// The result a task ended with: the payload its wait fetched, else fetched now.
    async fn ending_result(&self, ending: Ending) -> Result<CallToolResult, ClientError> {
        match ending.payload {
            Some(payload) => self.tool_result(payload?),
            None => self.ended_result(ending.task).await,
        }
    }

    /// Waits for task `task_id` to reach a terminal status and returns it.
    pub async fn wait_task(
        &self,
        task_id: &str,
        options: &TaskOptions,
    ) -> Result<Task, ClientError> {
        Ok(self.drive(task_id, options, None).await?.task)
    }

    /// The task's state now (`tasks/get`).
    pub async fn get_task(&self, task_id: &str) -> Result<Task, ClientError> {
        self.get_task_with(task_id, CallOptions::default()).await
    }

    async fn get_task_with(
        &self,
        task_id: &str,
        options: CallOptions,
    ) -> Result<Task, ClientError> {
        match self.flavour_for_ids() {
            TaskFlavour::Core => Ok(self
                .send::<GetTask>(&TaskIdParams::new(task_id), options)
                .await?
                .task),
            TaskFlavour::Extension => {
                let value = self
                    .request(GetTask::METHOD, Some(id_params(task_id)), options)
                    .await?;
                self.read_extension_task(GetTask::METHOD, value)
            }
        }
    }

    fn read_extension_task(&self, method: &str, value: Value) -> Result<Task, ClientError> {
        let invalid = |reason: String| ClientError::InvalidResult {
            server: self.name().to_owned(),
            method: method.to_owned(),
            reason,
        };
        match value {
            Value::Object(object) => extension_task(object).map_err(invalid),
            _ => Err(invalid("the result is not a JSON object".into())),
        }
    }

    /// The task's result: 2025-11-25 `tasks/result` (which waits for the task to end, up to
    /// the client's request timeout); 2026-07-28 the `result` of a completed task (an error
    /// when it is still running, failed or was cancelled).
    pub async fn task_result(&self, task_id: &str) -> Result<CallToolResult, ClientError> {
        match self.flavour_for_ids() {
            TaskFlavour::Core => {
                let value = self
                    .request(
                        GetTaskPayload::METHOD,
                        Some(id_params(task_id)),
                        CallOptions::default(),
                    )
                    .await?;
                self.tool_result(value)
            }
            TaskFlavour::Extension => {
                let task = self.get_task(task_id).await?;
                if !task.status.is_terminal() {
                    return Err(ClientError::TaskNotDone {
                        server: self.name().to_owned(),
                        task_id: task_id.to_owned(),
                        status: task.status,
                    });
                }
                self.ended_result(task).await
            }
        }
    }

    /// Cancels the task (`tasks/cancel`). Returns its state when the server sends it (2025;
    /// the 2026-07-28 extension only acknowledges).
    pub async fn cancel_task(&self, task_id: &str) -> Result<Option<Task>, ClientError> {
        self.cancel_task_with(task_id, CallOptions::default()).await
    }

    async fn cancel_task_with(
        &self,
        task_id: &str,
        options: CallOptions,
    ) -> Result<Option<Task>, ClientError> {
        match self.flavour_for_ids() {
            TaskFlavour::Core => Ok(Some(
                self.send::<CancelTask>(&TaskIdParams::new(task_id), options)
                    .await?
                    .task,
            )),
            TaskFlavour::Extension => {
                self.request(CancelTask::METHOD, Some(id_params(task_id)), options)
                    .await?;
                Ok(None)
            }
        }
    }

    /// Every task the server lists for us (`tasks/list`, all pages; 2025-11-25 only: the
    /// 2026-07-28 extension has no list).
    pub async fn list_tasks(&self) -> Result<Vec<Task>, ClientError> {
        if self.era() == Era::Modern {
            return Err(self.unsupported(format!(
                "the {TASKS_EXTENSION} extension (2026-07-28) has no tasks/list"
            )));
        }
        let declared = self
            .server_capabilities()
            .tasks
            .is_some_and(|t| t.list.is_some());
        if !declared {
            return Err(self.unsupported("the server did not declare tasks.list".into()));
        }
        let mut tasks = Vec::new();
        let mut cursor = None;
        for _ in 0..MAX_TASK_PAGES {
            let params = PaginatedParams {
                cursor: cursor.take(),
                ..Default::default()
            };
            let page = self
                .send::<ListTasks>(&params, CallOptions::default())
                .await?;
            tasks.extend(page.tasks);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(tasks),
            }
        }
        Err(ClientError::TooManyPages {
            server: self.name().to_owned(),
            method: ListTasks::METHOD.to_owned(),
            pages: MAX_TASK_PAGES,
        })
    }

    /// Polls a task until it ends, answering input on the way, within the options' bounds.
    /// `known` is the state the caller has already reported (not reported again).
    async fn drive(
        &self,
        task_id: &str,
        options: &TaskOptions,
        known: Option<&Task>,
    ) -> Result<Ending, ClientError> {
        let flavour = self.flavour_for_ids();
        let wait = clamp_wait(options.wait);
        let deadline = Instant::now() + wait;
        let cancel = options.cancel.clone().unwrap_or_default();
        let mut seen = StatusSeen {
            last: known.map(|t| (t.status, t.status_message.clone())),
        };
        let mut answered = BTreeSet::new();
        loop {
            if cancel.is_cancelled() {
                return Err(self.cancel_on_request(task_id, options).await);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(self.wait_timeout(task_id, wait));
            }
            let task = self
                .get_task_with(task_id, options.call_options(left))
                .await?;
            seen.see(&task, options);
            if task.status.is_terminal() {
                return Ok(Ending {
                    task,
                    payload: None,
                });
            }
            if task.status == TaskStatus::InputRequired {
                match flavour {
                    // The server's requests for input travel on the `tasks/result` call,
                    // which answers when the task ends.
                    TaskFlavour::Core => {
                        let call = options.call_options(left).cancel_with(cancel.clone());
                        let payload = self
                            .request(GetTaskPayload::METHOD, Some(id_params(task_id)), call)
                            .await;
                        if cancel.is_cancelled() {
                            return Err(self.cancel_on_request(task_id, options).await);
                        }
                        let task = self
                            .get_task_with(task_id, options.call_options(left))
                            .await?;
                        seen.see(&task, options);
                        return Ok(Ending {
                            task,
                            payload: Some(payload),
                        });
                    }
                    TaskFlavour::Extension => {
                        if self
                            .answer_inputs(&task, &mut answered, options, left)
                            .await?
                        {
                            continue;
                        }
                    }
                }
            }
            let pause =
                poll_interval(&task).min(deadline.saturating_duration_since(Instant::now()));
            tokio::select! {
                _ = cancel.cancelled() => {}
                _ = tokio::time::sleep(pause) => {}
            }
        }
    }

    /// Answers the not yet answered `inputRequests` of a 2026 task with the client's handlers
    /// and sends them with `tasks/update`; true when something was sent.
    async fn answer_inputs(
        &self,
        task: &Task,
        answered: &mut BTreeSet<String>,
        options: &TaskOptions,
        left: Duration,
    ) -> Result<bool, ClientError> {
        let input_error = |reason: String| ClientError::InputRequired {
            server: self.name().to_owned(),
            method: UpdateTask::METHOD.to_owned(),
            reason,
        };
        let requests: InputRequests = match task.extra.get("inputRequests") {
            None | Some(Value::Null) => InputRequests::new(),
            Some(value) => serde_json::from_value(value.clone())
                .map_err(|e| input_error(format!("inputRequests could not be read: {e}")))?,
        };
        let fresh: InputRequests = requests
            .into_iter()
            .filter(|(key, _)| !answered.contains(key))
            .collect();
        if fresh.is_empty() {
            return Ok(false);
        }
        if answered.len() + fresh.len() > MAX_TASK_INPUTS {
            return Err(input_error(format!(
                "task {} asked for more than {MAX_TASK_INPUTS} inputs; gave up",
                task.task_id
            )));
        }
        let round = InputRound {
            requests: fresh,
            state: None,
        };
        let responses = round.answer(self.callbacks()).await.map_err(input_error)?;
        let params = serde_json::json!({
            "taskId": task.task_id,
            "inputResponses": responses,
        });
        self.request(UpdateTask::METHOD, Some(params), options.call_options(left))
            .await?;
        answered.extend(round.requests.into_keys());
        Ok(true)
    }

    /// Sends `tasks/cancel` for a wait the caller cancelled, and says so.
    async fn cancel_on_request(&self, task_id: &str, options: &TaskOptions) -> ClientError {
        let call = options.call_options(crate::options::DEFAULT_TIMEOUT);
        if let Err(e) = self.cancel_task_with(task_id, call).await {
            tracing::debug!(server = %self.name(), "tasks/cancel of {task_id} failed: {e}");
        }
        ClientError::TaskEnded {
            server: self.name().to_owned(),
            task_id: task_id.to_owned(),
            status: TaskStatus::Cancelled,
            message: Some("cancelled by the client".into()),
        }
    }

    fn wait_timeout(&self, task_id: &str, wait: Duration) -> ClientError {
        ClientError::from_peer(
            self.name(),
            PeerError::Timeout {
                method: format!("task {task_id}"),
                timeout: wait,
            },
        )
    }

    /// The result of a task that ended: its `result` (2026), `tasks/result` (2025), or the
    /// error it ended with.
    async fn ended_result(&self, task: Task) -> Result<CallToolResult, ClientError> {
        match (self.flavour_for_ids(), task.status) {
            (_, TaskStatus::Cancelled) => Err(ClientError::TaskEnded {
                server: self.name().to_owned(),
                task_id: task.task_id,
                status: task.status,
                message: task.status_message,
            }),
            (TaskFlavour::Core, _) => {
                let value = self
                    .request(
                        GetTaskPayload::METHOD,
                        Some(id_params(&task.task_id)),
                        CallOptions::default(),
                    )
                    .await?;
                self.tool_result(value)
            }
            (TaskFlavour::Extension, TaskStatus::Completed) => {
                let result = task.extra.get("result").cloned().unwrap_or(Value::Null);
                self.tool_result(result)
            }
            (TaskFlavour::Extension, _) => {
                let error = task
                    .extra
                    .get("error")
                    .and_then(|e| serde_json::from_value::<ErrorObject>(e.clone()).ok());
                match error {
                    Some(error) => Err(ClientError::from_peer(
                        self.name(),
                        PeerError::Rpc {
                            method: CallTool::METHOD.to_owned(),
                            error,
                        },
                    )),
                    None => Err(ClientError::TaskEnded {
                        server: self.name().to_owned(),
                        task_id: task.task_id,
                        status: task.status,
                        message: task.status_message,
                    }),
                }
            }
        }
    }

    fn tool_result(&self, value: Value) -> Result<CallToolResult, ClientError> {
        serde_json::from_value(value).map_err(|e| ClientError::InvalidResult {
            server: self.name().to_owned(),
            method: GetTaskPayload::METHOD.to_owned(),
            reason: format!("the task's result is not a tool result: {e}"),
        })
    }
}

fn id_params(task_id: &str) -> Value {
    serde_json::json!({ "taskId": task_id })
}

fn clamp_wait(wait: Option<Duration>) -> Duration {
    wait.unwrap_or(MAX_TIMEOUT).min(MAX_TIMEOUT)
}

/// A suffix that makes this process's progress tokens unlikely to meet another's.
fn progress_token_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn both_task_shapes_are_read() {
        let core = TaskStart::read(
            "s",
            json!({"task": {"taskId": "a", "status": "working", "createdAt": "x",
                            "lastUpdatedAt": "x", "ttl": 1000, "pollInterval": 10}}),
        )
        .expect("reads");
        let TaskStart::Task(task) = core else {
            panic!("a task")
        };
        assert_eq!((task.task_id.as_str(), task.ttl), ("a", Some(1000)));
        assert_eq!(poll_interval(&task), MIN_POLL_INTERVAL);

        let ext = TaskStart::read(
            "s",
            json!({"resultType": "task", "taskId": "b", "status": "working", "createdAt": "x",
                   "lastUpdatedAt": "x", "ttlMs": null, "pollIntervalMs": 120000}),
        )
        .expect("reads");
        let TaskStart::Task(task) = ext else {
            panic!("a task")
        };
        assert_eq!((task.task_id.as_str(), task.ttl), ("b", None));
        assert_eq!(poll_interval(&task), MAX_POLL_INTERVAL);
        assert!(!task.extra.contains_key("resultType"));

        let done = TaskStart::read("s", json!({"content": [{"type": "text", "text": "hi"}]}))
            .expect("reads");
        assert!(matches!(done, TaskStart::Done(_)));
        assert!(TaskStart::read("s", json!([1])).is_err());
    }

    #[test]
    fn the_extension_is_declared_next_to_others() {
        let caps = ClientCapabilities {
            extensions: Some(Map::from_iter([("x/y".to_owned(), json!({}))])),
            ..Default::default()
        };
        let caps = with_tasks_extension(caps);
        let extensions = caps.extensions.expect("extensions");
        assert!(extensions.contains_key("x/y") && extensions.contains_key(TASKS_EXTENSION));
    }

    #[test]
    fn a_missing_poll_interval_takes_the_default() {
        let task = Task::new("t", TaskStatus::Working, "x", None);
        assert_eq!(poll_interval(&task), DEFAULT_POLL_INTERVAL);
    }
}
