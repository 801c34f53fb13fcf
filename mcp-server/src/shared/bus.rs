//! The change bus between replicas: what one replica must tell the others (a resource changed,
//! cancel or feed a task that runs there). Each replica delivers its own events locally at
//! once; the bus carries them to the others. [`NoBus`] (one process, the default) carries
//! nothing; a [`StateBackend`](super::StateBackend) that shares state starts a
//! [`ReplicaBus`] of its own (`mcp-server-redis` publishes on one Redis channel) and hands
//! what other replicas publish to the server. Delivery is at most once: events published
//! while a replica's subscription is down are missed (listeners re-read after reconnecting;
//! tasks are polled from the store).

use std::sync::Arc;

use mcp_proto::schema::InputResponses;
use serde::{Deserialize, Serialize};

/// Where a bus hands the events other replicas published: to the server that started it.
pub type BusDelivery = Arc<dyn Fn(BusEvent) + Send + Sync>;

/// What one replica tells the others. Its JSON form (`{"kind": "resourceUpdated", ...}`) is
/// what a bus carries between processes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum BusEvent {
    /// `notifications/resources/updated` for `uri`, to every listener and subscriber.
    ResourceUpdated {
        /// The resource.
        uri: String,
    },
    /// Cancel task `id` (its record already says `cancelled`); the replica running it stops it.
    CancelTask {
        /// The task.
        id: String,
    },
    /// Answers to task `id`'s input requests (`tasks/update`), for the replica running it.
    TaskInput {
        /// The task.
        id: String,
        /// The answers by key.
        responses: InputResponses,
    },
}

/// Carries events to the other replicas.
pub trait ReplicaBus: Send + Sync + 'static {
    /// Sends `event` to every other replica; never waits (a full queue drops it with a warning).
    fn publish(&self, event: BusEvent);
}

/// One process, no other replicas: nothing to carry.
#[derive(Debug, Default)]
pub(crate) struct NoBus;

impl ReplicaBus for NoBus {
    fn publish(&self, _event: BusEvent) {}
}
