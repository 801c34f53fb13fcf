//! [`RedisBus`]: the change bus between replicas over Redis pub/sub (see
//! [`mcp_server::shared::ReplicaBus`]).

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use mcp_server::shared::{BusDelivery, BusEvent, ReplicaBus};

use crate::RedisHandle;

/// Events waiting to be published before further ones are dropped (with a warning).
const OUTGOING_QUEUE: usize = 1024;

/// An event on the wire: who sent it, so a replica skips its own.
#[derive(Serialize, Deserialize)]
struct Envelope {
    from: String,
    event: BusEvent,
}

/// The bus over Redis pub/sub: one channel (`{prefix}bus`) for the deployment.
pub(crate) struct RedisBus {
    replica: String,
    outgoing: mpsc::Sender<Vec<u8>>,
    _stop: DropGuard,
}

impl RedisBus {
    /// Starts publishing and subscribing through `redis` (inside a tokio runtime); events of
    /// other replicas go to `deliver`.
    pub(crate) fn start(redis: &RedisHandle, replica: String, deliver: BusDelivery) -> Self {
        let channel = redis.key("bus");
        let stop = CancellationToken::new();
        let (outgoing, mut queue) = mpsc::channel::<Vec<u8>>(OUTGOING_QUEUE);
        let publisher = redis.clone();
        let publish_channel = channel.clone();
        tokio::spawn(async move {
            // Warn once per outage, not once per change.
            let mut failing = false;
            while let Some(payload) = queue.recv().await {
                match publisher.publish(&publish_channel, &payload).await {
                    Ok(_) => failing = false,
                    Err(e) if !failing => {
                        failing = true;
                        tracing::warn!(
                            "changes are not reaching the other replicas until Redis answers: {e}"
                        );
                    }
                    Err(_) => {}
                }
            }
        });
        let mut subscription = redis.subscribe(vec![channel]);
        let me = replica.clone();
        let token = stop.clone();
        tokio::spawn(async move {
            loop {
                let message = tokio::select! {
                    _ = token.cancelled() => break,
                    message = subscription.recv() => match message {
                        Some(message) => message,
                        None => break,
                    },
                };
                match serde_json::from_slice::<Envelope>(&message.payload) {
                    Ok(envelope) if envelope.from == me => {}
                    Ok(envelope) => deliver(envelope.event),
                    Err(e) => tracing::warn!("an unreadable message on the replica bus: {e}"),
                }
            }
        });
        RedisBus {
            replica,
            outgoing,
            _stop: stop.drop_guard(),
        }
    }
}

impl ReplicaBus for RedisBus {
    fn publish(&self, event: BusEvent) {
        let envelope = Envelope {
            from: self.replica.clone(),
            event,
        };
        let payload = match serde_json::to_vec(&envelope) {
            Ok(payload) => payload,
            Err(e) => {
                tracing::warn!("a change could not be encoded for the other replicas: {e}");
                return;
            }
        };
        if self.outgoing.try_send(payload).is_err() {
            tracing::warn!(
                "the replica bus is not keeping up (Redis slow or down); a change was not sent to the other replicas"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_as_json() {
        let envelope = Envelope {
            from: "r1".into(),
            event: BusEvent::ResourceUpdated {
                uri: "weather://current/paris".into(),
            },
        };
        let text = serde_json::to_string(&envelope).unwrap();
        assert_eq!(
            text,
            r#"{"from":"r1","event":{"kind":"resourceUpdated","uri":"weather://current/paris"}}"#
        );
        let back: Envelope = serde_json::from_str(&text).unwrap();
        assert!(matches!(back.event, BusEvent::ResourceUpdated { uri } if uri.ends_with("paris")));
    }
}
