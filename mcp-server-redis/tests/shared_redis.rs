//! The shared-state foundation against the real Redis at 127.0.0.1:6379 (keys under a prefix
//! unique to each test; nothing else is touched): commands and pipelines through the handle,
//! pub/sub, and `/healthz` + `/readyz` of a server with Redis up and with Redis unreachable.

#[path = "../../mcp-server/tests/common/mod.rs"]
mod common;
#[path = "../../mcp-server/tests/http_common.rs"]
mod http_common;

use std::time::Duration;

use http_common::*;
use mcp_server::http::HttpConfig;
use mcp_server::shared::{InProcess, StateBackend};
use mcp_server::{Server, Tool};
use mcp_server_redis::{client as redis, RedisBackend, RedisConfig, RedisHandle};
use serde_json::Value;

const REDIS: &str = "redis://127.0.0.1:6379";

fn prefix(test: &str) -> String {
    format!("test:shared-redis:{test}:{}:", std::process::id())
}

/// A port nothing listens on: bound, then released.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

#[tokio::test]
async fn commands_pipelines_and_pubsub_reach_redis() {
    let handle = RedisHandle::new(RedisConfig::new(REDIS).key_prefix(prefix("commands")))
        .expect("valid url");
    let key = handle.key("k");
    let mut pipe = redis::pipe();
    pipe.cmd("SET")
        .arg(&key)
        .arg("v")
        .arg("PX")
        .arg(10_000)
        .ignore();
    pipe.cmd("GET").arg(&key);
    let (value,): (String,) = handle.query_pipeline(&pipe).await.expect("pipeline");
    assert_eq!(value, "v");
    let deleted: u64 = handle
        .query(redis::cmd("DEL").arg(&key))
        .await
        .expect("DEL");
    assert_eq!(deleted, 1);
    handle.ready().await.expect("ready");
    assert!(handle.last_error().is_none());

    let channel = handle.key("bus");
    let mut subscription = handle.subscribe(vec![channel.clone()]);
    // Subscribed once ready() says so; publish until the subscriber counts (bounded).
    let mut ready = false;
    for _ in 0..100 {
        if handle.ready().await.is_ok() {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(ready, "the subscription never came up");
    let receivers = handle.publish(&channel, b"hello").await.expect("publish");
    assert_eq!(receivers, 1);
    let message = tokio::time::timeout(WAIT, subscription.recv())
        .await
        .expect("message in time")
        .expect("subscription open");
    assert_eq!(message.channel, channel);
    assert_eq!(message.payload, b"hello");
}

#[tokio::test]
async fn an_unreachable_redis_fails_commands_clearly() {
    let url = format!("redis://127.0.0.1:{}", closed_port());
    let handle =
        RedisHandle::new(RedisConfig::new(url).command_timeout(Duration::from_millis(500)))
            .expect("valid url");
    let error = handle
        .query::<String>(&redis::cmd("PING"))
        .await
        .expect_err("nothing listens there");
    assert!(error.is_unavailable(), "{error:?}");
    let text = error.to_string();
    assert!(
        text.contains("unavailable") && text.contains("127.0.0.1"),
        "{text}"
    );
    assert!(handle.last_error().is_some());
}

async fn start_server(backend: impl StateBackend) -> mcp_server::http::HttpServer {
    let server = Server::builder("shared", "1.0.0")
        .shared_state(backend)
        .tool(Tool::new("echo", "Echoes"), || async { "echo".to_string() })
        .build();
    server
        .serve_http("127.0.0.1:0", HttpConfig::default())
        .await
        .expect("bind")
}

#[tokio::test]
async fn readyz_follows_redis_and_healthz_the_process() {
    let up = start_server(redis_backend(
        RedisConfig::new(REDIS).key_prefix(prefix("readyz")),
    ))
    .await;
    let reply = request(up.local_addr(), "GET", "/healthz", &[], b"").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["status"], "ok");
    // Ready once Redis answers and the replica bus has subscribed (bounded wait).
    let mut reply = request(up.local_addr(), "GET", "/readyz", &[], b"").await;
    for _ in 0..100 {
        if reply.status == 200 {
            break;
        }
        assert!(reply.text().contains("subscribing"), "{}", reply.text());
        tokio::time::sleep(Duration::from_millis(20)).await;
        reply = request(up.local_addr(), "GET", "/readyz", &[], b"").await;
    }
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["status"], "ready");
    let reply = request(up.local_addr(), "POST", "/readyz", &[], b"").await;
    assert_eq!(reply.status, 405);
    up.shutdown().await;

    let url = format!("redis://127.0.0.1:{}", closed_port());
    let down = start_server(redis_backend(
        RedisConfig::new(url).command_timeout(Duration::from_millis(500)),
    ))
    .await;
    let reply = request(down.local_addr(), "GET", "/healthz", &[], b"").await;
    assert_eq!(
        reply.status, 200,
        "the process is alive whatever Redis does"
    );
    let reply = request(down.local_addr(), "GET", "/readyz", &[], b"").await;
    assert_eq!(reply.status, 503);
    let body: Value = reply.json();
    assert_eq!(body["status"], "unavailable");
    let reason = body["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("Redis at 127.0.0.1:"), "{reason}");
    down.shutdown().await;

    let memory = start_server(InProcess).await;
    let reply = request(memory.local_addr(), "GET", "/readyz", &[], b"").await;
    assert_eq!(reply.status, 200);
    memory.shutdown().await;
}

fn redis_backend(config: RedisConfig) -> RedisBackend {
    RedisBackend::open(config).expect("valid url")
}

#[test]
fn a_bad_redis_url_is_refused_before_the_server_is_built() {
    let opened = RedisBackend::open(RedisConfig::new("definitely not a url"));
    let error = opened.expect_err("refused").to_string();
    assert!(error.contains("invalid Redis URL"), "{error}");
}

mod task_store {
    use std::time::{Duration, SystemTime};

    use mcp_server::schema::TaskStatus;
    use mcp_server::tasks::{TaskChange, TaskOutcome, TaskRecord, TaskStore, TaskStoreError};
    use mcp_server_redis::{RedisConfig, RedisHandle, RedisTaskStore};

    fn store(test: &str) -> RedisTaskStore {
        let handle =
            RedisHandle::new(RedisConfig::new(super::REDIS).key_prefix(super::prefix(test)))
                .expect("valid url");
        RedisTaskStore::new(handle)
    }

    fn record(id: &str, listing: &str, ttl: Duration) -> TaskRecord {
        TaskRecord::new(
            id.into(),
            None,
            listing.into(),
            Some(ttl),
            Duration::from_millis(100),
            SystemTime::now(),
        )
    }

    #[tokio::test]
    async fn records_are_shared_changed_atomically_listed_and_expire() {
        let a = store("tasks");
        // A second store over the same prefix: another replica.
        let b = store("tasks");
        let now = SystemTime::now;
        a.insert(record("t1", "conn:x", Duration::from_secs(60)))
            .await
            .unwrap();
        a.insert(record("t2", "conn:x", Duration::from_secs(60)))
            .await
            .unwrap();
        a.insert(record("t3", "conn:y", Duration::from_secs(60)))
            .await
            .unwrap();
        let seen = b.get("t1", now()).await.unwrap().expect("visible to b");
        assert_eq!(seen.status, TaskStatus::Working);

        let changed = b
            .update("t1", TaskChange::Message("half way".into()), now())
            .await
            .unwrap();
        assert_eq!(changed.status_message.as_deref(), Some("half way"));
        let raw = mcp_proto::jsonrpc::to_raw(&serde_json::json!({"content": []})).unwrap();
        a.update("t1", TaskChange::Finish(TaskOutcome::Result(raw)), now())
            .await
            .unwrap();
        let refused = b.update("t1", TaskChange::Cancel(None), now()).await;
        assert!(
            matches!(refused, Err(TaskStoreError::InvalidTransition { .. })),
            "{refused:?}"
        );
        assert!(matches!(
            b.update("nope", TaskChange::Working, now()).await,
            Err(TaskStoreError::NotFound(_))
        ));

        // Concurrent changes from both replicas: every one applies, none is lost.
        let mut joins = Vec::new();
        for i in 0..20 {
            let s = if i % 2 == 0 { a.clone() } else { b.clone() };
            joins.push(tokio::spawn(async move {
                s.update(
                    "t2",
                    TaskChange::Message(format!("m{i}")),
                    SystemTime::now(),
                )
                .await
            }));
        }
        for join in joins {
            join.await.unwrap().expect("applied");
        }

        let page = b.list("conn:x", None, 1, now()).await.unwrap();
        assert_eq!(
            page.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["t1"]
        );
        let page = b.list("conn:x", Some("t1"), 10, now()).await.unwrap();
        assert_eq!(
            page.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["t2"]
        );
        assert_eq!(b.list("conn:y", None, 10, now()).await.unwrap().len(), 1);

        // Redis drops a record at its TTL; listings shed it.
        a.insert(record("short", "conn:z", Duration::from_millis(50)))
            .await
            .unwrap();
        let mut gone = false;
        for _ in 0..100 {
            if b.get("short", now()).await.unwrap().is_none() {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(gone, "the record outlived its TTL");
        assert!(b.list("conn:z", None, 10, now()).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn an_unreachable_redis_is_reported_not_hidden() {
        let url = format!("redis://127.0.0.1:{}", super::closed_port());
        let handle =
            RedisHandle::new(RedisConfig::new(url).command_timeout(Duration::from_millis(300)))
                .expect("valid url");
        let store = RedisTaskStore::new(handle);
        let error = store.get("t", SystemTime::now()).await.expect_err("down");
        assert!(matches!(error, TaskStoreError::Unavailable(_)), "{error:?}");
        assert!(error.to_string().contains("Redis at 127.0.0.1:"), "{error}");
    }
}

/// A resource change announced on one replica reaches a 2025 session subscribed on another.
#[tokio::test]
async fn a_resource_change_reaches_subscribers_of_other_replicas() {
    use mcp_server::schema::{ReadResourceResult, TextResourceContents};
    use mcp_server::{Resource, ResourceRequest};

    let prefix = prefix("bus");
    let replica = || {
        Server::builder("bus", "1.0.0")
            .shared_state(redis_backend(
                RedisConfig::new(REDIS).key_prefix(prefix.clone()),
            ))
            .resource(
                Resource::new("note://a", "a"),
                |req: ResourceRequest| async move {
                    ReadResourceResult::new(vec![TextResourceContents::new(req.uri, "a").into()])
                },
            )
            .build()
    };
    let (a, b) = (replica(), replica());
    let mut on_b = common::RawClient::initialized(&b, "2025-11-25", serde_json::json!({})).await;
    let subscribed = on_b
        .call(
            "resources/subscribe",
            serde_json::json!({"uri": "note://a"}),
        )
        .await;
    assert!(subscribed.is_object(), "{subscribed}");
    for server in [&a, &b] {
        let mut ready = false;
        for _ in 0..100 {
            if server.ready().await.is_ok() {
                ready = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(ready, "a replica's bus never subscribed");
    }
    a.notify_resource_updated("note://a");
    let mut heard = None;
    for _ in 0..50 {
        if let Some(message) = on_b.try_recv(Duration::from_millis(100)).await {
            if message["method"] == "notifications/resources/updated" {
                heard = Some(message);
                break;
            }
        }
    }
    let heard = heard.expect("B's subscriber heard A's change");
    assert_eq!(heard["params"]["uri"], "note://a");
}
