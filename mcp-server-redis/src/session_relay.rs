//! [`RedisSessionRelay`]: client messages carried between replicas over Redis pub/sub.

use bytes::Bytes;
use mcp_server::session_store::{Relayed, SessionRelay, SessionStoreError, StoreFuture};
use tokio::sync::mpsc;

use crate::RedisHandle;

/// Relayed messages a replica has not handled yet; more are dropped with a warning.
const RELAY_QUEUE: usize = 1024;

/// A relay over Redis pub/sub: one channel, `<prefix>relay`, carrying `<session>\n<json>`.
#[derive(Clone, Debug)]
pub struct RedisSessionRelay {
    redis: RedisHandle,
}

impl RedisSessionRelay {
    /// A relay talking through `redis`.
    pub fn new(redis: RedisHandle) -> Self {
        RedisSessionRelay { redis }
    }
}

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
