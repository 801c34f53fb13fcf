//! Where the resumable SSE events of 2025-era sessions live when several replicas serve them:
//! the [`EventStore`] trait, [`MemoryEventStore`] (replicas in one process, as tests run them)
//! and, in other crates, stores shared by replicas behind a load balancer (`mcp-server-redis`
//! keeps them in Redis streams).
//!
//! A session's standalone (GET) stream is kept in the store: whichever replica produces a
//! message for it appends it there, and the replica holding the client's GET connection reads
//! it back, so a client whose connection was cut (a replica killed, say) reconnects with
//! `Last-Event-ID` through any replica and gets exactly the events after that id.
//!
//! A POST's response stream is kept there too once it speaks SSE: the replica running the
//! request appends its events and records the stream as open (under its own heartbeat) and,
//! with the answer, as done. A client whose POST connection was cut resumes it through any
//! replica: that replica replays and follows the stored events, and when the replica running
//! the request is gone (its heartbeat lapsed) it ends the stream with a JSON-RPC error for each
//! request, so the client is told instead of waiting for ever.

mod memory;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::Notify;

pub use memory::MemoryEventStore;

pub use crate::session_store::StoreFuture;

/// The events of one stream after a given one, and where the stream stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventPage {
    /// `(sequence number, message JSON)`, oldest first: every retained event after the one
    /// asked for.
    pub events: Vec<(u64, Bytes)>,
    /// The sequence number of the stream's newest event (0: none yet).
    pub last: u64,
}

/// How many events a stream keeps and for how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventLimits {
    /// The newest this many events are kept for replay.
    pub retained: usize,
    /// A stream without a new event for this long is dropped.
    pub ttl: Duration,
}

/// Where a POST's response stream stands, as the store knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamStatus {
    /// The ids of the requests the stream answers, as a JSON array.
    pub requests: Bytes,
    /// Its progress.
    pub state: StreamState,
    /// When its replica died: the errors that ended it, for clients resuming it again.
    pub lost: Option<LostRequests>,
}

/// The errors that ended a POST stream whose replica died, and the sequence number the first
/// of them was sent under: a client resuming from an earlier event has not seen them (the
/// events it saw may not all have been stored, so their stored numbers can be lower).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LostRequests {
    /// The sequence number of the first error, as the resuming client was sent it.
    pub at: u64,
    /// The error messages, as a JSON array.
    pub errors: Bytes,
}

/// The progress of a POST's response stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamState {
    /// Its requests are still running on a live replica.
    Open,
    /// Its last event (the answer) is stored.
    Done,
    /// The replica running its requests stopped before answering them.
    Orphaned,
}

/// Why an event store failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EventStoreError {
    /// The store did not answer (a remote store down, a timeout).
    #[error("the event store is unavailable: {0}")]
    Unavailable(String),
}

/// Fired after each append to the stream it was made for, by any replica (a hint to read
/// again; readers also read now and then without it).
#[derive(Clone, Debug, Default)]
pub struct EventWatch(Arc<Notify>);

impl EventWatch {
    /// Waits for the next append (or a missed one since the last wait).
    pub async fn changed(&self) {
        self.0.notified().await;
    }

    /// Wakes the reader waiting in [`changed`](Self::changed): a store calls it after each
    /// append to the watched stream.
    pub fn fire(&self) {
        self.0.notify_one();
    }

    /// Whether a clone of this watch is held elsewhere (a store keeping watches by stream
    /// drops those nobody reads any more).
    pub fn is_watched(&self) -> bool {
        Arc::strong_count(&self.0) > 1
    }
}

/// Where the resumable events of every replica's sessions live. `stream` is the stream's id
/// within its session (0: the standalone GET stream).
pub trait EventStore: std::fmt::Debug + Send + Sync + 'static {
    /// Appends the JSON of one message; returns its sequence number (from 1, gapless within
    /// the stream, whichever replica appends).
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        data: &'a [u8],
        limits: EventLimits,
    ) -> StoreFuture<'a, Result<u64, EventStoreError>>;

    /// The retained events after sequence number `after`.
    fn read_after<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        after: u64,
    ) -> StoreFuture<'a, Result<EventPage, EventStoreError>>;

    /// A watch fired on appends to the stream (from this replica at least; from every
    /// replica where the store can tell).
    fn watch(&self, session: &str, stream: u64) -> EventWatch;

    /// Forgets every stream of `session`.
    fn remove<'a>(&'a self, session: &'a str) -> StoreFuture<'a, Result<(), EventStoreError>>;

    /// Records that this replica runs the requests `requests` (a JSON array of ids) answered
    /// on POST stream `stream` of `session`, while this replica lives. A store that keeps no
    /// POST streams (the default) does nothing.
    fn open_stream<'a>(
        &'a self,
        _session: &'a str,
        _stream: u64,
        _requests: &'a [u8],
        _limits: EventLimits,
    ) -> StoreFuture<'a, Result<(), EventStoreError>> {
        Box::pin(std::future::ready(Ok(())))
    }

    /// Records that POST stream `stream` of `session` holds its last event.
    fn close_stream<'a>(
        &'a self,
        _session: &'a str,
        _stream: u64,
        _limits: EventLimits,
    ) -> StoreFuture<'a, Result<(), EventStoreError>> {
        Box::pin(std::future::ready(Ok(())))
    }

    /// Records that POST stream `stream` of `session` was ended with `lost` because its
    /// replica died (by default, only as done).
    fn orphan_stream<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        _lost: &'a LostRequests,
        limits: EventLimits,
    ) -> StoreFuture<'a, Result<(), EventStoreError>> {
        self.close_stream(session, stream, limits)
    }

    /// Where POST stream `stream` of `session` stands; `None` if it was never opened here.
    fn stream_status<'a>(
        &'a self,
        _session: &'a str,
        _stream: u64,
    ) -> StoreFuture<'a, Result<Option<StreamStatus>, EventStoreError>> {
        Box::pin(std::future::ready(Ok(None)))
    }
}
