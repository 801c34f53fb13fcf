//! The task methods: `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` of 2025-11-25,
//! and `tasks/get`, `tasks/update`, `tasks/cancel` of the 2026-07-28 extension.

use std::time::SystemTime;

use mcp_proto::jsonrpc::{self, ErrorObject, RawJson};
use mcp_proto::peer::RequestContext;
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::{
    DetailedTask, EmptyResult, JsonObject, ListTasksResult, PaginatedParams, TaskIdParams,
    TaskState, TaskStatus, UpdateTaskParams,
};
use serde_json::Value;

use super::store::{TaskChange, TaskOutcome, TaskRecord, TaskStoreError};
use super::Tasks;
use crate::error::ServerError;
use crate::router::parse_params;
use crate::shared::BusEvent;

/// The task methods, both flavours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskMethod {
    /// `tasks/get`.
    Get,
    /// `tasks/result` (2025-11-25 only).
    Result,
    /// `tasks/list` (2025-11-25 only).
    List,
    /// `tasks/cancel`.
    Cancel,
    /// `tasks/update` (2026-07-28 extension only).
    Update,
}

/// Who asks: their auth identity (tasks are bound to it) and the key their task listing is
/// scoped to (the identity, else the connection).
#[derive(Clone, Debug)]
pub(crate) struct Requester {
    pub(crate) owner: Option<String>,
    pub(crate) listing: String,
}

/// An unreachable store: the request fails with the store's own message (-32603).
fn store_error(e: TaskStoreError) -> ServerError {
    ServerError::handler(e.to_string())
}

fn not_found(id: &str) -> ServerError {
    ServerError::InvalidParams(format!(
        "Failed to retrieve task: Task not found: {id} (unknown, expired, or not yours)"
    ))
}

impl Tasks {
    /// The record `id` if it exists, is live and belongs to `owner`; else -32602 (another
    /// owner's task is reported as not found, so ids of others' tasks leak nothing).
    async fn find(&self, id: &str, owner: Option<&str>) -> Result<TaskRecord, ServerError> {
        let record = self
            .store()
            .get(id, SystemTime::now())
            .await
            .map_err(store_error)?
            .filter(|r| r.owner.as_deref() == owner)
            .ok_or_else(|| not_found(id))?;
        if record.status.is_terminal() || self.run(id).is_some() {
            return Ok(record);
        }
        // Running elsewhere, or its runner died: only a live lease tells.
        if self.store().runner_alive(id).await.map_err(store_error)? {
            return Ok(record);
        }
        let lost = ErrorObject::internal(format!(
            "Task {id} was lost: the server process running it stopped before it finished"
        ));
        match self
            .change(id, TaskChange::Finish(TaskOutcome::Error(lost)))
            .await
        {
            Ok(record) => Ok(record),
            // Finished meanwhile: read what it became.
            Err(_) => self
                .store()
                .get(id, SystemTime::now())
                .await
                .map_err(store_error)?
                .ok_or_else(|| not_found(id)),
        }
    }

    /// Cancels task `id`: the record becomes `cancelled` first, then the handler is stopped,
    /// here or (through the bus) on the replica that runs it.
    async fn cancel(&self, id: &str) -> Result<TaskRecord, ServerError> {
        let record = self
            .change(
                id,
                TaskChange::Cancel(Some("Cancelled by the client".into())),
            )
            .await
            .map_err(|e| match e {
                TaskStoreError::Unavailable(_) => store_error(e),
                e => ServerError::InvalidParams(format!("Cannot cancel task: {e}")),
            })?;
        match self.run(id) {
            Some(run) => run.cancel.cancel(),
            None => self.tell_replicas(BusEvent::CancelTask { id: id.to_owned() }),
        }
        Ok(record)
    }

    /// Waits until task `id` is terminal (or gone, or the request is cancelled).
    async fn terminal(
        &self,
        id: &str,
        owner: Option<&str>,
        rc: &RequestContext,
    ) -> Result<TaskRecord, ServerError> {
        let run = self.run(id);
        let _carrier = match &run {
            Some(run) if !run.modern => Some(run.add_waiter(rc)?),
            _ => None,
        };
        let mut changes = run.as_ref().map(|r| r.subscribe());
        loop {
            let record = self.find(id, owner).await?;
            if record.status.is_terminal() {
                return Ok(record);
            }
            let poll = record.poll_interval;
            let changed = async {
                match changes.as_mut() {
                    Some(rx) => {
                        if rx.changed().await.is_err() {
                            tokio::time::sleep(poll).await;
                        }
                    }
                    // Run elsewhere (another replica): poll the store.
                    None => tokio::time::sleep(poll).await,
                }
            };
            tokio::select! {
                _ = changed => {}
                _ = rc.cancellation().cancelled() => {
                    return Err(ServerError::handler("tasks/result was cancelled"));
                }
            }
        }
    }
}

/// A stored result as a JSON object.
fn result_object(raw: &RawJson) -> Result<JsonObject, ServerError> {
    serde_json::from_str(raw.get()).map_err(ServerError::handler)
}

fn to_raw<T: serde::Serialize>(value: &T) -> Result<RawJson, ServerError> {
    jsonrpc::to_raw(value).map_err(ServerError::handler)
}

/// Serves a 2025-11-25 task method.
pub(crate) async fn serve_legacy(
    tasks: &Tasks,
    method: TaskMethod,
    params: Option<&RawJson>,
    requester: &Requester,
    page_size: usize,
    rc: &RequestContext,
) -> Result<RawJson, ServerError> {
    let owner = requester.owner.as_deref();
    match method {
        TaskMethod::Get => {
            let p: TaskIdParams = parse_params(params)?;
            to_raw(&TaskState::from(
                tasks.find(&p.task_id, owner).await?.to_task(),
            ))
        }
        TaskMethod::Cancel => {
            let p: TaskIdParams = parse_params(params)?;
            let record = tasks.find(&p.task_id, owner).await?;
            if record.status.is_terminal() {
                return Err(ServerError::InvalidParams(format!(
                    "Cannot cancel task {}: it is already {:?}",
                    p.task_id, record.status
                )));
            }
            to_raw(&TaskState::from(tasks.cancel(&p.task_id).await?.to_task()))
        }
        TaskMethod::Result => {
            let p: TaskIdParams = parse_params(params)?;
            let record = tasks.terminal(&p.task_id, owner, rc).await?;
            match record.outcome {
                Some(TaskOutcome::Result(raw)) => {
                    let mut result = result_object(&raw)?;
                    let meta = result
                        .entry("_meta")
                        .or_insert_with(|| Value::Object(JsonObject::new()));
                    if let Value::Object(meta) = meta {
                        meta.insert(
                            meta_keys::RELATED_TASK.into(),
                            serde_json::json!({ "taskId": record.id }),
                        );
                    }
                    to_raw(&result)
                }
                Some(TaskOutcome::Error(error)) => Err(ServerError::Rpc(error)),
                None => Err(ServerError::Rpc(ErrorObject::new(
                    jsonrpc::error_codes::INTERNAL_ERROR,
                    format!("Task {} was cancelled: it has no result", record.id),
                ))),
            }
        }
        TaskMethod::List => {
            let p: PaginatedParams = parse_params(params)?;
            let limit = if page_size == 0 { 1000 } else { page_size };
            let mut records = tasks
                .store()
                .list(
                    &requester.listing,
                    p.cursor.as_deref(),
                    limit + 1,
                    SystemTime::now(),
                )
                .await
                .map_err(store_error)?;
            let next_cursor = (records.len() > limit).then(|| {
                records.truncate(limit);
                records.last().map(|r| r.id.clone()).unwrap_or_default()
            });
            let result = ListTasksResult {
                tasks: records.iter().map(TaskRecord::to_task).collect(),
                next_cursor,
                ..Default::default()
            };
            to_raw(&result)
        }
        TaskMethod::Update => Err(ServerError::MethodNotFound("tasks/update".into())),
    }
}

/// Serves a 2026-07-28 extension task method (the caller checked that the request declared
/// the extension).
pub(crate) async fn serve_modern(
    tasks: &Tasks,
    method: TaskMethod,
    params: Option<&RawJson>,
    requester: &Requester,
) -> Result<RawJson, ServerError> {
    let owner = requester.owner.as_deref();
    match method {
        TaskMethod::Get => {
            let p: TaskIdParams = parse_params(params)?;
            let record = tasks.find(&p.task_id, owner).await?;
            let mut detailed = DetailedTask::new(record.to_modern());
            match (&record.status, record.outcome) {
                (TaskStatus::InputRequired, _) => {
                    detailed.input_requests = Some(record.input_requests)
                }
                (_, Some(TaskOutcome::Result(raw))) => detailed.result = Some(result_object(&raw)?),
                (_, Some(TaskOutcome::Error(e))) => detailed.error = Some(e),
                _ => {}
            }
            to_raw(&detailed)
        }
        TaskMethod::Update => {
            let p: UpdateTaskParams = parse_params(params)?;
            tasks.find(&p.task_id, owner).await?;
            match tasks.run(&p.task_id) {
                Some(run) => run.deliver(p.input_responses).await,
                None => tasks.tell_replicas(BusEvent::TaskInput {
                    id: p.task_id,
                    responses: p.input_responses,
                }),
            }
            to_raw(&EmptyResult::default())
        }
        TaskMethod::Cancel => {
            let p: TaskIdParams = parse_params(params)?;
            let record = tasks.find(&p.task_id, owner).await?;
            // An ack either way: cancelling a finished task changes nothing.
            if !record.status.is_terminal() {
                let _ = tasks.cancel(&p.task_id).await;
            }
            to_raw(&EmptyResult::default())
        }
        TaskMethod::Result | TaskMethod::List => Err(ServerError::MethodNotFound(format!(
            "{} (removed in the 2026-07-28 tasks extension; tasks/get inlines the result)",
            if method == TaskMethod::Result {
                "tasks/result"
            } else {
                "tasks/list"
            }
        ))),
    }
}
