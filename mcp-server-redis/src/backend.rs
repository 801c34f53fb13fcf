//! [`RedisBackend`]: every store a server shares with its replicas, in one Redis.

use std::sync::Arc;

use mcp_server::event_store::EventStore;
use mcp_server::session_store::{SessionRelay, SessionStore, StoreFuture};
use mcp_server::shared::{BusDelivery, NotReady, ReplicaBus, StateBackend};
use mcp_server::TaskStore;

use crate::bus::RedisBus;
use crate::replica::new_replica_id;
use crate::{
    RedisConfig, RedisEventStore, RedisHandle, RedisSessionRelay, RedisSessionStore,
    RedisTaskStore, SharedStateError,
};

/// A [`StateBackend`] keeping everything replicas share in one Redis: task records
/// ([`RedisTaskStore`]), 2025-era sessions ([`RedisSessionStore`], with the configured
/// lease), their resumable events ([`RedisEventStore`]), relayed client messages
/// ([`RedisSessionRelay`]) and the change bus (one pub/sub channel), all under the
/// configured key prefix. `/readyz` reports whether Redis answers and the bus is subscribed.
#[derive(Clone, Debug)]
pub struct RedisBackend {
    redis: RedisHandle,
}

impl RedisBackend {
    /// The backend in the Redis `config` names. Only the URL is checked here: the connection is
    /// made on first use, so a server starts while Redis is down, and requests that need shared
    /// state fail with a clear error (and `/readyz` says why) until it is up.
    pub fn open(config: RedisConfig) -> Result<Self, SharedStateError> {
        Ok(RedisBackend {
            redis: RedisHandle::new(config)?,
        })
    }

    /// The backend on `redis`, a handle other code may share.
    pub fn with_handle(redis: RedisHandle) -> Self {
        RedisBackend { redis }
    }

    /// The handle every store of this backend talks through.
    pub fn handle(&self) -> &RedisHandle {
        &self.redis
    }
}

impl StateBackend for RedisBackend {
    fn task_store(&self) -> Option<Arc<dyn TaskStore>> {
        Some(Arc::new(RedisTaskStore::new(self.redis.clone())))
    }

    fn session_store(&self) -> Option<Arc<dyn SessionStore>> {
        let lease = self.redis.config().session_lease;
        Some(Arc::new(RedisSessionStore::with_lease(
            self.redis.clone(),
            lease,
        )))
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        Some(Arc::new(RedisEventStore::start(self.redis.clone())))
    }

    fn session_relay(&self) -> Option<Arc<dyn SessionRelay>> {
        Some(Arc::new(RedisSessionRelay::new(self.redis.clone())))
    }

    fn start_bus(&self, deliver: BusDelivery) -> Option<Arc<dyn ReplicaBus>> {
        Some(Arc::new(RedisBus::start(
            &self.redis,
            new_replica_id(),
            deliver,
        )))
    }

    fn ready(&self) -> StoreFuture<'_, Result<(), NotReady>> {
        Box::pin(async move { self.redis.ready().await.map_err(NotReady::from) })
    }
}
