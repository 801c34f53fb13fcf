//! [`StoreLink`]: what ties one session, as a replica holds it, to its record in a shared
//! [`SessionStore`]: the state to start from when the session was restored here, the changes
//! its client makes (written through), and the changes made through other replicas (read back
//! at each request).

// Links are made only by the HTTP transport (a stdio connection has no shared record), so
// without `http` most of this is compiled but unused.
#![cfg_attr(not(feature = "http"), allow(dead_code))]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use mcp_proto::schema::LoggingLevel;
use mcp_proto::sync::lock;

use super::{SessionChange, SessionRecord, SessionStore, SessionStoreError};

/// What a replica's copy of a session takes from the store when the record changed elsewhere.
pub(crate) trait SessionMirror: Send + Sync {
    /// The client's log level, as last set through any replica.
    fn set_log_level(&self, level: LoggingLevel);
    /// The client's resource subscriptions, as now stored.
    fn set_subscriptions(&self, uris: Vec<String>);
}

/// A session's record as it was when a replica restored it.
pub(crate) struct Restored {
    pub(crate) record: SessionRecord,
    pub(crate) subscriptions: Vec<String>,
}

/// One session's tie to the shared store.
pub(crate) struct StoreLink {
    id: Box<str>,
    store: Arc<dyn SessionStore>,
    idle: Duration,
    restored: Mutex<Option<Restored>>,
    /// The subscriptions revision the local copy holds.
    revision: AtomicU64,
    /// The server's state of this session (weak: it owns the transport that owns this link).
    mirror: OnceLock<Weak<dyn SessionMirror>>,
}

impl StoreLink {
    /// A link for session `id`, restored from `restored` when it was created elsewhere.
    pub(crate) fn new(
        id: &str,
        store: Arc<dyn SessionStore>,
        idle: Duration,
        restored: Option<Restored>,
    ) -> Self {
        let revision = restored.as_ref().map_or(0, |r| r.record.revision);
        StoreLink {
            id: id.into(),
            store,
            idle,
            restored: Mutex::new(restored),
            revision: AtomicU64::new(revision),
            mirror: OnceLock::new(),
        }
    }

    /// The state to start from, once (a session restored on this replica).
    pub(crate) fn take_restored(&self) -> Option<Restored> {
        lock(&self.restored).take()
    }

    /// Where changes made through other replicas are applied.
    pub(crate) fn set_mirror(&self, mirror: Weak<dyn SessionMirror>) {
        let _ = self.mirror.set(mirror);
    }

    /// Writes a change the client made through this replica.
    pub(crate) async fn persist(&self, change: SessionChange) -> Result<(), SessionStoreError> {
        if self.store.update(&self.id, &change, self.idle).await? {
            Ok(())
        } else {
            Err(SessionStoreError::Unavailable(format!(
                "session {} is no longer in the session store (expired or deleted)",
                self.id
            )))
        }
    }

    /// Applies what `record` (just read from the store) says changed elsewhere; reads the
    /// subscriptions again only when their revision moved.
    pub(crate) async fn refresh(&self, record: &SessionRecord) -> Result<(), SessionStoreError> {
        let Some(mirror) = self.mirror.get().and_then(Weak::upgrade) else {
            return Ok(());
        };
        if let Some(level) = record.log_level {
            mirror.set_log_level(level);
        }
        if self.revision.load(Ordering::Acquire) != record.revision {
            let uris = self.store.subscriptions(&self.id).await?;
            mirror.set_subscriptions(uris);
            self.revision.store(record.revision, Ordering::Release);
        }
        Ok(())
    }
}
