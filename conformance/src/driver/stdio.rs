//! The stdio driver: runs the server as a child process in its own process group, writes frames
//! to its stdin, cuts its stdout into lines with [`mcp_proto::codec::LineCodec`] and keeps the
//! last 16 KiB of its stderr for failure notes. Closing (or dropping) kills the whole group, so
//! wrapper scripts (`npx`, `uv run`) do not leave servers behind.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::BytesMut;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio_util::codec::Decoder;

use super::{BoxFuture, Connector, Frame, Journal, Session, Transport};
use crate::error::Error;

/// How much stderr is kept.
const STDERR_KEEP: usize = 16 * 1024;
/// The longest stdout line accepted (larger lines are reported and skipped).
const MAX_LINE: usize = 64 * 1024 * 1024;
/// How long one write to stdin may take before the server counts as stuck.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// A server run as a child process speaking newline-delimited JSON-RPC on stdin/stdout.
#[derive(Clone, Debug)]
pub struct StdioTarget {
    /// The program to run.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
}

impl StdioTarget {
    /// A target running `program` with `args`.
    pub fn new(program: impl Into<String>, args: Vec<String>) -> Self {
        StdioTarget {
            program: program.into(),
            args,
            env: Vec::new(),
        }
    }

    fn command_line(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Starts the child and returns an uninitialized session to it.
    pub async fn spawn(&self, journal: Arc<Journal>) -> Result<Session, Error> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|source| Error::Spawn {
            command: self.command_line(),
            source,
        })?;
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => {
                    return Err(Error::Spawn {
                        command: self.command_line(),
                        source: std::io::Error::other("the child's pipes were not set up"),
                    })
                }
            };
        let (tx, rx) = mpsc::channel(1024);
        tokio::spawn(read_stdout(stdout, tx));
        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_KEEP)));
        tokio::spawn(read_stderr(stderr, tail.clone()));
        let pid = child.id().and_then(|p| i32::try_from(p).ok());
        let transport = StdioTransport {
            child,
            pid,
            stdin: Some(stdin),
            stderr_tail: tail,
        };
        Ok(Session::new(Box::new(transport), rx, journal))
    }
}

impl Connector for StdioTarget {
    fn connect(&self, journal: Arc<Journal>) -> BoxFuture<'_, Result<Session, Error>> {
        Box::pin(self.spawn(journal))
    }

    fn describe(&self) -> String {
        format!("stdio: {}", self.command_line())
    }
}

async fn read_stdout(mut stdout: tokio::process::ChildStdout, tx: mpsc::Sender<Frame>) {
    let mut codec = mcp_proto::codec::LineCodec::new(MAX_LINE);
    let mut buf = BytesMut::with_capacity(64 * 1024);
    loop {
        loop {
            match codec.decode(&mut buf) {
                Ok(Some(Ok(line))) => {
                    if tx.send(Frame::Data(line)).await.is_err() {
                        return;
                    }
                }
                Ok(Some(Err(_))) => {
                    if tx.send(Frame::TooLong(MAX_LINE)).await.is_err() {
                        return;
                    }
                }
                Ok(None) => break,
                Err(_) => return,
            }
        }
        match stdout.read_buf(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    if let Ok(Some(Ok(line))) = codec.decode_eof(&mut buf) {
        let _ = tx.send(Frame::Data(line)).await;
    }
}

async fn read_stderr(mut stderr: tokio::process::ChildStderr, tail: Arc<Mutex<VecDeque<u8>>>) {
    let mut chunk = vec![0u8; 8192];
    loop {
        match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let mut guard = match tail.lock() {
                    Ok(g) => g,
                    Err(p) => p.into_inner(),
                };
                guard.extend(&chunk[..n]);
                while guard.len() > STDERR_KEEP {
                    guard.pop_front();
                }
            }
        }
    }
}

struct StdioTransport {
    child: Child,
    pid: Option<i32>,
    stdin: Option<ChildStdin>,
    stderr_tail: Arc<Mutex<VecDeque<u8>>>,
}

impl StdioTransport {
    fn kill_group(&self) {
        if let Some(pid) = self.pid.and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

impl Transport for StdioTransport {
    fn send_frame<'a>(&'a mut self, frame: &'a [u8]) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            let Some(stdin) = self.stdin.as_mut() else {
                return Err(Error::Io(std::io::Error::other("stdin already closed")));
            };
            let write = async {
                stdin.write_all(frame).await?;
                stdin.write_all(b"\n").await?;
                stdin.flush().await
            };
            match tokio::time::timeout(WRITE_TIMEOUT, write).await {
                Ok(result) => Ok(result?),
                Err(_) => Err(Error::Timeout {
                    what: "progress writing to the server's stdin".into(),
                    timeout: WRITE_TIMEOUT,
                }),
            }
        })
    }

    fn diagnostics(&self) -> String {
        let guard = match self.stderr_tail.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let bytes: Vec<u8> = guard.iter().copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            // The spec's stdio shutdown: close stdin, give the server a moment, then kill.
            drop(self.stdin.take());
            if tokio::time::timeout(Duration::from_millis(500), self.child.wait())
                .await
                .is_err()
            {
                if let Some(pid) = self.pid.and_then(rustix::process::Pid::from_raw) {
                    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::TERM);
                }
                let _ = tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await;
            }
            self.kill_group();
            let _ = self.child.start_kill();
            let _ = tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await;
            self.pid = None;
        })
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.kill_group();
    }
}
