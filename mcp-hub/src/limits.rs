//! Per-server concurrency limits, so one slow server cannot take all of the hub's capacity: at
//! most `maxConcurrentCalls` calls of a server run at once, up to `maxQueuedCalls` more wait
//! in line (first come, first served), and a call past that fails at once with
//! [`HubError::Overloaded`].
//!
//! Config keys (per server): `"maxConcurrentCalls": 8, "maxQueuedCalls": 32`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::HubError;

/// The config key of the number of calls that may run at once.
pub const MAX_CONCURRENT_KEY: &str = "maxConcurrentCalls";
/// The config key of the number of calls that may wait for a free slot.
pub const MAX_QUEUED_KEY: &str = "maxQueuedCalls";

/// How many calls of one server run at once and how many may wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallLimits {
    /// Calls running at once (at least 1).
    pub max_concurrent: usize,
    /// Calls waiting for a slot; one more fails with [`HubError::Overloaded`].
    pub max_queued: usize,
}

impl CallLimits {
    /// The default: 64 calls at once, 256 waiting.
    pub const DEFAULT: CallLimits = CallLimits {
        max_concurrent: 64,
        max_queued: 256,
    };

    /// Reads the limits of a server entry of a config file; a missing key keeps the default,
    /// a value that is not a whole number in range is refused with the reason.
    pub fn from_entry(entry: &Map<String, Value>) -> Result<CallLimits, (&'static str, String)> {
        let read = |key: &'static str, min: u64, default: usize| match entry.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(v) if v >= min && v <= 1_000_000 => Ok(v as usize),
                _ => Err((key, format!("must be a whole number from {min} to 1000000"))),
            },
            Some(_) => Err((key, "must be a number".to_owned())),
        };
        Ok(CallLimits {
            max_concurrent: read(MAX_CONCURRENT_KEY, 1, Self::DEFAULT.max_concurrent)?,
            max_queued: read(MAX_QUEUED_KEY, 0, Self::DEFAULT.max_queued)?,
        })
    }

    /// Writes the limits that differ from the default into a server entry.
    pub fn write_into(&self, entry: &mut Map<String, Value>) {
        if self.max_concurrent != Self::DEFAULT.max_concurrent {
            entry.insert(MAX_CONCURRENT_KEY.into(), self.max_concurrent.into());
        }
        if self.max_queued != Self::DEFAULT.max_queued {
            entry.insert(MAX_QUEUED_KEY.into(), self.max_queued.into());
        }
    }
}

impl Default for CallLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The gate of one server's calls.
#[derive(Debug)]
pub(crate) struct CallGate {
    limits: CallLimits,
    slots: Arc<Semaphore>,
    waiting: AtomicUsize,
}

/// A running call's slot; dropping it lets the next waiting call in.
#[derive(Debug)]
pub(crate) struct CallSlot(#[allow(dead_code)] OwnedSemaphorePermit);

impl CallGate {
    fn new(limits: CallLimits) -> Self {
        CallGate {
            limits,
            slots: Arc::new(Semaphore::new(limits.max_concurrent)),
            waiting: AtomicUsize::new(0),
        }
    }

    /// Takes a slot: at once when one is free, after waiting in line when the queue has room,
    /// else fails with [`HubError::Overloaded`].
    pub(crate) async fn enter(&self, server: &str) -> Result<CallSlot, HubError> {
        if let Ok(permit) = self.slots.clone().try_acquire_owned() {
            return Ok(CallSlot(permit));
        }
        let overloaded = || HubError::Overloaded {
            server: server.to_owned(),
            running: self.limits.max_concurrent,
            queued: self.limits.max_queued,
        };
        let queued = self.waiting.fetch_add(1, Ordering::AcqRel);
        let _leave = Leave(&self.waiting);
        if queued >= self.limits.max_queued {
            return Err(overloaded());
        }
        // The semaphore is never closed, so this only fails if that changes.
        self.slots
            .clone()
            .acquire_owned()
            .await
            .map(CallSlot)
            .map_err(|_| overloaded())
    }

    /// Calls waiting for a slot now.
    pub(crate) fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Acquire)
    }

    /// Calls running now.
    pub(crate) fn running(&self) -> usize {
        self.limits.max_concurrent - self.slots.available_permits()
    }
}

/// Counts a waiting call out when it gets its slot, fails or is dropped.
struct Leave<'a>(&'a AtomicUsize);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The gates of every server, by name; a server whose limits changed (a reload) gets a new
/// gate, calls already admitted by the old one finish under it.
#[derive(Debug, Default)]
pub(crate) struct CallGates(Mutex<HashMap<String, Arc<CallGate>>>);

impl CallGates {
    /// The gate of `server` under `limits`.
    pub(crate) fn gate(&self, server: &str, limits: CallLimits) -> Arc<CallGate> {
        let mut gates = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match gates.get(server) {
            Some(gate) if gate.limits == limits => gate.clone(),
            _ => {
                let gate = Arc::new(CallGate::new(limits));
                gates.insert(server.to_owned(), gate.clone());
                gate
            }
        }
    }

    /// `(running, waiting)` of a server's calls now.
    pub(crate) fn load(&self, server: &str) -> Option<(usize, usize)> {
        let gates = self.0.lock().unwrap_or_else(|p| p.into_inner());
        gates.get(server).map(|g| (g.running(), g.waiting()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_read_from_the_entry() {
        let entry = |v: Value| v.as_object().cloned().unwrap();
        assert_eq!(
            CallLimits::from_entry(&entry(serde_json::json!({}))),
            Ok(CallLimits::DEFAULT)
        );
        assert_eq!(
            CallLimits::from_entry(&entry(
                serde_json::json!({"maxConcurrentCalls": 2, "maxQueuedCalls": 0})
            )),
            Ok(CallLimits {
                max_concurrent: 2,
                max_queued: 0
            })
        );
        let bad = CallLimits::from_entry(&entry(serde_json::json!({"maxConcurrentCalls": 0})));
        assert_eq!(bad.unwrap_err().0, MAX_CONCURRENT_KEY);
        let bad = CallLimits::from_entry(&entry(serde_json::json!({"maxQueuedCalls": "x"})));
        assert_eq!(bad.unwrap_err().0, MAX_QUEUED_KEY);
        let mut out = Map::new();
        CallLimits {
            max_concurrent: 3,
            max_queued: 256,
        }
        .write_into(&mut out);
        assert_eq!(
            Value::Object(out),
            serde_json::json!({"maxConcurrentCalls": 3})
        );
    }

    #[tokio::test]
    async fn calls_past_the_limit_queue_then_fail() {
        let gate = CallGate::new(CallLimits {
            max_concurrent: 1,
            max_queued: 1,
        });
        let first = gate.enter("s").await.unwrap();
        assert_eq!(gate.running(), 1);
        // The second waits in line...
        let second = gate.enter("s");
        tokio::pin!(second);
        assert!(poll_once(second.as_mut()).await.is_none());
        assert_eq!(gate.waiting(), 1);
        // ...and a third finds the line full.
        let third = gate.enter("s").await.unwrap_err();
        assert!(matches!(
            third,
            HubError::Overloaded {
                running: 1,
                queued: 1,
                ..
            }
        ));
        assert!(third.to_string().contains("maxConcurrentCalls"), "{third}");
        drop(first);
        let _second = second.await.unwrap();
        assert_eq!(gate.waiting(), 0);
    }

    /// Polls a future once; `Some` when it finished.
    async fn poll_once<F: std::future::Future + Unpin>(f: F) -> Option<F::Output> {
        let mut f = f;
        std::future::poll_fn(|cx| {
            std::task::Poll::Ready(match std::pin::Pin::new(&mut f).poll(cx) {
                std::task::Poll::Ready(v) => Some(v),
                std::task::Poll::Pending => None,
            })
        })
        .await
    }
}
