//! [`RedisEventStore`]: event streams in Redis streams, shared by every replica.
//!
//! Keys, under the store's prefix `P`: `P` + `ev:<session>:<stream>` is a Redis stream whose
//! entry ids are `<seq>-0` (field `d`: the message JSON), capped at the newest `retained`
//! entries; `P` + `evn:<session>:<stream>` counts the appends. Both expire `ttl` after the
//! last append. An append is one `EVAL` (the counter, the entry, the cap, the expiry and a
//! `PUBLISH` of `<session> <stream>` on `P` + `ev`, atomically, so sequence numbers are gapless
//! whichever replica appends); a read is one pipeline (`XRANGE` after an id, `GET` of the
//! counter).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use mcp_proto::sync::lock;
use redis::aio::ConnectionManager;

use super::{EventLimits, EventPage, EventStore, EventStoreError, EventWatch, StoreFuture};

const APPEND: &str = r"
local seq = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], seq .. '-0', 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return seq
";

/// Event streams in Redis under a key prefix; cheap to clone.
#[derive(Clone)]
pub struct RedisEventStore {
    conn: ConnectionManager,
    prefix: String,
    timeout: Duration,
    watches: Arc<Mutex<HashMap<(String, u64), EventWatch>>>,
}

impl std::fmt::Debug for RedisEventStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEventStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

fn unavailable(e: impl std::fmt::Display) -> EventStoreError {
    EventStoreError::Unavailable(format!("Redis: {e}"))
}

impl RedisEventStore {
    /// A store on `conn` whose keys all start with `prefix`; each call fails with
    /// [`EventStoreError::Unavailable`] after `timeout`.
    pub fn new(conn: ConnectionManager, prefix: impl Into<String>, timeout: Duration) -> Self {
        RedisEventStore {
            conn,
            prefix: prefix.into(),
            timeout,
            watches: Arc::default(),
        }
    }

    /// Connects to `url` and makes a store; fails if Redis does not answer within `timeout`.
    pub async fn connect(
        url: &str,
        prefix: impl Into<String>,
        timeout: Duration,
    ) -> Result<Self, EventStoreError> {
        let client = redis::Client::open(url).map_err(unavailable)?;
        let conn = tokio::time::timeout(timeout, ConnectionManager::new(client))
            .await
            .map_err(|_| unavailable(format!("no answer from {url} within {timeout:?}")))?
            .map_err(unavailable)?;
        Ok(Self::new(conn, prefix, timeout))
    }

    /// The channel every append is announced on (`<session> <stream>`), for a subscriber that
    /// calls [`announced`](Self::announced) with what it hears.
    pub fn channel(&self) -> String {
        format!("{}ev", self.prefix)
    }

    /// Fires the watch of the stream an announcement names (made by any replica).
    pub fn announced(&self, payload: &[u8]) {
        let text = String::from_utf8_lossy(payload);
        let Some((session, stream)) = text.split_once(' ') else {
            return;
        };
        let Ok(stream) = stream.parse::<u64>() else {
            return;
        };
        if let Some(watch) = lock(&self.watches).get(&(session.to_owned(), stream)) {
            watch.fire();
        }
    }

    fn key(&self, kind: &str, session: &str, stream: u64) -> String {
        format!("{}{kind}:{session}:{stream}", self.prefix)
    }

    async fn run<T, F, Fut>(&self, f: F) -> Result<T, EventStoreError>
    where
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: std::future::Future<Output = redis::RedisResult<T>>,
    {
        match tokio::time::timeout(self.timeout, f(self.conn.clone())).await {
            Ok(result) => result.map_err(unavailable),
            Err(_) => Err(unavailable(format!("no answer within {:?}", self.timeout))),
        }
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
            let ttl = u64::try_from(limits.ttl.as_millis())
                .unwrap_or(u64::MAX)
                .max(1);
            let mut script = redis::cmd("EVAL");
            script
                .arg(APPEND)
                .arg(2)
                .arg(self.key("ev", session, stream))
                .arg(self.key("evn", session, stream))
                .arg(limits.retained.max(1))
                .arg(data)
                .arg(ttl)
                .arg(self.channel())
                .arg(format!("{session} {stream}"));
            let seq: u64 = self
                .run(|mut conn| async move { script.query_async(&mut conn).await })
                .await?;
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
                .run(|mut conn| async move { pipe.query_async(&mut conn).await })
                .await?;
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
        watches.retain(|_, w| Arc::strong_count(&w.0) > 1);
        watches
            .entry((session.to_owned(), stream))
            .or_default()
            .clone()
    }

    fn remove<'a>(&'a self, session: &'a str) -> StoreFuture<'a, Result<(), EventStoreError>> {
        Box::pin(async move {
            // The standalone stream is the one kept here; POST streams stay in their replica.
            let (a, b) = (self.key("ev", session, 0), self.key("evn", session, 0));
            self.run(|mut conn| async move {
                redis::cmd("DEL")
                    .arg(a)
                    .arg(b)
                    .query_async::<()>(&mut conn)
                    .await
            })
            .await
        })
    }
}
