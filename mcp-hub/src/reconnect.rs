//! Reconnecting remote (HTTP) servers after a drop: exponential backoff with jitter, the state
//! shown in `mcp servers` ("reconnecting (attempt 3, next in 4 s)") and told as [`HubEvent`]s.
//!
//! A remote server is watched once it has connected: when its connection ends (a HTTP+SSE
//! stream drops) or a call through the hub fails for want of a connection and a ping confirms
//! it, the hub connects it anew, waiting [`ReconnectPolicy::delay`] before each attempt, and
//! swaps the new connection in (lists fetched again) when one succeeds. stdio servers are
//! restarted by their client's own restart policy instead.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

/// How long to wait between reconnect attempts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReconnectPolicy {
    /// The wait before the first attempt.
    pub initial: Duration,
    /// The longest wait between attempts.
    pub max: Duration,
    /// Each wait is drawn from ±`jitter` (a fraction, 0 to 1) around the exponential value, so
    /// many hubs that lost the same server do not knock at once.
    pub jitter: f64,
    /// Give up after this many attempts in a row (`None`: never); the server is then failed.
    pub max_attempts: Option<u32>,
}

impl Default for ReconnectPolicy {
    /// 0.5 s doubling to at most 30 s, ±20 % jitter, never giving up.
    fn default() -> Self {
        ReconnectPolicy {
            initial: Duration::from_millis(500),
            max: Duration::from_secs(30),
            jitter: 0.2,
            max_attempts: None,
        }
    }
}

impl ReconnectPolicy {
    /// The exponential wait before attempt `attempt` (1-based), capped, without jitter.
    pub fn base_delay(&self, attempt: u32) -> Duration {
        let factor = 1u32
            .checked_shl(attempt.saturating_sub(1).min(31))
            .unwrap_or(u32::MAX);
        self.initial
            .checked_mul(factor)
            .unwrap_or(self.max)
            .min(self.max)
    }

    /// The wait before attempt `attempt`: [`base_delay`](Self::base_delay) moved by a random
    /// fraction within ±`jitter`, never above `max`.
    pub fn delay(&self, attempt: u32) -> Duration {
        self.delay_with(attempt, random_unit())
    }

    /// [`delay`](Self::delay) with the random draw given (`unit` in 0..1).
    pub fn delay_with(&self, attempt: u32, unit: f64) -> Duration {
        let base = self.base_delay(attempt).as_secs_f64();
        let jitter = self.jitter.clamp(0.0, 1.0);
        let factor = 1.0 + jitter * (2.0 * unit.clamp(0.0, 1.0) - 1.0);
        Duration::from_secs_f64((base * factor).max(0.0)).min(self.max)
    }
}

/// Something that happened to a server of the hub, for whoever follows it ([`Hub::events`]).
///
/// [`Hub::events`]: super::Hub::events
#[derive(Debug, Clone, PartialEq)]
pub enum HubEvent {
    /// The server's connection was lost; attempt `attempt` starts in `next_in`.
    Reconnecting {
        /// The server.
        server: String,
        /// The attempt about to be made (1-based).
        attempt: u32,
        /// The wait before it.
        next_in: Duration,
        /// Why the connection was lost, or why the last attempt failed.
        reason: String,
    },
    /// The server is connected again (its lists were fetched anew).
    Reconnected {
        /// The server.
        server: String,
        /// How many attempts it took.
        attempts: u32,
    },
    /// The policy's `max_attempts` ran out; the server is failed.
    GaveUp {
        /// The server.
        server: String,
        /// The attempts made.
        attempts: u32,
        /// Why the last one failed.
        reason: String,
    },
}

impl std::fmt::Display for HubEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HubEvent::Reconnecting {
                server,
                attempt,
                next_in,
                reason,
            } => write!(
                f,
                "server {server}: {} ({reason})",
                describe_wait(*attempt, *next_in)
            ),
            HubEvent::Reconnected { server, attempts } => {
                write!(
                    f,
                    "server {server}: reconnected after {attempts} attempt(s)"
                )
            }
            HubEvent::GaveUp {
                server,
                attempts,
                reason,
            } => write!(
                f,
                "server {server}: gave up reconnecting after {attempts} attempts: {reason}"
            ),
        }
    }
}

/// `reconnecting (attempt 3, next in 4 s)`: seconds rounded up, tenths below 10 s.
pub fn describe_wait(attempt: u32, next_in: Duration) -> String {
    let secs = next_in.as_secs_f64();
    let shown = if secs < 10.0 {
        let tenths = (secs * 10.0).ceil() / 10.0;
        if tenths.fract() == 0.0 {
            format!("{tenths:.0}")
        } else {
            format!("{tenths:.1}")
        }
    } else {
        format!("{:.0}", secs.ceil())
    };
    format!("reconnecting (attempt {attempt}, next in {shown} s)")
}

/// A uniform draw in 0..1 (a per-call random SipHash key; jitter needs no more).
fn random_unit() -> f64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(0);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_are_capped_and_jittered_within_bounds() {
        let p = ReconnectPolicy {
            initial: Duration::from_secs(1),
            max: Duration::from_secs(8),
            jitter: 0.2,
            max_attempts: None,
        };
        assert_eq!(p.base_delay(1), Duration::from_secs(1));
        assert_eq!(p.base_delay(3), Duration::from_secs(4));
        assert_eq!(p.base_delay(10), Duration::from_secs(8));
        assert_eq!(p.delay_with(3, 0.0), Duration::from_secs_f64(3.2));
        assert_eq!(p.delay_with(3, 1.0), Duration::from_secs_f64(4.8));
        assert_eq!(p.delay_with(3, 0.5), Duration::from_secs(4));
        assert_eq!(p.delay_with(10, 1.0), Duration::from_secs(8));
        for _ in 0..100 {
            let d = p.delay(2);
            assert!(d >= Duration::from_secs_f64(1.6) && d <= Duration::from_secs_f64(2.4));
        }
    }

    #[test]
    fn the_wait_reads_as_the_issue_shows_it() {
        assert_eq!(
            describe_wait(3, Duration::from_secs(4)),
            "reconnecting (attempt 3, next in 4 s)"
        );
        assert_eq!(
            describe_wait(1, Duration::from_millis(480)),
            "reconnecting (attempt 1, next in 0.5 s)"
        );
        assert_eq!(
            describe_wait(7, Duration::from_millis(29_100)),
            "reconnecting (attempt 7, next in 30 s)"
        );
    }
}
