//! The hub under load and loss, against our own HTTP server in-process: a server's
//! concurrency limit queues calls and then refuses them with a clear error; a Streamable HTTP
//! server that goes away is reconnected with backoff (status and events say "reconnecting
//! (attempt N, next in T s)") and serves again once it is back on its address.

use std::sync::Arc;
use std::time::Duration;

use mcp_hub::{
    ErrorKind, Hub, HubConfig, HubError, HubEvent, HubOptions, ReconnectPolicy, ServerStatus,
    Variables,
};
use mcp_server::http::{HttpConfig, HttpServer};
use mcp_server::{Context, Server, Tool};
use serde_json::{json, Value};
use tokio::sync::Semaphore;

async fn bounded<F: std::future::Future>(secs: u64, what: &str, f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(secs), f)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {secs}s"))
}

/// A server whose `wait` tool answers once the test adds a permit to `gate`.
fn server(gate: Arc<Semaphore>) -> Server {
    Server::builder("ours", "0.1.0")
        .tool(
            Tool::new("wait", "Answers when the test lets it"),
            move |_: Value, _ctx: Context| {
                let gate = gate.clone();
                async move {
                    if let Ok(permit) = gate.acquire().await {
                        permit.forget();
                    }
                    "done"
                }
            },
        )
        .tool(
            Tool::new("ping_tool", "Answers at once"),
            |_: Value, _ctx: Context| async move { "pong" },
        )
        .build()
}

async fn serve(gate: Arc<Semaphore>, addr: &str) -> HttpServer {
    bounded(
        10,
        "bind",
        server(gate).serve_http(addr.to_owned(), HttpConfig::default()),
    )
    .await
    .expect("bind")
}

fn config(url: &str, extra: Value) -> HubConfig {
    let mut entry = json!({"type": "streamableHttp", "url": url});
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
        entry.extend(extra.clone());
    }
    let text = json!({"mcpServers": {"s": entry}}).to_string();
    HubConfig::parse(&text, "hub.json", &Variables::default()).expect("config")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_past_the_limit_queue_then_fail_clearly() {
    let gate = Arc::new(Semaphore::new(0));
    let http = serve(gate.clone(), "127.0.0.1:0").await;
    let url = format!("http://{}/mcp", http.local_addr());
    let limits = json!({"maxConcurrentCalls": 1, "maxQueuedCalls": 1});
    let hub = bounded(
        30,
        "connect",
        Hub::connect(config(&url, limits), HubOptions::default()),
    )
    .await;
    assert_eq!(hub.servers()[0].status, ServerStatus::Connected);

    let first = tokio::spawn({
        let hub = hub.clone();
        async move { hub.call_tool("s__wait", json!({})).await }
    });
    bounded(10, "first call running", async {
        while hub.call_load("s") != (1, 0) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    let second = tokio::spawn({
        let hub = hub.clone();
        async move { hub.call_tool("s__wait", json!({})).await }
    });
    bounded(10, "second call queued", async {
        while hub.call_load("s") != (1, 1) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    // The line is full: the third call fails at once, and says what to change.
    let third = bounded(10, "third call", hub.call_tool("s__wait", json!({})))
        .await
        .expect_err("over the limit");
    assert_eq!(third.kind(), ErrorKind::Overloaded);
    assert!(matches!(
        third,
        HubError::Overloaded {
            running: 1,
            queued: 1,
            ..
        }
    ));
    let text = third.to_string();
    assert!(
        text.contains("server s is overloaded") && text.contains("maxConcurrentCalls"),
        "{text}"
    );
    // A model sees it as a labelled error result.
    let for_model = hub.call_tool_for_model("s__wait", json!({})).await;
    assert!(for_model.is_error());

    gate.add_permits(2);
    for call in [first, second] {
        let result = bounded(10, "queued calls finish", call)
            .await
            .expect("task")
            .expect("call");
        assert!(!result.is_error(), "{result:?}");
    }
    assert_eq!(hub.call_load("s"), (0, 0));
    hub.close().await;
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_http_server_is_reconnected_with_backoff() {
    let gate = Arc::new(Semaphore::new(0));
    let http = serve(gate.clone(), "127.0.0.1:0").await;
    let addr = http.local_addr();
    let url = format!("http://{addr}/mcp");
    let options = HubOptions {
        reconnect: ReconnectPolicy {
            initial: Duration::from_millis(200),
            max: Duration::from_millis(800),
            jitter: 0.2,
            max_attempts: None,
        },
        ..HubOptions::default()
    };
    let hub = bounded(
        30,
        "connect",
        Hub::connect(config(&url, json!({})), options),
    )
    .await;
    let mut events = hub.events();
    let ok = bounded(10, "call", hub.call_tool("s__ping_tool", json!({})))
        .await
        .expect("call");
    assert!(!ok.is_error());

    http.shutdown().await;
    let lost = bounded(
        10,
        "call to the lost server",
        hub.call_tool("s__ping_tool", json!({})),
    )
    .await
    .expect_err("server is gone");
    assert_eq!(lost.kind(), ErrorKind::Connection, "{lost}");

    // The hub notices, says so, and keeps trying with growing waits.
    let mut attempts = Vec::new();
    bounded(15, "two reconnect attempts", async {
        while attempts.len() < 2 {
            match events.recv().await.expect("events") {
                HubEvent::Reconnecting {
                    server,
                    attempt,
                    next_in,
                    ..
                } => {
                    assert_eq!(server, "s");
                    attempts.push((attempt, next_in));
                }
                other => panic!("unexpected event {other:?}"),
            }
        }
    })
    .await;
    assert_eq!(attempts[0].0, 1);
    assert_eq!(attempts[1].0, 2);
    assert!(attempts[0].1 <= Duration::from_millis(240), "{attempts:?}");
    assert!(attempts[1].1 >= Duration::from_millis(320), "{attempts:?}");
    let status = hub.servers()[0].status.describe();
    assert!(status.starts_with("reconnecting (attempt "), "{status}");
    assert!(status.contains(", next in "), "{status}");
    // Meanwhile calls fail at once with that status.
    let waiting = hub
        .call_tool("s__ping_tool", json!({}))
        .await
        .expect_err("not yet");
    assert!(
        waiting.to_string().contains("reconnecting (attempt"),
        "{waiting}"
    );

    // Back on the same address: the next attempt connects, lists are fetched, calls work.
    let http = serve(gate, &addr.to_string()).await;
    bounded(15, "reconnected", async {
        loop {
            if let HubEvent::Reconnected { server, attempts } = events.recv().await.expect("events")
            {
                assert_eq!(server, "s");
                assert!(attempts >= 2);
                break;
            }
        }
    })
    .await;
    assert_eq!(hub.servers()[0].status, ServerStatus::Connected);
    assert!(hub.tools().iter().any(|t| t.exposed == "s__ping_tool"));
    let again = bounded(
        10,
        "call after reconnect",
        hub.call_tool("s__ping_tool", json!({})),
    )
    .await
    .expect("call");
    assert!(!again.is_error(), "{again:?}");
    hub.close().await;
    http.shutdown().await;
}
