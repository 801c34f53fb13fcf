//! The [`PeerHandle`] that users, handlers and transports hold to a running peer: its name,
//! the negotiated version, its counters, closing.

use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::call::cancelled_notification;
use super::Shared;
use crate::sync::lock;
use crate::version::ProtocolVersion;

/// A handle to a running peer: send requests and notifications, close it, wait for it.
#[derive(Clone)]
pub struct PeerHandle {
    pub(super) shared: Arc<Shared>,
}

impl fmt::Debug for PeerHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PeerHandle")
            .field("name", &self.shared.options.name)
            .finish()
    }
}

impl PeerHandle {
    /// Whether both handles are to the same running peer (the same connection).
    pub fn is_same(&self, other: &PeerHandle) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// The peer's name, as given in its options.
    pub fn name(&self) -> &str {
        &self.shared.options.name
    }

    /// The negotiated protocol version, once known.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        match self.shared.state.version.load(Ordering::Acquire) {
            0 => None,
            n => ProtocolVersion::ALL.get(usize::from(n) - 1).copied(),
        }
    }

    /// Records the negotiated protocol version.
    pub fn set_protocol_version(&self, version: ProtocolVersion) {
        let index = ProtocolVersion::ALL
            .iter()
            .position(|v| *v == version)
            .unwrap_or(0);
        self.shared
            .state
            .version
            .store(index as u8 + 1, Ordering::Release);
    }

    /// How many of our requests wait for an answer.
    pub fn pending_requests(&self) -> usize {
        self.shared.pending.len()
    }

    /// Whether one of our requests with this id waits for its answer.
    pub fn awaits(&self, id: &crate::jsonrpc::RequestId) -> bool {
        match id {
            crate::jsonrpc::RequestId::Number(n) => self.shared.pending.contains(*n),
            crate::jsonrpc::RequestId::String(_) => false,
        }
    }

    /// Numbers our next requests from `id` on (replicas serving one session pick distinct
    /// ranges, so an answer names the one replica that waits for it).
    pub fn set_next_request_id(&self, id: i64) {
        self.shared.next_id.store(id, Ordering::Relaxed);
    }

    /// How many incoming requests are being handled.
    pub fn requests_in_flight(&self) -> usize {
        lock(&self.shared.in_flight).len()
    }

    /// Stops reading, fails our waiting calls and tells the other side with
    /// `notifications/cancelled` (so it stops working on them; never for `initialize`), lets
    /// handlers finish within the grace period, flushes and closes the transport. Returns at
    /// once; await [`closed`](Self::closed).
    pub fn close(&self) {
        for id in self.shared.pending.close("closed locally") {
            // Best effort: a full queue drops the notice; closing the transport follows anyway.
            self.try_send(cancelled_notification(id, "the connection is closing"));
        }
        self.shared.stop.cancel();
    }

    /// True once input has ended or [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire) || self.shared.stop.is_cancelled()
    }

    /// Waits until the peer has shut down completely (input ended, handlers done, output flushed).
    pub async fn closed(&self) {
        self.shared.done.cancelled().await
    }

    /// Why the peer is closed, for the error of a call that finds it so.
    pub(super) fn closed_reason(&self) -> String {
        self.shared
            .pending
            .closed_reason()
            .unwrap_or_else(|| "the connection is closed".into())
    }
}
