//! Tasks (2025-11-25, experimental): long-running requests polled with `tasks/get`, fetched with
//! `tasks/result`, listed and cancelled; status pushed with `notifications/tasks/status`.
//! In 2026-07-28 they move to the `io.modelcontextprotocol/tasks` extension.

use serde::{Deserialize, Serialize};

use super::pagination::{Cursor, PaginatedParams};
use super::{JsonObject, Meta, NotificationType, RequestType};

/// The `_meta` key tying a message to a task: `{"taskId": ...}`.
pub const RELATED_TASK_META_KEY: &str = "io.modelcontextprotocol/related-task";

/// The `_meta` key of an optional immediate model response in a [`CreateTaskResult`].
pub const MODEL_IMMEDIATE_RESPONSE_META_KEY: &str =
    "io.modelcontextprotocol/model-immediate-response";

/// The `task` field of a request's params: run it as a task.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskMetadata {
    /// How long to keep the task after creation, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The value of the related-task `_meta` key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedTaskMetadata {
    /// The task the message belongs to.
    pub task_id: String,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for input from the requester.
    InputRequired,
    /// Finished with a result (terminal).
    Completed,
    /// Finished with an error (terminal).
    Failed,
    /// Cancelled (terminal).
    Cancelled,
}

impl TaskStatus {
    /// Whether the task can no longer change.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// The state of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task's id, chosen by the receiver.
    pub task_id: String,
    /// Its status.
    pub status: TaskStatus,
    /// A human-readable note on the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When it last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long it is kept after creation in milliseconds; `null` for unlimited (always written).
    #[serde(default)]
    pub ttl: Option<u64>,
    /// Suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Task {
    /// A task `task_id` in `status`, created and updated at `now` (ISO 8601), kept for `ttl` ms.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        now: impl Into<String>,
        ttl: Option<u64>,
    ) -> Self {
        let now = now.into();
        Task {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl,
            poll_interval: None,
            extra: JsonObject::new(),
        }
    }
}

/// The immediate result of a task-augmented request: the task that was created.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// The new task.
    pub task: Task,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Params naming one task: `tasks/get`, `tasks/result`, `tasks/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl TaskIdParams {
    /// Params naming `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        TaskIdParams {
            task_id: task_id.into(),
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// A task's state as a result (`tasks/get`, `tasks/cancel`) or notification params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskState {
    /// The task; its unknown fields catch everything else too.
    #[serde(flatten)]
    pub task: Task,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl From<Task> for TaskState {
    fn from(task: Task) -> Self {
        TaskState { task, meta: None }
    }
}

/// The result of `tasks/get`.
pub type GetTaskResult = TaskState;
/// The result of `tasks/cancel`.
pub type CancelTaskResult = TaskState;
/// Params of `notifications/tasks/status`.
pub type TaskStatusParams = TaskState;

/// `tasks/get`: poll a task's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GetTask;

impl RequestType for GetTask {
    const METHOD: &'static str = "tasks/get";
    type Params = TaskIdParams;
    type Result = GetTaskResult;
}

/// The result of `tasks/result`: exactly the underlying request's result, kept as an object.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskPayloadResult {
    /// Reserved metadata (carries the related-task key).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The underlying result's fields; decode them into its type with `serde_json`.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tasks/result`: wait for a task to finish and fetch its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GetTaskPayload;

impl RequestType for GetTaskPayload {
    const METHOD: &'static str = "tasks/result";
    type Params = TaskIdParams;
    type Result = TaskPayloadResult;
}

/// The result of `tasks/list`: a page of tasks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// The tasks on this page.
    #[serde(default)]
    pub tasks: Vec<Task>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tasks/list`: list the requester's tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListTasks;

impl RequestType for ListTasks {
    const METHOD: &'static str = "tasks/list";
    type Params = PaginatedParams;
    type Result = ListTasksResult;
}

/// `tasks/cancel`: cancel a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CancelTask;

impl RequestType for CancelTask {
    const METHOD: &'static str = "tasks/cancel";
    type Params = TaskIdParams;
    type Result = CancelTaskResult;
}

/// `notifications/tasks/status`: a task's status changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskStatusNotification;

impl NotificationType for TaskStatusNotification {
    const METHOD: &'static str = "notifications/tasks/status";
    type Params = TaskStatusParams;
}

/// The task capabilities a client declares (2025-11-25).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ClientTasksCapability {
    /// Supports `tasks/list`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// Supports `tasks/cancel`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Which of its requests may run as tasks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests: Option<ClientTaskRequests>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Client requests that may run as tasks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ClientTaskRequests {
    /// Sampling requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingTaskRequests>,
    /// Elicitation requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationTaskRequests>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Task support for sampling requests.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SamplingTaskRequests {
    /// `sampling/createMessage` may run as a task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub create_message: Option<JsonObject>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Task support for elicitation requests.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ElicitationTaskRequests {
    /// `elicitation/create` may run as a task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub create: Option<JsonObject>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The task capabilities a server declares (2025-11-25).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerTasksCapability {
    /// Supports `tasks/list`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// Supports `tasks/cancel`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Which of its requests may run as tasks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests: Option<ServerTaskRequests>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Server requests that may run as tasks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerTaskRequests {
    /// Tool requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsTaskRequests>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Task support for tool requests.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolsTaskRequests {
    /// `tools/call` may run as a task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<JsonObject>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn task_ttl_null_is_written() {
        let t = Task::new("t1", TaskStatus::Working, "2025-11-25T00:00:00Z", None);
        let v = serde_json::to_value(&t).unwrap();
        assert_eq!(v["ttl"], json!(null));
        assert_eq!(v["status"], json!("working"));
        let back: Task = serde_json::from_value(v).unwrap();
        assert_eq!(back, t);
        assert!(!t.status.is_terminal());
        assert!(TaskStatus::Cancelled.is_terminal());
    }

    #[test]
    fn task_state_flattens_task_and_keeps_meta_and_unknowns() {
        let v = json!({"taskId": "a", "status": "input_required", "createdAt": "x",
                       "lastUpdatedAt": "y", "ttl": 5, "pollInterval": 100,
                       "_meta": {"k": 1}, "vendor": "v"});
        let s: GetTaskResult = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(s.task.status, TaskStatus::InputRequired);
        assert_eq!(s.task.ttl, Some(5));
        assert!(s.meta.is_some());
        assert_eq!(serde_json::to_value(&s).unwrap(), v);
    }
}
