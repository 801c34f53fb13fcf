//! Where task records live: the [`TaskStore`] trait, the record and its validated status
//! changes, and [`MemoryTaskStore`], the in-memory default (TTL, a size cap, cleanup of
//! expired records). Replicas that share tasks implement the same trait over a shared store
//! (`mcp-server-redis` keeps records in Redis).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use mcp_proto::jsonrpc::{ErrorObject, RawJson};
use mcp_proto::schema::{InputRequests, ModernTask, Task, TaskStatus};
use mcp_proto::sync::lock;
use mcp_proto::timestamp::rfc3339_millis;

/// How a task ended: the underlying request's result, or the JSON-RPC error it failed with.
#[derive(Clone, Debug)]
pub enum TaskOutcome {
    /// The result, exactly as the request would have returned it (a tool's `isError` result too).
    Result(RawJson),
    /// The JSON-RPC error the request failed with.
    Error(ErrorObject),
}

/// One task as stored: its state, who owns it, and its outcome once terminal.
#[derive(Clone, Debug)]
pub struct TaskRecord {
    /// The unguessable id.
    pub id: String,
    /// The requester's auth identity when there was one; only it may see the task.
    pub owner: Option<String>,
    /// The key `tasks/list` shows the task under: the owner's identity, else the connection
    /// that created it (unauthenticated tasks are reachable by id from anywhere, listed only
    /// to their own connection).
    pub listing: String,
    /// Where the task is in its life.
    pub status: TaskStatus,
    /// A note on the status (progress, why it failed).
    pub status_message: Option<String>,
    /// When it was created.
    pub created_at: SystemTime,
    /// When it last changed.
    pub last_updated_at: SystemTime,
    /// How long it is kept after creation; `None` keeps it until it is removed (the server
    /// always sets one: [`TaskOptions`](super::TaskOptions)).
    pub ttl: Option<Duration>,
    /// The polling interval suggested to clients.
    pub poll_interval: Duration,
    /// The outcome, once terminal (`completed` or `failed`).
    pub outcome: Option<TaskOutcome>,
    /// The requests to the client the task waits on (the 2026-07-28 extension's `inputRequests`).
    pub input_requests: InputRequests,
}

/// A change to a task record, applied atomically by the store and validated against the
/// spec's transitions: `working` <-> `input_required`, either to a terminal status, and nothing
/// out of `completed`, `failed` or `cancelled`.
#[derive(Clone, Debug)]
pub enum TaskChange {
    /// A new status message (the status stays).
    Message(String),
    /// Outstanding input requests: `input_required` when there are any, `working` when none.
    Input(InputRequests),
    /// Back to `working` (after input arrived over a 2025 request).
    Working,
    /// Waiting for input from the client (2025: a request is on its way).
    InputRequired,
    /// Finished: `completed` with a result, `failed` with an error.
    Finish(TaskOutcome),
    /// Cancelled, with an optional note.
    Cancel(Option<String>),
}

/// What a [`TaskStore`] method returns: a boxed future, so the trait stays object safe.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Why a task store refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// No such task, it expired, or it belongs to someone else.
    #[error("Task not found: {0} (unknown, expired, or not yours)")]
    NotFound(String),
    /// The store holds as many live tasks as it may.
    #[error("Too many tasks: the server keeps at most {0}; wait for some to finish or expire")]
    Full(usize),
    /// The change is not a valid transition from the task's status.
    #[error("Task {id} is {from:?} and cannot become {to:?}")]
    InvalidTransition {
        /// The task.
        id: String,
        /// Its status.
        from: TaskStatus,
        /// The status the change asked for.
        to: TaskStatus,
    },
    /// The store could not be reached (a shared store that is down).
    #[error("{0}")]
    Unavailable(String),
}

impl TaskRecord {
    /// A `working` task created at `now`.
    pub fn new(
        id: String,
        owner: Option<String>,
        listing: String,
        ttl: Option<Duration>,
        poll_interval: Duration,
        now: SystemTime,
    ) -> Self {
        TaskRecord {
            id,
            owner,
            listing,
            status: TaskStatus::Working,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl,
            poll_interval,
            outcome: None,
            input_requests: InputRequests::new(),
        }
    }

    /// Whether the task's TTL ran out at `now`.
    pub fn is_expired(&self, now: SystemTime) -> bool {
        self.ttl.is_some_and(|ttl| {
            now.duration_since(self.created_at)
                .is_ok_and(|age| age >= ttl)
        })
    }

    /// Applies `change` at `now`, or says why the transition is invalid.
    pub fn apply(&mut self, change: TaskChange, now: SystemTime) -> Result<(), TaskStoreError> {
        let to = match &change {
            TaskChange::Message(_) => self.status,
            TaskChange::Input(requests) if requests.is_empty() => TaskStatus::Working,
            TaskChange::Input(_) | TaskChange::InputRequired => TaskStatus::InputRequired,
            TaskChange::Working => TaskStatus::Working,
            TaskChange::Finish(TaskOutcome::Result(_)) => TaskStatus::Completed,
            TaskChange::Finish(TaskOutcome::Error(_)) => TaskStatus::Failed,
            TaskChange::Cancel(_) => TaskStatus::Cancelled,
        };
        if self.status.is_terminal() {
            return Err(TaskStoreError::InvalidTransition {
                id: self.id.clone(),
                from: self.status,
                to,
            });
        }
        match change {
            TaskChange::Message(message) => self.status_message = Some(message),
            TaskChange::Input(requests) => self.input_requests = requests,
            TaskChange::Working | TaskChange::InputRequired => {}
            TaskChange::Finish(outcome) => {
                if let TaskOutcome::Error(e) = &outcome {
                    self.status_message = Some(e.message.clone());
                }
                self.outcome = Some(outcome);
                self.input_requests.clear();
            }
            TaskChange::Cancel(note) => {
                self.status_message = note.or(self.status_message.take());
                self.input_requests.clear();
            }
        }
        self.status = to;
        self.last_updated_at = now;
        Ok(())
    }

    /// The 2025-11-25 wire shape (`ttl`, `pollInterval`).
    pub fn to_task(&self) -> Task {
        let mut task = Task::new(
            self.id.clone(),
            self.status,
            rfc3339_millis(self.created_at),
            self.ttl.map(millis),
        );
        task.last_updated_at = rfc3339_millis(self.last_updated_at);
        task.status_message = self.status_message.clone();
        task.poll_interval = Some(millis(self.poll_interval));
        task
    }

    /// The 2026-07-28 extension's wire shape (`ttlMs`, `pollIntervalMs`).
    pub fn to_modern(&self) -> ModernTask {
        ModernTask {
            task_id: self.id.clone(),
            status: self.status,
            status_message: self.status_message.clone(),
            created_at: rfc3339_millis(self.created_at),
            last_updated_at: rfc3339_millis(self.last_updated_at),
            ttl_ms: self.ttl.map(millis),
            poll_interval_ms: Some(millis(self.poll_interval).max(1)),
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Keeps task records. Implementations apply each change atomically (the transition check and
/// the write together) and never return a record whose TTL ran out. A networked store answers
/// within a bounded time and reports an unreachable backend as
/// [`TaskStoreError::Unavailable`].
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new record; [`TaskStoreError::Full`] when at capacity after dropping expired ones.
    fn insert(&self, record: TaskRecord) -> StoreFuture<'_, Result<(), TaskStoreError>>;
    /// The record `id`, unless absent or expired at `now`.
    fn get<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;
    /// Applies `change` to record `id` and returns the record as changed.
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
        now: SystemTime,
    ) -> StoreFuture<'a, Result<TaskRecord, TaskStoreError>>;
    /// Up to `limit` live records listed under `listing`, in a stable order, starting after
    /// the record `after`.
    fn list<'a>(
        &'a self,
        listing: &'a str,
        after: Option<&'a str>,
        limit: usize,
        now: SystemTime,
    ) -> StoreFuture<'a, Result<Vec<TaskRecord>, TaskStoreError>>;
    /// Drops every record expired at `now`; returns their ids. (A store whose backend expires
    /// records by itself may return none.)
    fn remove_expired(
        &self,
        now: SystemTime,
    ) -> StoreFuture<'_, Result<Vec<String>, TaskStoreError>>;

    /// Notes that the process running task `id` is alive for `lease` more. A shared store
    /// keeps it so other replicas can tell a task whose runner died from one still running;
    /// a store of one process needs nothing (the default).
    fn renew_runner<'a>(
        &'a self,
        _id: &'a str,
        _lease: Duration,
    ) -> StoreFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(std::future::ready(Ok(())))
    }

    /// Whether task `id`'s runner lease was renewed and has not run out (default: always, for
    /// a store of one process).
    fn runner_alive<'a>(&'a self, _id: &'a str) -> StoreFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(true)))
    }
}

/// The in-memory task store: at most `capacity` records, expired ones dropped on the way.
#[derive(Debug)]
pub struct MemoryTaskStore {
    records: Mutex<BTreeMap<String, TaskRecord>>,
    capacity: usize,
}

impl MemoryTaskStore {
    /// A store of at most `capacity` records.
    pub fn new(capacity: usize) -> Self {
        MemoryTaskStore {
            records: Mutex::new(BTreeMap::new()),
            capacity: capacity.max(1),
        }
    }

    /// How many records it holds (expired ones not yet dropped included).
    pub fn len(&self) -> usize {
        lock(&self.records).len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Default for MemoryTaskStore {
    /// 10 000 records.
    fn default() -> Self {
        MemoryTaskStore::new(10_000)
    }
}

impl MemoryTaskStore {
    /// Stores a new record (see [`TaskStore::insert`]).
    pub fn insert(&self, record: TaskRecord) -> Result<(), TaskStoreError> {
        let mut records = lock(&self.records);
        if records.len() >= self.capacity {
            let now = SystemTime::now();
            records.retain(|_, r| !r.is_expired(now));
            if records.len() >= self.capacity {
                return Err(TaskStoreError::Full(self.capacity));
            }
        }
        records.insert(record.id.clone(), record);
        Ok(())
    }

    /// The live record `id` (see [`TaskStore::get`]).
    pub fn get(&self, id: &str, now: SystemTime) -> Option<TaskRecord> {
        lock(&self.records)
            .get(id)
            .filter(|r| !r.is_expired(now))
            .cloned()
    }

    /// Applies a change (see [`TaskStore::update`]).
    pub fn update(
        &self,
        id: &str,
        change: TaskChange,
        now: SystemTime,
    ) -> Result<TaskRecord, TaskStoreError> {
        let mut records = lock(&self.records);
        let record = records
            .get_mut(id)
            .filter(|r| !r.is_expired(now))
            .ok_or_else(|| TaskStoreError::NotFound(id.to_owned()))?;
        record.apply(change, now)?;
        Ok(record.clone())
    }

    /// A page of records (see [`TaskStore::list`]).
    pub fn list(
        &self,
        listing: &str,
        after: Option<&str>,
        limit: usize,
        now: SystemTime,
    ) -> Vec<TaskRecord> {
        use std::ops::Bound;
        let records = lock(&self.records);
        let start = match after {
            Some(after) => Bound::Excluded(after.to_owned()),
            None => Bound::Unbounded,
        };
        records
            .range((start, Bound::Unbounded))
            .map(|(_, r)| r)
            .filter(|r| r.listing == listing && !r.is_expired(now))
            .take(limit)
            .cloned()
            .collect()
    }

    /// Drops expired records (see [`TaskStore::remove_expired`]).
    pub fn remove_expired(&self, now: SystemTime) -> Vec<String> {
        let mut gone = Vec::new();
        lock(&self.records).retain(|id, r| {
            let expired = r.is_expired(now);
            if expired {
                gone.push(id.clone());
            }
            !expired
        });
        gone
    }
}

impl TaskStore for MemoryTaskStore {
    fn insert(&self, record: TaskRecord) -> StoreFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(std::future::ready(MemoryTaskStore::insert(self, record)))
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(MemoryTaskStore::get(self, id, now))))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
        now: SystemTime,
    ) -> StoreFuture<'a, Result<TaskRecord, TaskStoreError>> {
        Box::pin(std::future::ready(MemoryTaskStore::update(
            self, id, change, now,
        )))
    }

    fn list<'a>(
        &'a self,
        listing: &'a str,
        after: Option<&'a str>,
        limit: usize,
        now: SystemTime,
    ) -> StoreFuture<'a, Result<Vec<TaskRecord>, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(MemoryTaskStore::list(
            self, listing, after, limit, now,
        ))))
    }

    fn remove_expired(
        &self,
        now: SystemTime,
    ) -> StoreFuture<'_, Result<Vec<String>, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(MemoryTaskStore::remove_expired(
            self, now,
        ))))
    }
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use super::*;

    fn record(id: &str, ttl: Option<u64>) -> TaskRecord {
        TaskRecord::new(
            id.into(),
            None,
            "conn".into(),
            ttl.map(Duration::from_millis),
            Duration::from_millis(100),
            UNIX_EPOCH + Duration::from_secs(1_000),
        )
    }

    #[test]
    fn transitions_follow_the_spec() {
        let now = SystemTime::now();
        let mut r = record("a", None);
        r.apply(TaskChange::InputRequired, now).unwrap();
        assert_eq!(r.status, TaskStatus::InputRequired);
        r.apply(TaskChange::Working, now).unwrap();
        r.apply(TaskChange::Message("half way".into()), now)
            .unwrap();
        assert_eq!(r.status, TaskStatus::Working);
        r.apply(
            TaskChange::Finish(TaskOutcome::Result(mcp_proto::jsonrpc::empty_object())),
            now,
        )
        .unwrap();
        assert_eq!(r.status, TaskStatus::Completed);
        for change in [TaskChange::Working, TaskChange::Cancel(None)] {
            assert!(matches!(
                r.apply(change, now),
                Err(TaskStoreError::InvalidTransition {
                    from: TaskStatus::Completed,
                    ..
                })
            ));
        }
        let mut c = record("c", None);
        c.apply(TaskChange::Cancel(Some("asked to".into())), now)
            .unwrap();
        let error = ErrorObject::internal("late");
        assert!(c
            .apply(TaskChange::Finish(TaskOutcome::Error(error)), now)
            .is_err());
        assert_eq!(c.status, TaskStatus::Cancelled, "cancelled stays cancelled");
    }

    #[test]
    fn expiry_and_capacity() {
        let store = MemoryTaskStore::new(2);
        let created = UNIX_EPOCH + Duration::from_secs(1_000);
        store.insert(record("a", Some(50))).unwrap();
        store.insert(record("b", None)).unwrap();
        assert!(store.get("a", created).is_some());
        let later = created + Duration::from_millis(50);
        assert!(store.get("a", later).is_none(), "expired at its TTL");
        assert!(matches!(
            store.update("a", TaskChange::Working, later),
            Err(TaskStoreError::NotFound(_))
        ));
        // Full: a third insert drops the expired record (its TTL ran out long ago) and fits.
        store.insert(record("c", None)).unwrap();
        assert_eq!(store.len(), 2);
        assert!(matches!(
            store.insert(record("d", None)),
            Err(TaskStoreError::Full(2))
        ));
        assert_eq!(store.remove_expired(later), Vec::<String>::new());
    }

    #[test]
    fn lists_only_the_owners_records_in_pages() {
        let store = MemoryTaskStore::default();
        let now = UNIX_EPOCH + Duration::from_secs(1_000);
        for id in ["a", "b", "c"] {
            store.insert(record(id, None)).unwrap();
        }
        let mut mine = record("m", None);
        mine.owner = Some("alice".into());
        mine.listing = "alice".into();
        store.insert(mine).unwrap();
        let page: Vec<String> = store
            .list("conn", None, 2, now)
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(page, ["a", "b"]);
        let page: Vec<String> = store
            .list("conn", Some("b"), 2, now)
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(page, ["c"]);
        let page: Vec<String> = store
            .list("alice", None, 10, now)
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(page, ["m"]);
    }

    #[test]
    fn wire_shapes() {
        let r = record("a", Some(60_000));
        let t = r.to_task();
        assert_eq!(t.ttl, Some(60_000));
        assert_eq!(t.poll_interval, Some(100));
        assert_eq!(t.created_at, "1970-01-01T00:16:40.000Z");
        let m = r.to_modern();
        assert_eq!(m.ttl_ms, Some(60_000));
        assert_eq!(m.poll_interval_ms, Some(100));
    }
}
