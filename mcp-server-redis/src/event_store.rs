//! [`RedisEventStore`]: event streams in Redis streams, shared by every replica.
//!
//! Keys, under the handle's prefix `P`: `P` + `ev:<session>:<stream>` is a Redis stream whose
//! entry ids are `<seq>-0` (field `d`: the message JSON), capped at the newest `retained`
//! entries; `P` + `evn:<session>:<stream>` counts the appends. Both expire `ttl` after the
//! last append. An append is one `EVAL` (the counter, the entry, the cap, the expiry and a
//! `PUBLISH` of `<session> <stream>` on `P` + `ev`, atomically, so sequence numbers are gapless
//! whichever replica appends); a read is one pipeline (`XRANGE` after an id, `GET` of the
//! counter).
//!
//! A POST stream's status is the hash `P` + `evm:<session>:<stream>` (`owner`: the id of the
//! replica running its requests, `ids`: their ids as JSON, `done` once answered, and when it
//! was ended because that replica died, `lost` and `lost_at`: the errors sent; same expiry).
//! Every store renews `P` + `alive:<its replica id>` (`SET … PX`, [`HEARTBEAT`] long, every
//! third of it): a stream not done whose owner's key is gone is orphaned.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use mcp_proto::sync::lock;
use tokio_util::sync::{CancellationToken, DropGuard};

use mcp_server::event_store::{
    EventLimits, EventPage, EventStore, EventStoreError, EventWatch, LostRequests, StoreFuture,
    StreamState, StreamStatus,
};

use crate::{RedisHandle, SharedStateError};

const APPEND: &str = r"
local seq = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], seq .. '-0', 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return seq
";

/// How long a replica counts as alive after its last heartbeat; renewed every third of it.
pub const HEARTBEAT: Duration = Duration::from_secs(3);

/// Event streams in Redis, under the handle's key prefix; cheap to clone.
#[derive(Clone)]
pub struct RedisEventStore {
    redis: RedisHandle,
    /// This replica's id, for the POST streams it opens.
    replica: Arc<str>,
    watches: Arc<Mutex<HashMap<(String, u64), EventWatch>>>,
    /// Ends the subscription to announcements when the last clone goes.
    _announcements: Arc<DropGuard>,
}

impl std::fmt::Debug for RedisEventStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEventStore")
            .field("redis", &self.redis)
            .finish_non_exhaustive()
    }
}

fn unavailable(e: SharedStateError) -> EventStoreError {
    EventStoreError::Unavailable(e.to_string())
}

impl RedisEventStore {
    /// A store talking through `redis`, listening for appends made by every replica (a task
    /// on the current tokio runtime, which ends with the store).
    pub fn start(redis: RedisHandle) -> Self {
        let watches: Arc<Mutex<HashMap<(String, u64), EventWatch>>> = Arc::default();
        let stop = CancellationToken::new();
        let mut subscription = redis.subscribe(vec![redis.key("ev")]);
        let listening = Arc::downgrade(&watches);
        let token = stop.clone();
        tokio::spawn(async move {
            loop {
                let message = tokio::select! {
                    _ = token.cancelled() => return,
                    message = subscription.recv() => message,
                };
                let Some(message) = message else { return };
                let Some(watches) = listening.upgrade() else {
                    return;
                };
                announced(&watches, &message.payload);
            }
        });
        let replica: Arc<str> = Arc::from(crate::replica::new_replica_id());
        let beating = redis.clone();
        let alive = redis.key(&format!("alive:{replica}"));
        let token = stop.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(HEARTBEAT / 3);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = token.cancelled() => return,
                    _ = every.tick() => {}
                }
                let mut set = redis::cmd("SET");
                set.arg(&alive)
                    .arg(1)
                    .arg("PX")
                    .arg(HEARTBEAT.as_millis() as u64);
                if let Err(e) = beating.query::<()>(&set).await {
                    tracing::debug!("event store heartbeat: {e}");
                }
            }
        });
        RedisEventStore {
            redis,
            replica,
            watches,
            _announcements: Arc::new(stop.drop_guard()),
        }
    }

    fn key(&self, kind: &str, session: &str, stream: u64) -> String {
        self.redis.key(&format!("{kind}:{session}:{stream}"))
    }

    /// Sets `fields` of a POST stream's status hash and renews its expiry (one round trip).
    async fn set_status(
        &self,
        session: &str,
        stream: u64,
        fields: &[(&str, &[u8])],
        limits: EventLimits,
    ) -> Result<(), EventStoreError> {
        let key = self.key("evm", session, stream);
        let mut pipe = redis::pipe();
        let set = pipe.cmd("HSET").arg(&key);
        for (field, value) in fields {
            set.arg(*field).arg(*value);
        }
        set.ignore()
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(ttl_ms(limits))
            .ignore();
        self.redis
            .query_pipeline::<()>(&pipe)
            .await
            .map_err(unavailable)
    }
}

/// Fires the watch of the stream an announcement (`<session> <stream>`) names.
fn announced(watches: &Mutex<HashMap<(String, u64), EventWatch>>, payload: &[u8]) {
    let text = String::from_utf8_lossy(payload);
    let Some((session, stream)) = text.split_once(' ') else {
        return;
    };
    let Ok(stream) = stream.parse::<u64>() else {
        return;
    };
    if let Some(watch) = lock(watches).get(&(session.to_owned(), stream)) {
        watch.fire();
    }
}

/// The sequence number of a stream entry id `<seq>-0`.
fn seq_of(id: &str) -> Option<u64> {
    id.split_once('-')?.0.parse().ok()
}

type Entries = Vec<(String, HashMap<String, Vec<u8>>)>;

impl EventStore for RedisEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        data: &'a [u8],
        limits: EventLimits,
    ) -> StoreFuture<'a, Result<u64, EventStoreError>> {
        Box::pin(async move {
            let ttl = ttl_ms(limits);
            let mut script = redis::cmd("EVAL");
            script
                .arg(APPEND)
                .arg(2)
                .arg(self.key("ev", session, stream))
                .arg(self.key("evn", session, stream))
                .arg(limits.retained.max(1))
                .arg(data)
                .arg(ttl)
                .arg(self.redis.key("ev"))
                .arg(format!("{session} {stream}"));
            let seq: u64 = self.redis.query(&script).await.map_err(unavailable)?;
            if let Some(watch) = lock(&self.watches).get(&(session.to_owned(), stream)) {
                watch.fire();
            }
            Ok(seq)
        })
    }

    fn read_after<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        after: u64,
    ) -> StoreFuture<'a, Result<EventPage, EventStoreError>> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("XRANGE")
                .arg(self.key("ev", session, stream))
                .arg(format!("({after}-0"))
                .arg("+")
                .cmd("GET")
                .arg(self.key("evn", session, stream));
            let (entries, last): (Entries, Option<u64>) = self
                .redis
                .query_pipeline(&pipe)
                .await
                .map_err(unavailable)?;
            let events = entries
                .into_iter()
                .filter_map(|(id, mut fields)| {
                    Some((seq_of(&id)?, Bytes::from(fields.remove("d")?)))
                })
                .collect();
            Ok(EventPage {
                events,
                last: last.unwrap_or(0),
            })
        })
    }

    fn watch(&self, session: &str, stream: u64) -> EventWatch {
        let mut watches = lock(&self.watches);
        // Watches of streams nobody reads any more go when the map is next walked.
        watches.retain(|_, w| w.is_watched());
        watches
            .entry((session.to_owned(), stream))
            .or_default()
            .clone()
    }

    fn remove<'a>(&'a self, session: &'a str) -> StoreFuture<'a, Result<(), EventStoreError>> {
        Box::pin(async move {
            // The standalone stream is the one kept here; POST streams stay in their replica.
            let mut cmd = redis::cmd("DEL");
            cmd.arg(self.key("ev", session, 0))
                .arg(self.key("evn", session, 0));
            self.redis.query::<()>(&cmd).await.map_err(unavailable)
        })
    }

    fn open_stream<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        requests: &'a [u8],
        limits: EventLimits,
    ) -> StoreFuture<'a, Result<(), EventStoreError>> {
        let fields = [("owner", self.replica.as_bytes()), ("ids", requests)];
        Box::pin(async move { self.set_status(session, stream, &fields, limits).await })
    }

    fn close_stream<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        limits: EventLimits,
    ) -> StoreFuture<'a, Result<(), EventStoreError>> {
        Box::pin(async move {
            self.set_status(session, stream, &[("done", b"1")], limits)
                .await
        })
    }

    fn orphan_stream<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        lost: &'a LostRequests,
        limits: EventLimits,
    ) -> StoreFuture<'a, Result<(), EventStoreError>> {
        Box::pin(async move {
            let at = lost.at.to_string();
            let fields = [
                ("done", &b"1"[..]),
                ("lost_at", at.as_bytes()),
                ("lost", &lost.errors[..]),
            ];
            self.set_status(session, stream, &fields, limits).await
        })
    }

    fn stream_status<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
    ) -> StoreFuture<'a, Result<Option<StreamStatus>, EventStoreError>> {
        Box::pin(async move {
            let mut get = redis::cmd("HGETALL");
            get.arg(self.key("evm", session, stream));
            let mut fields: HashMap<String, Vec<u8>> =
                self.redis.query(&get).await.map_err(unavailable)?;
            let Some(requests) = fields.remove("ids") else {
                return Ok(None);
            };
            let state = if fields.contains_key("done") {
                StreamState::Done
            } else {
                let owner = String::from_utf8_lossy(&fields.remove("owner").unwrap_or_default())
                    .into_owned();
                let mut exists = redis::cmd("EXISTS");
                exists.arg(self.redis.key(&format!("alive:{owner}")));
                let alive: u64 = self.redis.query(&exists).await.map_err(unavailable)?;
                if alive > 0 {
                    StreamState::Open
                } else {
                    StreamState::Orphaned
                }
            };
            let lost_at = fields
                .remove("lost_at")
                .and_then(|at| String::from_utf8_lossy(&at).parse().ok());
            let lost = match (lost_at, fields.remove("lost")) {
                (Some(at), Some(errors)) => Some(LostRequests {
                    at,
                    errors: Bytes::from(errors),
                }),
                _ => None,
            };
            Ok(Some(StreamStatus {
                requests: Bytes::from(requests),
                state,
                lost,
            }))
        })
    }
}

/// A stream's expiry in milliseconds (at least 1).
fn ttl_ms(limits: EventLimits) -> u64 {
    u64::try_from(limits.ttl.as_millis())
        .unwrap_or(u64::MAX)
        .max(1)
}
