//! [`SessionRelay`]: carries a client message POSTed to one replica to the replica that waits
//! for it: the answer to a server-to-client request (sampling, elicitation, roots) sent from a
//! tool call running elsewhere, or a `notifications/cancelled` for a request running elsewhere.
//! Every replica hears every relayed message and the one whose session waits for it takes it.

use std::sync::Mutex;

use bytes::Bytes;
use mcp_proto::sync::lock;
use tokio::sync::mpsc;

use super::{SessionStoreError, StoreFuture};

/// Relayed messages a replica has not handled yet; more are dropped with a warning.
const RELAY_QUEUE: usize = 1024;

/// What a replica hears: `(session id, message JSON)`.
pub type Relayed = mpsc::Receiver<(String, Bytes)>;

/// Carries client messages between replicas.
pub trait SessionRelay: std::fmt::Debug + Send + Sync + 'static {
    /// Sends the JSON of one message for session `session` to every replica.
    fn send<'a>(
        &'a self,
        session: &'a str,
        message: &'a [u8],
    ) -> StoreFuture<'a, Result<(), SessionStoreError>>;

    /// The messages every replica sends from now on (this one's too).
    fn listen(&self) -> Relayed;
}

/// A relay between the servers of one process (replicas in tests).
#[derive(Debug, Default)]
pub struct MemorySessionRelay {
    listeners: Mutex<Vec<mpsc::Sender<(String, Bytes)>>>,
}

impl MemorySessionRelay {
    /// A relay nobody listens to yet.
    pub fn new() -> Self {
        MemorySessionRelay::default()
    }
}

impl SessionRelay for MemorySessionRelay {
    fn send<'a>(
        &'a self,
        session: &'a str,
        message: &'a [u8],
    ) -> StoreFuture<'a, Result<(), SessionStoreError>> {
        let mut listeners = lock(&self.listeners);
        listeners.retain(|l| !l.is_closed());
        for listener in listeners.iter() {
            if listener
                .try_send((session.to_owned(), Bytes::copy_from_slice(message)))
                .is_err()
            {
                tracing::warn!("a relayed message was dropped: a replica is not keeping up");
            }
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn listen(&self) -> Relayed {
        let (sender, receiver) = mpsc::channel(RELAY_QUEUE);
        lock(&self.listeners).push(sender);
        receiver
    }
}
