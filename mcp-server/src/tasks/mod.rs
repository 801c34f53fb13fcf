//! Tasks: a `tools/call` answered at once with a task handle, the tool running on, and the client
//! polling, cancelling or fetching the result later, over the same connection or another one.
//!
//! A tool declares its task support with [`Tool::task_support`](crate::Tool::task_support);
//! its handler is the same async function either way. Two flavours, chosen per request:
//! - **2025-11-25** (experimental core tasks): the server declares the `tasks` capability; the
//!   client asks for a task with `params.task`, gets a `CreateTaskResult` at once, then uses
//!   `tasks/get`, `tasks/result` (waits for the end; carries the related-task `_meta`),
//!   `tasks/list` and `tasks/cancel`; status changes go out as `notifications/tasks/status`.
//!   A required-task tool called without `task`, or a forbidden one with it, is -32601.
//! - **2026-07-28** (the `io.modelcontextprotocol/tasks` extension): the server decides. When
//!   the request declares the extension, a task-supporting tool runs until it first waits on
//!   something other than client input: input asked for before that goes through MRTR
//!   (`input_required`, the call retried with answers); a tool finished by then answers at once
//!   (a `required` one as an already-completed task); otherwise the call becomes a task
//!   (`resultType: "task"`) polled with `tasks/get` (result or error inlined), fed with
//!   `tasks/update`, stopped with `tasks/cancel`. Without the extension, an `optional` tool runs
//!   as a plain call and a `required` one is -32021.
//!
//! Records live in a [`TaskStore`] (in-memory by default, [`MemoryTaskStore`]) held by the
//! [`Server`](crate::Server), not the connection, so results outlive the connection that started
//! them. Ids are 128 random bits from the OS; a record is bound to the requester's auth identity
//! when there is one, and another identity is told the task does not exist.

mod methods;
mod run;
mod store;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant, SystemTime};

use mcp_proto::jsonrpc::{self, ErrorObject, RawJson};
use mcp_proto::peer::PeerHandle;
use mcp_proto::schema::{
    declares_tasks_extension, tasks_extension_map, ClientCapabilities, CreateTaskResult,
    ModernCreateTaskResult, TaskMetadata, TaskStatusNotification, TaskSupport,
};
use mcp_proto::sync::lock;
use mcp_proto::ProtocolVersion;

pub use store::{
    MemoryTaskStore, StoreFuture, TaskChange, TaskOutcome, TaskRecord, TaskStore, TaskStoreError,
};

pub(crate) use methods::{serve_legacy, serve_modern, Requester, TaskMethod};
pub(crate) use run::{TaskRun, TaskSlot};

use crate::auth::AuthIdentity;
use crate::context::Context;
use crate::error::ServerError;
use crate::shared::{BusEvent, ReplicaBus};
use crate::tool::{BoxFuture, ToolOutput};

/// How a server keeps tasks: how long, how often clients should poll.
#[derive(Clone, Debug)]
pub struct TaskOptions {
    /// How long a task is kept after creation when the client asks for no TTL (2025) or the
    /// server decides alone (2026-07-28). Default 1 hour.
    pub default_ttl: Duration,
    /// The longest TTL a client may ask for (2025 `task.ttl`). Default 24 hours.
    pub max_ttl: Duration,
    /// The polling interval suggested to clients. Default 500 ms.
    pub poll_interval: Duration,
    /// How long a running task's lease lasts in a shared store: the running replica renews it
    /// every third of this; a task still running whose lease ran out is failed by the replica
    /// that next reads it (its runner died). Default 10 s.
    pub runner_lease: Duration,
}

impl Default for TaskOptions {
    fn default() -> Self {
        TaskOptions {
            default_ttl: Duration::from_secs(3600),
            max_ttl: Duration::from_secs(24 * 3600),
            poll_interval: Duration::from_millis(500),
            runner_lease: Duration::from_secs(10),
        }
    }
}

/// How often the registry sweeps expired records and finished runs, at most.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// The server's tasks: the store, the runs in this process, the options.
pub(crate) struct Tasks {
    store: Arc<dyn TaskStore>,
    runs: Mutex<HashMap<String, Arc<TaskRun>>>,
    options: TaskOptions,
    last_sweep: Mutex<Option<Instant>>,
    /// The bus to the other replicas, where a task may run (cancel and input reach it there).
    bus: OnceLock<Arc<dyn ReplicaBus>>,
    me: Weak<Tasks>,
}

/// How one `tools/call` is to run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum CallMode {
    /// A plain call.
    Direct,
    /// A 2025-11-25 task, created at once with this TTL.
    Legacy(Option<Duration>),
    /// Under the 2026-07-28 extension: a task once the handler first waits (see the module doc).
    Modern {
        /// The tool requires a task: a fast finish is still answered as a (completed) task.
        required: bool,
    },
}

/// -32021 for a 2026-07-28 request that needs the tasks extension but did not declare it.
pub(crate) fn extension_missing(what: &str) -> ServerError {
    let mut extensions = serde_json::Map::new();
    extensions.insert("extensions".into(), tasks_extension_map().into());
    ServerError::Rpc(
        ErrorObject::new(
            jsonrpc::error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!(
                "Missing required client capability: {what}; declare the {} extension in clientCapabilities.extensions",
                mcp_proto::schema::TASKS_EXTENSION
            ),
        )
        .with_data(&serde_json::json!({ "requiredCapabilities": extensions })),
    )
}

fn extension_required(tool: &str) -> ServerError {
    extension_missing(&format!("tool {tool} runs only as a task"))
}

/// Decides how a call to `tool` (declaring `support`) runs, from the era and what the request
/// says; refuses calls the spec forbids.
pub(crate) fn call_mode(
    tool: &str,
    support: TaskSupport,
    version: ProtocolVersion,
    task: Option<&TaskMetadata>,
    client: &ClientCapabilities,
) -> Result<CallMode, ServerError> {
    if version.is_stateless_era() {
        // The legacy `task` param is ignored here (an unknown field).
        let declared = declares_tasks_extension(client.extensions.as_ref());
        return match (support, declared) {
            (TaskSupport::Forbidden, _) | (TaskSupport::Optional, false) => Ok(CallMode::Direct),
            (TaskSupport::Required, false) => Err(extension_required(tool)),
            (_, true) => Ok(CallMode::Modern {
                required: support == TaskSupport::Required,
            }),
        };
    }
    if version != ProtocolVersion::V2025_11_25 {
        return Ok(CallMode::Direct);
    }
    match (support, task) {
        (TaskSupport::Forbidden, Some(_)) => Err(ServerError::MethodNotFound(format!(
            "tools/call as a task: tool {tool} does not run as a task (execution.taskSupport is forbidden)"
        ))),
        (TaskSupport::Required, None) => Err(ServerError::MethodNotFound(format!(
            "tools/call without a task: tool {tool} runs only as a task (execution.taskSupport is required); send params.task"
        ))),
        (_, None) => Ok(CallMode::Direct),
        (_, Some(task)) => Ok(CallMode::Legacy(task.ttl.map(Duration::from_millis))),
    }
}

/// Who makes a request on `connection` (a key unique to the connection): bound to the verified
/// `identity` (issuer and subject) when there is one, else known only by the connection.
pub(crate) fn requester(identity: Option<&AuthIdentity>, connection: &str) -> Requester {
    let owner = identity.map(AuthIdentity::owner_key);
    let listing = match &owner {
        Some(owner) => format!("auth:{owner}"),
        None => format!("conn:{connection}"),
    };
    Requester { owner, listing }
}

/// A new task id: 128 bits from the OS's CSPRNG, hex.
fn new_task_id() -> Result<String, ServerError> {
    crate::random_id::new_random_id()
        .map(String::from)
        .map_err(|e| ServerError::handler(format!("could not make a task id: {e}")))
}

impl Tasks {
    pub(crate) fn new(store: Arc<dyn TaskStore>, options: TaskOptions) -> Arc<Tasks> {
        Arc::new_cyclic(|me| Tasks {
            store,
            runs: Mutex::new(HashMap::new()),
            options,
            last_sweep: Mutex::new(None),
            bus: OnceLock::new(),
            me: me.clone(),
        })
    }

    /// The store.
    pub(crate) fn store(&self) -> &dyn TaskStore {
        &*self.store
    }

    /// The run of task `id` in this process, if it still runs here.
    pub(crate) fn run(&self, id: &str) -> Option<Arc<TaskRun>> {
        lock(&self.runs).get(id).cloned()
    }

    /// Connects to the bus to the other replicas (once).
    pub(crate) fn set_bus(&self, bus: Arc<dyn ReplicaBus>) {
        let _ = self.bus.set(bus);
    }

    /// Tells the other replicas `event` (about a task that may run there).
    pub(crate) fn tell_replicas(&self, event: BusEvent) {
        if let Some(bus) = self.bus.get() {
            bus.publish(event);
        }
    }

    /// Drops expired records (cancelling their runs), at most once a second.
    async fn sweep(&self) {
        {
            let mut last = lock(&self.last_sweep);
            if last.is_some_and(|t| t.elapsed() < SWEEP_EVERY) {
                return;
            }
            *last = Some(Instant::now());
        }
        let gone = match self.store.remove_expired(SystemTime::now()).await {
            Ok(gone) => gone,
            Err(e) => {
                tracing::debug!("expired tasks not swept: {e}");
                return;
            }
        };
        let mut runs = lock(&self.runs);
        for id in gone {
            if let Some(run) = runs.remove(&id) {
                run.cancel.cancel();
                run.bump();
            }
        }
    }

    /// Applies `change` to task `id`, wakes its waiters and (2025) tells the connection that
    /// started it when the status changed.
    pub(crate) async fn change(
        &self,
        id: &str,
        change: TaskChange,
    ) -> Result<TaskRecord, TaskStoreError> {
        let run = self.run(id);
        // Only a 2025 run notifies status changes, so only it needs the status before.
        let before = match &run {
            Some(run) if !run.modern => self
                .store
                .get(id, SystemTime::now())
                .await?
                .map(|r| r.status),
            _ => None,
        };
        let record = self.store.update(id, change, SystemTime::now()).await?;
        if let Some(run) = run {
            run.bump();
            if !run.modern && before != Some(record.status) {
                notify_status(run.origin.as_ref(), &record);
            }
        }
        Ok(record)
    }

    /// Creates a task for a call and starts `handler` in it; the task's context gets the run.
    async fn start(
        &self,
        ctx: &Context,
        slot: &TaskSlot,
        ttl: Option<Duration>,
        modern: bool,
        handler: BoxFuture<ToolOutput>,
        version: ProtocolVersion,
    ) -> Result<TaskRecord, ServerError> {
        self.sweep().await;
        let ttl = Some(ttl.map_or(self.options.default_ttl, |t| t.min(self.options.max_ttl)));
        let id = new_task_id()?;
        let who = requester(ctx.auth(), ctx.connection_key());
        let record = TaskRecord::new(
            id.clone(),
            who.owner,
            who.listing,
            ttl,
            self.options.poll_interval,
            SystemTime::now(),
        );
        let origin = (!modern).then(|| ctx.peer().clone());
        let run = Arc::new(TaskRun::new(
            id.clone(),
            modern,
            slot.cancel.clone(),
            origin,
            self.me.clone(),
        ));
        // Durable before the answer: a tasks/get right after CreateTaskResult finds it.
        self.store
            .insert(record.clone())
            .await
            .map_err(|e| ServerError::handler(e.to_string()))?;
        let lease = self.options.runner_lease;
        if let Err(e) = self.store.renew_runner(&id, lease).await {
            return Err(ServerError::handler(e.to_string()));
        }
        lock(&self.runs).insert(id.clone(), run.clone());
        let _ = slot.run.set(run.clone());
        self.keep_lease(&run, lease);
        let tasks = self.me.clone();
        let handle = tokio::spawn(handler);
        let abort = handle.abort_handle();
        tokio::spawn(async move {
            let finished = tokio::select! {
                joined = handle => Some(joined),
                _ = run.cancel.cancelled() => {
                    // Cancellation stops the handler: its future is dropped.
                    abort.abort();
                    None
                }
            };
            let Some(tasks) = tasks.upgrade() else { return };
            if let Some(joined) = finished {
                let outcome = match joined {
                    Ok(output) => match output.into_raw(version, None) {
                        Ok(raw) => TaskOutcome::Result(raw),
                        Err(e) => TaskOutcome::Error(e.to_error_object(Some(version))),
                    },
                    Err(e) => TaskOutcome::Error(ErrorObject::internal(format!(
                        "the tool's handler failed: {}",
                        if e.is_panic() {
                            "it panicked"
                        } else {
                            "it was stopped"
                        }
                    ))),
                };
                // A cancelled task stays cancelled however its handler ended.
                if let Err(e) = tasks.change(&run.id, TaskChange::Finish(outcome)).await {
                    tracing::debug!("task {} ended unrecorded: {e}", run.id);
                }
            }
            run.bump();
            lock(&tasks.runs).remove(&run.id);
        });
        Ok(record)
    }

    /// Renews `run`'s lease every third of `lease` until the run ends here.
    fn keep_lease(&self, run: &Arc<TaskRun>, lease: Duration) {
        let tasks = self.me.clone();
        let run = Arc::downgrade(run);
        let every = (lease / 3).max(Duration::from_millis(10));
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            loop {
                ticks.tick().await;
                let (Some(tasks), Some(run)) = (tasks.upgrade(), run.upgrade()) else {
                    return;
                };
                if !lock(&tasks.runs).contains_key(&run.id) {
                    return;
                }
                if let Err(e) = tasks.store.renew_runner(&run.id, lease).await {
                    tracing::debug!("task {} lease not renewed: {e}", run.id);
                }
            }
        });
    }

    /// Records a task that already finished with `output` (a required-task tool that answered at
    /// once under 2026-07-28).
    async fn finished(
        &self,
        ctx: &Context,
        output: ToolOutput,
        version: ProtocolVersion,
    ) -> Result<TaskRecord, ServerError> {
        self.sweep().await;
        let id = new_task_id()?;
        let now = SystemTime::now();
        let who = requester(ctx.auth(), ctx.connection_key());
        let mut record = TaskRecord::new(
            id,
            who.owner,
            who.listing,
            Some(self.options.default_ttl),
            self.options.poll_interval,
            now,
        );
        let outcome = match output.into_raw(version, None) {
            Ok(raw) => TaskOutcome::Result(raw),
            Err(e) => TaskOutcome::Error(e.to_error_object(Some(version))),
        };
        record
            .apply(TaskChange::Finish(outcome), now)
            .map_err(|e| ServerError::handler(e.to_string()))?;
        self.store
            .insert(record.clone())
            .await
            .map_err(|e| ServerError::handler(e.to_string()))?;
        Ok(record)
    }

    /// Runs a task-eligible `tools/call` as `mode` says and returns its answer.
    pub(crate) async fn call(
        &self,
        ctx: Context,
        slot: Arc<TaskSlot>,
        mut handler: BoxFuture<ToolOutput>,
        mode: CallMode,
        version: ProtocolVersion,
    ) -> Result<RawJson, ServerError> {
        match mode {
            CallMode::Direct => handler.await.into_raw(version, None),
            CallMode::Legacy(ttl) => {
                let record = self
                    .start(&ctx, &slot, ttl, false, handler, version)
                    .await?;
                let created = CreateTaskResult {
                    task: record.to_task(),
                    meta: None,
                    extra: Default::default(),
                };
                jsonrpc::to_raw(&created).map_err(ServerError::handler)
            }
            CallMode::Modern { required } => {
                // One poll: a handler that finishes without waiting answers at once; one that
                // asks for input first goes through MRTR.
                let first = tokio::time::timeout(Duration::ZERO, &mut handler).await;
                let record = match first {
                    Ok(output) if !required => return output.into_raw(version, None),
                    Ok(output) => self.finished(&ctx, output, version).await?,
                    Err(_) if ctx.asked_for_input() => {
                        // The MRTR round answers input_required and drops this future.
                        return std::future::pending().await;
                    }
                    Err(_) => {
                        // Cancelled while it ran in the request: cancel the task too.
                        let request_cancel = ctx.request_context().cancellation().clone();
                        let task_cancel = slot.cancel.clone();
                        tokio::spawn(async move {
                            tokio::select! {
                                _ = request_cancel.cancelled() => task_cancel.cancel(),
                                _ = task_cancel.cancelled() => {}
                            }
                        });
                        self.start(&ctx, &slot, None, true, handler, version)
                            .await?
                    }
                };
                let created = ModernCreateTaskResult::new(record.to_modern());
                jsonrpc::to_raw(&created).map_err(ServerError::handler)
            }
        }
    }
}

/// Sends `notifications/tasks/status` to the connection that started a 2025 task, if it is open.
fn notify_status(origin: Option<&PeerHandle>, record: &TaskRecord) {
    let Some(peer) = origin.filter(|p| !p.is_closed()).cloned() else {
        return;
    };
    let Ok(params) = jsonrpc::to_raw(&mcp_proto::schema::TaskState::from(record.to_task())) else {
        return;
    };
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(async move {
        use mcp_proto::schema::NotificationType;
        let _ = peer
            .notify_raw(TaskStatusNotification::METHOD, Some(params), None)
            .await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_by_era_support_and_request() {
        let none = ClientCapabilities::default();
        let ext = ClientCapabilities {
            extensions: Some(tasks_extension_map()),
            ..Default::default()
        };
        let task = TaskMetadata {
            ttl: Some(5000),
            ..Default::default()
        };
        let v25 = ProtocolVersion::V2025_11_25;
        let v26 = ProtocolVersion::V2026_07_28;
        use TaskSupport::*;
        let mode = |s, v, t, c| call_mode("t", s, v, t, c);
        assert_eq!(
            mode(Optional, v25, Some(&task), &none).unwrap(),
            CallMode::Legacy(Some(Duration::from_millis(5000)))
        );
        assert_eq!(mode(Optional, v25, None, &none).unwrap(), CallMode::Direct);
        let code = |r: Result<CallMode, ServerError>| r.unwrap_err().to_error_object(None).code;
        assert_eq!(code(mode(Required, v25, None, &none)), -32601);
        assert_eq!(code(mode(Forbidden, v25, Some(&task), &none)), -32601);
        assert_eq!(
            mode(Required, ProtocolVersion::V2025_06_18, None, &none).unwrap(),
            CallMode::Direct
        );
        assert_eq!(
            mode(Optional, v26, Some(&task), &none).unwrap(),
            CallMode::Direct
        );
        assert_eq!(code(mode(Required, v26, None, &none)), -32021);
        assert_eq!(
            mode(Required, v26, None, &ext).unwrap(),
            CallMode::Modern { required: true }
        );
        assert_eq!(mode(Forbidden, v26, None, &ext).unwrap(), CallMode::Direct);
    }
}
