//! The stdio child transport: a server run as a child process, spoken to over its stdin and
//! stdout (newline-delimited JSON), with its stderr kept in a ring buffer.
//!
//! The command is executed directly, never through a shell, so arguments are never re-parsed.
//! The child runs in its own process group (see [`crate::supervisor`]).
//!
//! **Environment:** by default the child inherits the parent's whole environment, with
//! [`StdioServerConfig::env`] applied on top (that is what users of `npx`-style servers expect:
//! `PATH`, `HOME`, proxies and credentials pass through). With `inherit_env = false` the child
//! gets only a minimal safe set from the parent (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`,
//! `USER`, and on macOS `TMPDIR`) plus `env`, so secrets in the parent's environment stay put.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use mcp_proto::peer::{
    MessageSink, MessageSource, Outgoing, Received, StreamSink, StreamSource, Transport,
};
use rustix::process::Pid;
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use crate::error::ClientError;
use crate::stderr_ring::{StderrRing, DEFAULT_STDERR_CAPACITY};
use crate::supervisor::{describe_end, ChildExit, ChildProcess, RestartPolicy, ShutdownTimeouts};

/// The variables a child keeps from the parent when it does not inherit the whole environment.
const SAFE_ENV: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TMPDIR"];

/// How long a dead child's stdout may still deliver lines already written.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(200);

/// How long the reason for a closed connection waits for the child's exit status.
const EXIT_STATUS_WAIT: Duration = Duration::from_secs(1);

/// How to run a server as a child process.
#[derive(Clone, Debug)]
pub struct StdioServerConfig {
    /// The program: a path, or a name looked up in `PATH`. Never run through a shell.
    pub command: String,
    /// Its arguments, passed as they are.
    pub args: Vec<String>,
    /// Variables set for the child, on top of what it inherits.
    pub env: BTreeMap<String, String>,
    /// Whether the child inherits the parent's whole environment (default true); see the
    /// module documentation.
    pub inherit_env: bool,
    /// Its working directory (default: ours).
    pub cwd: Option<PathBuf>,
    /// The timeouts of the close sequence.
    pub shutdown: ShutdownTimeouts,
    /// Start the server again when it dies (default: off).
    pub restart: Option<RestartPolicy>,
    /// How many bytes of stderr to keep (default 16 KiB).
    pub stderr_capacity: usize,
}

impl StdioServerConfig {
    /// Runs `command` with `args`, inheriting our environment and working directory.
    pub fn new<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        StdioServerConfig {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            inherit_env: true,
            cwd: None,
            shutdown: ShutdownTimeouts::default(),
            restart: None,
            stderr_capacity: DEFAULT_STDERR_CAPACITY,
        }
    }

    /// Sets one environment variable for the child.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Chooses whether the child inherits our whole environment.
    pub fn inherit_env(mut self, inherit: bool) -> Self {
        self.inherit_env = inherit;
        self
    }

    /// Sets the child's working directory.
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Sets the close sequence's timeouts.
    pub fn with_shutdown(mut self, shutdown: ShutdownTimeouts) -> Self {
        self.shutdown = shutdown;
        self
    }

    /// Restarts the server when it dies, by this policy.
    pub fn with_restart(mut self, policy: RestartPolicy) -> Self {
        self.restart = Some(policy);
        self
    }

    /// The default server name: the command's file name.
    pub fn default_name(&self) -> String {
        Path::new(&self.command)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| self.command.clone())
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.command);
        cmd.args(&self.args);
        if !self.inherit_env {
            cmd.env_clear();
            for key in SAFE_ENV {
                if let Some(value) = std::env::var_os(key) {
                    cmd.env(key, value);
                }
            }
        }
        cmd.envs(&self.env);
        if let Some(cwd) = &self.cwd {
            cmd.current_dir(cwd);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        cmd
    }
}

/// Starts the child: its transport for the peer and its process handle for the supervisor.
/// `stderr` is shared across restarts so errors quote the most recent output.
pub(crate) fn spawn(
    config: &StdioServerConfig,
    server: &str,
    stderr: &StderrRing,
) -> Result<(ChildTransport, ChildProcess), ClientError> {
    let spawn_error = |source: io::Error| ClientError::Spawn {
        server: server.to_owned(),
        command: config.command.clone(),
        source: Arc::new(source),
    };
    let mut child = config.command().spawn().map_err(spawn_error)?;
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Pid::from_raw)
        .ok_or_else(|| spawn_error(io::Error::other("the child has no process id")))?;
    let missing = |what: &str| spawn_error(io::Error::other(format!("no {what} pipe")));
    let stdin = child.stdin.take().ok_or_else(|| missing("stdin"))?;
    let stdout = child.stdout.take().ok_or_else(|| missing("stdout"))?;
    let stderr_pipe = child.stderr.take().ok_or_else(|| missing("stderr"))?;

    let (exit_tx, exit_rx) = watch::channel(None);
    tokio::spawn(async move {
        let exit = match child.wait().await {
            Ok(status) => ChildExit::Status(status),
            Err(e) => ChildExit::WaitFailed(e.to_string()),
        };
        let _ = exit_tx.send(Some(exit));
    });
    let (done_tx, done_rx) = watch::channel(false);
    let ring = stderr.clone();
    let name = server.to_owned();
    tokio::spawn(async move {
        ring.collect(stderr_pipe, &name).await;
        let _ = done_tx.send(true);
    });
    tracing::debug!(server, command = %config.command, pid = pid.as_raw_nonzero().get(), "started server process");

    let transport = ChildTransport {
        source: ChildSource {
            stdout: StreamSource::new(stdout),
            exit: exit_rx.clone(),
            stderr_done: done_rx.clone(),
            stderr: stderr.clone(),
            leader_gone: false,
        },
        sink: ChildSink {
            stdin: Some(StreamSink::new(stdin)),
            exit: exit_rx.clone(),
            stderr_done: done_rx.clone(),
            stderr: stderr.clone(),
        },
    };
    let process = ChildProcess::new(
        server.to_owned(),
        pid,
        exit_rx,
        stderr.clone(),
        done_rx,
        config.shutdown,
    );
    Ok((transport, process))
}

/// The child's pipes as a transport: its stdout as the source, its stdin as the sink.
pub struct ChildTransport {
    source: ChildSource,
    sink: ChildSink,
}

impl Transport for ChildTransport {
    type Source = ChildSource;
    type Sink = ChildSink;
    fn split(self) -> (ChildSource, ChildSink) {
        (self.source, self.sink)
    }
}

/// The child's stdout. It ends shortly after the child exits even if a grandchild still holds
/// the pipe open, and explains the end with the exit status and the tail of stderr.
pub struct ChildSource {
    stdout: StreamSource<ChildStdout>,
    exit: watch::Receiver<Option<ChildExit>>,
    stderr_done: watch::Receiver<bool>,
    stderr: StderrRing,
    leader_gone: bool,
}

async fn exited(exit: &mut watch::Receiver<Option<ChildExit>>) {
    let _ = exit.wait_for(Option::is_some).await;
}

impl MessageSource for ChildSource {
    async fn recv(&mut self) -> Option<Received> {
        if !self.leader_gone {
            tokio::select! {
                item = self.stdout.recv() => return item,
                _ = exited(&mut self.exit) => self.leader_gone = true,
            }
        }
        tokio::time::timeout(DRAIN_AFTER_EXIT, self.stdout.recv())
            .await
            .ok()
            .flatten()
    }

    async fn close_reason(&mut self) -> Option<String> {
        let read_error = self.stdout.close_reason().await;
        let mut reason = describe_end(
            &mut self.exit,
            &mut self.stderr_done,
            &self.stderr,
            EXIT_STATUS_WAIT,
        )
        .await;
        if let Some(e) = read_error {
            reason = format!("{e}; {reason}");
        }
        Some(reason)
    }
}

/// The child's stdin; closing it tells the server to exit. A write that fails because the
/// child died reports the child's exit status and stderr, not just "broken pipe".
pub struct ChildSink {
    stdin: Option<StreamSink<ChildStdin>>,
    exit: watch::Receiver<Option<ChildExit>>,
    stderr_done: watch::Receiver<bool>,
    stderr: StderrRing,
}

impl ChildSink {
    async fn explain(&mut self, error: io::Error) -> io::Error {
        let why = describe_end(
            &mut self.exit,
            &mut self.stderr_done,
            &self.stderr,
            EXIT_STATUS_WAIT,
        )
        .await;
        io::Error::new(error.kind(), format!("{error}; {why}"))
    }
}

impl MessageSink for ChildSink {
    async fn send(&mut self, message: Outgoing) -> io::Result<()> {
        let result = match &mut self.stdin {
            Some(stdin) => stdin.send(message).await,
            None => Err(io::Error::new(io::ErrorKind::BrokenPipe, "stdin is closed")),
        };
        match result {
            Ok(()) => Ok(()),
            Err(e) => Err(self.explain(e).await),
        }
    }

    async fn flush(&mut self) -> io::Result<()> {
        let result = match &mut self.stdin {
            Some(stdin) => stdin.flush().await,
            None => Ok(()),
        };
        match result {
            Ok(()) => Ok(()),
            Err(e) => Err(self.explain(e).await),
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        let result = match &mut self.stdin {
            Some(stdin) => stdin.flush().await,
            None => Ok(()),
        };
        // Dropping the pipe closes it: the server sees end of input.
        self.stdin = None;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_name_is_the_file_name() {
        assert_eq!(
            StdioServerConfig::new("/usr/bin/node", ["x"]).default_name(),
            "node"
        );
        assert_eq!(
            StdioServerConfig::new("npx", Vec::<String>::new()).default_name(),
            "npx"
        );
    }
}
