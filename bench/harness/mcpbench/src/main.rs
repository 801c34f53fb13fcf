//! mcpbench, the load driver of the benchmark: it speaks raw JSON-RPC to an MCP server (newline
//! delimited over a child's stdio, or HTTP/1.1 POSTs for Streamable HTTP), with no MCP SDK in
//! between, and prints one JSON line per measurement on stdout.
//!
//!     mcpbench stdio [OPTIONS] -- COMMAND [ARGS...]
//!     mcpbench http  [OPTIONS] URL        (http://127.0.0.1:PORT/PATH or localhost only)
//!
//! Options:
//!     --label NAME       the "impl" of every line printed
//!     --modes LIST       stdio: startup,seq,pipe,rss (default all four); http: always C levels + rss
//!     -n N               sequential calls (default 20000)
//!     --pipe-n N         pipelined calls (default 100000)
//!     -k K               requests in flight when pipelining (default 64)
//!     --spawns S         spawns timed for start-up (default 20)
//!     -c LIST            HTTP concurrency levels, one connection and session each (default 1,32)
//!     --http-n N         HTTP calls per concurrency level, split across connections (default 20000)
//!     --warmup W         unmeasured calls first (default 500; split across HTTP connections)
//!     --max-secs S       time cap of each measured loop; the calls made are reported (default 60)
//!     --hard-timeout S   a phase longer than this prints an error line and exits 3 (default 300)
//!     --server-pid PID   http: the server whose CPU and peak memory are read from /proc
//!     --era ERA          http: `legacy` (default: initialize, then calls in the session) or
//!                        `modern` (2026-07-28: no initialize, every call a stateless POST with
//!                        `_meta` and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers)
//!
//! Every call is `tools/call get_weather {"city":"shenzhen"}`; an answer with the wrong id, an
//! error, `isError` or a text without "thunderstorms" ends the run with exit status 2.
//! MCPBENCH_STDERR=inherit shows a stdio server's stderr (default: discarded).

mod http;
mod line;
mod procfs;
mod protocol;
mod stats;
mod stdio;

use std::time::Duration;

/// What one invocation measures and how much.
#[derive(Clone, Debug)]
pub struct Options {
    pub label: String,
    pub modes: Vec<String>,
    pub seq_n: usize,
    pub pipe_n: usize,
    pub in_flight: usize,
    pub spawns: usize,
    pub levels: Vec<usize>,
    pub http_n: usize,
    pub warmup: usize,
    pub max_secs: f64,
    pub hard_timeout: u64,
    pub server_pid: Option<u32>,
    /// HTTP: send 2026-07-28 stateless calls instead of opening a 2025 session.
    pub modern: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            label: "unnamed".into(),
            modes: Vec::new(),
            seq_n: 20_000,
            pipe_n: 100_000,
            in_flight: 64,
            spawns: 20,
            levels: vec![1, 32],
            http_n: 20_000,
            warmup: 500,
            max_secs: 60.0,
            hard_timeout: 300,
            server_pid: None,
            modern: false,
        }
    }
}

impl Options {
    /// True when MODE was asked for (no --modes means every mode).
    pub fn wants(&self, mode: &str) -> bool {
        self.modes.is_empty() || self.modes.iter().any(|m| m == mode)
    }

    pub fn cap(&self) -> Duration {
        Duration::from_secs_f64(self.max_secs)
    }
}

/// Ends the run on a protocol or usage error: message to stderr, exit status 2.
pub fn fatal(message: impl std::fmt::Display) -> ! {
    eprintln!("mcpbench: {message}");
    std::process::exit(2)
}

/// Runs one phase under the hard timeout; past it, an error line and exit status 3.
pub async fn bounded<T>(
    options: &Options,
    phase: &str,
    work: impl std::future::Future<Output = T>,
) -> T {
    match tokio::time::timeout(Duration::from_secs(options.hard_timeout), work).await {
        Ok(value) => value,
        Err(_) => {
            line::Line::new(&options.label)
                .text("metric", phase)
                .text("error", &format!("hard timeout {}s", options.hard_timeout))
                .print();
            std::process::exit(3)
        }
    }
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> T {
    value
        .parse()
        .unwrap_or_else(|_| fatal(format!("{flag}: not a number: {value:?}")))
}

/// (kind, options, the rest: the command after `--`, or the URL).
fn parse(args: Vec<String>) -> (String, Options, Vec<String>) {
    let mut args = args.into_iter().skip(1);
    let kind = args.next().unwrap_or_else(|| {
        fatal("usage: mcpbench stdio [OPTIONS] -- COMMAND ARGS... | mcpbench http [OPTIONS] URL")
    });
    let mut o = Options::default();
    let mut rest = Vec::new();
    while let Some(arg) = args.next() {
        if arg == "--" {
            rest.extend(args.by_ref());
            break;
        }
        let mut value = || {
            args.next()
                .unwrap_or_else(|| fatal(format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--label" => o.label = value(),
            "--tool" => {
                let _ = protocol::TOOL.set(value());
            }
            "--modes" => o.modes = value().split(',').map(str::to_owned).collect(),
            "-n" => o.seq_n = number(&arg, &value()),
            "--pipe-n" => o.pipe_n = number(&arg, &value()),
            "-k" => o.in_flight = number(&arg, &value()),
            "--spawns" => o.spawns = number(&arg, &value()),
            "-c" => o.levels = value().split(',').map(|c| number(&arg, c)).collect(),
            "--http-n" => o.http_n = number(&arg, &value()),
            "--warmup" => o.warmup = number(&arg, &value()),
            "--max-secs" => o.max_secs = number(&arg, &value()),
            "--hard-timeout" => o.hard_timeout = number(&arg, &value()),
            "--server-pid" => o.server_pid = Some(number(&arg, &value())),
            "--era" => {
                o.modern = match value().as_str() {
                    "legacy" => false,
                    "modern" => true,
                    other => fatal(format!("--era: legacy or modern, not {other:?}")),
                }
            }
            _ => rest.push(arg),
        }
    }
    if o.seq_n == 0 || o.in_flight == 0 || o.levels.contains(&0) {
        fatal("-n, -k and every -c level must be above 0");
    }
    (kind, o, rest)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let (kind, options, rest) = parse(std::env::args().collect());
    match kind.as_str() {
        "stdio" => stdio::run(options, rest).await,
        "http" => http::run(options, rest).await,
        other => fatal(format!("unknown kind {other:?}: stdio or http")),
    }
}
