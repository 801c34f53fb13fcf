//! A session's standalone stream kept in a shared [`EventStore`]: messages for it go to the
//! store in order (one writer task per session and replica), and the replica holding the
//! client's GET connection follows the store into its local [`Stream`] under the store's
//! sequence numbers, so event ids mean the same on every replica. Client messages that belong
//! to another replica (answers to its requests) are told apart here, for the relay.
//!
//! A POST's response stream that speaks SSE goes to the store too (same writer, so in order):
//! opened with its request ids, each event, then closed with the answer. A GET resuming such a
//! stream on another replica adopts it: the stored events are replayed and followed until the
//! stream is done, or until the replica running its requests is found gone, when the adopting
//! replica stores (and sends) a JSON-RPC error for each of them and ends the stream.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use bytes::Bytes;
use mcp_proto::jsonrpc::{error_codes, Incoming, Message, RequestId};
use mcp_proto::schema::{Cancelled, CancelledParams, NotificationType};
use mcp_proto::sync::lock;
use tokio::sync::{mpsc, oneshot};

use super::stream::Mode;
use super::{Session, Stream, STANDALONE};
use crate::event_store::{EventLimits, EventStore, EventStoreError, LostRequests, StreamState};

/// Messages waiting for the writer; more are dropped with a warning (bounded).
const OUT_QUEUE: usize = 256;
/// How often a follower reads the store without a wake-up (a missed announcement, or a store
/// that cannot announce across replicas).
const FOLLOW_POLL: Duration = Duration::from_millis(250);
/// A follower with no reader for this many rounds stops.
const IDLE_ROUNDS: u32 = 8;
/// How often, and how long apart, a GET looks for a POST stream of another replica that the
/// store does not know yet (its replica records it just after sending the first event).
const ADOPT_ATTEMPTS: u32 = 20;
const ADOPT_WAIT: Duration = Duration::from_millis(100);

/// What the writer of a session does, in order.
enum Write {
    /// Appends a message to a stream (the standalone one, or a POST's).
    Append(u64, Vec<u8>),
    /// Records a POST stream as running here, with its request ids (JSON); then fires.
    Open(u64, Vec<u8>, Option<oneshot::Sender<()>>),
    /// Records a POST stream as answered.
    Close(u64),
}

/// The shared side of one session's streams.
pub(crate) struct SharedEvents {
    store: Arc<dyn EventStore>,
    limits: EventLimits,
    out: mpsc::Sender<Write>,
    following: AtomicBool,
}

impl SharedEvents {
    /// Starts the writer of session `id` (a task that ends with the session).
    pub(super) fn start(id: &str, store: Arc<dyn EventStore>, limits: EventLimits) -> Self {
        let (out, mut pending) = mpsc::channel::<Write>(OUT_QUEUE);
        let writer_store = store.clone();
        let session = id.to_owned();
        tokio::spawn(async move {
            while let Some(mut write) = pending.recv().await {
                let (stream, done) = match &mut write {
                    Write::Append(stream, json) => (
                        *stream,
                        writer_store
                            .append(&session, *stream, json, limits)
                            .await
                            .map(drop),
                    ),
                    Write::Open(stream, ids, recorded) => {
                        let done = writer_store
                            .open_stream(&session, *stream, ids, limits)
                            .await;
                        if let Some(recorded) = recorded.take() {
                            let _ = recorded.send(());
                        }
                        (*stream, done)
                    }
                    Write::Close(stream) => (
                        *stream,
                        writer_store.close_stream(&session, *stream, limits).await,
                    ),
                };
                if let Err(e) = done {
                    tracing::warn!(session = %session, stream, "a stream event was lost: {e}");
                }
            }
        });
        SharedEvents {
            store,
            limits,
            out,
            following: AtomicBool::new(false),
        }
    }

    fn write(&self, write: Write) {
        if let Err(e) = self.out.try_send(write) {
            tracing::warn!("a stream event was dropped: {e}");
        }
    }

    /// Hands a message for the standalone stream to the writer.
    pub(super) fn send(&self, json: Vec<u8>) {
        self.write(Write::Append(STANDALONE, json));
    }

    /// Hands an event of POST stream `stream` to the writer, recording the stream first (with
    /// the ids of the requests it answers) when it is the first one.
    pub(super) fn send_post(
        &self,
        stream: &Stream,
        json: &[u8],
        recorded: Option<oneshot::Sender<()>>,
        requests: impl FnOnce() -> Vec<u8>,
    ) {
        if stream.share() {
            self.write(Write::Open(stream.id(), requests(), recorded));
        }
        self.write(Write::Append(stream.id(), json.to_vec()));
        if stream.is_done() {
            self.write(Write::Close(stream.id()));
        }
    }
}

impl Session {
    /// Keeps the session's standalone stream in `store` from now on.
    pub(crate) fn share_events(&self, store: Arc<dyn EventStore>, limits: EventLimits) {
        let _ = self
            .events
            .set(SharedEvents::start(&self.id, store, limits));
    }

    /// Readies the local standalone stream for a GET: the retained events after `after` when
    /// resuming, else only what comes next; then follows the store while someone reads.
    pub(crate) async fn prepare_standalone(
        self: &Arc<Self>,
        after: Option<u64>,
    ) -> Result<(), EventStoreError> {
        let Some(events) = self.events.get() else {
            return Ok(());
        };
        let Some(stream) = self.standalone() else {
            return Ok(());
        };
        let page = events
            .store
            .read_after(&self.id, STANDALONE, after.unwrap_or(0))
            .await?;
        match after {
            Some(_) => {
                for (seq, data) in &page.events {
                    stream.push_sequenced(*seq, data);
                }
            }
            None => stream.skip_to(page.last),
        }
        if !events.following.swap(true, Ordering::AcqRel) {
            tokio::spawn(follow(Arc::downgrade(self), events.store.clone()));
        }
        Ok(())
    }
}

impl Session {
    /// Makes POST stream `id`, kept in the shared store by whichever replica ran it, resumable
    /// here after event `after`: a local stream fed from the store. `None` when the store knows
    /// no such stream (or the session has no shared store).
    pub(crate) async fn adopt_stream(
        self: &Arc<Self>,
        id: u64,
        after: u64,
    ) -> Result<Option<Arc<Stream>>, EventStoreError> {
        let Some(events) = self.events.get() else {
            return Ok(None);
        };
        if id == STANDALONE {
            return Ok(None);
        }
        // The client may have its first event before the replica running the request has
        // recorded the stream (its writer stores after sending): a stream of another replica
        // (another tag) is waited for a little.
        let foreign = id >> 32 != super::replica_stream_tag() >> 32;
        let mut status = None;
        for attempt in 0..ADOPT_ATTEMPTS {
            status = events.store.stream_status(&self.id, id).await?;
            if status.is_some() || !foreign {
                break;
            }
            if attempt + 1 < ADOPT_ATTEMPTS {
                tokio::time::sleep(ADOPT_WAIT).await;
            }
        }
        let Some(status) = status else {
            return Ok(None);
        };
        let stream = Arc::new(Stream::new(id, 0, self.replay, Mode::Sse));
        stream.skip_to(after);
        {
            let mut state = lock(&self.state);
            if state.closed {
                return Ok(None);
            }
            if let Some(held) = state.streams.get(&id) {
                return Ok(Some(held.clone()));
            }
            self.retain(&mut state, &stream);
        }
        tokio::spawn(follow_post(
            Arc::downgrade(self),
            events.store.clone(),
            events.limits,
            stream.clone(),
            status.requests,
        ));
        Ok(Some(stream))
    }
}

/// Feeds an adopted POST stream from the store until it is done; ends it with an error for
/// each of its requests when the replica running them is gone. Stops (and lets the session
/// forget the stream, so a later GET adopts it again) when nobody has read it for a while.
async fn follow_post(
    session: Weak<Session>,
    store: Arc<dyn EventStore>,
    limits: EventLimits,
    stream: Arc<Stream>,
    requests: Bytes,
) {
    let Some(id) = session.upgrade().map(|s| s.id.clone()) else {
        return;
    };
    let watch = store.watch(&id, stream.id());
    let mut idle = 0;
    // Set once the stream is done: what ended it, if its replica died.
    let mut last_round: Option<Option<LostRequests>> = None;
    loop {
        match store.read_after(&id, stream.id(), stream.last_seq()).await {
            Ok(page) => {
                for (seq, data) in &page.events {
                    stream.push_sequenced(*seq, data);
                }
            }
            Err(e) => tracing::warn!(session = %id, "cannot read a resumed stream: {e}"),
        }
        let Some(s) = session.upgrade() else {
            stream.finish();
            return;
        };
        if let Some(lost) = last_round {
            // Ended for a dead replica before this client saw the errors: they come again
            // (their stored numbers may be below the client's, see `LostRequests`).
            if let Some(lost) = lost.filter(|lost| stream.last_seq() < lost.at) {
                let errors: Vec<serde_json::Value> =
                    serde_json::from_slice(&lost.errors).unwrap_or_default();
                for error in errors {
                    stream.push_event(None, error.to_string().as_bytes(), true);
                }
            }
            stream.finish();
            return;
        }
        idle = if stream.has_reader() { 0 } else { idle + 1 };
        if idle > IDLE_ROUNDS {
            s.forget_stream(stream.id());
            return;
        }
        drop(s);
        match store.stream_status(&id, stream.id()).await {
            Ok(Some(status)) if status.state == StreamState::Done => {
                last_round = Some(status.lost);
                continue;
            }
            Ok(Some(status)) if status.state == StreamState::Orphaned => {
                // Sent here after whatever the client saw (its last events may have died with
                // the replica before they were stored), and stored for later resumptions.
                let errors = lost_requests(&requests);
                let lost = LostRequests {
                    at: stream.last_seq() + 1,
                    errors: Bytes::from(format!(
                        "[{}]",
                        errors
                            .iter()
                            .map(|e| String::from_utf8_lossy(e))
                            .collect::<Vec<_>>()
                            .join(",")
                    )),
                };
                for error in &errors {
                    stream.push_event(None, error, true);
                    if let Err(e) = store.append(&id, stream.id(), error, limits).await {
                        tracing::warn!(session = %id, "cannot store a lost request's error: {e}");
                    }
                }
                if let Err(e) = store.orphan_stream(&id, stream.id(), &lost, limits).await {
                    tracing::warn!(session = %id, "cannot close a resumed stream: {e}");
                }
                stream.finish();
                return;
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(session = %id, "cannot read a stream's status: {e}"),
        }
        let _ = tokio::time::timeout(FOLLOW_POLL, watch.changed()).await;
    }
}

/// The JSON-RPC errors that tell the client its requests (`requests`: their ids as a JSON
/// array) died with the replica running them.
fn lost_requests(requests: &[u8]) -> Vec<Vec<u8>> {
    let ids: Vec<RequestId> = serde_json::from_slice(requests).unwrap_or_default();
    ids.into_iter()
        .map(|id| {
            let message = format!(
                "Request {id} was lost: the server process handling it stopped before it \
                 answered (it may or may not have run)"
            );
            let error = serde_json::json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": error_codes::INTERNAL_ERROR, "message": message}
            });
            error.to_string().into_bytes()
        })
        .collect()
}

/// Copies new events of the session's standalone stream from the store into the local stream
/// until the session ends or nobody has read it for a while.
async fn follow(session: Weak<Session>, store: Arc<dyn EventStore>) {
    let mut idle = 0;
    let mut watch = None;
    loop {
        let Some(s) = session.upgrade() else { return };
        let Some(stream) = s.standalone() else { return };
        let id = s.id.clone();
        let watch = watch
            .get_or_insert_with(|| store.watch(&id, STANDALONE))
            .clone();
        idle = if stream.has_reader() { 0 } else { idle + 1 };
        if idle > IDLE_ROUNDS {
            if let Some(events) = s.events.get() {
                events.following.store(false, Ordering::Release);
            }
            return;
        }
        drop(s);
        match store.read_after(&id, STANDALONE, stream.last_seq()).await {
            Ok(page) => {
                for (seq, data) in &page.events {
                    stream.push_sequenced(*seq, data);
                }
            }
            Err(e) => tracing::warn!(session = %id, "cannot read the standalone stream: {e}"),
        }
        drop(stream);
        let _ = tokio::time::timeout(FOLLOW_POLL, watch.changed()).await;
    }
}

impl Session {
    /// Whether this replica is where a client message without requests belongs: an answer to
    /// a request this replica's peer sent, a cancellation of a request running here, or any
    /// other notification (those are served wherever they land).
    pub(crate) fn handles_here(&self, frame: &Incoming) -> bool {
        let Incoming::Single(message) = frame else {
            return true;
        };
        let awaits = |id: &RequestId| self.peer.get().is_some_and(|p| p.awaits(id));
        match message {
            Message::Response(r) => awaits(&r.id),
            Message::Error(e) => e.id.as_ref().is_none_or(awaits),
            Message::Notification(n) if n.method == Cancelled::METHOD => n
                .params_as::<CancelledParams>()
                .ok()
                .and_then(|p| p.request_id)
                .is_none_or(|id| lock(&self.state).routes.contains_key(&id)),
            _ => true,
        }
    }

    /// Takes a message another replica relayed, if this replica is where it belongs.
    pub(crate) fn accept_relayed(&self, json: &[u8]) {
        let Ok(frame) = mcp_proto::jsonrpc::parse(json) else {
            return;
        };
        if self.handles_here(&frame) && !self.is_closed() {
            let _ = self.push(Ok(frame), &[], None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_request_gets_an_internal_error_naming_it() {
        let errors = lost_requests(br#"[8, "call-2"]"#);
        let parsed: Vec<serde_json::Value> = errors
            .iter()
            .map(|e| serde_json::from_slice(e).expect("JSON"))
            .collect();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0]["id"], 8);
        assert_eq!(parsed[1]["id"], "call-2");
        for error in &parsed {
            assert_eq!(error["jsonrpc"], "2.0");
            assert_eq!(error["error"]["code"], error_codes::INTERNAL_ERROR);
            let message = error["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("stopped before it answered"), "{message}");
        }
        assert!(lost_requests(b"not json").is_empty());
    }
}
