//! The table of our requests that wait for an answer: id -> waiter and progress tracker.
//! Kept apart from the dispatch loop; bounded, so a caller that never stops calling gets an
//! error instead of growing it; once closed it refuses new entries, so no call can slip in
//! after the transport has gone and wait forever.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::oneshot;

use super::{PeerError, Progress, ProgressCallback};
use crate::jsonrpc::RawJson;
use crate::sync::lock;

/// The answer a waiter gets: the raw result, or why there is none.
pub(crate) type Answer = Result<RawJson, PeerError>;

/// Progress of one outgoing request: the user's callback and when progress last arrived.
pub(crate) struct ProgressTracker {
    callback: Option<ProgressCallback>,
    last: Mutex<Option<Instant>>,
}

impl ProgressTracker {
    pub(crate) fn new(callback: Option<ProgressCallback>) -> Arc<Self> {
        Arc::new(ProgressTracker {
            callback,
            last: Mutex::new(None),
        })
    }

    /// Records a progress notification and hands it to the callback.
    pub(crate) fn record(&self, progress: Progress) {
        *lock(&self.last) = Some(Instant::now());
        if let Some(callback) = &self.callback {
            callback(progress);
        }
    }

    /// When progress last arrived, if ever.
    pub(crate) fn last(&self) -> Option<Instant> {
        *lock(&self.last)
    }
}

struct PendingCall {
    waiter: oneshot::Sender<Answer>,
    progress: Option<Arc<ProgressTracker>>,
    /// Whether the other side is told with `notifications/cancelled` when we stop waiting on a
    /// local close (`initialize` may never be cancelled).
    cancellable: bool,
}

#[derive(Default)]
struct Table {
    calls: HashMap<i64, PendingCall>,
    closed: Option<String>,
}

/// Outgoing requests waiting for their response, at most `limit` at once.
pub(crate) struct PendingTable {
    inner: Mutex<Table>,
    limit: usize,
}

impl PendingTable {
    /// An empty table that holds at most `limit` waiting calls (at least one).
    pub(crate) fn new(limit: usize) -> Self {
        PendingTable {
            inner: Mutex::new(Table::default()),
            limit: limit.max(1),
        }
    }

    /// Registers a waiter for a call of `method`; refused with the close reason once the table
    /// is closed, and with [`PeerError::TooManyPending`] while it is full.
    pub(crate) fn insert(
        &self,
        id: i64,
        method: &str,
        progress: Option<Arc<ProgressTracker>>,
        cancellable: bool,
    ) -> Result<oneshot::Receiver<Answer>, PeerError> {
        let mut table = lock(&self.inner);
        if let Some(reason) = &table.closed {
            return Err(PeerError::Closed(reason.clone()));
        }
        if table.calls.len() >= self.limit {
            return Err(PeerError::TooManyPending {
                method: method.into(),
                limit: self.limit,
            });
        }
        let (waiter, rx) = oneshot::channel();
        table.calls.insert(
            id,
            PendingCall {
                waiter,
                progress,
                cancellable,
            },
        );
        Ok(rx)
    }

    /// Delivers an answer; false when nobody waits for `id` (unknown or already gone).
    pub(crate) fn complete(&self, id: i64, answer: Answer) -> bool {
        let call = lock(&self.inner).calls.remove(&id);
        match call {
            Some(call) => {
                let _ = call.waiter.send(answer);
                true
            }
            None => false,
        }
    }

    /// Forgets a waiter; true when it was still waiting.
    pub(crate) fn remove(&self, id: i64) -> bool {
        lock(&self.inner).calls.remove(&id).is_some()
    }

    /// The progress tracker of a waiting call, by the progress token we gave it (its id).
    pub(crate) fn progress(&self, id: i64) -> Option<Arc<ProgressTracker>> {
        lock(&self.inner)
            .calls
            .get(&id)
            .and_then(|c| c.progress.clone())
    }

    /// Whether a call with this id is waiting.
    pub(crate) fn contains(&self, id: i64) -> bool {
        lock(&self.inner).calls.contains_key(&id)
    }

    /// How many calls are waiting.
    pub(crate) fn len(&self) -> usize {
        lock(&self.inner).calls.len()
    }

    /// Fails every waiting call with `reason` and refuses new ones from now on. Returns the
    /// ids of the calls that may be cancelled, so a local close can tell the other side.
    pub(crate) fn close(&self, reason: &str) -> Vec<i64> {
        let calls = {
            let mut table = lock(&self.inner);
            table.closed.get_or_insert_with(|| reason.to_owned());
            std::mem::take(&mut table.calls)
        };
        let mut cancellable = Vec::new();
        for (id, call) in calls {
            if call.cancellable {
                cancellable.push(id);
            }
            let _ = call.waiter.send(Err(PeerError::Closed(reason.to_owned())));
        }
        cancellable.sort_unstable();
        cancellable
    }

    /// Why the table was closed, if it was.
    pub(crate) fn closed_reason(&self) -> Option<String> {
        lock(&self.inner).closed.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_table_refuses_a_new_call_until_one_is_answered() {
        let table = PendingTable::new(2);
        let _first = table
            .insert(1, "a", None, true)
            .expect("room for the first");
        let _second = table
            .insert(2, "b", None, true)
            .expect("room for the second");
        let refused = table.insert(3, "tools/call", None, true).unwrap_err();
        assert!(
            matches!(&refused, PeerError::TooManyPending { method, limit: 2 } if method == "tools/call"),
            "{refused:?}"
        );
        let text = refused.to_string();
        assert!(text.contains("max_pending_requests"), "{text}");
        assert_eq!(table.len(), 2);
        assert!(table.complete(1, Ok(crate::jsonrpc::empty_object())));
        assert!(table.insert(3, "tools/call", None, true).is_ok());
    }
}
