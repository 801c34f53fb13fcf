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
//! - `P` + `session-changed`: a pub/sub channel; the scripts that change or remove a session
//!   publish its id there, atomically with the change, so replicas drop their lease of it. A
//!   replica that leases adds a space and a tag naming itself and the change, so that it knows
//!   its own echo (see [`Leases`]); a bare id is read as a change from elsewhere.
//!
//! Every method is one round trip (a pipeline, or a Lua script where the step must be atomic:
//! the cap check with the insert, a change with its invalidation), except
//! [`touch`](SessionStore::touch) under a lease: see [`Leases`] and the model below. Two
//! tasks start with the first `create` or `touch` and end with the last clone of the store:
//! the invalidation feed and the expiry flusher.
//!
//! # Leases: no round trip per request
//! `MemorySessionStore` answers from memory and needs nothing more. `RedisSessionStore`
//! would cost each request one round trip to Redis on its critical path, so a replica keeps a
//! short **lease** per session instead:
//! - After a replica has read a session's record (`touch` went to Redis), it serves that
//!   session's further requests from the record it read, without asking Redis, until the lease
//!   ends: [`RedisSessionStore::DEFAULT_LEASE`] (1 s, configurable), and never longer than a
//!   quarter of the idle timeout, so a leased session cannot expire in Redis under the lease.
//! - **Invalidation comes from Redis itself.** The scripts that change a session (log level,
//!   subscriptions) or remove it publish its id on the `session-changed` channel, in the same
//!   atomic step; every replica subscribes and drops its lease of that id, so its next request
//!   reads the record again. A replica's own change drops its lease as soon as Redis answered,
//!   and its echo on the channel (tagged with the replica and the change) then ends nothing:
//!   the read made after the answer already saw the change.
//!   A read that was in flight when an invalidation of its session (or of all) arrived grants
//!   no lease (epochs), so an invalidation overtaking the read it invalidates is not lost.
//!   Expiry publishes nothing and needs not: a lease ends before the expiry its read wrote.
//! - **No feed, no lease.** While the subscription is not subscribed (starting, Redis down,
//!   reconnecting), no lease is granted or honoured and every lease was dropped: each request
//!   goes to Redis, and with Redis down fails with a clear 503, as without leases. What a
//!   replica could still miss is a change made between its subscription breaking and the
//!   replica noticing (a hung Redis, not a stopped one); the lease length bounds that.
//! - **Expiry is written behind.** A request served under a lease marks its session touched;
//!   a flusher writes the expiry of every touched session in one pipeline (`PEXPIRE` of its keys,
//!   `ZADD XX` in the index, never recreating a removed session) each tick (1 s, or a quarter
//!   of the idle timeout if less), or sooner when many wait. The set of touched
//!   sessions is bounded (when full, requests go to Redis, which writes their expiry), and so
//!   are the leases. A failed flush drops every lease.
//!
//! So a change made through one replica is seen by the others once its invalidation arrives
//! (one pub/sub hop, normally before the client's next request reaches them), expiry and the
//! cap hold across replicas within a tick of write-behind, and a busy session costs one read
//! per lease plus its share of a pipeline per tick instead of a round trip per request.

mod lease;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_proto::ProtocolVersion;
use mcp_server::session_store::{
    SessionChange, SessionLimits, SessionRecord, SessionStore, SessionStoreError, StoreFuture,
};
use mcp_server::LoggingLevel;
use tokio_util::sync::{CancellationToken, DropGuard};

use self::lease::{Leases, OwnChange, Served};
use crate::handle::Listener;
use crate::{PubSubMessage, RedisHandle, SharedStateError};

/// The level named `name` on the wire (`"warning"`), as the store reads it back.
fn parse_level(name: &str) -> Option<LoggingLevel> {
    LoggingLevel::ALL.into_iter().find(|l| l.as_str() == name)
}

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

/// Sets the log level of a session that still exists, and says so on the invalidation
/// channel (ARGV[2], the payload in ARGV[3]).
const SET_LEVEL: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'lvl', ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
";

/// Adds or removes a subscription of a session that still exists, counting the change, and
/// says so on the invalidation channel (ARGV[5], the payload in ARGV[6]).
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
redis.call('PUBLISH', ARGV[5], ARGV[6])
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

/// Removes a session, its subscriptions and its entries in the subscriber index, and says so
/// on the invalidation channel (ARGV[1]: the prefix of index keys, ARGV[2]: the id, ARGV[3]:
/// the channel, ARGV[4]: the payload).
const REMOVE: &str = r"
for _, uri in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  redis.call('SREM', ARGV[1] .. uri, ARGV[2])
end
redis.call('ZREM', KEYS[3], ARGV[2])
local deleted = redis.call('DEL', KEYS[1], KEYS[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return deleted
";

/// Sessions in Redis, under the handle's key prefix; cheap to clone (clones share leases).
#[derive(Clone, Debug)]
pub struct RedisSessionStore {
    redis: RedisHandle,
    cache: Arc<Cache>,
}

/// A store's replica-local side: its leases and the tasks that keep them honest.
#[derive(Debug)]
struct Cache {
    leases: Arc<Leases>,
    /// The invalidation feed and the flusher, started on first use; dropping them stops both.
    tasks: OnceLock<(DropGuard, DropGuard)>,
}

/// Drops the lease of each session id published on the invalidation channel (except on the echo
/// of this replica's own answered change), and every lease whenever the subscription is made or
/// lost.
struct Feed {
    leases: Arc<Leases>,
}

impl Listener for Feed {
    fn message(&self, message: PubSubMessage) -> bool {
        match std::str::from_utf8(&message.payload) {
            Ok(payload) => {
                let (id, change) = OwnChange::parse(payload);
                self.leases.feed_says_changed(id, change);
            }
            Err(_) => self.leases.drop_all(),
        }
        true
    }

    fn subscribed(&self, up: bool) {
        self.leases.set_feed(up);
    }

    fn gone(&self) -> bool {
        false
    }
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
    /// How long a replica serves a session from the record it last read unless told it changed:
    /// one round trip per second per busy session instead of one per request, and should an
    /// invalidation ever be missed unnoticed, a stale level or subscription list for at most
    /// this long.
    pub const DEFAULT_LEASE: Duration = Duration::from_secs(1);

    /// A store talking through `redis` (its prefix, timeout and health), with leases of
    /// [`DEFAULT_LEASE`](Self::DEFAULT_LEASE).
    pub fn new(redis: RedisHandle) -> Self {
        Self::with_lease(redis, Self::DEFAULT_LEASE)
    }

    /// A store whose leases last `lease` (capped by a quarter of the idle timeout);
    /// `Duration::ZERO` reads Redis on every request.
    pub fn with_lease(redis: RedisHandle, lease: Duration) -> Self {
        RedisSessionStore {
            redis,
            cache: Arc::new(Cache {
                leases: Arc::new(Leases::new(lease)),
                tasks: OnceLock::new(),
            }),
        }
    }

    /// Starts the invalidation feed and the expiry flusher, once (inside a tokio runtime).
    fn start(&self) {
        if self.cache.leases.length().is_zero() {
            return;
        }
        self.cache.tasks.get_or_init(|| {
            let leases = self.cache.leases.clone();
            let feed = self.redis.listen(
                vec![self.channel()],
                Arc::new(Feed {
                    leases: leases.clone(),
                }),
            );
            let stop = CancellationToken::new();
            let flusher = Flusher {
                store: self.clone_without_cache(),
                leases,
            };
            let token = stop.clone();
            tokio::spawn(async move {
                tokio::select! {
                    _ = token.cancelled() => {}
                    _ = flusher.run() => {}
                }
            });
            (feed, stop.drop_guard())
        });
    }

    /// The same Redis and prefix, without leases (what the flusher needs; holding the cache
    /// would keep its own tasks alive).
    fn clone_without_cache(&self) -> RedisSessionStore {
        RedisSessionStore::with_lease(self.redis.clone(), Duration::ZERO)
    }

    fn channel(&self) -> String {
        self.redis.key("session-changed")
    }

    fn key(&self, kind: &str, id: &str) -> String {
        self.redis.key(&format!("{kind}:{id}"))
    }

    fn index(&self) -> String {
        self.redis.key("sessions")
    }

    /// Numbers a change of session `id` this replica is about to make, if it leases: the change
    /// and what to publish (the id, then the change's tag).
    fn own_change(&self, id: &str) -> (Option<OwnChange>, String) {
        let leases = &self.cache.leases;
        if leases.length().is_zero() {
            return (None, id.to_owned());
        }
        let change = leases.change();
        (Some(change), format!("{id} {}", change.tag()))
    }

    /// Change `change` of session `id` was answered (`published` on the channel or not): this
    /// replica's next request reads the change, or its absence, from Redis, even before the
    /// invalidation comes back.
    fn changed(&self, id: &str, change: Option<OwnChange>, published: bool) {
        let leases = &self.cache.leases;
        match change {
            Some(change) => leases.changed(id, change, published),
            None => leases.drop_one(id),
        }
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

impl RedisSessionStore {
    /// One round trip: reads session `id`'s record and marks it active (expiring `idle` from
    /// now); `None` when it is gone.
    async fn read(
        &self,
        id: &str,
        idle: Duration,
    ) -> Result<Option<SessionRecord>, SessionStoreError> {
        let ttl = millis(idle);
        let mut pipe = redis::pipe();
        pipe.cmd("HGETALL").arg(self.key("s", id));
        self.mark_active(&mut pipe, id, ttl, now_ms().saturating_add(ttl), false);
        pipe.cmd("PEXPIRE")
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
    }

    /// Adds to `pipe` what marks session `id` active until `expires` (ms since the epoch): its
    /// keys' expiry and its score in the index, never recreating a session that is gone. With
    /// `answer`, the pipeline answers whether the session exists (its record's `PEXPIRE`).
    fn mark_active(
        &self,
        pipe: &mut redis::Pipeline,
        id: &str,
        ttl: u64,
        expires: u64,
        answer: bool,
    ) {
        pipe.cmd("PEXPIRE").arg(self.key("s", id)).arg(ttl);
        if !answer {
            pipe.ignore();
        }
        pipe.cmd("PEXPIRE")
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

    /// Writes the expiry of the sessions served under a lease since the last flush, in one
    /// pipeline.
    async fn flush(&self, touched: &[(Box<str>, Duration)]) -> Result<(), SessionStoreError> {
        let now = now_ms();
        let mut longest = 0;
        let mut pipe = redis::pipe();
        for (id, idle) in touched {
            let ttl = millis(*idle);
            longest = longest.max(ttl);
            self.mark_active(&mut pipe, id, ttl, now.saturating_add(ttl), false);
        }
        pipe.cmd("PEXPIRE")
            .arg(self.index())
            .arg(longest)
            .arg("GT")
            .ignore();
        self.redis
            .query_pipeline::<()>(&pipe)
            .await
            .map_err(unavailable)
    }
}

/// Writes behind the expiry of sessions served under a lease: every tick (at most 1 s and a
/// quarter of the shortest idle timeout seen) or sooner when many wait. A failed
/// flush ends every lease, so the next requests go to Redis (and write their expiry themselves).
struct Flusher {
    store: RedisSessionStore,
    leases: Arc<Leases>,
}

impl Flusher {
    async fn run(self) {
        loop {
            tokio::select! {
                _ = tokio::time::sleep(self.leases.tick()) => {}
                _ = self.leases.flush_wanted() => {}
            }
            let touched = self.leases.take_touched();
            if touched.is_empty() {
                continue;
            }
            if let Err(e) = self.store.flush(&touched).await {
                tracing::warn!(
                    "session expiry not written ({} sessions), every replica-local lease ends: {e}",
                    touched.len()
                );
                self.leases.drop_all();
            }
        }
    }
}

impl SessionStore for RedisSessionStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        limits: SessionLimits,
    ) -> StoreFuture<'a, Result<(), SessionStoreError>> {
        Box::pin(async move {
            self.start();
            let ticket = self.cache.leases.ticket();
            let started = Instant::now();
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
                let leases = &self.cache.leases;
                leases.grant(id, record, ticket, limits.idle, started);
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
            let leases = &self.cache.leases;
            if leases.length().is_zero() {
                return self.read(id, idle).await;
            }
            self.start();
            let now = Instant::now();
            let ticket = match leases.serve(id, idle, now) {
                Served::Leased(record) => return Ok(Some(record)),
                Served::Read(ticket) => ticket,
            };
            let record = self.read(id, idle).await?;
            if let Some(record) = &record {
                leases.grant(id, record, ticket, idle, now);
            }
            Ok(record)
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: &'a SessionChange,
        idle: Duration,
    ) -> StoreFuture<'a, Result<bool, SessionStoreError>> {
        Box::pin(async move {
            let (own, payload) = self.own_change(id);
            let script = match change {
                SessionChange::LogLevel(level) => {
                    let mut s = redis::cmd("EVAL");
                    s.arg(SET_LEVEL)
                        .arg(1)
                        .arg(self.key("s", id))
                        .arg(level.as_str())
                        .arg(self.channel())
                        .arg(&payload);
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
                        .arg(id)
                        .arg(self.channel())
                        .arg(&payload);
                    s
                }
            };
            let found = self.redis.query::<i64>(&script).await;
            self.changed(id, own, matches!(found, Ok(1)));
            Ok(found.map_err(unavailable)? == 1)
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
            let (own, payload) = self.own_change(id);
            let mut cmd = redis::cmd("EVAL");
            cmd.arg(REMOVE)
                .arg(3)
                .arg(self.key("s", id))
                .arg(self.key("subs", id))
                .arg(self.index())
                .arg(self.key("subscribers", ""))
                .arg(id)
                .arg(self.channel())
                .arg(&payload);
            let deleted = self.redis.query::<i64>(&cmd).await;
            self.changed(id, own, deleted.is_ok());
            Ok(deleted.map_err(unavailable)? > 0)
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
                self.mark_active(&mut pipe, id, ttl, expires, true);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_back() {
        for level in LoggingLevel::ALL {
            assert_eq!(parse_level(level.as_str()), Some(level));
        }
        assert_eq!(parse_level("loud"), None);
    }
}
