//! A running task in this process: its cancellation, the input it waits for, and who waits on
//! it. The record (status, outcome) lives in the [`TaskStore`](super::TaskStore); this is what
//! cannot be stored: the handler's future, its wakers, the peers that carry input requests.
//!
//! Input in a task uses the same `ctx.elicit` / `ctx.sample` / `ctx.list_roots` as any handler:
//! - 2026-07-28 (the extension): the ask is recorded under a key unique over the task's life and
//!   shown as `inputRequests` on `tasks/get` (status `input_required`); `tasks/update` answers it
//!   and the handler goes on. Several asks may be outstanding at once.
//! - 2025-11-25: the ask is a server-to-client request carrying the related-task `_meta`, sent on
//!   the stream of a `tasks/result` the client has waiting (the spec tells clients to call
//!   `tasks/result` on `input_required`); the task is `input_required` until it is answered.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use mcp_proto::jsonrpc::{self, RawJson};
use mcp_proto::peer::{PeerHandle, RequestContext, RequestOptions};
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::{InputRequest, InputRequests, InputResponse, InputResponses};
use mcp_proto::sync::lock;
use serde_json::Value;
use tokio::sync::{oneshot, watch, Notify};
use tokio_util::sync::CancellationToken;

use super::store::TaskChange;
use super::Tasks;
use crate::error::ServerError;

/// At most this many input requests outstanding in one task (everything that grows is bounded).
const MAX_OUTSTANDING_INPUTS: usize = 64;

/// At most this many input requests over one task's life.
const MAX_INPUTS_PER_TASK: usize = 1024;

/// At most this many `tasks/result` requests waiting on one task.
const MAX_WAITERS: usize = 64;

/// The task side of a handler's [`Context`](crate::Context): a cancellation token from the
/// start, and the run once the call became a task (under 2026-07-28 only after the handler first
/// waited on something other than client input; until then asks go through MRTR).
#[derive(Debug, Default)]
pub(crate) struct TaskSlot {
    pub(crate) cancel: CancellationToken,
    pub(crate) run: OnceLock<Arc<TaskRun>>,
}

/// An outstanding 2026-07-28 input request and the handler waiting for its answer.
struct Waiting {
    request: InputRequest,
    answer: oneshot::Sender<InputResponse>,
}

/// The 2026-07-28 input requests of a task: those outstanding, and every key ever used (keys
/// are unique over the task's life).
#[derive(Default)]
struct Inputs {
    waiting: HashMap<String, Waiting>,
    used: HashSet<String>,
}

/// One task running in this process.
pub(crate) struct TaskRun {
    pub(crate) id: String,
    /// Served under the 2026-07-28 extension (else the 2025-11-25 flavour).
    pub(crate) modern: bool,
    pub(crate) cancel: CancellationToken,
    /// Bumped on every change of the record, so waiters re-read it.
    changed: watch::Sender<u64>,
    inputs: Mutex<Inputs>,
    next_key: AtomicUsize,
    /// `tasks/result` requests waiting on this task (2025): where input requests go.
    waiters: Mutex<Vec<RequestContext>>,
    waiter_added: Notify,
    /// The connection that started the task, for `notifications/tasks/status` (2025).
    pub(crate) origin: Option<PeerHandle>,
    tasks: Weak<Tasks>,
}

impl std::fmt::Debug for TaskRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskRun")
            .field("id", &self.id)
            .field("modern", &self.modern)
            .finish()
    }
}

/// Removes a `tasks/result` request from the waiters when it ends.
pub(crate) struct WaiterGuard<'a> {
    run: &'a TaskRun,
    id: mcp_proto::RequestId,
}

impl Drop for WaiterGuard<'_> {
    fn drop(&mut self) {
        lock(&self.run.waiters).retain(|rc| rc.id() != &self.id);
    }
}

impl TaskRun {
    pub(crate) fn new(
        id: String,
        modern: bool,
        cancel: CancellationToken,
        origin: Option<PeerHandle>,
        tasks: Weak<Tasks>,
    ) -> Self {
        TaskRun {
            id,
            modern,
            cancel,
            changed: watch::Sender::new(0),
            inputs: Mutex::new(Inputs::default()),
            next_key: AtomicUsize::new(0),
            waiters: Mutex::new(Vec::new()),
            waiter_added: Notify::new(),
            origin,
            tasks,
        }
    }

    /// Wakes everyone waiting for a change of the record.
    pub(crate) fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// A receiver that sees every later change.
    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    async fn change(&self, change: TaskChange) -> Result<(), ServerError> {
        let Some(tasks) = self.tasks.upgrade() else {
            return Err(ServerError::handler(
                "the server that ran this task is gone",
            ));
        };
        tasks
            .change(&self.id, change)
            .await
            .map(drop)
            .map_err(|e| ServerError::handler(e.to_string()))
    }

    /// Notes progress in the task's status message (what `tasks/get` shows).
    pub(crate) async fn note_progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) {
        let text = match (message, total) {
            (Some(m), _) => m.to_owned(),
            (None, Some(total)) => format!("{progress}/{total}"),
            (None, None) => format!("{progress}"),
        };
        let _ = self.change(TaskChange::Message(text)).await;
    }

    /// The outstanding input requests, by key.
    fn outstanding(inputs: &HashMap<String, Waiting>) -> InputRequests {
        inputs
            .iter()
            .map(|(k, w)| (k.clone(), w.request.clone()))
            .collect()
    }

    /// 2026-07-28: records the ask, shows it on `tasks/get`, and waits for `tasks/update`.
    pub(crate) async fn ask_modern(
        &self,
        key: Option<&str>,
        kind: &str,
        request: InputRequest,
    ) -> Result<InputResponse, ServerError> {
        let (tx, rx) = oneshot::channel();
        let outstanding = {
            let mut inputs = lock(&self.inputs);
            if inputs.waiting.len() >= MAX_OUTSTANDING_INPUTS
                || inputs.used.len() >= MAX_INPUTS_PER_TASK
            {
                return Err(ServerError::handler(format!(
                    "a task asked for more than {MAX_OUTSTANDING_INPUTS} inputs at once or {MAX_INPUTS_PER_TASK} in all"
                )));
            }
            let n = self.next_key.fetch_add(1, Ordering::Relaxed);
            let key = match key {
                Some(key) if !inputs.used.contains(key) => key.to_owned(),
                Some(key) => format!("{key}-{n}"),
                None => format!("{kind}-{n}"),
            };
            inputs.used.insert(key.clone());
            inputs.waiting.insert(
                key,
                Waiting {
                    request,
                    answer: tx,
                },
            );
            Self::outstanding(&inputs.waiting)
        };
        self.change(TaskChange::Input(outstanding)).await?;
        tokio::select! {
            answer = rx => answer.map_err(|_| ServerError::handler("the task's input request was dropped")),
            _ = self.cancel.cancelled() => Err(ServerError::handler("the task was cancelled")),
        }
    }

    /// 2026-07-28 `tasks/update`: hands each answer to the ask it answers; answers to keys that
    /// are not outstanding are ignored.
    pub(crate) async fn deliver(&self, responses: InputResponses) {
        let outstanding = {
            let mut inputs = lock(&self.inputs);
            let mut any = false;
            for (key, response) in responses {
                if let Some(waiting) = inputs.waiting.remove(&key) {
                    let _ = waiting.answer.send(response);
                    any = true;
                }
            }
            any.then(|| Self::outstanding(&inputs.waiting))
        };
        if let Some(outstanding) = outstanding {
            let _ = self.change(TaskChange::Input(outstanding)).await;
        }
    }

    /// 2025: registers a waiting `tasks/result` request as a carrier for input requests.
    pub(crate) fn add_waiter(&self, rc: &RequestContext) -> Result<WaiterGuard<'_>, ServerError> {
        let mut waiters = lock(&self.waiters);
        waiters.retain(|w| !w.is_cancelled() && !w.peer().is_closed());
        if waiters.len() >= MAX_WAITERS {
            return Err(ServerError::InvalidParams(format!(
                "Too many tasks/result requests wait on task {} (at most {MAX_WAITERS})",
                self.id
            )));
        }
        waiters.push(rc.clone());
        drop(waiters);
        self.waiter_added.notify_waiters();
        Ok(WaiterGuard {
            run: self,
            id: rc.id().clone(),
        })
    }

    fn live_waiter(&self) -> Option<RequestContext> {
        lock(&self.waiters)
            .iter()
            .rev()
            .find(|w| !w.is_cancelled() && !w.peer().is_closed())
            .cloned()
    }

    /// 2025: sends `method` to the client over a waiting `tasks/result` request's stream (the
    /// task is `input_required` until it is answered), with the related-task `_meta`.
    pub(crate) async fn ask_2025(
        &self,
        method: &str,
        params: Value,
    ) -> Result<RawJson, ServerError> {
        let mut params = match params {
            Value::Object(map) => map,
            _ => {
                return Err(ServerError::handler(
                    "input request params must be an object",
                ))
            }
        };
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Value::Object(meta) = meta {
            meta.insert(
                meta_keys::RELATED_TASK.into(),
                serde_json::json!({ "taskId": self.id }),
            );
        }
        let params = jsonrpc::to_raw(&params).map_err(ServerError::handler)?;
        self.change(TaskChange::InputRequired).await?;
        let carrier = loop {
            let added = self.waiter_added.notified();
            tokio::pin!(added);
            added.as_mut().enable();
            if let Some(rc) = self.live_waiter() {
                break rc;
            }
            tokio::select! {
                _ = added => {}
                _ = self.cancel.cancelled() => return Err(ServerError::handler("the task was cancelled")),
            }
        };
        let options = RequestOptions {
            cancel: Some(self.cancel.child_token()),
            related: Some(carrier.id().clone()),
            ..RequestOptions::default()
        };
        let answer = carrier
            .peer()
            .request_raw(method, Some(params), options)
            .await;
        let _ = self.change(TaskChange::Working).await;
        Ok(answer?)
    }
}
