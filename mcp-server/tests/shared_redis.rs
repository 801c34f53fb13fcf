//! The shared-state foundation against the real Redis at 127.0.0.1:6379 (keys under a prefix
//! unique to each test; nothing else is touched): commands and pipelines through the handle,
//! pub/sub, and `/healthz` + `/readyz` of a server with Redis up and with Redis unreachable.

mod http_common;

use std::time::Duration;

use http_common::*;
use mcp_server::http::HttpConfig;
use mcp_server::shared::{client as redis, RedisConfig, RedisHandle, StateBackend};
use mcp_server::{Server, Tool};
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

async fn start_server(backend: StateBackend) -> mcp_server::http::HttpServer {
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
    let up = start_server(StateBackend::Redis(
        RedisConfig::new(REDIS).key_prefix(prefix("readyz")),
    ))
    .await;
    let reply = request(up.local_addr(), "GET", "/healthz", &[], b"").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["status"], "ok");
    let reply = request(up.local_addr(), "GET", "/readyz", &[], b"").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["status"], "ready");
    let reply = request(up.local_addr(), "POST", "/readyz", &[], b"").await;
    assert_eq!(reply.status, 405);
    up.shutdown().await;

    let url = format!("redis://127.0.0.1:{}", closed_port());
    let down = start_server(StateBackend::Redis(
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

    let memory = start_server(StateBackend::Memory).await;
    let reply = request(memory.local_addr(), "GET", "/readyz", &[], b"").await;
    assert_eq!(reply.status, 200);
    memory.shutdown().await;
}

#[test]
fn a_bad_redis_url_is_a_build_error() {
    let built = Server::builder("shared", "1.0.0")
        .redis("definitely not a url")
        .try_build();
    let error = built.expect_err("refused").to_string();
    assert!(error.contains("invalid Redis URL"), "{error}");
}
