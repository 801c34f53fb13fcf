//! The 2026-07-28 tasks extension `io.modelcontextprotocol/tasks` (SEP-2663): a `tools/call` may
//! answer with a task (`resultType: "task"`) that the client polls with `tasks/get`, feeds input
//! with `tasks/update` and stops with `tasks/cancel`. There is no `tasks/list` and no
//! `tasks/result`; the final result or error is inlined on `tasks/get`. Negotiated per request
//! through `clientCapabilities.extensions` and the server's `capabilities.extensions`.
//!
//! The 2025-11-25 experimental tasks (`ttl`, `pollInterval`, `tasks/result`) live in
//! [`super::tasks`]; the two are not wire-compatible.

use serde::de::{self, DeserializeOwned, Deserializer};
use serde::ser::{self, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::empty::EmptyResult;
use super::modern::{InputRequests, InputRequiredResult, InputResponses, ResultType};
use super::tasks::{TaskIdParams, TaskStatus};
use super::{JsonObject, Meta, NotificationType, RequestType};
use crate::jsonrpc::ErrorObject;

/// The extension's identifier, the key under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Whether a capabilities `extensions` map declares the tasks extension.
pub fn declares_tasks_extension(extensions: Option<&JsonObject>) -> bool {
    extensions.is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

/// The `extensions` map declaring the tasks extension (no settings are defined: `{}`).
pub fn tasks_extension_map() -> JsonObject {
    let mut map = JsonObject::new();
    map.insert(TASKS_EXTENSION.into(), Value::Object(JsonObject::new()));
    map
}

/// A task's operational state on the extension's wire (`ttlMs`, `pollIntervalMs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModernTask {
    /// The task's id, chosen by the server; unguessable.
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
    pub ttl_ms: Option<u64>,
    /// Suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// The answer to a `tools/call` the server chose to run as a task: `Result & Task`, flat, with
/// `resultType: "task"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModernCreateTaskResult {
    /// Always `task`.
    pub result_type: ResultType,
    /// The new task's seed state.
    #[serde(flatten)]
    pub task: ModernTask,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ModernCreateTaskResult {
    /// The creation answer for `task`.
    pub fn new(task: ModernTask) -> Self {
        ModernCreateTaskResult {
            result_type: ResultType::Task,
            task,
            meta: None,
        }
    }
}

/// A task with what its status carries inlined: `inputRequests` when `input_required`, `result`
/// when `completed`, `error` when `failed`. The result of `tasks/get` and the params of
/// `notifications/tasks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// `complete` on `tasks/get` (absent on the notification).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The task's state.
    #[serde(flatten)]
    pub task: ModernTask,
    /// The outstanding requests to the client (`input_required`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// The underlying request's result, exactly (`completed`, also for `isError` tool results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<JsonObject>,
    /// The JSON-RPC error the underlying request failed with (`failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl DetailedTask {
    /// The `tasks/get` answer for `task` with nothing inlined yet.
    pub fn new(task: ModernTask) -> Self {
        DetailedTask {
            result_type: Some(ResultType::Complete),
            task,
            input_requests: None,
            result: None,
            error: None,
            meta: None,
        }
    }
}

/// Params of `tasks/update`: answers to outstanding `inputRequests`, by their keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// Answers by the keys of the requests they answer; unknown keys are ignored.
    #[serde(default)]
    pub input_responses: InputResponses,
    /// Reserved metadata (the per-request keys).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `tasks/get` (extension): poll a task; terminal tasks inline their result or error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GetDetailedTask;

impl RequestType for GetDetailedTask {
    const METHOD: &'static str = "tasks/get";
    type Params = TaskIdParams;
    type Result = DetailedTask;
}

/// `tasks/update` (extension): deliver `inputResponses`; acknowledged with an empty result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpdateTask;

impl RequestType for UpdateTask {
    const METHOD: &'static str = "tasks/update";
    type Params = UpdateTaskParams;
    type Result = EmptyResult;
}

/// `tasks/cancel` (extension): ask to stop a task; acknowledged with an empty result, the
/// outcome is seen on the next `tasks/get`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CancelTaskAck;

impl RequestType for CancelTaskAck {
    const METHOD: &'static str = "tasks/cancel";
    type Params = TaskIdParams;
    type Result = EmptyResult;
}

/// `notifications/tasks` (extension): a task's full detailed state, sent on a
/// `subscriptions/listen` stream that asked for its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskNotification;

impl NotificationType for TaskNotification {
    const METHOD: &'static str = "notifications/tasks";
    type Params = DetailedTask;
}

/// What a task-eligible 2026-07-28 request (`tools/call`) may answer once the client declared
/// the extension: the final result, a request for input, or a task.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskAugmentedResult<T> {
    /// The request finished (`resultType: "complete"` or absent).
    Complete(T),
    /// The server needs input before it goes on (MRTR).
    InputRequired(Box<InputRequiredResult>),
    /// The server runs it as a task; poll `tasks/get`.
    Task(Box<ModernCreateTaskResult>),
}

impl<T: Serialize> Serialize for TaskAugmentedResult<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TaskAugmentedResult::InputRequired(r) => r.serialize(s),
            TaskAugmentedResult::Task(t) => t.serialize(s),
            TaskAugmentedResult::Complete(t) => {
                let mut map = match serde_json::to_value(t).map_err(ser::Error::custom)? {
                    Value::Object(map) => map,
                    other => {
                        return Err(ser::Error::custom(format!(
                            "expected a JSON object, got {other}"
                        )))
                    }
                };
                map.entry("resultType")
                    .or_insert_with(|| Value::String("complete".into()));
                map.serialize(s)
            }
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for TaskAugmentedResult<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        match value.get("resultType").and_then(Value::as_str) {
            Some("input_required") => serde_json::from_value(value)
                .map(|r| TaskAugmentedResult::InputRequired(Box::new(r)))
                .map_err(de::Error::custom),
            Some("task") => serde_json::from_value(value)
                .map(|t| TaskAugmentedResult::Task(Box::new(t)))
                .map_err(de::Error::custom),
            _ => serde_json::from_value(value)
                .map(TaskAugmentedResult::Complete)
                .map_err(de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{CallToolResult, InputRequest, InputResponse};
    use serde_json::json;

    fn task(status: TaskStatus) -> ModernTask {
        ModernTask {
            task_id: "786512e2".into(),
            status,
            status_message: None,
            created_at: "2025-11-25T10:30:00Z".into(),
            last_updated_at: "2025-11-25T10:40:00Z".into(),
            ttl_ms: Some(60000),
            poll_interval_ms: Some(5000),
        }
    }

    #[test]
    fn create_task_result_is_flat_with_result_type_task() {
        let v =
            serde_json::to_value(ModernCreateTaskResult::new(task(TaskStatus::Working))).unwrap();
        assert_eq!(
            v,
            json!({"resultType": "task", "taskId": "786512e2", "status": "working",
                   "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
                   "ttlMs": 60000, "pollIntervalMs": 5000})
        );
        let mut t = task(TaskStatus::Working);
        t.ttl_ms = None;
        let v = serde_json::to_value(ModernCreateTaskResult::new(t)).unwrap();
        assert_eq!(v["ttlMs"], json!(null), "ttlMs is always written");
    }

    #[test]
    fn detailed_task_inlines_what_the_status_carries() {
        // The SEP's input_required example.
        let v = json!({"resultType": "complete", "taskId": "786512e2", "status": "input_required",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
            "ttlMs": 60000, "pollIntervalMs": 5000,
            "inputRequests": {"name": {"method": "elicitation/create", "params": {"mode": "form",
                "message": "Please enter your name.", "requestedSchema": {"type": "object",
                "properties": {"name": {"type": "string"}}, "required": ["name"]}}}}});
        let d: DetailedTask = serde_json::from_value(v.clone()).unwrap();
        assert!(matches!(
            d.input_requests.as_ref().unwrap()["name"],
            InputRequest::Elicit(_)
        ));
        assert_eq!(serde_json::to_value(&d).unwrap(), v);

        let mut failed = DetailedTask::new(task(TaskStatus::Failed));
        failed.error = Some(ErrorObject::internal("rate limit"));
        let v = serde_json::to_value(&failed).unwrap();
        assert_eq!(v["error"]["code"], json!(-32603));
        assert!(v.get("result").is_none() && v.get("inputRequests").is_none());
    }

    #[test]
    fn update_params_take_input_responses() {
        let p: UpdateTaskParams = serde_json::from_value(json!({"taskId": "t",
            "inputResponses": {"name": {"action": "accept", "content": {"input": "Luca"}}}}))
        .unwrap();
        assert!(matches!(
            p.input_responses["name"],
            InputResponse::Elicitation(_)
        ));
        let p: UpdateTaskParams = serde_json::from_value(json!({"taskId": "t"})).unwrap();
        assert!(p.input_responses.is_empty());
    }

    #[test]
    fn augmented_result_dispatches_on_result_type() {
        let r: TaskAugmentedResult<CallToolResult> = serde_json::from_value(json!({
            "resultType": "task", "taskId": "a", "status": "working", "createdAt": "x",
            "lastUpdatedAt": "y", "ttlMs": null}))
        .unwrap();
        assert!(matches!(r, TaskAugmentedResult::Task(ref t) if t.task.task_id == "a"));
        let r: TaskAugmentedResult<CallToolResult> =
            serde_json::from_value(json!({"resultType": "input_required"})).unwrap();
        assert!(matches!(r, TaskAugmentedResult::InputRequired(_)));
        let r: TaskAugmentedResult<CallToolResult> =
            serde_json::from_value(json!({"content": []})).unwrap();
        assert!(matches!(r, TaskAugmentedResult::Complete(_)));
        let out =
            serde_json::to_value(TaskAugmentedResult::Complete(CallToolResult::text("x"))).unwrap();
        assert_eq!(out["resultType"], json!("complete"));
    }

    #[test]
    fn extension_negotiation_helpers() {
        let map = tasks_extension_map();
        assert!(declares_tasks_extension(Some(&map)));
        assert!(!declares_tasks_extension(Some(&JsonObject::new())));
        assert!(!declares_tasks_extension(None));
    }
}
