//! A session's standalone stream kept in a shared [`EventStore`]: messages for it go to the
//! store in order (one writer task per session and replica), and the replica holding the
//! client's GET connection follows the store into its local [`Stream`] under the store's
//! sequence numbers, so event ids mean the same on every replica. Client messages that belong
//! to another replica (answers to its requests) are told apart here, for the relay.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcp_proto::jsonrpc::{Incoming, Message, RequestId};
use mcp_proto::schema::{Cancelled, CancelledParams, NotificationType};
use mcp_proto::sync::lock;
use tokio::sync::mpsc;

use super::{Session, STANDALONE};
use crate::event_store::{EventLimits, EventStore, EventStoreError};

/// Messages waiting for the writer; more are dropped with a warning (bounded).
const OUT_QUEUE: usize = 256;
/// How often a follower reads the store without a wake-up (a missed announcement, or a store
/// that cannot announce across replicas).
const FOLLOW_POLL: Duration = Duration::from_millis(250);
/// A follower with no reader for this many rounds stops.
const IDLE_ROUNDS: u32 = 8;

/// The shared side of one session's standalone stream.
pub(crate) struct SharedEvents {
    store: Arc<dyn EventStore>,
    out: mpsc::Sender<Vec<u8>>,
    following: AtomicBool,
}

impl SharedEvents {
    /// Starts the writer of session `id` (a task that ends with the session).
    pub(super) fn start(id: &str, store: Arc<dyn EventStore>, limits: EventLimits) -> Self {
        let (out, mut pending) = mpsc::channel::<Vec<u8>>(OUT_QUEUE);
        let writer_store = store.clone();
        let session = id.to_owned();
        tokio::spawn(async move {
            while let Some(json) = pending.recv().await {
                if let Err(e) = writer_store
                    .append(&session, STANDALONE, &json, limits)
                    .await
                {
                    tracing::warn!(session = %session, "a standalone-stream message was lost: {e}");
                }
            }
        });
        SharedEvents {
            store,
            out,
            following: AtomicBool::new(false),
        }
    }

    /// Hands a message for the standalone stream to the writer.
    pub(super) fn send(&self, json: Vec<u8>) {
        if let Err(e) = self.out.try_send(json) {
            tracing::warn!("a standalone-stream message was dropped: {e}");
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
