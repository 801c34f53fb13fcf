//! [`RedisTaskStore`]: task records in Redis, so every replica answers `tasks/get`,
//! `tasks/list` and `tasks/cancel` for a task another replica runs. The task itself runs on the
//! replica that started it; cancel and input reach it over the replica bus.
//!
//! Layout, under the handle's key prefix:
//! - `task:{id}`: the record as JSON, expiring with the task's TTL (Redis drops it).
//! - `tasks:{listing}`: a sorted set of the ids listed under `listing` (all scores 0, so ids
//!   sort by name and pages resume after an id), expiring with its longest-lived task.
//! - `runner:{id}`: present while the replica running the task renews its lease; a task still
//!   `working` without it lost its runner.
//!
//! A change is read, checked against the spec's transitions here, and written back only if
//! the record did not change meanwhile (a compare-and-set script); a lost race retries.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_proto::jsonrpc::{ErrorObject, RawJson};
use mcp_proto::schema::{InputRequests, TaskStatus};
use serde::{Deserialize, Serialize};

use mcp_server::tasks::{
    StoreFuture, TaskChange, TaskOutcome, TaskRecord, TaskStore, TaskStoreError,
};

use crate::{RedisHandle, SharedStateError};

/// Compare-and-set: writes ARGV[2] over KEYS[1] (keeping its expiry) if it still holds ARGV[1].
const CAS: &str = "if redis.call('GET', KEYS[1]) == ARGV[1] then \
    redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 else return 0 end";

/// Attempts of one change before giving up under contention; a lost race waits a little longer
/// each time (1 ms more, at most 10 ms), so the whole change is bounded (under a second).
const CAS_ATTEMPTS: u64 = 64;

/// Task records in Redis, shared by every replica with the same Redis and key prefix.
#[derive(Clone, Debug)]
pub struct RedisTaskStore {
    redis: RedisHandle,
}

impl RedisTaskStore {
    /// A store over `redis` (its key prefix scopes the records).
    pub fn new(redis: RedisHandle) -> Self {
        RedisTaskStore { redis }
    }

    fn runner_key(&self, id: &str) -> String {
        self.redis.key(&format!("runner:{id}"))
    }

    fn record_key(&self, id: &str) -> String {
        self.redis.key(&format!("task:{id}"))
    }

    fn listing_key(&self, listing: &str) -> String {
        self.redis.key(&format!("tasks:{listing}"))
    }

    async fn read(&self, id: &str) -> Result<Option<(String, TaskRecord)>, TaskStoreError> {
        let text: Option<String> = self
            .redis
            .query(redis::cmd("GET").arg(self.record_key(id)))
            .await
            .map_err(unavailable)?;
        match text {
            None => Ok(None),
            Some(text) => {
                let record = decode(&text)?;
                Ok(Some((text, record)))
            }
        }
    }
}

fn unavailable(e: SharedStateError) -> TaskStoreError {
    TaskStoreError::Unavailable(e.to_string())
}

fn millis(t: SystemTime) -> u64 {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

fn duration_millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// When a record expires, in Unix milliseconds (`None`: never).
fn expires_at(record: &TaskRecord) -> Option<u64> {
    record
        .ttl
        .map(|ttl| millis(record.created_at).saturating_add(duration_millis(ttl)))
}

/// A record as stored.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    id: String,
    owner: Option<String>,
    listing: String,
    status: TaskStatus,
    status_message: Option<String>,
    created_at_ms: u64,
    last_updated_at_ms: u64,
    ttl_ms: Option<u64>,
    poll_interval_ms: u64,
    result: Option<RawJson>,
    error: Option<ErrorObject>,
    #[serde(default, skip_serializing_if = "InputRequests::is_empty")]
    input_requests: InputRequests,
}

fn encode(record: &TaskRecord) -> Result<String, TaskStoreError> {
    let (result, error) = match &record.outcome {
        Some(TaskOutcome::Result(raw)) => (Some(raw.clone()), None),
        Some(TaskOutcome::Error(e)) => (None, Some(e.clone())),
        None => (None, None),
    };
    let stored = Stored {
        id: record.id.clone(),
        owner: record.owner.clone(),
        listing: record.listing.clone(),
        status: record.status,
        status_message: record.status_message.clone(),
        created_at_ms: millis(record.created_at),
        last_updated_at_ms: millis(record.last_updated_at),
        ttl_ms: record.ttl.map(duration_millis),
        poll_interval_ms: duration_millis(record.poll_interval),
        result,
        error,
        input_requests: record.input_requests.clone(),
    };
    serde_json::to_string(&stored)
        .map_err(|e| TaskStoreError::Unavailable(format!("a task record did not encode: {e}")))
}

fn decode(text: &str) -> Result<TaskRecord, TaskStoreError> {
    let s: Stored = serde_json::from_str(text).map_err(|e| {
        TaskStoreError::Unavailable(
            SharedStateError::Corrupt(format!("a stored task record does not decode: {e}"))
                .to_string(),
        )
    })?;
    let at = |ms: u64| UNIX_EPOCH + Duration::from_millis(ms);
    let outcome = match (s.result, s.error) {
        (Some(raw), _) => Some(TaskOutcome::Result(raw)),
        (None, Some(e)) => Some(TaskOutcome::Error(e)),
        (None, None) => None,
    };
    Ok(TaskRecord {
        id: s.id,
        owner: s.owner,
        listing: s.listing,
        status: s.status,
        status_message: s.status_message,
        created_at: at(s.created_at_ms),
        last_updated_at: at(s.last_updated_at_ms),
        ttl: s.ttl_ms.map(Duration::from_millis),
        poll_interval: Duration::from_millis(s.poll_interval_ms),
        outcome,
        input_requests: s.input_requests,
    })
}

impl TaskStore for RedisTaskStore {
    fn insert(&self, record: TaskRecord) -> StoreFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let text = encode(&record)?;
            let key = self.record_key(&record.id);
            let listing = self.listing_key(&record.listing);
            let mut pipe = redis::pipe();
            pipe.atomic();
            match expires_at(&record) {
                Some(at) => {
                    pipe.cmd("SET").arg(&key).arg(&text).arg("PXAT").arg(at);
                    pipe.cmd("ZADD").arg(&listing).arg(0).arg(&record.id);
                    // The listing lives as long as its longest-lived task (GT: never shorter;
                    // a new set has no expiry, which GT treats as infinite, so set it first).
                    pipe.cmd("PEXPIREAT").arg(&listing).arg(at).arg("NX");
                    pipe.cmd("PEXPIREAT").arg(&listing).arg(at).arg("GT");
                }
                None => {
                    pipe.cmd("SET").arg(&key).arg(&text);
                    pipe.cmd("ZADD").arg(&listing).arg(0).arg(&record.id);
                    pipe.cmd("PERSIST").arg(&listing);
                }
            }
            self.redis
                .query_pipeline::<redis::Value>(&pipe)
                .await
                .map_err(unavailable)?;
            Ok(())
        })
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        now: SystemTime,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            Ok(self
                .read(id)
                .await?
                .map(|(_, record)| record)
                .filter(|r| !r.is_expired(now)))
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
        now: SystemTime,
    ) -> StoreFuture<'a, Result<TaskRecord, TaskStoreError>> {
        Box::pin(async move {
            for attempt in 0..CAS_ATTEMPTS {
                if attempt > 0 {
                    tokio::time::sleep(Duration::from_millis(attempt.min(10))).await;
                }
                let Some((before, mut record)) = self.read(id).await? else {
                    return Err(TaskStoreError::NotFound(id.to_owned()));
                };
                if record.is_expired(now) {
                    return Err(TaskStoreError::NotFound(id.to_owned()));
                }
                record.apply(change.clone(), now)?;
                let after = encode(&record)?;
                let written: i64 = self
                    .redis
                    .query(
                        redis::cmd("EVAL")
                            .arg(CAS)
                            .arg(1)
                            .arg(self.record_key(id))
                            .arg(&before)
                            .arg(&after),
                    )
                    .await
                    .map_err(unavailable)?;
                if written == 1 {
                    return Ok(record);
                }
            }
            Err(TaskStoreError::Unavailable(format!(
                "task {id} changed {CAS_ATTEMPTS} times while one change was applied; try again"
            )))
        })
    }

    fn list<'a>(
        &'a self,
        listing: &'a str,
        after: Option<&'a str>,
        limit: usize,
        now: SystemTime,
    ) -> StoreFuture<'a, Result<Vec<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            let key = self.listing_key(listing);
            let mut found = Vec::new();
            let mut start = match after {
                Some(after) => format!("({after}"),
                None => "-".to_owned(),
            };
            // Pages of ids; ids whose record expired are dropped from the set on the way.
            while found.len() < limit {
                let want = limit - found.len();
                let ids: Vec<String> = self
                    .redis
                    .query(
                        redis::cmd("ZRANGE")
                            .arg(&key)
                            .arg(&start)
                            .arg("+")
                            .arg("BYLEX")
                            .arg("LIMIT")
                            .arg(0)
                            .arg(want),
                    )
                    .await
                    .map_err(unavailable)?;
                let Some(last) = ids.last() else { break };
                start = format!("({last}");
                let keys: Vec<String> = ids.iter().map(|id| self.record_key(id)).collect();
                let texts: Vec<Option<String>> = self
                    .redis
                    .query(redis::cmd("MGET").arg(&keys))
                    .await
                    .map_err(unavailable)?;
                let mut gone = Vec::new();
                for (id, text) in ids.iter().zip(texts) {
                    match text.map(|t| decode(&t)).transpose()? {
                        Some(record) if !record.is_expired(now) && record.listing == listing => {
                            found.push(record)
                        }
                        Some(_) => {}
                        None => gone.push(id.clone()),
                    }
                }
                if !gone.is_empty() {
                    let _ = self
                        .redis
                        .query::<i64>(redis::cmd("ZREM").arg(&key).arg(&gone))
                        .await;
                }
                if ids.len() < want {
                    break;
                }
            }
            Ok(found)
        })
    }

    fn remove_expired(
        &self,
        _now: SystemTime,
    ) -> StoreFuture<'_, Result<Vec<String>, TaskStoreError>> {
        // Redis drops expired records by itself; listings shed them when listed.
        Box::pin(std::future::ready(Ok(Vec::new())))
    }

    fn renew_runner<'a>(
        &'a self,
        id: &'a str,
        lease: Duration,
    ) -> StoreFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            self.redis
                .query::<redis::Value>(
                    redis::cmd("SET")
                        .arg(self.runner_key(id))
                        .arg(1)
                        .arg("PX")
                        .arg(duration_millis(lease).max(1)),
                )
                .await
                .map_err(unavailable)?;
            Ok(())
        })
    }

    fn runner_alive<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let exists: i64 = self
                .redis
                .query(redis::cmd("EXISTS").arg(self.runner_key(id)))
                .await
                .map_err(unavailable)?;
            Ok(exists == 1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let mut record = TaskRecord::new(
            "abc".into(),
            Some("alice".into()),
            "auth:alice".into(),
            Some(Duration::from_secs(60)),
            Duration::from_millis(250),
            UNIX_EPOCH + Duration::from_millis(1_764_066_600_123),
        );
        record
            .apply(
                TaskChange::Finish(TaskOutcome::Result(
                    mcp_proto::jsonrpc::to_raw(&serde_json::json!({"content": []})).unwrap(),
                )),
                UNIX_EPOCH + Duration::from_millis(1_764_066_601_000),
            )
            .unwrap();
        let back = decode(&encode(&record).unwrap()).unwrap();
        assert_eq!(back.id, "abc");
        assert_eq!(back.status, TaskStatus::Completed);
        assert_eq!(back.created_at, record.created_at);
        assert_eq!(back.ttl, record.ttl);
        assert_eq!(expires_at(&back), Some(1_764_066_660_123));
        match back.outcome {
            Some(TaskOutcome::Result(raw)) => assert_eq!(raw.get(), r#"{"content":[]}"#),
            other => panic!("{other:?}"),
        }
    }
}
