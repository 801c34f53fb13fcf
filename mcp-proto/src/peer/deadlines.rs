//! Our requests' timeouts, on one timer per peer.
//!
//! A tokio timer per request would be registered and dropped on every call, and registering one
//! due before the instant the runtime last parked for makes tokio wake its own driver: a write to
//! its eventfd and a second trip through `epoll_wait`, on every sequential request. Here a
//! request enters its deadline in a queue, and one sleeper task waits for the earliest. The
//! sleeper is re-armed only when a deadline comes in before the one it waits for, so a steady
//! stream of requests with the same timeout touches no timer at all: the sleeper wakes at the
//! first deadline, drops what is due, tells the waiters, and sleeps until the next.
//!
//! Each wake-up wakes every waiter of the peer to compare its own deadline with the clock (at
//! most `max_pending_requests` of them); that happens at a deadline, not per request. A sleeper
//! left waiting for a deadline whose request is gone stops when it wakes and finds no other.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::{watch, Notify};

use crate::sync::lock;

/// The deadlines of one peer's waiting requests, and the sleeper that watches them.
pub(super) struct Deadlines {
    queue: Mutex<Queue>,
    /// Wakes the sleeper to wait for an earlier deadline than the one it sleeps until.
    rearm: Notify,
    /// Counts the sleeper's wake-ups: a waiter checks its own deadline at each.
    fired: watch::Sender<u64>,
}

#[derive(Default)]
struct Queue {
    /// Deadline and a number that tells equal deadlines apart.
    due: BTreeSet<(Instant, u64)>,
    next_key: u64,
    /// What the sleeper sleeps until (possibly a deadline already gone: it wakes and looks).
    armed: Option<Instant>,
    /// A sleeper task is running.
    sleeping: bool,
}

impl Deadlines {
    pub(super) fn new() -> Arc<Self> {
        Arc::new(Deadlines {
            queue: Mutex::new(Queue::default()),
            rearm: Notify::new(),
            fired: watch::Sender::new(0),
        })
    }

    /// Resolves once `at` has passed. Must be polled inside a tokio runtime (its first call, or
    /// the first after a quiet spell, starts the sleeper task there).
    pub(super) async fn reached(self: &Arc<Self>, at: Instant) {
        // Subscribed before entering: a wake-up for this deadline cannot come unseen.
        let mut fired = self.fired.subscribe();
        let _entry = self.enter(at);
        while Instant::now() < at {
            if fired.changed().await.is_err() {
                // The sender lives as long as `self`: not reached.
                std::future::pending::<()>().await;
            }
        }
    }

    /// Puts `at` in the queue until the returned entry is dropped.
    fn enter(self: &Arc<Self>, at: Instant) -> Entry<'_> {
        let mut queue = lock(&self.queue);
        let key = (at, queue.next_key);
        queue.next_key = queue.next_key.wrapping_add(1);
        queue.due.insert(key);
        if !queue.sleeping {
            queue.sleeping = true;
            queue.armed = Some(at);
            tokio::spawn(sleep(self.clone()));
        } else if queue.armed.is_none_or(|armed| at < armed) {
            queue.armed = Some(at);
            self.rearm.notify_one();
        }
        Entry {
            deadlines: self,
            key,
        }
    }
}

/// A deadline in the queue, taken out on drop (a no-op when the sleeper already dropped it as
/// due).
struct Entry<'a> {
    deadlines: &'a Deadlines,
    key: (Instant, u64),
}

impl Drop for Entry<'_> {
    fn drop(&mut self) {
        lock(&self.deadlines.queue).due.remove(&self.key);
    }
}

/// The sleeper: until the queue is empty, sleeps until its earliest deadline (or until woken for
/// an earlier one), then drops what is due and wakes the waiters.
async fn sleep(deadlines: Arc<Deadlines>) {
    // Dropped unfinished (its runtime shut down): the next deadline starts a new sleeper.
    let mut running = Running {
        deadlines: &deadlines,
        finished: false,
    };
    loop {
        let next = {
            let mut queue = lock(&deadlines.queue);
            let now = Instant::now();
            while queue.due.first().is_some_and(|(at, _)| *at <= now) {
                queue.due.pop_first();
            }
            let next = queue.due.first().map(|(at, _)| *at);
            queue.armed = next;
            queue.sleeping = next.is_some();
            next
        };
        let Some(at) = next else {
            running.finished = true;
            return;
        };
        tokio::select! {
            _ = tokio::time::sleep_until(at.into()) => {
                deadlines.fired.send_modify(|count| *count = count.wrapping_add(1));
            }
            _ = deadlines.rearm.notified() => {}
        }
    }
}

/// The sleeper's mark in the queue, cleared if the task is dropped before it finishes.
struct Running<'a> {
    deadlines: &'a Deadlines,
    finished: bool,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if !self.finished {
            lock(&self.deadlines.queue).sleeping = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn each_waiter_wakes_at_its_own_deadline() {
        let deadlines = Deadlines::new();
        let start = Instant::now();
        let late = {
            let deadlines = deadlines.clone();
            tokio::spawn(async move {
                deadlines.reached(start + Duration::from_millis(300)).await;
                start.elapsed()
            })
        };
        // An earlier deadline entered after a later one re-arms the sleeper.
        tokio::time::sleep(Duration::from_millis(20)).await;
        deadlines.reached(start + Duration::from_millis(80)).await;
        let early = start.elapsed();
        assert!(early >= Duration::from_millis(80), "{early:?}");
        assert!(early < Duration::from_millis(290), "{early:?}");
        let late = late.await.expect("the waiter ran");
        assert!(late >= Duration::from_millis(300), "{late:?}");
    }

    #[tokio::test]
    async fn a_dropped_wait_leaves_nothing_behind_and_the_sleeper_stops() {
        let deadlines = Deadlines::new();
        let start = Instant::now();
        for ms in [200, 100, 300] {
            let wait = deadlines.reached(start + Duration::from_millis(ms));
            // Given up at once: the entry goes with the future.
            let _ = tokio::time::timeout(Duration::from_millis(1), wait).await;
        }
        assert!(lock(&deadlines.queue).due.is_empty());
        // The sleeper wakes at the stale deadline it was armed for, finds nothing, and stops.
        deadlines.reached(start + Duration::from_millis(150)).await;
        tokio::time::sleep(Duration::from_millis(250)).await;
        let queue = lock(&deadlines.queue);
        assert!(queue.due.is_empty());
        assert!(!queue.sleeping);
    }

    #[tokio::test]
    async fn many_waiters_with_one_timeout() {
        let deadlines = Deadlines::new();
        let start = Instant::now();
        let mut waiters = tokio::task::JoinSet::new();
        for i in 0..50u64 {
            let deadlines = deadlines.clone();
            waiters.spawn(async move {
                let at = start + Duration::from_millis(20 + i % 5 * 10);
                deadlines.reached(at).await;
                Instant::now() >= at
            });
        }
        while let Some(on_time) = waiters.join_next().await {
            assert!(on_time.expect("the waiter ran"));
        }
    }
}
