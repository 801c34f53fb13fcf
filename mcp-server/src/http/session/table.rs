//! The sessions of one server: id → session, with a cap, idle expiry and fresh random ids.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::Ordering;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use super::{Session, SessionKind};

/// Why a new session could not be created.
#[derive(Debug)]
pub(crate) enum CreateError {
    /// The table is at its cap.
    Full,
    /// No randomness for the id.
    Random(io::Error),
}

/// The sessions of one server: id → session, at most `max` of them, idle ones expire.
pub(crate) struct SessionTable {
    sessions: RwLock<HashMap<Box<str>, Arc<Session>>>,
    epoch: Instant,
    max: usize,
    idle: Duration,
    replay: usize,
}

impl SessionTable {
    /// An empty table.
    pub(crate) fn new(max: usize, idle: Duration, replay: usize) -> Self {
        SessionTable {
            sessions: RwLock::default(),
            epoch: Instant::now(),
            max: max.max(1),
            idle,
            replay,
        }
    }

    /// The map for reading, taken over if a panic poisoned the lock.
    fn read(&self) -> RwLockReadGuard<'_, HashMap<Box<str>, Arc<Session>>> {
        mcp_proto::sync::read(&self.sessions)
    }

    /// The map for writing, taken over if a panic poisoned the lock.
    fn write(&self) -> RwLockWriteGuard<'_, HashMap<Box<str>, Arc<Session>>> {
        mcp_proto::sync::write(&self.sessions)
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// At the cap, drops closed and expired sessions; still at the cap, the table is full.
    fn make_room(
        &self,
        sessions: &mut HashMap<Box<str>, Arc<Session>>,
        now: u64,
    ) -> Result<(), CreateError> {
        if sessions.len() < self.max {
            return Ok(());
        }
        sessions.retain(|_, s| {
            let dead = s.is_closed() || self.expired(s, now);
            if dead {
                s.close();
            }
            !dead
        });
        if sessions.len() >= self.max {
            return Err(CreateError::Full);
        }
        Ok(())
    }

    fn expired(&self, session: &Session, now: u64) -> bool {
        let idle_ms = self.idle.as_millis() as u64;
        session.attached.load(Ordering::Acquire) == 0
            && now.saturating_sub(session.last_active.load(Ordering::Acquire)) > idle_ms
    }

    /// The live session with this id, marked active now.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        let session = self.read().get(id).cloned()?;
        let now = self.now();
        if session.is_closed() || self.expired(&session, now) {
            self.remove(id);
            return None;
        }
        session.last_active.store(now, Ordering::Release);
        Some(session)
    }

    /// The session with this id, if held here, without marking it active.
    pub(crate) fn peek(&self, id: &str) -> Option<Arc<Session>> {
        self.read().get(id).cloned()
    }

    /// A new session with a fresh random id.
    pub(crate) fn create(&self, kind: SessionKind) -> Result<Arc<Session>, CreateError> {
        let id = new_session_id().map_err(CreateError::Random)?;
        let now = self.now();
        let mut sessions = self.write();
        self.make_room(&mut sessions, now)?;
        let session = Arc::new(Session::new(id.clone(), kind, self.replay, now));
        sessions.insert(id, session.clone());
        Ok(session)
    }

    /// The session `id` created on another replica, made here (or the one a concurrent request
    /// made first), which `prepare` starts before any other request can see it. The flag is true
    /// when this call made it.
    pub(crate) fn restore(
        &self,
        id: &str,
        prepare: impl FnOnce(&Arc<Session>),
    ) -> Result<(Arc<Session>, bool), CreateError> {
        let now = self.now();
        let mut sessions = self.write();
        if let Some(existing) = sessions.get(id) {
            existing.last_active.store(now, Ordering::Release);
            return Ok((existing.clone(), false));
        }
        self.make_room(&mut sessions, now)?;
        let session = Arc::new(Session::new(
            id.into(),
            SessionKind::Streamable,
            self.replay,
            now,
        ));
        // Started before it is visible, so no request finds it half made.
        prepare(&session);
        sessions.insert(id.into(), session.clone());
        Ok((session, true))
    }

    /// The ids of the sessions with an open stream or a request in flight.
    pub(crate) fn attached_ids(&self) -> Vec<String> {
        self.read()
            .values()
            .filter(|s| s.attached.load(Ordering::Acquire) > 0 && !s.is_closed())
            .map(|s| s.id().to_owned())
            .collect()
    }

    /// Removes and closes a session; true if it existed.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let removed = self.write().remove(id);
        match removed {
            Some(session) => {
                session.close();
                true
            }
            None => false,
        }
    }

    /// Closes and removes every expired or closed session.
    pub(crate) fn sweep(&self) {
        let now = self.now();
        let mut dead = Vec::new();
        self.write().retain(|_, s| {
            let gone = s.is_closed() || self.expired(s, now);
            if gone {
                dead.push(s.clone());
            }
            !gone
        });
        for session in dead {
            session.close();
        }
    }

    /// How many sessions the table holds.
    pub(crate) fn len(&self) -> usize {
        self.read().len()
    }

    /// Ends every standalone stream (shutdown, first step).
    pub(crate) fn end_standalone_streams(&self) {
        let all: Vec<_> = self.read().values().cloned().collect();
        for session in all {
            session.end_standalone();
        }
    }

    /// Closes and removes every session.
    pub(crate) fn close_all(&self) {
        let all = std::mem::take(&mut *self.write());
        for session in all.into_values() {
            session.close();
        }
    }
}

/// A new session id: a random id (see [`new_random_id`](crate::random_id::new_random_id)).
pub(crate) use crate::random_id::new_random_id as new_session_id;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_random_visible_ascii() {
        let a = new_session_id().expect("urandom");
        let b = new_session_id().expect("urandom");
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert!(a.bytes().all(|c| (0x21..=0x7e).contains(&c)));
    }
}
