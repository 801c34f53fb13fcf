//! [`RedisSessionStore`]: sessions in Redis, shared by every replica.
//!
//! Keys, under the handle's prefix `P`:
//! - `P` + `s:<id>`: a hash with the record (`v`, `caps`, `info`, `lvl`, `owner`, `rev`); it
//!   expires when the session idles out.
//! - `P` + `subs:<id>`: the set of resources the session is subscribed to (same expiry).
//! - `P` + `subscribers:<uri>`: the sessions subscribed to a resource (unsubscribe and DELETE
//!   remove one; a session that expired subscribed is dropped the next time the URI's
//!   subscribers are read).
//! - `P` + `sessions`: a sorted set of session ids scored by when they expire (ms since the
//!   epoch), which counts live sessions for the cap; it expires with the last of them.
//!
//! Every method is one round trip: a pipeline, or a Lua script (`EVAL`, not on the hot path)
//! where the step must be atomic (the cap check with the insert).

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{
    parse_level, SessionChange, SessionLimits, SessionRecord, SessionStore, SessionStoreError,
    StoreFuture,
};
use crate::shared::{RedisHandle, SharedStateError};
use mcp_proto::ProtocolVersion;

/// Drops expired ids, checks the cap, then stores the record: atomically, so two replicas
/// cannot both take the last place.
const CREATE: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4], 'GT')
redis.call('PEXPIRE', KEYS[1], ARGV[4], 'NX')
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[2], unpack(ARGV, 6))
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
";

/// Sets the log level of a session that still exists.
const SET_LEVEL: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'lvl', ARGV[1])
return 1
";

/// Adds or removes a subscription of a session that still exists, counting the change.
const SUBSCRIBE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] == '+' then
  redis.call('SADD', KEYS[2], ARGV[2])
  redis.call('SADD', KEYS[3], ARGV[4])
else
  redis.call('SREM', KEYS[2], ARGV[2])
  redis.call('SREM', KEYS[3], ARGV[4])
end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
";

/// The live subscribers of a URI; ids of sessions that expired or were removed are dropped
/// from the index on the way (ARGV[1]: the prefix of session keys).
const SUBSCRIBERS: &str = r"
local live = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', ARGV[1] .. id) == 1 then table.insert(live, id)
  else redis.call('SREM', KEYS[1], id) end
end
return live
";

/// Removes a session, its subscriptions and its entries in the subscriber index
/// (ARGV[1]: the prefix of index keys, ARGV[2]: the id).
const REMOVE: &str = r"
for _, uri in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  redis.call('SREM', ARGV[1] .. uri, ARGV[2])
end
redis.call('ZREM', KEYS[3], ARGV[2])
return redis.call('DEL', KEYS[1], KEYS[2])
";

/// Sessions in Redis, under the handle's key prefix; cheap to clone.
#[derive(Clone, Debug)]
pub struct RedisSessionStore {
    redis: RedisHandle,
}

fn unavailable(e: SharedStateError) -> SessionStoreError {
    SessionStoreError::Unavailable(e.to_string())
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(millis)
        .unwrap_or(0)
}

impl RedisSessionStore {
    /// A store talking through `redis` (its prefix, timeout and health).
    pub fn new(redis: RedisHandle) -> Self {
        RedisSessionStore { redis }
    }

    fn key(&self, kind: &str, id: &str) -> String {
        self.redis.key(&format!("{kind}:{id}"))
    }

    fn index(&self) -> String {
        self.redis.key("sessions")
    }
}

fn read_record(
    id: &str,
    mut fields: HashMap<String, String>,
) -> Result<SessionRecord, SessionStoreError> {
    let corrupt = |detail: &str| SessionStoreError::Corrupt {
        id: id.to_owned(),
        detail: detail.to_owned(),
    };
    let version = fields
        .get("v")
        .and_then(|v| ProtocolVersion::parse(v))
        .ok_or_else(|| corrupt("no protocol version"))?;
    Ok(SessionRecord {
        protocol_version: version,
        client_capabilities: fields.remove("caps").unwrap_or_else(|| "{}".into()),
        client_info: fields
            .remove("info")
            .ok_or_else(|| corrupt("no client info"))?,
        log_level: fields.get("lvl").and_then(|l| parse_level(l)),
        owner: fields.remove("owner"),
        revision: fields.get("rev").and_then(|r| r.parse().ok()).unwrap_or(0),
    })
}

impl SessionStore for RedisSessionStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        limits: SessionLimits,
    ) -> StoreFuture<'a, Result<(), SessionStoreError>> {
        Box::pin(async move {
            let now = now_ms();
            let ttl = millis(limits.idle);
            let mut script = redis::cmd("EVAL");
            script
                .arg(CREATE)
                .arg(3)
                .arg(self.index())
                .arg(self.key("s", id))
                .arg(self.key("subs", id))
                .arg(now)
                .arg(now.saturating_add(ttl))
                .arg(limits.max_sessions)
                .arg(ttl)
                .arg(id)
                .arg("v")
                .arg(record.protocol_version.as_str())
                .arg("caps")
                .arg(&record.client_capabilities)
                .arg("info")
                .arg(&record.client_info)
                .arg("rev")
                .arg(record.revision);
            if let Some(level) = record.log_level {
                script.arg("lvl").arg(level.as_str());
            }
            if let Some(owner) = &record.owner {
                script.arg("owner").arg(owner);
            }
            let created: i64 = self.redis.query(&script).await.map_err(unavailable)?;
            if created == 1 {
                Ok(())
            } else {
                Err(SessionStoreError::Full(limits.max_sessions))
            }
        })
    }

    fn touch<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> StoreFuture<'a, Result<Option<SessionRecord>, SessionStoreError>> {
        Box::pin(async move {
            let ttl = millis(idle);
            let mut pipe = redis::pipe();
            pipe.cmd("HGETALL")
                .arg(self.key("s", id))
                .cmd("PEXPIRE")
                .arg(self.key("s", id))
                .arg(ttl)
                .ignore()
                .cmd("PEXPIRE")
                .arg(self.key("subs", id))
                .arg(ttl)
                .ignore()
                .cmd("ZADD")
                .arg(self.index())
                .arg("XX")
                .arg(now_ms().saturating_add(ttl))
                .arg(id)
                .ignore()
                .cmd("PEXPIRE")
                .arg(self.index())
                .arg(ttl)
                .arg("GT")
                .ignore();
            let (fields,): (HashMap<String, String>,) = self
                .redis
                .query_pipeline(&pipe)
                .await
                .map_err(unavailable)?;
            if fields.is_empty() {
                return Ok(None);
            }
            read_record(id, fields).map(Some)
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: &'a SessionChange,
        idle: Duration,
    ) -> StoreFuture<'a, Result<bool, SessionStoreError>> {
        Box::pin(async move {
            let script = match change {
                SessionChange::LogLevel(level) => {
                    let mut s = redis::cmd("EVAL");
                    s.arg(SET_LEVEL)
                        .arg(1)
                        .arg(self.key("s", id))
                        .arg(level.as_str());
                    s
                }
                SessionChange::Subscribe(uri) | SessionChange::Unsubscribe(uri) => {
                    let sign = if matches!(change, SessionChange::Subscribe(_)) {
                        "+"
                    } else {
                        "-"
                    };
                    let mut s = redis::cmd("EVAL");
                    s.arg(SUBSCRIBE)
                        .arg(3)
                        .arg(self.key("s", id))
                        .arg(self.key("subs", id))
                        .arg(self.key("subscribers", uri))
                        .arg(sign)
                        .arg(uri)
                        .arg(millis(idle))
                        .arg(id);
                    s
                }
            };
            let found: i64 = self.redis.query(&script).await.map_err(unavailable)?;
            Ok(found == 1)
        })
    }

    fn subscriptions<'a>(
        &'a self,
        id: &'a str,
    ) -> StoreFuture<'a, Result<Vec<String>, SessionStoreError>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("SMEMBERS");
            cmd.arg(self.key("subs", id));
            self.redis.query(&cmd).await.map_err(unavailable)
        })
    }

    fn subscribers<'a>(
        &'a self,
        uri: &'a str,
    ) -> StoreFuture<'a, Result<Vec<String>, SessionStoreError>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(SUBSCRIBERS)
                .arg(1)
                .arg(self.key("subscribers", uri))
                .arg(self.key("s", ""));
            self.redis.query(&cmd).await.map_err(unavailable)
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Result<bool, SessionStoreError>> {
        Box::pin(async move {
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(REMOVE)
                .arg(3)
                .arg(self.key("s", id))
                .arg(self.key("subs", id))
                .arg(self.index())
                .arg(self.key("subscribers", ""))
                .arg(id);
            let deleted: i64 = self.redis.query(&cmd).await.map_err(unavailable)?;
            Ok(deleted > 0)
        })
    }

    fn keep_alive<'a>(
        &'a self,
        ids: &'a [String],
        idle: Duration,
    ) -> StoreFuture<'a, Result<Vec<bool>, SessionStoreError>> {
        Box::pin(async move {
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let ttl = millis(idle);
            let expires = now_ms().saturating_add(ttl);
            let mut pipe = redis::pipe();
            for id in ids {
                pipe.cmd("PEXPIRE")
                    .arg(self.key("s", id))
                    .arg(ttl)
                    .cmd("PEXPIRE")
                    .arg(self.key("subs", id))
                    .arg(ttl)
                    .ignore()
                    .cmd("ZADD")
                    .arg(self.index())
                    .arg("XX")
                    .arg(expires)
                    .arg(id)
                    .ignore();
            }
            let alive: Vec<i64> = self
                .redis
                .query_pipeline(&pipe)
                .await
                .map_err(unavailable)?;
            Ok(alive.into_iter().map(|a| a == 1).collect())
        })
    }
}
