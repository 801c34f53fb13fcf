//! The idle 2026-07-28 sessions of a mounted service. The standalone server serves a
//! connection's 2026-07-28 POSTs on one session (HTTP/1.1 answers one request at a time per
//! connection); a mounted service sees no connections, so each such request borrows an idle
//! session from here and gives it back when its response is over, instead of starting one per
//! request. A session goes back only to requests of the principal it last served, so no
//! request's handlers can see another principal's identity on it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use mcp_proto::sync::lock;

use super::session::Session;
use crate::auth::AuthIdentity;

/// How many idle sessions a service keeps; more are closed when given back.
const IDLE_LIMIT: usize = 64;

/// Idle sessions, each with the owner key of the principal it served (`None`: no identity).
#[derive(Default)]
pub(crate) struct ModernPool {
    idle: Mutex<Vec<(Option<String>, Arc<Session>)>>,
    closed: AtomicBool,
}

impl ModernPool {
    /// An idle open session that last served `identity`'s principal, if any.
    pub(crate) fn take(&self, identity: Option<&Arc<AuthIdentity>>) -> Option<Arc<Session>> {
        let owner = identity.map(|i| i.owner_key());
        let mut idle = lock(&self.idle);
        idle.retain(|(_, session)| !session.is_closed());
        let at = idle.iter().rposition(|(o, _)| *o == owner)?;
        Some(idle.swap_remove(at).1)
    }

    /// Keeps `session` for a later request of the principal it served; closes it when the pool
    /// is full or closed.
    pub(crate) fn give_back(&self, session: Arc<Session>) {
        if session.is_closed() {
            return;
        }
        let owner = session.identity().get().map(|i| i.owner_key());
        let mut idle = lock(&self.idle);
        if self.closed.load(Ordering::Acquire) || idle.len() >= IDLE_LIMIT {
            drop(idle);
            session.close();
            return;
        }
        idle.push((owner, session));
    }

    /// Closes every idle session, and those given back from now on (shutdown).
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        let idle = std::mem::take(&mut *lock(&self.idle));
        for (_, session) in idle {
            session.close();
        }
    }

    /// How many sessions are idle here.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        lock(&self.idle).len()
    }
}
