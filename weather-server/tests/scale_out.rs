//! Scale-out, 2026-07-28 era: three weather-server processes sharing Redis (and one
//! request-state key) behind a real nginx on loopback (round robin, no stickiness, SSE
//! unbuffered; installed by `scripts/nginx.sh` when missing).
//! - A `subscriptions/listen` stream held through one instance hears
//!   `notifications/resources/updated` emitted by another.
//! - An MRTR round trip (`input_required`, then the retry) starts on one instance and is
//!   resumed on another.
//! - A task started through one instance is polled to completion through the others, and a
//!   task cancelled through one instance is cancelled everywhere.
//! - With a private redis-server stopped, requests that need shared state fail with a clear
//!   error, `/readyz` says 503 and why, plain calls go on; once it is back, service resumes with
//!   no instance restarted.
//!
//! Keys live under a prefix unique to each test; the shared Redis is never flushed.

mod common;

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use common::cluster::{
    forget, replicas, unique_prefix, wait_for_port, Nginx, Replica, Upstream, SHARED_REDIS,
};
use common::{bounded, free_port};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

const MODERN: &str = "2026-07-28";
/// 32 bytes, hex: the key every instance seals request states with.
const STATE_KEY: &str = "5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e";
const PARIS: &str = "weather://current/paris";

/// A redis-server of the test's own, on a free port, without persistence.
struct PrivateRedis {
    child: Child,
}

impl PrivateRedis {
    async fn start_on(port: u16) -> PrivateRedis {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("redis-server starts (it is installed on the test machine)");
        wait_for_port(port, "redis-server").await;
        PrivateRedis { child }
    }

    async fn stop(mut self) {
        let _ = self.child.kill().await;
        let _ = self.child.wait().await;
    }
}

/// Three instances sharing `redis_url` under one prefix, and nginx in front of them (nginx's
/// defaults: a request is never sent to a second instance).
struct Cluster {
    instances: Vec<Replica>,
    nginx: Nginx,
}

impl Cluster {
    async fn start(redis_url: &str, prefix: &str, first_extra: &[&str]) -> Cluster {
        let every = ["--redis-timeout", "1", "--state-key", STATE_KEY];
        let (instances, nginx) =
            replicas(redis_url, prefix, &every, first_extra, Upstream::Plain).await;
        let cluster = Cluster { instances, nginx };
        for i in 0..3 {
            cluster.wait_ready(i).await;
        }
        cluster
    }

    fn instance(&self, i: usize) -> SocketAddr {
        self.instances[i].addr()
    }

    /// Until instance `i`'s `/readyz` is 200 (Redis answers, the bus is subscribed).
    async fn wait_ready(&self, i: usize) {
        let mut last = String::new();
        for _ in 0..200 {
            let (status, body) = get(self.instance(i), "/readyz").await;
            if status == 200 {
                return;
            }
            last = body;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("instance {i} never became ready: {last}");
    }

    async fn stop(self) {
        self.nginx.stop().await;
        for mut instance in self.instances {
            instance.kill().await;
        }
    }
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "scale-out-test", "version": "1"}
    })
}

fn tasks_meta() -> Value {
    meta(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
}

/// Writes a 2026-07-28 POST (HTTP/1.0: the response ends with the connection) with the
/// mirrored headers.
async fn send_post(addr: SocketAddr, id: i64, method: &str, params: &Value) -> TcpStream {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
    let name = params["name"]
        .as_str()
        .or(params["uri"].as_str())
        .or(params["taskId"].as_str());
    let mut head = format!(
        "POST /mcp HTTP/1.0\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {MODERN}\r\n\
         Mcp-Method: {method}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(name) = name {
        head.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    head.push_str("\r\n");
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    tcp.write_all(head.as_bytes()).await.expect("write head");
    tcp.write_all(body.as_bytes()).await.expect("write body");
    tcp
}

/// The JSON-RPC messages of a response body: one JSON object, or SSE `data:` lines.
fn messages(body: &str) -> Vec<Value> {
    let trimmed = body.trim_start();
    if trimmed.starts_with('{') {
        return serde_json::from_str(trimmed).into_iter().collect();
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

/// POSTs and returns the HTTP status and the response to `id`.
async fn post(addr: SocketAddr, id: i64, method: &str, params: Value) -> (u16, Value) {
    let mut tcp = send_post(addr, id, method, &params).await;
    let mut raw = Vec::new();
    bounded(20, method, tcp.read_to_end(&mut raw))
        .await
        .expect("read response");
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let response = messages(body)
        .into_iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("{method}: no response to {id} in {text:?}"));
    (status, response)
}

/// POSTs and returns the result, failing the test on an error.
async fn result(addr: SocketAddr, id: i64, method: &str, params: Value) -> Value {
    let (status, response) = post(addr, id, method, params).await;
    assert_eq!(status, 200, "{method}: {response}");
    response
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {response}"))
}

/// A GET of `path` (HTTP/1.0): status and body.
async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let Ok(mut tcp) = TcpStream::connect(addr).await else {
        return (0, "connection refused".into());
    };
    let head = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
    tcp.write_all(head.as_bytes()).await.expect("write");
    let mut raw = Vec::new();
    bounded(10, path, tcp.read_to_end(&mut raw))
        .await
        .expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// An open `subscriptions/listen` stream.
struct Listener {
    tcp: TcpStream,
    buffer: String,
}

impl Listener {
    async fn open(addr: SocketAddr, id: i64, uris: &[&str]) -> Listener {
        let params = json!({
            "notifications": {"resourceSubscriptions": uris},
            "_meta": meta(json!({}))
        });
        let tcp = send_post(addr, id, "subscriptions/listen", &params).await;
        let mut listener = Listener {
            tcp,
            buffer: String::new(),
        };
        let ack = listener
            .next_named("notifications/subscriptions/acknowledged")
            .await;
        assert!(
            ack["params"]["notifications"]["resourceSubscriptions"].is_array(),
            "{ack}"
        );
        listener
    }

    /// The next message named `method` (bounded).
    async fn next_named(&mut self, method: &str) -> Value {
        bounded(15, method, async {
            loop {
                while let Some(end) = self.buffer.find("\n\n") {
                    let event: String = self.buffer.drain(..end + 2).collect();
                    for message in messages(&event) {
                        if message["method"] == method {
                            return message;
                        }
                    }
                }
                let mut chunk = [0u8; 4096];
                let n = self.tcp.read(&mut chunk).await.expect("read stream");
                assert!(n > 0, "the listen stream ended: {:?}", self.buffer);
                self.buffer.push_str(&String::from_utf8_lossy(&chunk[..n]));
            }
        })
        .await
    }
}

/// Polls `tasks/get` for `id` through `through` in turn until `done` says so (bounded).
async fn poll_task(through: &[SocketAddr], id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for round in 0..400 {
        let addr = through[round % through.len()];
        let got = result(
            addr,
            1000 + round as i64,
            "tasks/get",
            json!({"taskId": id, "_meta": tasks_meta()}),
        )
        .await;
        if done(&got) {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("task {id} never reached the state asked for");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_modern_era_spans_three_instances_behind_nginx() {
    let prefix = unique_prefix("scale-out", "modern");
    // Instance 0 moves its weather on every 0.3 s and announces the change; 1 and 2 never do.
    let cluster = Cluster::start(SHARED_REDIS, &prefix, &["--update-interval", "0.3"]).await;
    let lb = cluster.nginx.addr();
    let (a, b, c) = (
        cluster.instance(0),
        cluster.instance(1),
        cluster.instance(2),
    );

    // Listeners on instances 1 and 2 (direct) and one through nginx hear instance 0's changes.
    let mut on_b = Listener::open(b, 1, &[PARIS]).await;
    let mut on_c = Listener::open(c, 1, &[PARIS]).await;
    let mut through_lb = Listener::open(lb, 1, &[PARIS]).await;
    for listener in [&mut on_b, &mut on_c, &mut through_lb] {
        let update = listener.next_named("notifications/resources/updated").await;
        assert_eq!(update["params"]["uri"], PARIS, "{update}");
    }

    // MRTR: asked on one instance, answered on another (the shared key unseals it there).
    let ask = |extra: Value| {
        let mut params = json!({
            "name": "get_weather",
            "arguments": {"city": "Springfield"},
            "_meta": meta(json!({"elicitation": {}}))
        });
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        params
    };
    for (first, second) in [(a, b), (b, c), (lb, lb)] {
        let asked = result(first, 2, "tools/call", ask(json!({}))).await;
        assert_eq!(asked["resultType"], "input_required", "{asked}");
        let key = asked["inputRequests"]
            .as_object()
            .and_then(|m| m.keys().next().cloned())
            .expect("one input request");
        let retry = ask(json!({
            "inputResponses": {key: {"action": "accept", "content": {"city": "Springfield, Missouri"}}},
            "requestState": asked["requestState"]
        }));
        let done = result(second, 3, "tools/call", retry).await;
        assert_eq!(done["resultType"], "complete", "{done}");
        let text = done["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.starts_with("Springfield, Missouri:"), "{text}");
    }

    // A task started on instance 0, polled to completion through 1, 2 and nginx.
    let args = json!({"cities": ["Paris", "Tokyo", "Lima"], "perCityMs": 100});
    let created = result(
        a,
        4,
        "tools/call",
        json!({"name": "climate_report", "arguments": args, "_meta": tasks_meta()}),
    )
    .await;
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().expect("task id").to_owned();
    let done = poll_task(&[b, c, lb], &id, |t| t["status"] == "completed").await;
    let report = &done["result"]["structuredContent"];
    assert_eq!(report["cities"].as_array().map(Vec::len), Some(3), "{done}");

    // A long task started through nginx, cancelled through instance 2, cancelled everywhere.
    let args = json!({"cities": ["Paris", "Tokyo", "Lima"], "perCityMs": 5000});
    let created = result(
        lb,
        5,
        "tools/call",
        json!({"name": "climate_report", "arguments": args, "_meta": tasks_meta()}),
    )
    .await;
    let id = created["taskId"].as_str().expect("task id").to_owned();
    result(
        c,
        6,
        "tasks/cancel",
        json!({"taskId": id, "_meta": tasks_meta()}),
    )
    .await;
    for addr in [a, b, c] {
        let got = result(
            addr,
            7,
            "tasks/get",
            json!({"taskId": id, "_meta": tasks_meta()}),
        )
        .await;
        assert_eq!(got["status"], "cancelled", "{got}");
    }
    cluster.stop().await;
    forget(&prefix);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_outage_fails_clearly_and_service_resumes_without_restarts() {
    let redis_port = free_port();
    let redis = PrivateRedis::start_on(redis_port).await;
    let url = format!("redis://127.0.0.1:{redis_port}");
    let prefix = unique_prefix("scale-out", "outage");
    let cluster = Cluster::start(&url, &prefix, &["--update-interval", "0.3"]).await;
    let lb = cluster.nginx.addr();
    let (b, c) = (cluster.instance(1), cluster.instance(2));
    let task_call = |ms: u64| {
        json!({
            "name": "climate_report",
            "arguments": {"cities": ["Paris"], "perCityMs": ms},
            "_meta": tasks_meta()
        })
    };
    let created = result(lb, 1, "tools/call", task_call(50)).await;
    assert_eq!(created["resultType"], "task", "{created}");
    let before_id = created["taskId"].as_str().expect("task id").to_owned();
    poll_task(&[b, c], &before_id, |t| t["status"] == "completed").await;

    redis.stop().await;
    // Readiness follows on every instance, with the reason.
    for i in 0..3 {
        let mut seen = (0, String::new());
        for _ in 0..100 {
            seen = get(cluster.instance(i), "/readyz").await;
            if seen.0 == 503 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(seen.0, 503, "instance {i}: {}", seen.1);
        let body: Value = serde_json::from_str(&seen.1).expect("a JSON body");
        assert_eq!(body["status"], "unavailable");
        assert!(
            body["reason"]
                .as_str()
                .unwrap_or_default()
                .contains("Redis"),
            "{body}"
        );
        let (alive, _) = get(cluster.instance(i), "/healthz").await;
        assert_eq!(alive, 200, "the process stays up");
    }
    // What needs Redis fails clearly and promptly, through nginx; plain calls still work.
    for id in 10..16 {
        let (_, response) = post(lb, id, "tools/call", task_call(50)).await;
        let message = response["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("shared state unavailable") || message.contains("Redis"),
            "{response}"
        );
        let (_, response) = post(
            lb,
            id,
            "tasks/get",
            json!({"taskId": before_id, "_meta": tasks_meta()}),
        )
        .await;
        let message = response["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("Redis"), "{response}");
        let weather = result(
            lb,
            id,
            "tools/call",
            json!({"name": "get_weather", "arguments": {"city": "Paris"}, "_meta": meta(json!({}))}),
        )
        .await;
        assert_ne!(weather["isError"], true, "{weather}");
    }

    // Redis comes back (empty: it had no persistence): the same processes serve again.
    let redis = PrivateRedis::start_on(redis_port).await;
    for i in 0..3 {
        cluster.wait_ready(i).await;
    }
    let created = result(lb, 20, "tools/call", task_call(50)).await;
    let id = created["taskId"].as_str().expect("task id").to_owned();
    poll_task(&[b, c, lb], &id, |t| t["status"] == "completed").await;
    // The bus re-subscribed: a listener on instance 1 hears instance 0's changes again.
    let mut listener = Listener::open(b, 21, &[PARIS]).await;
    let update = listener.next_named("notifications/resources/updated").await;
    assert_eq!(update["params"]["uri"], PARIS);
    cluster.stop().await;
    redis.stop().await;
}
