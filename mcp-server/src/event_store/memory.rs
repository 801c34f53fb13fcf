//! [`MemoryEventStore`]: event streams in one process's memory, shared by that process's HTTP
//! servers.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Instant;

use bytes::Bytes;
use mcp_proto::sync::lock;

use super::{
    EventLimits, EventPage, EventStore, EventStoreError, EventWatch, LostRequests, StoreFuture,
    StreamState, StreamStatus,
};

/// Event streams in memory: the newest `retained` events of each, dropped after their TTL.
#[derive(Debug, Default)]
pub struct MemoryEventStore {
    streams: Mutex<HashMap<(String, u64), Log>>,
    /// POST streams opened, by session and stream: their requests and whether they are done
    /// (their replica is this process, alive while the store is).
    posts: Mutex<HashMap<(String, u64), Post>>,
}

#[derive(Debug, Default)]
struct Post {
    requests: Bytes,
    done: bool,
    lost: Option<LostRequests>,
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
        lock(&self.posts).retain(|(s, _), _| s != session);
        Box::pin(std::future::ready(Ok(())))
    }

    fn open_stream<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        requests: &'a [u8],
        _limits: EventLimits,
    ) -> StoreFuture<'a, Result<(), EventStoreError>> {
        let live: std::collections::HashSet<(String, u64)> =
            lock(&self.streams).keys().cloned().collect();
        let mut posts = lock(&self.posts);
        // Bounded by the event logs: a POST stream whose log expired is forgotten too.
        posts.retain(|key, _| live.contains(key));
        let post = posts.entry((session.to_owned(), stream)).or_default();
        // A close recorded first (the answer came right after the first event) stays.
        post.requests = Bytes::copy_from_slice(requests);
        Box::pin(std::future::ready(Ok(())))
    }

    fn close_stream<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        _limits: EventLimits,
    ) -> StoreFuture<'a, Result<(), EventStoreError>> {
        if let Some(post) = lock(&self.posts).get_mut(&(session.to_owned(), stream)) {
            post.done = true;
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn orphan_stream<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        lost: &'a LostRequests,
        _limits: EventLimits,
    ) -> StoreFuture<'a, Result<(), EventStoreError>> {
        if let Some(post) = lock(&self.posts).get_mut(&(session.to_owned(), stream)) {
            post.done = true;
            post.lost = Some(lost.clone());
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn stream_status<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
    ) -> StoreFuture<'a, Result<Option<StreamStatus>, EventStoreError>> {
        let status = lock(&self.posts)
            .get(&(session.to_owned(), stream))
            .map(|post| StreamStatus {
                requests: post.requests.clone(),
                state: if post.done {
                    StreamState::Done
                } else {
                    StreamState::Open
                },
                lost: post.lost.clone(),
            });
        Box::pin(std::future::ready(Ok(status)))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_post_stream_is_open_until_closed() {
        let store = MemoryEventStore::new();
        let limits = EventLimits {
            retained: 8,
            ttl: Duration::from_secs(60),
        };
        assert_eq!(store.stream_status("s", 5).await, Ok(None));
        store
            .open_stream("s", 5, b"[7]", limits)
            .await
            .expect("open");
        store.append("s", 5, b"{}", limits).await.expect("append");
        let open = store.stream_status("s", 5).await.expect("status");
        assert_eq!(
            open,
            Some(StreamStatus {
                requests: Bytes::from_static(b"[7]"),
                state: StreamState::Open,
                lost: None,
            })
        );
        store.close_stream("s", 5, limits).await.expect("close");
        let done = store.stream_status("s", 5).await.expect("status");
        assert_eq!(done.map(|s| s.state), Some(StreamState::Done));
        let lost = LostRequests {
            at: 3,
            errors: Bytes::from_static(b"[{}]"),
        };
        store
            .open_stream("s", 6, b"[8]", limits)
            .await
            .expect("open");
        store
            .orphan_stream("s", 6, &lost, limits)
            .await
            .expect("orphan");
        let orphaned = store.stream_status("s", 6).await.expect("status");
        assert_eq!(orphaned.as_ref().map(|s| s.state), Some(StreamState::Done));
        assert_eq!(orphaned.and_then(|s| s.lost), Some(lost));
        store.remove("s").await.expect("remove");
        assert_eq!(store.stream_status("s", 5).await, Ok(None));
    }
}
