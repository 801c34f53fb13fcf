//! Scale-out, 2025 era: three weather-server processes sharing sessions and their standalone
//! streams through Redis, behind a real nginx on loopback (round robin, no stickiness, SSE
//! unbuffered; `scripts/nginx.sh` installs it when missing).
//! - The official TypeScript SDK client (v1) holds one session while each replica in turn is
//!   killed (SIGKILL) and restarted: every call succeeds, and its standalone stream, cut by the
//!   kills, resumes through another replica with `Last-Event-ID`: every event once, in order.
//! - 1,000 concurrent sessions spread over the replicas, every client talking at once: all
//!   1,000 initialize together, then all make their calls together, through nginx (so each
//!   session by several replicas). Every request succeeds at its first replica (nginx retried
//!   none), every session is in the shared store, and the replicas' memory stays bounded.
//!
//! - A call whose POST stream is cut resumes through another replica (GET with
//!   `Last-Event-ID`): the stored events after that id, then the answer. And when the replica
//!   running the call is killed, the replica the client resumes through ends the stream with a
//!   JSON-RPC error for the call saying its server process stopped; nothing hangs.
//!
//! Keys live under a prefix unique to each test; the shared Redis is never flushed.

mod common;

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::cluster::{
    forget, raise_open_files, replicas, unique_prefix, Replica, Upstream, SHARED_REDIS,
};
use common::{bounded, node_modules_with};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::Command;
use tokio::sync::Barrier;

const V: &str = "2025-11-25";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typescript_session_survives_replicas_killed_one_by_one() {
    let Some(modules) = node_modules_with("@modelcontextprotocol/sdk") else {
        return;
    };
    let prefix = unique_prefix("scale-sessions", "failover");
    // Every replica moves the weather on every 0.3 s and tells Paris's subscribers. A call whose
    // replica was killed before answering is retried on the next one (get_weather has no side
    // effects).
    let every = ["--update-interval", "0.3"];
    let (mut replicas, nginx) =
        replicas(SHARED_REDIS, &prefix, &every, &[], Upstream::Failover).await;
    let driver =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/ts_scale_sessions.mjs");
    let url = format!("http://{}/mcp", nginx.addr());
    let mut node = Command::new("node")
        .arg(driver)
        .arg(&modules)
        .arg(&url)
        .arg("9000")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    let stdout = node.stdout.take().expect("node's stdout");
    let mut lines = BufReader::new(stdout).lines();
    let ready = bounded(60, "the driver's READY", lines.next_line()).await;
    assert_eq!(ready.ok().flatten().as_deref(), Some("READY"));
    // Each replica in turn: killed, down for a second, restarted.
    for replica in replicas.iter_mut() {
        tokio::time::sleep(Duration::from_millis(1200)).await;
        replica.kill().await;
        tokio::time::sleep(Duration::from_millis(1000)).await;
        replica.restart().await;
    }
    let result = bounded(90, "the driver's RESULT", lines.next_line())
        .await
        .ok()
        .flatten()
        .unwrap_or_default();
    let _ = bounded(10, "node exits", node.wait()).await;
    let result: Value = serde_json::from_str(result.strip_prefix("RESULT ").unwrap_or("{}"))
        .unwrap_or_else(|e| panic!("no RESULT line ({e}): {result}"));
    eprintln!("scale_sessions failover: {result}");
    assert_eq!(result["failed"], 0, "every call succeeds: {result}");
    assert!(result["ok"].as_u64().unwrap_or(0) >= 40, "{result}");
    assert!(
        result["resumes"].as_u64().unwrap_or(0) >= 1,
        "the GET stream was cut and resumed: {result}"
    );
    let seqs: Vec<u64> = result["ids"]
        .as_array()
        .map(|ids| {
            ids.iter()
                .filter_map(|id| id.as_str()?.strip_prefix("0-")?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    assert!(seqs.len() >= 20, "events arrived: {result}");
    assert_eq!(seqs.len(), result["ids"].as_array().map_or(0, Vec::len));
    for pair in seqs.windows(2) {
        assert_eq!(pair[1], pair[0] + 1, "no event lost or repeated: {seqs:?}");
    }
    assert_eq!(
        result["updates"].as_u64(),
        Some(seqs.len() as u64),
        "the SDK handed every event to the client once: {result}"
    );
    nginx.stop().await;
    for mut replica in replicas {
        replica.kill().await;
    }
    forget(&prefix);
}

/// The longest a single request of the load test may take before it counts as failed: generous,
/// so a slow machine is not mistaken for a lost request.
const REQUEST_SECS: u64 = 30;

/// What the load test watches while its sessions talk: requests in flight (now and at the
/// peak), and which replica nginx sent each request to.
#[derive(Default)]
struct Load {
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    by_upstream: Mutex<HashMap<String, usize>>,
}

/// Counts one request in flight until dropped (also when its future is abandoned).
struct InFlight<'a>(&'a Load);

impl<'a> InFlight<'a> {
    fn enter(load: &'a Load) -> InFlight<'a> {
        let now = load.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        load.peak.fetch_max(now, Ordering::SeqCst);
        InFlight(load)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One HTTP/1.1 POST (Connection: close) through `addr`, bounded by [`REQUEST_SECS`]; the
/// status, headers and body, or what went wrong.
async fn post(
    addr: SocketAddr,
    session: Option<&str>,
    body: &Value,
    load: &Load,
) -> Result<(u16, String, String), String> {
    let _counted = InFlight::enter(load);
    let body = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
         MCP-Protocol-Version: {V}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(id) = session {
        head.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    head.push_str("\r\n");
    let exchange = async {
        let mut tcp = TcpStream::connect(addr)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        tcp.write_all(head.as_bytes())
            .await
            .map_err(|e| format!("write: {e}"))?;
        tcp.write_all(body.as_bytes())
            .await
            .map_err(|e| format!("write: {e}"))?;
        let mut out = Vec::new();
        tcp.read_to_end(&mut out)
            .await
            .map_err(|e| format!("read: {e}"))?;
        Ok::<_, String>(out)
    };
    let out = tokio::time::timeout(Duration::from_secs(REQUEST_SECS), exchange)
        .await
        .map_err(|_| format!("no response within {REQUEST_SECS} s"))??;
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    if let Some(upstream) = header(head, "x-upstream") {
        if let Ok(mut counts) = load.by_upstream.lock() {
            *counts.entry(upstream).or_default() += 1;
        }
    }
    Ok((status, head.to_owned(), body.to_owned()))
}

/// The value of header `name` (lower case) in a response head.
fn header(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|l| {
        let (key, value) = l.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}

/// initialize, then initialized: the new session's id.
async fn open_session(lb: SocketAddr, n: usize, load: &Load) -> Result<String, String> {
    let hello = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": V, "capabilities": {},
        "clientInfo": { "name": format!("load-{n}"), "version": "0" } } });
    let (status, head, body) = post(lb, None, &hello, load)
        .await
        .map_err(|e| format!("initialize {n}: {e}"))?;
    if status != 200 {
        return Err(format!("initialize {n}: {status} {body}"));
    }
    let id = header(&head, "mcp-session-id").ok_or_else(|| format!("no session id: {head}"))?;
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let (status, _, body) = post(lb, Some(&id), &note, load)
        .await
        .map_err(|e| format!("initialized {n}: {e}"))?;
    if status != 202 {
        return Err(format!("initialized {n}: {status} {body}"));
    }
    Ok(id)
}

/// One client: waits for every client to be ready, opens its session, waits until every
/// session is open, then makes `calls` calls of get_weather, each checked. Its session id.
async fn one_session(
    lb: SocketAddr,
    n: usize,
    calls: usize,
    start: &Barrier,
    opened: &Barrier,
    load: &Load,
) -> Result<String, String> {
    start.wait().await;
    let session = open_session(lb, n, load).await;
    // Every client reaches this barrier, failed or not, so none waits for a missing one.
    opened.wait().await;
    let id = session?;
    for c in 0..calls {
        let call = json!({ "jsonrpc": "2.0", "id": 10 + c, "method": "tools/call",
            "params": { "name": "get_weather", "arguments": { "city": "Paris" } } });
        let (status, _, body) = post(lb, Some(&id), &call, load)
            .await
            .map_err(|e| format!("call {c} of session {n}: {e}"))?;
        if status != 200 || !body.contains("Paris") || body.contains("\"isError\":true") {
            return Err(format!("call {c} of session {n}: {status} {body}"));
        }
    }
    Ok(id)
}

/// The number of live sessions in the shared store under `prefix` (its expiry index).
fn sessions_in_redis(prefix: &str) -> Option<u64> {
    let out = std::process::Command::new("redis-cli")
        .args(["ZCARD", &format!("{prefix}sessions")])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_sessions_over_three_replicas() {
    const SESSIONS: usize = 1000;
    const CALLS: usize = 3;
    // The test holds one socket per client: 1,000 at once, over the usual soft limit of 1,024
    // descriptors once its other files count.
    raise_open_files(std::process::id(), 4096);
    let prefix = unique_prefix("scale-sessions", "load");
    // 5 s for a Redis reply (default 2 s): the wait is counted inside the replica, whose
    // scheduler has ~333 requests at once on two shared cores in a debug build; Redis itself
    // answered within 91 ms throughout (redis-cli --latency). See docs/deploy.md.
    // With failover on, a connection a replica did not accept within 1 s would show as a retry
    // (two addresses in X-Upstream), which the test forbids below.
    let every = ["--redis-timeout", "5"];
    let (replicas, nginx) = replicas(SHARED_REDIS, &prefix, &every, &[], Upstream::Failover).await;
    let lb = nginx.addr();
    let before: u64 = replicas.iter().map(Replica::rss_kib).sum();
    // 1,000 sessions at once, every client talking at the same time: all initialize together,
    // and once every session is open, all make their three calls together (round robin spreads
    // each session's requests over the replicas).
    let start = Arc::new(Barrier::new(SESSIONS));
    let opened = Arc::new(Barrier::new(SESSIONS));
    let load = Arc::new(Load::default());
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..SESSIONS {
        let (start, opened, load) = (start.clone(), opened.clone(), load.clone());
        tasks.spawn(async move { one_session(lb, n, CALLS, &start, &opened, &load).await });
    }
    let mut failures = Vec::new();
    let mut ids = HashSet::new();
    bounded(120, "1,000 sessions", async {
        while let Some(done) = tasks.join_next().await {
            match done {
                Ok(Ok(id)) => {
                    ids.insert(id);
                }
                Ok(Err(e)) => failures.push(e),
                Err(e) => failures.push(format!("a client panicked: {e}")),
            }
        }
    })
    .await;
    let peak = load.peak.load(Ordering::SeqCst);
    let by_upstream = load
        .by_upstream
        .lock()
        .map(|m| m.clone())
        .unwrap_or_default();
    let after: u64 = replicas.iter().map(Replica::rss_kib).sum();
    eprintln!(
        "scale_sessions load: {SESSIONS} sessions x {CALLS} calls, all at once; peak {peak} \
         requests in flight; requests per replica {by_upstream:?}; RSS of 3 replicas \
         {before} KiB -> {after} KiB"
    );
    assert!(
        failures.is_empty(),
        "{} failed, e.g. {:?}",
        failures.len(),
        &failures[..failures.len().min(3)]
    );
    assert_eq!(ids.len(), SESSIONS, "every session has its own id");
    assert_eq!(
        sessions_in_redis(&prefix),
        Some(SESSIONS as u64),
        "every session is in the shared store, none lost"
    );
    // They really overlapped: most clients had a request in flight at the same moment.
    assert!(
        peak >= SESSIONS / 2,
        "at most {peak} requests in flight at once"
    );
    // Every replica served its share of the 5,000 requests (round robin: about a third each).
    let requests = SESSIONS * (2 + CALLS);
    assert_eq!(by_upstream.len(), 3, "{by_upstream:?}");
    assert_eq!(
        by_upstream.values().sum::<usize>(),
        requests,
        "{by_upstream:?}"
    );
    assert!(
        by_upstream.values().all(|&n| n >= requests / 6),
        "{by_upstream:?}"
    );
    // Bounded: well under 100 KiB per session per replica, all three together.
    assert!(
        after < before + 300 * 1024,
        "RSS grew from {before} KiB to {after} KiB"
    );
    nginx.stop().await;
    for mut replica in replicas {
        replica.kill().await;
    }
    forget(&prefix);
}

/// One SSE response read as it arrives (HTTP/1.0: no chunking), event by event.
struct SseReader {
    tcp: TcpStream,
    buffer: String,
    head: String,
}

/// One SSE event: its id (if any) and its JSON message (if its data is one).
struct SseEvent {
    id: Option<String>,
    message: Option<Value>,
}

impl SseReader {
    /// Sends `request` (a whole HTTP/1.0 request) to `addr` and reads the response head.
    async fn open(addr: SocketAddr, request: String) -> SseReader {
        let mut tcp = TcpStream::connect(addr).await.expect("connect");
        tcp.write_all(request.as_bytes()).await.expect("write");
        let mut reader = SseReader {
            tcp,
            buffer: String::new(),
            head: String::new(),
        };
        bounded(20, "the response head", async {
            while !reader.buffer.contains("\r\n\r\n") {
                assert!(
                    reader.fill().await,
                    "closed before a head: {}",
                    reader.buffer
                );
            }
        })
        .await;
        let (head, rest) = reader.buffer.split_once("\r\n\r\n").unwrap_or_default();
        reader.head = head.to_owned();
        reader.buffer = rest.to_owned();
        reader
    }

    async fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 4096];
        let n = self.tcp.read(&mut chunk).await.unwrap_or(0);
        self.buffer.push_str(&String::from_utf8_lossy(&chunk[..n]));
        n > 0
    }

    /// The next event; `None` when the stream ended.
    async fn next(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let id = block
                    .lines()
                    .find_map(|l| l.strip_prefix("id:"))
                    .map(|v| v.trim().to_owned());
                let data: String = block
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim)
                    .collect();
                if id.is_none() && data.is_empty() {
                    continue; // retry: or a comment
                }
                let message = serde_json::from_str(&data).ok();
                return Some(SseEvent { id, message });
            }
            if !self.fill().await {
                return None;
            }
        }
    }

    /// Events until the answer to request `id` (bounded); the progress events' ids before it,
    /// and the answer.
    async fn until_answer(&mut self, id: u64) -> (Vec<String>, Value) {
        bounded(30, "the answer on a resumed stream", async {
            let mut ids = Vec::new();
            loop {
                let event = self
                    .next()
                    .await
                    .expect("the stream ended before the answer");
                let Some(message) = event.message else {
                    continue;
                };
                if message["id"] == id {
                    return (ids, message);
                }
                if let Some(event_id) = event.id {
                    ids.push(event_id);
                }
            }
        })
        .await
    }
}

/// POSTs a slow climate_report (`cities`, 1 s each, progress after each) as request `id` of
/// `session` through `addr` (HTTP/1.0) and reads until its first progress event: the stream and
/// that event's id.
async fn slow_call(
    addr: SocketAddr,
    session: &str,
    id: u64,
    cities: &[&str],
) -> (SseReader, String) {
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "climate_report", "arguments": { "cities": cities, "perCityMs": 1000 },
        "_meta": { "progressToken": format!("p{id}") } } })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.0\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nMCP-Protocol-Version: {V}\r\nMcp-Session-Id: {session}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut reader = SseReader::open(addr, request).await;
    let first = bounded(20, "the first progress event", async {
        loop {
            let event = reader.next().await.expect("the POST stream ended early");
            if let (Some(id), Some(message)) = (event.id, event.message) {
                assert_eq!(message["method"], "notifications/progress", "{message}");
                return id;
            }
        }
    })
    .await;
    (reader, first)
}

/// A GET resuming `session`'s stream after `last_event_id`, through `addr` (HTTP/1.0).
async fn resume(addr: SocketAddr, session: &str, last_event_id: &str) -> SseReader {
    let request = format!(
        "GET /mcp HTTP/1.0\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\
         MCP-Protocol-Version: {V}\r\nMcp-Session-Id: {session}\r\nLast-Event-ID: {last_event_id}\r\n\r\n"
    );
    let reader = SseReader::open(addr, request).await;
    assert!(
        reader.head.starts_with("HTTP/1.1 200") || reader.head.starts_with("HTTP/1.0 200"),
        "{}",
        reader.head
    );
    reader
}

/// The sequence number of an event id `<stream>-<seq>`.
fn seq(event_id: &str) -> u64 {
    event_id
        .rsplit_once('-')
        .and_then(|(_, seq)| seq.parse().ok())
        .unwrap_or_else(|| panic!("not an event id: {event_id}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_stream_resumes_on_another_replica_and_ends_clearly_when_its_replica_dies() {
    let prefix = unique_prefix("scale-sessions", "post-stream");
    // nginx's defaults: a GET whose replica refuses the connection goes to the next one.
    let (mut replicas, nginx) = replicas(SHARED_REDIS, &prefix, &[], &[], Upstream::Plain).await;
    let lb = nginx.addr();
    let session = open_session(lb, 0, &Load::default())
        .await
        .expect("a session");
    let owner_of = |reader: &SseReader, replicas: &[Replica]| {
        let upstream = header(&reader.head, "x-upstream").expect("nginx names the replica");
        replicas
            .iter()
            .position(|r| r.addr().to_string() == upstream)
            .unwrap_or_else(|| panic!("no replica at {upstream}"))
    };

    // The POST's connection is cut after the first progress event; the client resumes through
    // another (live) replica and gets the rest from the store: the later progress, the answer.
    let (reader, first) = slow_call(lb, &session, 7, &["Paris", "Tokyo", "Lima"]).await;
    let owner = owner_of(&reader, &replicas);
    drop(reader);
    let other = replicas[(owner + 1) % 3].addr();
    let (ids, answer) = resume(other, &session, &first).await.until_answer(7).await;
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["cities"]
            .as_array()
            .map(Vec::len),
        Some(3),
        "{answer}"
    );
    let seqs: Vec<u64> = ids.iter().map(|id| seq(id)).collect();
    assert_eq!(
        seqs,
        vec![seq(&first) + 1, seq(&first) + 2],
        "each later event once: {ids:?}"
    );

    // Now the replica running a call is killed: the client resumes through nginx (another
    // replica) and is told, instead of waiting for ever.
    let (reader, first) = slow_call(lb, &session, 8, &["Paris", "Tokyo", "Lima", "Cairo"]).await;
    let owner = owner_of(&reader, &replicas);
    replicas[owner].kill().await;
    drop(reader);
    let (_, answer) = resume(lb, &session, &first).await.until_answer(8).await;
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("stopped"), "{answer}");
    eprintln!("scale_sessions post stream: {answer}");
    // A client that lost that connection too, before the error, resumes from the same event
    // through each live replica and is told again.
    for replica in replicas.iter().filter(|r| r.port != replicas[owner].port) {
        let (_, again) = resume(replica.addr(), &session, &first)
            .await
            .until_answer(8)
            .await;
        assert_eq!(again["error"], answer["error"], "{again}");
    }

    nginx.stop().await;
    for mut replica in replicas {
        replica.kill().await;
    }
    forget(&prefix);
}
