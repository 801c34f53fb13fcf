//! One accepted connection: hyper serves its requests; a watchdog closes it when the next
//! request's headers do not arrive in time; shutdown ends it gracefully.
//!
//! The watchdog replaces hyper's own header-read timer, which boxes, registers and cancels a
//! timer for every request (and often wakes the runtime's parked I/O thread to do so). Ours is
//! one timer per connection that fires at most once per timeout; a request only moves atomics.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::App;

/// What the watchdog needs to know about a connection: whether a request or response is under
/// way, and since when it has been idle.
struct Activity {
    start: Instant,
    /// Requests whose response has not been handed over in full yet.
    busy: AtomicUsize,
    /// Milliseconds from `start` to the end of the last response (0: none yet).
    idle_since: AtomicU64,
}

impl Activity {
    /// When the connection must have sent its next request's headers, or `None` if that time
    /// has passed. While a request is under way the deadline moves a whole timeout ahead.
    fn deadline(&self, timeout: Duration) -> Option<Instant> {
        let now = Instant::now();
        if self.busy.load(Ordering::Acquire) > 0 {
            return Some(later(now, timeout));
        }
        let idle_since = self.idle_since.load(Ordering::Acquire);
        let deadline = later(
            later(self.start, Duration::from_millis(idle_since)),
            timeout,
        );
        (deadline > now).then_some(deadline)
    }
}

/// `at + by`, or about a year after `at` when that is past what an `Instant` holds.
fn later(at: Instant, by: Duration) -> Instant {
    at.checked_add(by)
        .unwrap_or_else(|| at + Duration::from_secs(365 * 24 * 3600))
}

/// Counts one request as under way until dropped (with its response body, or with the request
/// if the client goes away first).
pub(crate) struct InUse(Arc<Activity>);

impl InUse {
    fn new(activity: &Arc<Activity>) -> Self {
        activity.busy.fetch_add(1, Ordering::AcqRel);
        InUse(activity.clone())
    }
}

impl Drop for InUse {
    fn drop(&mut self) {
        let activity = &self.0;
        let ms = activity.start.elapsed().as_millis() as u64;
        activity.idle_since.store(ms, Ordering::Release);
        activity.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves one connection until the client closes it, its headers come too slowly, or `stop`.
pub(crate) async fn serve(
    app: Arc<App>,
    builder: http1::Builder,
    tcp: TcpStream,
    stop: CancellationToken,
) {
    let activity = Arc::new(Activity {
        start: Instant::now(),
        busy: AtomicUsize::new(0),
        idle_since: AtomicU64::new(0),
    });
    let timeout = app.config.header_read_timeout;
    let svc = {
        let activity = activity.clone();
        service_fn(move |req| {
            let app = app.clone();
            let in_use = InUse::new(&activity);
            async move {
                let mut response = app.handle(req).await;
                response.body_mut().hold(in_use);
                Ok::<_, Infallible>(response)
            }
        })
    };
    let conn = builder.serve_connection(TokioIo::new(tcp), svc);
    tokio::pin!(conn);
    let cancelled = stop.cancelled();
    tokio::pin!(cancelled);
    let watchdog = tokio::time::sleep(timeout);
    tokio::pin!(watchdog);
    loop {
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!("connection ended: {e}");
                }
                return;
            }
            _ = &mut cancelled => {
                conn.as_mut().graceful_shutdown();
                let _ = conn.await;
                return;
            }
            _ = &mut watchdog => match activity.deadline(timeout) {
                Some(deadline) => watchdog.as_mut().reset(deadline),
                None => {
                    tracing::debug!("closed a connection whose request headers came too slowly");
                    return;
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn activity() -> Arc<Activity> {
        Arc::new(Activity {
            start: Instant::now(),
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
        })
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_connection_expires_a_timeout_after_its_last_response() {
        let timeout = Duration::from_secs(10);
        let activity = activity();
        tokio::time::advance(Duration::from_secs(4)).await;
        drop(InUse::new(&activity));
        tokio::time::advance(Duration::from_secs(9)).await;
        assert_eq!(
            activity.deadline(timeout),
            Some(activity.start + Duration::from_secs(14))
        );
        tokio::time::advance(Duration::from_secs(2)).await;
        assert_eq!(activity.deadline(timeout), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_busy_connection_never_expires() {
        let timeout = Duration::from_secs(10);
        let activity = activity();
        let in_use = InUse::new(&activity);
        tokio::time::advance(Duration::from_secs(60)).await;
        assert_eq!(activity.deadline(timeout), Some(Instant::now() + timeout));
        drop(in_use);
        assert!(activity.deadline(timeout).is_some());
    }
}
