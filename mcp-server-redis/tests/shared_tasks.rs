//! Tasks across replicas: two servers in this process sharing the real Redis at
//! 127.0.0.1:6379 (keys under a prefix unique to the test), each on its own HTTP port. A
//! 2026-07-28 task runs on the replica that started it; the other one reads its record, cancels
//! it (the runner's handler sees the cancellation) and answers its input requests (the runner's
//! handler gets the answer), through the shared task store and the replica bus.

#[path = "../../mcp-server/tests/http_common.rs"]
mod http_common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use http_common::*;
use mcp_server::http::{HttpConfig, HttpServer};
use mcp_server::schema::{ElicitAction, ElicitParams, TaskSupport};
use mcp_server::tasks::{TaskOptions, TaskRecord, TaskStore};
use mcp_server::{Context, HandlerError, Server, Tool};
use mcp_server_redis::{RedisBackend, RedisConfig, RedisHandle, RedisTaskStore};
use serde_json::{json, Value};

const MODERN: &str = "2026-07-28";
/// Short, so the test sees leases renewed (and run out) within seconds; long enough for a
/// loaded machine to renew it in time (every third of it).
const LEASE: Duration = Duration::from_secs(1);

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    })
}

/// Sets its flag when dropped: a cancelled task's handler is stopped (its future dropped),
/// whether or not it got to run after the cancel.
struct StopFlag(Arc<AtomicBool>);

impl Drop for StopFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A replica: `wait` runs until cancelled (and says so), `ask` works a little, then asks.
async fn replica(prefix: &str, stopped: Arc<AtomicBool>) -> HttpServer {
    let wait = move |ctx: Context| {
        let flag = StopFlag(stopped.clone());
        async move {
            let _flag = flag;
            ctx.cancelled().await;
            "cancelled".to_string()
        }
    };
    let ask = |ctx: Context| async move {
        // Waiting first makes the call a task; the ask then goes to tasks/get.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let schema = json!({"type": "object", "properties": {"word": {"type": "string"}}});
        let answer = ctx
            .elicit(ElicitParams::form("A word?", schema))
            .await
            .map_err(HandlerError::from)?;
        if answer.action != ElicitAction::Accept {
            return Err(HandlerError::from("declined".to_string()));
        }
        let word = answer
            .content
            .and_then(|c| c.get("word").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        Ok::<_, HandlerError>(format!("got {word}"))
    };
    Server::builder("replica", "1.0.0")
        .shared_state(
            RedisBackend::open(RedisConfig::new("redis://127.0.0.1:6379").key_prefix(prefix))
                .expect("valid url"),
        )
        .task_options(TaskOptions {
            runner_lease: LEASE,
            ..TaskOptions::default()
        })
        .tool(
            Tool::new("wait", "Waits until cancelled").task_support(TaskSupport::Required),
            wait,
        )
        .tool(
            Tool::new("ask", "Asks for a word").task_support(TaskSupport::Required),
            ask,
        )
        .build()
        .serve_http("127.0.0.1:0", HttpConfig::default())
        .await
        .expect("bind")
}

async fn wait_ready(addr: SocketAddr) {
    for _ in 0..200 {
        if request(addr, "GET", "/readyz", &[], b"").await.status == 200 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{addr} never became ready");
}

/// A 2026-07-28 request; its result.
async fn modern(addr: SocketAddr, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    let name = params["name"]
        .as_str()
        .or(params["taskId"].as_str())
        .map(str::to_owned);
    let mut headers = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
    if let Some(name) = &name {
        headers.push(("Mcp-Name", name.as_str()));
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let reply = post(addr, &headers, &body).await;
    let message = if reply
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/event-stream"))
    {
        reply
            .events()
            .iter()
            .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
            .find(|m| m["id"] == 1)
            .expect("a response event")
    } else {
        reply.json()
    };
    message
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {message}"))
}

/// Polls `tasks/get` on `addr` until `done` (bounded).
async fn poll(addr: SocketAddr, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..400 {
        let got = modern(addr, "tasks/get", json!({"taskId": id})).await;
        if done(&got) {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {id} never reached the state asked for");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_replica_cancels_and_feeds_a_task() {
    let prefix = format!("test:shared-tasks:{}:", std::process::id());
    let cancelled_a = Arc::new(AtomicBool::new(false));
    let a = replica(&prefix, cancelled_a.clone()).await;
    let b = replica(&prefix, Arc::new(AtomicBool::new(false))).await;
    wait_ready(a.local_addr()).await;
    wait_ready(b.local_addr()).await;

    // Cancel through B reaches the handler running on A.
    let created = modern(
        a.local_addr(),
        "tools/call",
        json!({"name": "wait", "arguments": {}}),
    )
    .await;
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().expect("task id").to_owned();
    // Past one lease: A renews it, so B still sees the task working.
    tokio::time::sleep(LEASE + LEASE / 2).await;
    let seen = modern(b.local_addr(), "tasks/get", json!({"taskId": id})).await;
    assert_eq!(seen["status"], "working", "{seen}");
    modern(b.local_addr(), "tasks/cancel", json!({"taskId": id})).await;
    let mut stopped = false;
    for _ in 0..250 {
        if cancelled_a.load(Ordering::SeqCst) {
            stopped = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(stopped, "the handler on A never saw the cancel sent to B");
    let after = modern(a.local_addr(), "tasks/get", json!({"taskId": id})).await;
    assert_eq!(after["status"], "cancelled", "{after}");

    // Input asked on A, seen and answered through B, and the result read through B.
    let created = modern(
        a.local_addr(),
        "tools/call",
        json!({"name": "ask", "arguments": {}}),
    )
    .await;
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().expect("task id").to_owned();
    let waiting = poll(b.local_addr(), &id, |t| t["status"] == "input_required").await;
    let key = waiting["inputRequests"]
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .expect("an input request");
    modern(
        b.local_addr(),
        "tasks/update",
        json!({"taskId": id, "inputResponses": {key: {"action": "accept", "content": {"word": "scale"}}}}),
    )
    .await;
    let done = poll(b.local_addr(), &id, |t| t["status"] == "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "got scale", "{done}");
    a.shutdown().await;
    b.shutdown().await;
}

/// A task whose runner died (its record says `working`, nobody renews its lease) is failed by
/// the replica that reads it, instead of staying `working` until its TTL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_runner_died_fails_when_read() {
    let prefix = format!("test:shared-tasks-lost:{}:", std::process::id());
    let b = replica(&prefix, Arc::new(AtomicBool::new(false))).await;
    wait_ready(b.local_addr()).await;
    // What a replica killed mid-task leaves behind: the record, and a lease that runs out.
    let store = RedisTaskStore::new(
        RedisHandle::new(RedisConfig::new("redis://127.0.0.1:6379").key_prefix(&prefix))
            .expect("valid url"),
    );
    let id = "0123456789abcdef0123456789abcdef";
    let record = TaskRecord::new(
        id.into(),
        None,
        "conn:gone".into(),
        Some(Duration::from_secs(60)),
        Duration::from_millis(100),
        std::time::SystemTime::now(),
    );
    store.insert(record).await.expect("insert");
    store.renew_runner(id, LEASE).await.expect("lease");
    let alive = modern(b.local_addr(), "tasks/get", json!({"taskId": id})).await;
    assert_eq!(alive["status"], "working", "{alive}");
    let lost = poll(b.local_addr(), id, |t| t["status"] == "failed").await;
    let message = lost["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("was lost"), "{lost}");
    b.shutdown().await;
}
