//! The life of a server's child process: who it is (its process group), how it ends (the
//! spec's close sequence, bounded), and what happens when it dies (the restart policy).
//!
//! The child leads its own process group, so every signal goes to the group: closing a server
//! started as `npx` also ends the `node` it started. Dropping a [`ChildProcess`] that was not
//! shut down kills the whole group at once, so no process outlives the client.

use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rustix::process::{kill_process_group, test_kill_process_group, Pid, Signal};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::stderr_ring::StderrRing;

/// How many stderr lines an error quotes.
pub(crate) const QUOTED_STDERR_LINES: usize = 20;

/// How a child process ended.
#[derive(Clone, Debug)]
pub enum ChildExit {
    /// It exited or was killed; the status says which.
    Status(ExitStatus),
    /// Waiting for it failed; the text says why.
    WaitFailed(String),
}

impl std::fmt::Display for ChildExit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChildExit::Status(status) => write!(f, "{status}"),
            ChildExit::WaitFailed(e) => write!(f, "unknown status (waiting failed: {e})"),
        }
    }
}

/// The timeouts of the close sequence: close stdin, wait `stdin_grace`, SIGTERM the group, wait
/// `term_grace`, SIGKILL the group, wait at most `kill_wait`. The whole close takes at most
/// their sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShutdownTimeouts {
    /// How long the server may take to exit on its own once its stdin is closed.
    pub stdin_grace: Duration,
    /// How long it may take to exit after SIGTERM.
    pub term_grace: Duration,
    /// How long to wait for the group to vanish after SIGKILL.
    pub kill_wait: Duration,
}

impl Default for ShutdownTimeouts {
    fn default() -> Self {
        ShutdownTimeouts {
            stdin_grace: Duration::from_secs(2),
            term_grace: Duration::from_secs(2),
            kill_wait: Duration::from_secs(1),
        }
    }
}

impl ShutdownTimeouts {
    /// The most a close can take.
    pub fn total(&self) -> Duration {
        self.stdin_grace + self.term_grace + self.kill_wait
    }
}

/// Whether and how a dead server is started again. Off unless set on the stdio config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestartPolicy {
    /// Give up after this many restarts in a row (the crash-loop limit).
    pub max_restarts: u32,
    /// The wait before the first restart; it doubles with each restart in a row.
    pub initial_backoff: Duration,
    /// The longest wait between restarts.
    pub max_backoff: Duration,
    /// A server that ran at least this long before dying starts a fresh row of restarts.
    pub stable_after: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        RestartPolicy {
            max_restarts: 5,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            stable_after: Duration::from_secs(60),
        }
    }
}

impl RestartPolicy {
    /// The wait before restart number `attempt` of a row (1-based): exponential, capped.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32
            .checked_shl(attempt.saturating_sub(1).min(31))
            .unwrap_or(u32::MAX);
        self.initial_backoff
            .checked_mul(factor)
            .unwrap_or(self.max_backoff)
            .min(self.max_backoff)
    }
}

/// A running server process, leader of its own process group.
#[derive(Debug)]
pub struct ChildProcess {
    server: String,
    pgid: Pid,
    exit: watch::Receiver<Option<ChildExit>>,
    stderr: StderrRing,
    stderr_done: watch::Receiver<bool>,
    timeouts: ShutdownTimeouts,
    finished: AtomicBool,
}

impl ChildProcess {
    pub(crate) fn new(
        server: String,
        pgid: Pid,
        exit: watch::Receiver<Option<ChildExit>>,
        stderr: StderrRing,
        stderr_done: watch::Receiver<bool>,
        timeouts: ShutdownTimeouts,
    ) -> Self {
        ChildProcess {
            server,
            pgid,
            exit,
            stderr,
            stderr_done,
            timeouts,
            finished: AtomicBool::new(false),
        }
    }

    /// The process id of the server (also its process group id).
    pub fn pid(&self) -> u32 {
        self.pgid.as_raw_nonzero().get().unsigned_abs()
    }

    /// How the process ended, once it has.
    pub fn exit(&self) -> Option<ChildExit> {
        self.exit.borrow().clone()
    }

    /// The recent stderr of the server.
    pub fn stderr(&self) -> &StderrRing {
        &self.stderr
    }

    /// Whether any process of the group is still alive (or not yet reaped).
    pub fn group_alive(&self) -> bool {
        test_kill_process_group(self.pgid).is_ok()
    }

    fn signal(&self, signal: Signal, name: &str) {
        match kill_process_group(self.pgid, signal) {
            Ok(()) => {
                tracing::debug!(server = %self.server, "sent {name} to process group {}", self.pid())
            }
            Err(e) => {
                tracing::debug!(server = %self.server, "{name} to process group {}: {e}", self.pid())
            }
        }
    }

    /// Waits until the leader has exited and no process of the group is left, for at most
    /// `within`. True when everything is gone.
    async fn wait_gone(&self, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        let mut exit = self.exit.clone();
        loop {
            let exited = exit.borrow_and_update().is_some();
            if exited && !self.group_alive() {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            let step = (deadline - now).min(Duration::from_millis(20));
            if exited {
                tokio::time::sleep(step).await;
            } else {
                let _ = tokio::time::timeout(step, exit.changed()).await;
            }
        }
    }

    /// Ends the process the way the spec asks, after its stdin was closed: wait for it to exit,
    /// then SIGTERM its group, wait, then SIGKILL. Bounded by [`ShutdownTimeouts::total`].
    pub async fn shutdown(&self) {
        if self.finished.swap(true, Ordering::AcqRel) {
            return;
        }
        if self.wait_gone(self.timeouts.stdin_grace).await {
            return;
        }
        self.signal(Signal::TERM, "SIGTERM");
        if self.wait_gone(self.timeouts.term_grace).await {
            return;
        }
        self.signal(Signal::KILL, "SIGKILL");
        if !self.wait_gone(self.timeouts.kill_wait).await {
            tracing::warn!(server = %self.server, "process group {} still present after SIGKILL", self.pid());
        }
    }

    /// Kills the whole group now, without grace.
    pub fn kill(&self) {
        self.finished.store(true, Ordering::Release);
        if self.group_alive() {
            self.signal(Signal::KILL, "SIGKILL");
        }
    }

    /// Why the process is gone, for errors: its exit status (waiting up to `wait` for it) and
    /// the last lines of its stderr.
    pub(crate) async fn describe_end(&self, wait: Duration) -> String {
        describe_end(
            &mut self.exit.clone(),
            &mut self.stderr_done.clone(),
            &self.stderr,
            wait,
        )
        .await
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        if !self.finished.load(Ordering::Acquire) || self.group_alive() {
            self.kill();
        }
    }
}

/// Why a child's connection ended: its exit status (waiting up to `wait`), else that it still
/// runs, then the last lines of its stderr.
pub(crate) async fn describe_end(
    exit: &mut watch::Receiver<Option<ChildExit>>,
    stderr_done: &mut watch::Receiver<bool>,
    stderr: &StderrRing,
    wait: Duration,
) -> String {
    let waited = tokio::time::timeout(wait, exit.wait_for(Option::is_some))
        .await
        .ok()
        .and_then(|r| r.ok().map(|exit| exit.clone()))
        .flatten();
    let status = waited.or_else(|| exit.borrow().clone());
    let mut text = match status {
        Some(status) => {
            // Let the stderr reader catch up with what the process wrote before it died.
            let _ = tokio::time::timeout(Duration::from_millis(300), stderr_done.wait_for(|d| *d))
                .await;
            format!("the server process exited ({status})")
        }
        None => "the server closed its stdout but its process is still running".to_owned(),
    };
    let tail = stderr.tail_lines(QUOTED_STDERR_LINES);
    if !tail.is_empty() {
        text.push_str("; last lines of its stderr:\n");
        text.push_str(&tail);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let p = RestartPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
            ..Default::default()
        };
        assert_eq!(p.backoff(1), Duration::from_millis(100));
        assert_eq!(p.backoff(2), Duration::from_millis(200));
        assert_eq!(p.backoff(4), Duration::from_millis(800));
        assert_eq!(p.backoff(5), Duration::from_secs(1));
        assert_eq!(p.backoff(100), Duration::from_secs(1));
    }

    #[test]
    fn shutdown_is_bounded_by_the_sum() {
        let t = ShutdownTimeouts::default();
        assert_eq!(t.total(), Duration::from_secs(5));
    }
}
