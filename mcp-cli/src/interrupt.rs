//! Ctrl-C and SIGTERM. Every command runs under [`run`]: on the first signal the command is
//! stopped where it stands (its calls in flight are dropped, which sends
//! `notifications/cancelled` to their servers), every hub it opened is closed with the
//! supervisor's close sequence (close stdin, wait, SIGTERM, wait, SIGKILL), bounded by
//! [`CLOSE_LIMIT`], and `mcp` exits 130. A second signal kills the servers' process groups
//! at once and exits.
//!
//! Signals are process-wide, and so is the list of what to close on one: commands add each
//! hub they open ([`track`]) and the HTTP server of `mcp proxy --http` ([`serve_until_signal`]).

use std::future::Future;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

use mcp_hub::Hub;
use mcp_server::http::HttpServer;

/// Exit status after a signal: 128 + SIGINT, as shells report an interrupted command.
pub const EXIT_INTERRUPTED: u8 = 130;

/// The longest the close after a signal may take before the servers are killed. The close
/// sequence itself is bounded by the same sum (2 s + 2 s + 1 s).
pub const CLOSE_LIMIT: Duration = Duration::from_secs(5);

/// What a command has open that a signal must close.
struct Open {
    hubs: Vec<Hub>,
    http: Vec<HttpServer>,
}

static OPEN: Mutex<Open> = Mutex::new(Open {
    hubs: Vec::new(),
    http: Vec::new(),
});

fn open() -> std::sync::MutexGuard<'static, Open> {
    OPEN.lock().unwrap_or_else(|p| p.into_inner())
}

/// Remembers a hub the command opened, so a signal closes it.
pub fn track(hub: &Hub) {
    open().hubs.push(hub.clone());
}

/// Serves until a signal: `http` stops on one (no new connections, in-flight requests get
/// its grace), the hubs are closed, and `mcp` exits 130 like every other command.
pub async fn serve_until_signal(http: HttpServer) {
    open().http.push(http);
    std::future::pending::<()>().await
}

/// How a run ended.
pub enum Ending {
    /// The command finished; its exit status.
    Finished(ExitCode),
    /// A signal stopped it and the servers were closed (or killed when the close ran over).
    Interrupted,
    /// A second signal: the servers were killed; exit at once.
    Forced,
}

impl Ending {
    /// The process's exit status.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Ending::Finished(code) => *code,
            Ending::Interrupted | Ending::Forced => ExitCode::from(EXIT_INTERRUPTED),
        }
    }
}

/// Runs `command` until it finishes or a signal arrives (see the module documentation).
pub async fn run(command: impl Future<Output = ExitCode>) -> Ending {
    let mut signals = match Signals::new() {
        Ok(signals) => signals,
        Err(e) => {
            eprintln!("mcp: warning: cannot handle Ctrl-C ({e}); servers may outlive an interrupt");
            let code = command.await;
            close_open().await;
            return Ending::Finished(code);
        }
    };
    let mut command = Box::pin(command);
    let name = tokio::select! {
        code = &mut command => {
            // Whatever a command left open is closed the usual way (already closed: at once).
            close_open().await;
            return Ending::Finished(code);
        }
        name = signals.next() => name,
    };
    // Dropping the command drops its calls in flight: each sends `notifications/cancelled`.
    drop(command);
    eprintln!("mcp: {name}: closing the servers (again to exit at once)");
    let (hubs, http) = take_open();
    tokio::select! {
        closed = close_all(&hubs, http) => {
            if !closed {
                eprintln!("mcp: the servers did not close within {}s; killing them", CLOSE_LIMIT.as_secs());
            }
            kill(&hubs);
            Ending::Interrupted
        }
        name = signals.next() => {
            eprintln!("mcp: {name} again: killing the servers");
            kill(&hubs);
            Ending::Forced
        }
    }
}

fn take_open() -> (Vec<Hub>, Vec<HttpServer>) {
    let mut open = open();
    (
        std::mem::take(&mut open.hubs),
        std::mem::take(&mut open.http),
    )
}

/// Closes whatever is still tracked (already closed: at once); what does not close within
/// [`CLOSE_LIMIT`] is killed.
async fn close_open() {
    let (hubs, http) = take_open();
    close_all(&hubs, http).await;
    kill(&hubs);
}

/// Stops the HTTP servers and closes the hubs, all at once; false when that took longer than
/// [`CLOSE_LIMIT`] (the closes still running are abandoned).
async fn close_all(hubs: &[Hub], http: Vec<HttpServer>) -> bool {
    let mut closing = tokio::task::JoinSet::new();
    for server in http {
        closing.spawn(server.shutdown());
    }
    for hub in hubs {
        let hub = hub.clone();
        closing.spawn(async move { hub.close().await });
    }
    tokio::time::timeout(CLOSE_LIMIT, closing.join_all())
        .await
        .is_ok()
}

/// Kills every server of the hubs; a server already closed is left alone.
fn kill(hubs: &[Hub]) {
    for hub in hubs {
        hub.kill();
    }
}

/// SIGINT and SIGTERM as one stream.
struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    /// Installs the handlers; from now on the signals no longer end the process by themselves.
    fn new() -> std::io::Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Signals {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Signals {})
        }
    }

    /// The next signal, by name.
    async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.interrupt.recv() => "interrupted",
                _ = self.terminate.recv() => "terminated",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "interrupted"
        }
    }
}
