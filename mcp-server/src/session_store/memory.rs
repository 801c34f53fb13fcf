//! [`MemorySessionStore`]: sessions in one process's memory, shared by the HTTP servers of
//! that process (replicas in one process, as the tests run them).

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcp_proto::sync::lock;

use super::{
    SessionChange, SessionLimits, SessionRecord, SessionStore, SessionStoreError, StoreFuture,
};

/// Sessions in memory, with their expiry; at most the cap a `create` names.
#[derive(Debug, Default)]
pub struct MemorySessionStore {
    sessions: Mutex<HashMap<String, Entry>>,
}

#[derive(Debug)]
struct Entry {
    record: SessionRecord,
    subscriptions: BTreeSet<String>,
    expires: Instant,
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        MemorySessionStore::default()
    }

    /// The live entry `id`, or none (an expired one is dropped).
    fn live<'a>(
        sessions: &'a mut HashMap<String, Entry>,
        id: &str,
        now: Instant,
    ) -> Option<&'a mut Entry> {
        if sessions.get(id).is_some_and(|e| e.expires <= now) {
            sessions.remove(id);
        }
        sessions.get_mut(id)
    }
}

impl SessionStore for MemorySessionStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        limits: SessionLimits,
    ) -> StoreFuture<'a, Result<(), SessionStoreError>> {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        if sessions.len() >= limits.max_sessions {
            sessions.retain(|_, e| e.expires > now);
        }
        let result = if sessions.len() >= limits.max_sessions {
            Err(SessionStoreError::Full(limits.max_sessions))
        } else {
            sessions.insert(
                id.to_owned(),
                Entry {
                    record: record.clone(),
                    subscriptions: BTreeSet::new(),
                    expires: now + limits.idle,
                },
            );
            Ok(())
        };
        Box::pin(std::future::ready(result))
    }

    fn touch<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> StoreFuture<'a, Result<Option<SessionRecord>, SessionStoreError>> {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        let record = Self::live(&mut sessions, id, now).map(|e| {
            e.expires = now + idle;
            e.record.clone()
        });
        Box::pin(std::future::ready(Ok(record)))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: &'a SessionChange,
        idle: Duration,
    ) -> StoreFuture<'a, Result<bool, SessionStoreError>> {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        let found = match Self::live(&mut sessions, id, now) {
            None => false,
            Some(entry) => {
                entry.expires = now + idle;
                match change {
                    SessionChange::LogLevel(level) => entry.record.log_level = Some(*level),
                    SessionChange::Subscribe(uri) => {
                        entry.subscriptions.insert(uri.clone());
                        entry.record.revision += 1;
                    }
                    SessionChange::Unsubscribe(uri) => {
                        entry.subscriptions.remove(uri);
                        entry.record.revision += 1;
                    }
                }
                true
            }
        };
        Box::pin(std::future::ready(Ok(found)))
    }

    fn subscriptions<'a>(
        &'a self,
        id: &'a str,
    ) -> StoreFuture<'a, Result<Vec<String>, SessionStoreError>> {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        let subs = Self::live(&mut sessions, id, now)
            .map(|e| e.subscriptions.iter().cloned().collect())
            .unwrap_or_default();
        Box::pin(std::future::ready(Ok(subs)))
    }

    fn subscribers<'a>(
        &'a self,
        uri: &'a str,
    ) -> StoreFuture<'a, Result<Vec<String>, SessionStoreError>> {
        let now = Instant::now();
        let ids = lock(&self.sessions)
            .iter()
            .filter(|(_, e)| e.expires > now && e.subscriptions.contains(uri))
            .map(|(id, _)| id.clone())
            .collect();
        Box::pin(std::future::ready(Ok(ids)))
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Result<bool, SessionStoreError>> {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        let existed = Self::live(&mut sessions, id, now).is_some();
        sessions.remove(id);
        Box::pin(std::future::ready(Ok(existed)))
    }

    fn keep_alive<'a>(
        &'a self,
        ids: &'a [String],
        idle: Duration,
    ) -> StoreFuture<'a, Result<Vec<bool>, SessionStoreError>> {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        let alive = ids
            .iter()
            .map(|id| match Self::live(&mut sessions, id, now) {
                Some(e) => {
                    e.expires = now + idle;
                    true
                }
                None => false,
            })
            .collect();
        Box::pin(std::future::ready(Ok(alive)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_proto::schema::LoggingLevel;
    use mcp_proto::ProtocolVersion;

    fn record() -> SessionRecord {
        SessionRecord::new(ProtocolVersion::V2025_06_18, "{}".into(), "{}".into())
    }

    fn block<T>(f: StoreFuture<'_, T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
            .block_on(f)
    }

    #[test]
    fn the_cap_counts_live_sessions_only() {
        let store = MemorySessionStore::new();
        let limits = SessionLimits {
            idle: Duration::from_secs(60),
            max_sessions: 2,
        };
        block(store.create("a", &record(), limits)).expect("a");
        block(store.create("b", &record(), limits)).expect("b");
        assert_eq!(
            block(store.create("c", &record(), limits)),
            Err(SessionStoreError::Full(2))
        );
        assert!(block(store.remove("a")).expect("remove"));
        block(store.create("c", &record(), limits)).expect("c after a left");
    }

    #[test]
    fn changes_are_seen_by_the_next_touch() {
        let store = MemorySessionStore::new();
        let limits = SessionLimits {
            idle: Duration::from_secs(60),
            max_sessions: 10,
        };
        let idle = limits.idle;
        block(store.create("s", &record(), limits)).expect("create");
        let level = SessionChange::LogLevel(LoggingLevel::Error);
        assert!(block(store.update("s", &level, idle)).expect("level"));
        let sub = SessionChange::Subscribe("file:///a".into());
        assert!(block(store.update("s", &sub, idle)).expect("sub"));
        let seen = block(store.touch("s", idle)).expect("touch").expect("live");
        assert_eq!(seen.log_level, Some(LoggingLevel::Error));
        assert_eq!(seen.revision, 1);
        assert_eq!(
            block(store.subscriptions("s")).expect("subs"),
            vec!["file:///a".to_owned()]
        );
        assert!(!block(store.update("gone", &level, idle)).expect("gone"));
    }
}
