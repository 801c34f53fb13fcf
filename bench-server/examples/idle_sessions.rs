//! Memory per idle Streamable HTTP session of a running server: opens N sessions (`initialize`
//! then `notifications/initialized`) over a few keep-alive HTTP/1.1 connections, leaves them
//! idle, and reports how much the server's resident memory grew. `bench/run.sh` runs it.
//!
//! ```text
//! cargo build --release -p bench-server --example idle_sessions
//! target/release/examples/idle_sessions http://127.0.0.1:18122/mcp PID [--sessions 10000]
//!     [--connections 8] [--settle-ms 1000] [--protocol-version 2025-06-18]
//! ```
//!
//! Prints one JSON line: `{"metric":"idle_session","sessions":N,"rss_before_kib":..,
//! "rss_after_kib":..,"bytes_per_session":..}`. The server must allow N sessions at once.
//! The connections are opened before the first reading, so only sessions are counted.

use std::process::ExitCode;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{HeaderValue, ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

const USAGE: &str = "usage: idle_sessions URL PID [--sessions N] [--connections C] \
[--settle-ms MS] [--protocol-version V]";

/// What the command line asks for.
struct Args {
    /// `host:port` to connect to.
    addr: String,
    /// The `Host` header (the authority of the URL).
    host: HeaderValue,
    /// The endpoint path.
    path: String,
    pid: u32,
    sessions: usize,
    connections: usize,
    settle: Duration,
    protocol_version: String,
}

fn parse_args(argv: &[String]) -> Result<Args, String> {
    let [url, pid, options @ ..] = argv else {
        return Err(USAGE.into());
    };
    let uri: Uri = url.parse().map_err(|e| format!("URL {url:?}: {e}"))?;
    if uri.scheme_str() != Some("http") {
        return Err(format!("URL {url:?}: only http:// is supported"));
    }
    let authority = uri
        .authority()
        .ok_or_else(|| format!("URL {url:?} has no host"))?;
    let port = authority
        .port_u16()
        .ok_or_else(|| format!("URL {url:?} has no port"))?;
    let host =
        HeaderValue::from_str(authority.as_str()).map_err(|_| format!("URL {url:?}: bad host"))?;
    let mut args = Args {
        addr: format!("{}:{port}", authority.host()),
        host,
        path: uri.path().to_owned(),
        pid: pid
            .parse()
            .map_err(|_| format!("PID {pid:?} is not a pid"))?,
        sessions: 10_000,
        connections: 8,
        settle: Duration::from_millis(1000),
        protocol_version: "2025-06-18".into(),
    };
    let mut rest = options.iter();
    while let Some(flag) = rest.next() {
        let value = rest
            .next()
            .ok_or_else(|| format!("{flag} needs a value; {USAGE}"))?;
        let count = || {
            value
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{flag} {value:?}: expected a positive number"))
        };
        match flag.as_str() {
            "--sessions" => args.sessions = count()?,
            "--connections" => args.connections = count()?,
            "--settle-ms" => {
                let ms = value
                    .parse::<u64>()
                    .map_err(|_| format!("--settle-ms {value:?}: expected milliseconds"))?;
                args.settle = Duration::from_millis(ms);
            }
            "--protocol-version" => args.protocol_version = value.clone(),
            other => return Err(format!("unknown option {other:?}; {USAGE}")),
        }
    }
    args.connections = args.connections.min(args.sessions);
    Ok(args)
}

/// The server's resident set (`VmRSS` of /proc/PID/status) in KiB.
fn vm_rss_kib(pid: u32) -> Result<u64, String> {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("{path}: no VmRSS line"))
}

/// One keep-alive connection, driven by its own task.
async fn connect(addr: &str) -> Result<SendRequest<Full<Bytes>>, String> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect {addr}: {e}"))?;
    stream
        .set_nodelay(true)
        .map_err(|e| format!("TCP_NODELAY: {e}"))?;
    let (sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP/1.1 handshake with {addr}: {e}"))?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            eprintln!("idle_sessions: connection ended: {e}");
        }
    });
    Ok(sender)
}

/// POSTs `body` (with the session id, once there is one); returns the status, the session id
/// header if any, after reading the whole reply.
async fn post(
    sender: &mut SendRequest<Full<Bytes>>,
    args: &Args,
    session: Option<&HeaderValue>,
    body: Bytes,
) -> Result<(StatusCode, Option<HeaderValue>), String> {
    let mut request = Request::builder()
        .method(Method::POST)
        .uri(args.path.as_str())
        .header(HOST, args.host.clone())
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream");
    if let Some(id) = session {
        request = request
            .header("mcp-session-id", id.clone())
            .header("mcp-protocol-version", args.protocol_version.as_str());
    }
    let request = request
        .body(Full::new(body))
        .map_err(|e| format!("building the request: {e}"))?;
    sender
        .ready()
        .await
        .map_err(|e| format!("connection lost: {e}"))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| format!("POST: {e}"))?;
    let status = response.status();
    let id = response.headers().get("mcp-session-id").cloned();
    response
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("reading the reply: {e}"))?;
    Ok((status, id))
}

/// Opens `count` sessions one after another on one connection.
async fn open_sessions(
    mut sender: SendRequest<Full<Bytes>>,
    args: &Args,
    initialize: Bytes,
    count: usize,
) -> Result<SendRequest<Full<Bytes>>, String> {
    const INITIALIZED: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    for _ in 0..count {
        let (status, id) = post(&mut sender, args, None, initialize.clone()).await?;
        let id = match (status, id) {
            (StatusCode::OK, Some(id)) => id,
            (StatusCode::OK, None) => return Err("initialize: no Mcp-Session-Id".into()),
            (status, _) => return Err(format!("initialize: HTTP {status}")),
        };
        let (status, _) = post(
            &mut sender,
            args,
            Some(&id),
            Bytes::from_static(INITIALIZED),
        )
        .await?;
        if !status.is_success() {
            return Err(format!("notifications/initialized: HTTP {status}"));
        }
    }
    Ok(sender)
}

async fn run(args: Args) -> Result<String, String> {
    let initialize = Bytes::from(
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": args.protocol_version,
                "capabilities": {},
                "clientInfo": {"name": "idle_sessions", "version": "0.1.0"}
            }
        })
        .to_string(),
    );
    let mut senders = Vec::with_capacity(args.connections);
    for _ in 0..args.connections {
        senders.push(connect(&args.addr).await?);
    }
    let before = vm_rss_kib(args.pid)?;

    let args = std::sync::Arc::new(args);
    let mut tasks = Vec::with_capacity(senders.len());
    let (share, extra) = (args.sessions / senders.len(), args.sessions % senders.len());
    for (i, sender) in senders.into_iter().enumerate() {
        let count = share + usize::from(i < extra);
        let args = args.clone();
        let initialize = initialize.clone();
        tasks.push(tokio::spawn(async move {
            open_sessions(sender, &args, initialize, count).await
        }));
    }
    // Keep the connections open until the second reading.
    let mut held = Vec::with_capacity(tasks.len());
    for task in tasks {
        held.push(task.await.map_err(|e| format!("a worker failed: {e}"))??);
    }
    tokio::time::sleep(args.settle).await;
    let after = vm_rss_kib(args.pid)?;
    drop(held);
    let grown = after.saturating_sub(before) * 1024;
    Ok(format!(
        "{{\"metric\":\"idle_session\",\"sessions\":{n},\"connections\":{c},\"rss_before_kib\":{before},\"rss_after_kib\":{after},\"bytes_per_session\":{per:.0}}}",
        n = args.sessions,
        c = args.connections,
        per = grown as f64 / args.sessions as f64,
    ))
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse_args(&argv) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("idle_sessions: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("idle_sessions: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("idle_sessions: {e}");
            ExitCode::from(2)
        }
    }
}
