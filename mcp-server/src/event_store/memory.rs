//! [`MemoryEventStore`]: event streams in one process's memory, shared by that process's HTTP
//! servers.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Instant;

use bytes::Bytes;
use mcp_proto::sync::lock;

use super::{EventLimits, EventPage, EventStore, EventStoreError, EventWatch, StoreFuture};

/// Event streams in memory: the newest `retained` events of each, dropped after their TTL.
#[derive(Debug, Default)]
pub struct MemoryEventStore {
    streams: Mutex<HashMap<(String, u64), Log>>,
}

#[derive(Debug, Default)]
struct Log {
    events: VecDeque<(u64, Bytes)>,
    last: u64,
    expires: Option<Instant>,
    watch: EventWatch,
}

impl MemoryEventStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryEventStore::default()
    }
}

impl EventStore for MemoryEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        data: &'a [u8],
        limits: EventLimits,
    ) -> StoreFuture<'a, Result<u64, EventStoreError>> {
        let now = Instant::now();
        let mut streams = lock(&self.streams);
        streams.retain(|_, log| log.expires.is_none_or(|e| e > now));
        let log = streams.entry((session.to_owned(), stream)).or_default();
        log.last += 1;
        log.events
            .push_back((log.last, Bytes::copy_from_slice(data)));
        while log.events.len() > limits.retained.max(1) {
            log.events.pop_front();
        }
        log.expires = Some(now + limits.ttl);
        log.watch.fire();
        let seq = log.last;
        Box::pin(std::future::ready(Ok(seq)))
    }

    fn read_after<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        after: u64,
    ) -> StoreFuture<'a, Result<EventPage, EventStoreError>> {
        let streams = lock(&self.streams);
        let page = streams
            .get(&(session.to_owned(), stream))
            .map(|log| EventPage {
                events: log
                    .events
                    .iter()
                    .filter(|(seq, _)| *seq > after)
                    .cloned()
                    .collect(),
                last: log.last,
            })
            .unwrap_or_default();
        Box::pin(std::future::ready(Ok(page)))
    }

    fn watch(&self, session: &str, stream: u64) -> EventWatch {
        lock(&self.streams)
            .entry((session.to_owned(), stream))
            .or_default()
            .watch
            .clone()
    }

    fn remove<'a>(&'a self, session: &'a str) -> StoreFuture<'a, Result<(), EventStoreError>> {
        lock(&self.streams).retain(|(s, _), _| s != session);
        Box::pin(std::future::ready(Ok(())))
    }
}
