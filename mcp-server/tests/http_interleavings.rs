//! Property test at the HTTP layer: seeded random interleavings of POSTs (answered at once, or
//! slow with a stream that is read whole, or dropped and resumed with a GET and `Last-Event-ID`),
//! standalone GETs, and a final DELETE, all on one session. Whatever the order, every request
//! sent gets exactly one answer, the one it asked for, and nothing arrives twice.

mod http_common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_common::*;
use mcp_server::http::HttpConfig;
use serde_json::{json, Value};

const V: &str = "2025-11-25";
const SCENARIOS: u64 = 24;
const STEPS: usize = 10;

/// xorshift64*: small, seeded, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// Answers seen, per request id, with the text each carried.
type Seen = Arc<Mutex<HashMap<i64, Vec<String>>>>;

fn record(seen: &Seen, message: &Value) {
    let Some(id) = message["id"].as_i64() else {
        return;
    };
    let text = message["result"]["content"][0]["text"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| format!("error: {}", message["error"]));
    seen.lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(id)
        .or_default()
        .push(text);
}

/// Records every message of a whole reply (JSON or SSE).
fn record_reply(seen: &Seen, reply: &Reply) {
    if reply.header("content-type") == Some("application/json") {
        record(seen, &reply.json());
        return;
    }
    for event in reply.events() {
        if !event.data.is_empty() {
            let message: Value = serde_json::from_str(&event.data).expect("JSON data");
            record(seen, &message);
        }
    }
}

/// Reads an SSE stream to its end, recording every message.
async fn drain(seen: &Seen, mut stream: SseReader) {
    while let Some((_, message)) = stream.next_message().await {
        record(seen, &message);
    }
}

#[tokio::test]
async fn no_answer_is_lost_or_duplicated_whatever_the_interleaving() {
    let server = start(HttpConfig::default()).await;
    let addr = server.local_addr();
    for seed in 1..=SCENARIOS {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let session = open_session(addr, V).await;
        let mut headers: Vec<(&str, &str)> = POST_HEADERS.to_vec();
        headers.extend([
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", V),
        ]);
        let get_headers = [
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", V),
        ];
        let seen: Seen = Arc::default();
        let mut expected: HashMap<i64, &str> = HashMap::new();
        let mut readers = tokio::task::JoinSet::new();
        // Streams dropped mid-way: (request id, last event id seen).
        let mut dropped: Vec<(i64, String)> = Vec::new();
        let mut steps = Vec::new();
        for step in 0..STEPS {
            let id = (seed * 100 + step as u64) as i64;
            match rng.below(5) {
                0 => {
                    steps.push(format!("echo {id}"));
                    let body = call(id, "echo", json!({ "text": format!("echo {id}") }));
                    let reply = post(addr, &headers[2..], &body).await;
                    assert_eq!(
                        reply.status,
                        200,
                        "seed {seed}: {steps:?}: {}",
                        reply.text()
                    );
                    record_reply(&seen, &reply);
                    expected.insert(id, "echo");
                }
                1 => {
                    let ms = 20 + rng.below(80);
                    steps.push(format!("slow {id} {ms}ms, read whole"));
                    let body = call(id, "notify_then_slow", json!({ "ms": ms })).to_string();
                    let stream =
                        SseReader::open(addr, "POST", "/mcp", &headers, body.as_bytes()).await;
                    assert_eq!(stream.status, 200, "seed {seed}: {steps:?}");
                    readers.spawn(drain_owned(seen.clone(), stream));
                    expected.insert(id, "finished");
                }
                2 => {
                    let ms = 20 + rng.below(80);
                    steps.push(format!("slow {id} {ms}ms, dropped"));
                    let body = call(id, "notify_then_slow", json!({ "ms": ms })).to_string();
                    let mut stream =
                        SseReader::open(addr, "POST", "/mcp", &headers, body.as_bytes()).await;
                    let (event_id, log) = stream.next_message().await.expect("the log first");
                    assert_eq!(log["method"], "notifications/message", "seed {seed}");
                    dropped.push((id, event_id.expect("an event id")));
                    drop(stream);
                    expected.insert(id, "finished");
                }
                3 if !dropped.is_empty() => {
                    let which = rng.below(dropped.len() as u64) as usize;
                    let (id, last) = dropped.swap_remove(which);
                    steps.push(format!("resume {id}"));
                    let status = resume(addr, &get_headers, &last, &seen).await;
                    assert_eq!(status, 200, "seed {seed}: {steps:?}");
                }
                _ => {
                    steps.push("standalone GET, then gone".to_owned());
                    let mut stream = SseReader::open(addr, "GET", "/mcp", &get_headers, b"").await;
                    assert!(
                        matches!(stream.status, 200 | 409),
                        "seed {seed}: {steps:?}: {}",
                        stream.status
                    );
                    let _ = stream.raw_for(Duration::from_millis(rng.below(30))).await;
                }
            }
        }
        // Resume whatever is still dropped, then wait for every reader.
        for (id, last) in dropped.drain(..) {
            steps.push(format!("resume {id} at the end"));
            let status = resume(addr, &get_headers, &last, &seen).await;
            assert_eq!(status, 200, "seed {seed}: {steps:?}");
        }
        while let Some(done) = readers.join_next().await {
            done.expect("a reader task");
        }
        let seen = seen.lock().unwrap_or_else(|p| p.into_inner()).clone();
        for (id, want) in &expected {
            let got = seen.get(id).cloned().unwrap_or_default();
            assert_eq!(
                got.len(),
                1,
                "seed {seed}: id {id} answered {got:?}; {steps:?}"
            );
            assert!(got[0].starts_with(want), "seed {seed}: id {id}: {got:?}");
        }
        assert!(
            seen.keys().all(|id| expected.contains_key(id)),
            "seed {seed}: answers nobody asked for: {seen:?}"
        );
        let del = request(addr, "DELETE", "/mcp", &[("Mcp-Session-Id", &session)], b"").await;
        assert_eq!(del.status, 200, "seed {seed}");
        let after = post(addr, &headers[2..], &call(1, "echo", json!({"text": "x"}))).await;
        assert_eq!(after.status, 404, "seed {seed}: a deleted session is gone");
    }
    server.shutdown().await;
}

/// Resumes a dropped stream with GET and `Last-Event-ID`, recording what it carries; the status.
async fn resume(
    addr: std::net::SocketAddr,
    get_headers: &[(&str, &str)],
    last: &str,
    seen: &Seen,
) -> u16 {
    let mut headers = get_headers.to_vec();
    headers.push(("Last-Event-ID", last));
    let stream = SseReader::open(addr, "GET", "/mcp", &headers, b"").await;
    let status = stream.status;
    drain(seen, stream).await;
    status
}

async fn drain_owned(seen: Seen, stream: SseReader) {
    drain(&seen, stream).await;
}
