//! [`SessionRelay`]: carries a client message POSTed to one replica to the replica that waits
//! for it: the answer to a server-to-client request (sampling, elicitation, roots) sent from a
//! tool call running elsewhere, or a `notifications/cancelled` for a request running elsewhere.
//! Every replica hears every relayed message and the one whose session waits for it takes it.

use std::sync::Mutex;

use bytes::Bytes;
use mcp_proto::sync::lock;
use tokio::sync::mpsc;

use super::{SessionStoreError, StoreFuture};
#[cfg(feature = "redis")]
use crate::shared::RedisHandle;

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

/// A relay over Redis pub/sub: one channel, `<prefix>relay`, carrying `<session>\n<json>`.
/// Only with the `redis` feature.
#[cfg(feature = "redis")]
#[derive(Clone, Debug)]
pub struct RedisSessionRelay {
    redis: RedisHandle,
}

#[cfg(feature = "redis")]
impl RedisSessionRelay {
    /// A relay talking through `redis`.
    pub fn new(redis: RedisHandle) -> Self {
        RedisSessionRelay { redis }
    }
}

#[cfg(feature = "redis")]
impl SessionRelay for RedisSessionRelay {
    fn send<'a>(
        &'a self,
        session: &'a str,
        message: &'a [u8],
    ) -> StoreFuture<'a, Result<(), SessionStoreError>> {
        Box::pin(async move {
            let mut payload = Vec::with_capacity(session.len() + 1 + message.len());
            payload.extend_from_slice(session.as_bytes());
            payload.push(b'\n');
            payload.extend_from_slice(message);
            self.redis
                .publish(&self.redis.key("relay"), &payload)
                .await
                .map(|_| ())
                .map_err(|e| SessionStoreError::Unavailable(e.to_string()))
        })
    }

    fn listen(&self) -> Relayed {
        let (sender, receiver) = mpsc::channel(RELAY_QUEUE);
        let mut subscription = self.redis.subscribe(vec![self.redis.key("relay")]);
        tokio::spawn(async move {
            while let Some(message) = subscription.recv().await {
                let payload = message.payload;
                let Some(split) = payload.iter().position(|b| *b == b'\n') else {
                    continue;
                };
                let session = String::from_utf8_lossy(&payload[..split]).into_owned();
                let json = Bytes::copy_from_slice(&payload[split + 1..]);
                match sender.try_send((session, json)) {
                    Ok(()) => {}
                    Err(mpsc::error::TrySendError::Closed(_)) => return,
                    Err(mpsc::error::TrySendError::Full(_)) => {
                        tracing::warn!(
                            "a relayed message was dropped: this replica is not keeping up"
                        )
                    }
                }
            }
        });
        receiver
    }
}
