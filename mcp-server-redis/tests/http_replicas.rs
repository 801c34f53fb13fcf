//! Replicas sharing 2025-era sessions through a session store: a session made through one
//! server is served by the others (its negotiated state, log level and subscriptions restored),
//! a DELETE through one ends it everywhere, and the session cap and idle expiry hold across
//! them. Each scenario runs on a `MemorySessionStore` shared in this process and on a
//! `RedisSessionStore` against the machine's Redis (127.0.0.1:6379, a key prefix of its own).
//!
//! Leases (Redis): replicas with a store each and leases far longer than a test, so only the
//! invalidation feed can end them: a level, a subscription or a DELETE through one replica is
//! seen by another that leased the session; requests served under a lease get their expiry
//! written behind; with a private redis-server stopped, no lease is honoured (503 at once).

#[path = "../../mcp-server/tests/http_common.rs"]
mod http_common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_common::*;
use mcp_server::event_store::{EventStore, MemoryEventStore};
use mcp_server::http::{HttpConfig, HttpServer};
use mcp_server::session_store::{
    MemorySessionRelay, MemorySessionStore, SessionRelay, SessionStore,
};
use mcp_server::{Context, LoggingLevel, Resource, ResourceRequest, Server, Tool};
use mcp_server_redis::{
    RedisConfig, RedisEventStore, RedisHandle, RedisSessionRelay, RedisSessionStore,
};
use serde_json::{json, Value};

const V: &str = "2025-06-18";
const REDIS: &str = "redis://127.0.0.1:6379";

fn server() -> Server {
    Server::builder("replica", "0.1.0")
        .tool(
            Tool::new("log", "Logs at info and at error, then answers"),
            |ctx: Context| async move {
                ctx.log(LoggingLevel::Info, "an info line").await;
                ctx.log(LoggingLevel::Error, "an error line").await;
                "logged"
            },
        )
        .tool(
            Tool::new("client", "Names the client this session was initialized by"),
            |ctx: Context| async move {
                ctx.client_info()
                    .map_or_else(|| "unknown".to_owned(), |i| i.name.clone())
            },
        )
        .tool(
            Tool::new("roots", "Asks the client for its roots and names the first"),
            |ctx: Context| async move {
                match ctx.list_roots().await {
                    Ok(roots) => roots.roots.first().map_or("none".into(), |r| r.uri.clone()),
                    Err(e) => format!("failed: {e}"),
                }
            },
        )
        .resource(Resource::new("test://r", "r"), |_: ResourceRequest| async {
            "r"
        })
        .build()
}

/// A key prefix no other test run uses (the test's name and this process's id).
fn prefix(test: &str) -> String {
    format!("mcp-test:{test}:{}:", std::process::id())
}

/// Deletes every key under the test's prefix (the shared Redis is never flushed).
async fn forget(test: &str) {
    let prefix = prefix(test);
    let redis = RedisHandle::new(RedisConfig::new(REDIS)).expect("a valid Redis URL");
    let mut cursor = 0u64;
    for _ in 0..10_000 {
        let mut scan = mcp_server_redis::client::cmd("SCAN");
        scan.arg(cursor)
            .arg("MATCH")
            .arg(format!("{prefix}*"))
            .arg("COUNT")
            .arg(1000);
        let (next, keys): (u64, Vec<String>) = redis.query(&scan).await.expect("SCAN");
        if !keys.is_empty() {
            let mut del = mcp_server_redis::client::cmd("DEL");
            del.arg(keys);
            redis.query::<()>(&del).await.expect("DEL");
        }
        if next == 0 {
            return;
        }
        cursor = next;
    }
}

/// A handle on the machine's Redis with a key prefix of the test's own.
fn redis(test: &str) -> RedisHandle {
    let config = RedisConfig::new(REDIS)
        .key_prefix(prefix(test))
        .command_timeout(Duration::from_secs(2));
    RedisHandle::new(config).expect("a valid Redis URL")
}

async fn redis_store(test: &str) -> Arc<dyn SessionStore> {
    Arc::new(RedisSessionStore::new(redis(test)))
}

/// A session store and an event store, both in this process or both in Redis.
struct Stores {
    sessions: Arc<dyn SessionStore>,
    events: Option<Arc<dyn EventStore>>,
    relay: Option<Arc<dyn SessionRelay>>,
}

fn memory_stores() -> Stores {
    Stores {
        sessions: Arc::new(MemorySessionStore::new()),
        events: Some(Arc::new(MemoryEventStore::new())),
        relay: Some(Arc::new(MemorySessionRelay::new())),
    }
}

fn redis_stores(test: &str) -> Stores {
    let redis = redis(test);
    Stores {
        sessions: Arc::new(RedisSessionStore::new(redis.clone())),
        events: Some(Arc::new(RedisEventStore::start(redis.clone()))),
        relay: Some(Arc::new(RedisSessionRelay::new(redis))),
    }
}

/// `n` servers (replicas) sharing `store`, each with its HTTP server.
async fn replicas(
    n: usize,
    store: &Arc<dyn SessionStore>,
    tune: impl Fn(&mut HttpConfig),
) -> Vec<(Server, HttpServer)> {
    let stores = Stores {
        sessions: store.clone(),
        events: None,
        relay: None,
    };
    replicas_with(n, &stores, tune).await
}

/// `n` servers (replicas) sharing `stores`, each with its HTTP server.
async fn replicas_with(
    n: usize,
    stores: &Stores,
    tune: impl Fn(&mut HttpConfig),
) -> Vec<(Server, HttpServer)> {
    let mut out = Vec::new();
    for _ in 0..n {
        let mut config = HttpConfig {
            session_store: Some(stores.sessions.clone()),
            event_store: stores.events.clone(),
            session_relay: stores.relay.clone(),
            ..HttpConfig::default()
        };
        tune(&mut config);
        let server = server();
        let http = server
            .serve_http(("127.0.0.1", 0), config)
            .await
            .expect("bind");
        out.push((server, http));
    }
    out
}

/// Stops every replica's HTTP server.
async fn shut_down(servers: Vec<(Server, HttpServer)>) {
    for (_, http) in servers {
        http.shutdown().await;
    }
}

fn session_headers(id: &str) -> [(&str, &str); 2] {
    [("Mcp-Session-Id", id), ("MCP-Protocol-Version", V)]
}

/// The HTTP status of a `ping` with id `id` on the session `headers` name.
async fn ping(addr: SocketAddr, headers: &[(&str, &str)], id: i64) -> u16 {
    post(addr, headers, &rpc(id, "ping", json!({})))
        .await
        .status
}

fn rpc(id: i64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// The JSON-RPC answer of a reply: the JSON body, or the last SSE event's data.
fn answer(reply: &Reply) -> Value {
    if reply
        .header("content-type")
        .is_some_and(|c| c.starts_with("text/event-stream"))
    {
        let events = reply.events();
        let last = events.last().expect("an SSE answer");
        serde_json::from_str(&last.data).expect("JSON event")
    } else {
        reply.json()
    }
}

/// The data of every `notifications/message` in an SSE reply.
fn log_lines(reply: &Reply) -> Vec<String> {
    reply
        .events()
        .iter()
        .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| m["params"]["data"].as_str().unwrap_or_default().to_owned())
        .collect()
}

async fn any_replica_serves_any_session(store: Arc<dyn SessionStore>) {
    let servers = replicas(3, &store, |_| {}).await;
    let addr: Vec<SocketAddr> = servers.iter().map(|(_, h)| h.local_addr()).collect();
    let id = open_session(addr[0], V).await;
    let headers = session_headers(&id);

    // Restored on the second replica: initialized, and its client is the one that said hello.
    let reply = post(addr[1], &headers, &call(2, "client", json!({}))).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(answer(&reply)["result"]["content"][0]["text"], "test");
    let listed = post(addr[2], &headers, &rpc(3, "tools/list", json!({}))).await;
    assert_eq!(
        answer(&listed)["result"]["tools"].as_array().map(Vec::len),
        Some(3)
    );

    // The level set through one replica holds on the others, also on one already holding it.
    let set = post(
        addr[0],
        &headers,
        &rpc(4, "logging/setLevel", json!({"level": "error"})),
    )
    .await;
    assert_eq!(set.status, 200, "{}", set.text());
    for (i, a) in addr.iter().enumerate() {
        let reply = post(*a, &headers, &call(10 + i as i64, "log", json!({}))).await;
        assert_eq!(log_lines(&reply), vec!["an error line"], "replica {i}");
    }

    // A subscription made through one replica reaches the copy another one holds.
    let subscribe = rpc(5, "resources/subscribe", json!({"uri": "test://r"}));
    assert_eq!(post(addr[1], &headers, &subscribe).await.status, 200);
    let mut stream = SseReader::open(
        addr[2],
        "GET",
        "/mcp",
        &[("Accept", "text/event-stream"), headers[0], headers[1]],
        b"",
    )
    .await;
    assert_eq!(stream.status, 200);
    // The GET above read the session's record, subscriptions included.
    let mut updated = None;
    for _ in 0..50 {
        servers[2].0.notify_resource_updated("test://r");
        if let Ok(Some(event)) =
            tokio::time::timeout(Duration::from_millis(100), stream.next()).await
        {
            if event.data.contains("notifications/resources/updated") {
                updated = Some(event.data);
                break;
            }
        }
    }
    let updated = updated.expect("resources/updated on the GET stream of the third replica");
    assert!(updated.contains("test://r"), "{updated}");
    drop(stream);

    // DELETE through one replica ends the session on all of them.
    let deleted = request(addr[2], "DELETE", "/mcp", &headers, b"").await;
    assert_eq!(deleted.status, 200, "{}", deleted.text());
    for a in &addr {
        let reply = post(*a, &headers, &rpc(6, "ping", json!({}))).await;
        assert_eq!(reply.status, 404, "{}", reply.text());
    }
    shut_down(servers).await;
}

async fn the_cap_and_expiry_hold_across_replicas(store: Arc<dyn SessionStore>) {
    let servers = replicas(2, &store, |c| {
        c.max_sessions = 2;
        c.session_idle_timeout = Duration::from_millis(400);
    })
    .await;
    let (a, b) = (servers[0].1.local_addr(), servers[1].1.local_addr());
    let first = open_session(a, V).await;
    let _second = open_session(b, V).await;
    let third = post(a, &[], &initialize(1, V)).await;
    assert_eq!(third.status, 503, "{}", third.text());
    assert!(
        third.text().contains("too many sessions"),
        "{}",
        third.text()
    );
    // Idle past the timeout, the sessions expire everywhere and make room.
    tokio::time::sleep(Duration::from_millis(900)).await;
    let reply = post(b, &session_headers(&first), &rpc(2, "ping", json!({}))).await;
    assert_eq!(reply.status, 404, "{}", reply.text());
    let again = post(b, &[], &initialize(1, V)).await;
    assert_eq!(again.status, 200, "{}", again.text());
    shut_down(servers).await;
}

#[tokio::test]
async fn memory_store_any_replica_serves_any_session() {
    any_replica_serves_any_session(Arc::new(MemorySessionStore::new())).await;
}

#[tokio::test]
async fn redis_store_any_replica_serves_any_session() {
    any_replica_serves_any_session(redis_store("any-replica").await).await;
    forget("any-replica").await;
}

#[tokio::test]
async fn memory_store_cap_and_expiry() {
    the_cap_and_expiry_hold_across_replicas(Arc::new(MemorySessionStore::new())).await;
}

#[tokio::test]
async fn redis_store_cap_and_expiry() {
    the_cap_and_expiry_hold_across_replicas(redis_store("cap-expiry").await).await;
    forget("cap-expiry").await;
}

#[tokio::test]
async fn redis_down_is_a_clear_503() {
    // Nothing listens on port 1: every request that needs the store fails, clearly, and the
    // replica stays up.
    let config = RedisConfig::new("redis://127.0.0.1:1")
        .key_prefix(prefix("down"))
        .command_timeout(Duration::from_millis(300));
    let store: Arc<dyn SessionStore> = Arc::new(RedisSessionStore::new(
        RedisHandle::new(config).expect("URL"),
    ));
    let servers = replicas(1, &store, |_| {}).await;
    let addr = servers[0].1.local_addr();
    for _ in 0..2 {
        let reply = post(addr, &[], &initialize(1, V)).await;
        assert_eq!(reply.status, 503, "{}", reply.text());
        assert!(reply.text().contains("unavailable"), "{}", reply.text());
        let named = post(addr, &session_headers("0123"), &rpc(2, "ping", json!({}))).await;
        assert_eq!(named.status, 503, "{}", named.text());
    }
    assert_eq!(servers[0].1.session_count(), 0, "no session is left behind");
    shut_down(servers).await;
}

/// A GET on the standalone stream, resuming after `last` when given.
async fn standalone(addr: SocketAddr, id: &str, last: Option<&str>) -> SseReader {
    let mut headers = vec![
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", id),
        ("MCP-Protocol-Version", V),
    ];
    if let Some(last) = last {
        headers.push(("Last-Event-ID", last));
    }
    let reader = SseReader::open(addr, "GET", "/mcp", &headers, b"").await;
    assert_eq!(reader.status, 200);
    reader
}

/// The next event with data on `stream`, within the test's wait.
async fn next_event(stream: &mut SseReader) -> mcp_proto::sse::SseEvent {
    loop {
        let event = stream
            .next()
            .await
            .expect("an event before the stream ended");
        if !event.data.is_empty() {
            return event;
        }
    }
}

async fn standalone_stream_resumes_on_another_replica(stores: Stores) {
    let servers = replicas_with(3, &stores, |_| {}).await;
    let addr: Vec<SocketAddr> = servers.iter().map(|(_, h)| h.local_addr()).collect();
    let id = open_session(addr[0], V).await;
    let headers = session_headers(&id);
    let subscribe = rpc(2, "resources/subscribe", json!({"uri": "test://r"}));
    assert_eq!(post(addr[1], &headers, &subscribe).await.status, 200);
    // Only the first two replicas have seen the session; a change on any replica is still
    // told once, on the stream in the event store.
    let mut stream = standalone(addr[2], &id, None).await;
    let mut ids = Vec::new();
    // Changes on each replica in turn all reach the one GET stream, in store order.
    for (server, _) in &servers {
        server.notify_resource_updated("test://r");
        let event = next_event(&mut stream).await;
        assert!(event.data.contains("test://r"), "{}", event.data);
        ids.push(event.id.expect("an event id"));
    }
    // The connection is cut; more happens meanwhile; the client resumes through another replica.
    drop(stream);
    for server in &servers {
        server.0.notify_resource_updated("test://r");
    }
    let mut resumed = standalone(addr[0], &id, ids.last().map(String::as_str)).await;
    for _ in 0..3 {
        ids.push(next_event(&mut resumed).await.id.expect("an event id"));
    }
    servers[1].0.notify_resource_updated("test://r");
    ids.push(next_event(&mut resumed).await.id.expect("an event id"));
    let expected: Vec<String> = (1..=7).map(|seq| format!("0-{seq}")).collect();
    assert_eq!(ids, expected, "every event once, in order");
    drop(resumed);
    shut_down(servers).await;
}

#[tokio::test]
async fn memory_stores_standalone_stream_resumes_on_another_replica() {
    standalone_stream_resumes_on_another_replica(memory_stores()).await;
}

#[tokio::test]
async fn redis_stores_standalone_stream_resumes_on_another_replica() {
    standalone_stream_resumes_on_another_replica(redis_stores("resume")).await;
    forget("resume").await;
}

async fn answers_reach_the_replica_that_asked(stores: Stores) {
    let servers = replicas_with(2, &stores, |_| {}).await;
    let (a, b) = (servers[0].1.local_addr(), servers[1].1.local_addr());
    let hello = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": V, "capabilities": { "roots": {} },
        "clientInfo": { "name": "test", "version": "0" } } });
    let reply = post(a, &[], &hello).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let id = reply
        .header("mcp-session-id")
        .expect("session id")
        .to_owned();
    let headers = session_headers(&id);
    let note = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    assert_eq!(post(b, &headers, &note).await.status, 202);
    // The tool runs on A and asks the client for its roots on A's response stream ...
    let mut all: Vec<(&str, &str)> = POST_HEADERS.to_vec();
    all.extend_from_slice(&headers);
    let body = call(2, "roots", json!({})).to_string();
    let mut stream = SseReader::open(a, "POST", "/mcp", &all, body.as_bytes()).await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    let asked: Value = serde_json::from_str(&next_event(&mut stream).await.data).expect("JSON");
    assert_eq!(asked["method"], "roots/list", "{asked}");
    // ... and the client's answer is POSTed through B.
    let answer = json!({ "jsonrpc": "2.0", "id": asked["id"],
        "result": { "roots": [{ "uri": "file:///relayed", "name": "r" }] } });
    let relayed = post(b, &headers, &answer).await;
    assert_eq!(relayed.status, 202, "{}", relayed.text());
    let done: Value = serde_json::from_str(&next_event(&mut stream).await.data).expect("JSON");
    assert_eq!(done["id"], 2, "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "file:///relayed",
        "{done}"
    );
    drop(stream);
    shut_down(servers).await;
}

#[tokio::test]
async fn memory_relay_answers_reach_the_replica_that_asked() {
    answers_reach_the_replica_that_asked(memory_stores()).await;
}

#[tokio::test]
async fn redis_relay_answers_reach_the_replica_that_asked() {
    answers_reach_the_replica_that_asked(redis_stores("relay")).await;
    forget("relay").await;
}

/// Leases long enough that, within a test, only an invalidation (or a lost feed) ends them.
const LONG_LEASE: Duration = Duration::from_secs(60);

/// A handle on the Redis at `url` under `test`'s prefix, each replica its own (own connection,
/// own invalidation feed).
fn redis_at(url: &str, test: &str) -> RedisHandle {
    let config = RedisConfig::new(url)
        .key_prefix(prefix(test))
        .command_timeout(Duration::from_millis(500));
    RedisHandle::new(config).expect("a valid Redis URL")
}

/// `n` replicas sharing the Redis at `url`, each with a store of its own holding leases of
/// [`LONG_LEASE`]; and each replica's handle (to see when its invalidation feed is up).
async fn leasing_replicas(
    n: usize,
    url: &str,
    test: &str,
) -> (Vec<(Server, HttpServer)>, Vec<RedisHandle>) {
    let mut servers = Vec::new();
    let mut handles = Vec::new();
    for _ in 0..n {
        let handle = redis_at(url, test);
        let store: Arc<dyn SessionStore> =
            Arc::new(RedisSessionStore::with_lease(handle.clone(), LONG_LEASE));
        servers.extend(replicas(1, &store, |_| {}).await);
        handles.push(handle);
    }
    (servers, handles)
}

/// Waits (bounded) until every subscription of `handle` is subscribed: the replica's
/// invalidation feed is up, so the reads it makes from now on take leases.
async fn wait_feed(handle: &RedisHandle) {
    for _ in 0..250 {
        if handle.ready().await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "the invalidation feed never came up: {:?}",
        handle.ready().await
    );
}

/// Writes field `field` of session `id`'s record in Redis directly, telling no replica.
async fn write_behind_their_back(redis: &RedisHandle, id: &str, field: &str, value: &str) {
    let mut hset = mcp_server_redis::client::cmd("HSET");
    hset.arg(redis.key(&format!("s:{id}")))
        .arg(field)
        .arg(value);
    redis.query::<i64>(&hset).await.expect("HSET");
}

/// Retries `probe` (bounded: about 2 s, far below [`LONG_LEASE`]) until it holds.
async fn eventually<F: std::future::Future<Output = bool>>(
    what: &str,
    mut probe: impl FnMut() -> F,
) {
    for _ in 0..100 {
        if probe().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never happened: {what}");
}

#[tokio::test]
async fn a_change_through_one_replica_ends_the_lease_of_another() {
    let test = "lease-invalidation";
    let (servers, handles) = leasing_replicas(2, REDIS, test).await;
    let (a, b) = (servers[0].1.local_addr(), servers[1].1.local_addr());
    let id = open_session(a, V).await;
    let headers = session_headers(&id);
    wait_feed(&handles[0]).await;
    let both = vec!["an info line".to_owned(), "an error line".to_owned()];
    // Anything that may have hidden a change ends every lease (a write-behind flush that timed
    // out on a loaded machine, say), so the lease is tried up to five times: a replica that
    // never serves from its lease fails all five.
    let mut leased = false;
    for attempt in 0..5 {
        let set = post(
            a,
            &headers,
            &rpc(2, "logging/setLevel", json!({"level": "info"})),
        )
        .await;
        assert_eq!(set.status, 200, "{}", set.text());
        // Read from Redis (A's own change ended its lease), and leased.
        assert_eq!(
            log_lines(&post(a, &headers, &call(3, "log", json!({}))).await),
            both
        );
        // A change nobody announces is not seen under the lease: A does not ask Redis.
        write_behind_their_back(&handles[1], &id, "lvl", "emergency").await;
        let lines = log_lines(&post(a, &headers, &call(4, "log", json!({}))).await);
        if lines == both {
            leased = true;
            break;
        }
        eprintln!(
            "attempt {attempt}: not served from the lease ({lines:?}); Redis last failed with {:?}",
            handles[0].last_error()
        );
    }
    assert!(leased, "served from the lease");

    // A change through B is published with it: A's lease ends and A reads the level B set.
    let set = post(
        b,
        &headers,
        &rpc(5, "logging/setLevel", json!({"level": "error"})),
    )
    .await;
    assert_eq!(set.status, 200, "{}", set.text());
    eventually("A applies the level set through B", || async {
        log_lines(&post(a, &headers, &call(6, "log", json!({}))).await) == ["an error line"]
    })
    .await;

    // A DELETE through B ends the session on A too.
    let deleted = request(b, "DELETE", "/mcp", &headers, b"").await;
    assert_eq!(deleted.status, 200, "{}", deleted.text());
    eventually("A answers 404 for the deleted session", || async {
        ping(a, &headers, 7).await == 404
    })
    .await;
    shut_down(servers).await;
    forget(test).await;
}

#[tokio::test]
async fn a_subscription_through_one_replica_ends_the_lease_of_another() {
    let test = "lease-subscription";
    let (servers, handles) = leasing_replicas(2, REDIS, test).await;
    let (a, b) = (servers[0].1.local_addr(), servers[1].1.local_addr());
    let id = open_session(a, V).await;
    let headers = session_headers(&id);
    wait_feed(&handles[0]).await;
    assert_eq!(ping(a, &headers, 2).await, 200);
    // A holds the session (leased) with its standalone stream open.
    let mut stream = SseReader::open(
        a,
        "GET",
        "/mcp",
        &[("Accept", "text/event-stream"), headers[0], headers[1]],
        b"",
    )
    .await;
    assert_eq!(stream.status, 200);

    // Subscribed through B: A's next request reads the session again, subscriptions included,
    // so A's own update of the resource reaches the client.
    let subscribe = rpc(3, "resources/subscribe", json!({"uri": "test://r"}));
    assert_eq!(post(b, &headers, &subscribe).await.status, 200);
    let mut updated = false;
    for _ in 0..50 {
        assert_eq!(ping(a, &headers, 4).await, 200);
        servers[0].0.notify_resource_updated("test://r");
        if let Ok(Some(event)) =
            tokio::time::timeout(Duration::from_millis(40), stream.next()).await
        {
            updated |= event.data.contains("notifications/resources/updated");
        }
        if updated {
            break;
        }
    }
    assert!(
        updated,
        "resources/updated on A for a subscription made through B"
    );
    drop(stream);
    shut_down(servers).await;
    forget(test).await;
}

#[tokio::test]
async fn requests_served_under_a_lease_keep_their_session_alive() {
    let test = "lease-write-behind";
    let (servers, handles) = leasing_replicas(1, REDIS, test).await;
    let a = servers[0].1.local_addr();
    let id = open_session(a, V).await;
    let headers = session_headers(&id);
    wait_feed(&handles[0]).await;
    assert_eq!(ping(a, &headers, 2).await, 200);
    // Behind the replica's back, the session would live an hour; a request under the lease
    // must bring its expiry back to the idle timeout (30 min) through the flusher.
    let key = handles[0].key(&format!("s:{id}"));
    let mut pexpire = mcp_server_redis::client::cmd("PEXPIRE");
    pexpire.arg(&key).arg(3_600_000);
    handles[0].query::<i64>(&pexpire).await.expect("PEXPIRE");
    assert_eq!(ping(a, &headers, 3).await, 200);
    let idle = HttpConfig::default().session_idle_timeout;
    let idle_ms = i64::try_from(idle.as_millis()).expect("fits");
    eventually("the flusher writes the session's expiry", || async {
        let mut pttl = mcp_server_redis::client::cmd("PTTL");
        pttl.arg(&key);
        let left: i64 = handles[0].query(&pttl).await.expect("PTTL");
        left > 0 && left <= idle_ms
    })
    .await;
    shut_down(servers).await;
    forget(test).await;
}

/// A redis-server of the test's own on a free port, without persistence.
struct PrivateRedis {
    child: tokio::process::Child,
}

impl PrivateRedis {
    async fn start(port: u16) -> PrivateRedis {
        let child = tokio::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("redis-server starts (it is installed on the test machine)");
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return PrivateRedis { child };
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("redis-server never listened on port {port}");
    }

    async fn stop(mut self) {
        let _ = self.child.kill().await;
        let _ = self.child.wait().await;
    }
}

#[tokio::test]
async fn with_redis_stopped_no_lease_is_honoured() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let url = format!("redis://127.0.0.1:{port}");
    let redis = PrivateRedis::start(port).await;
    let (servers, handles) = leasing_replicas(1, &url, "lease-redis-down").await;
    let a = servers[0].1.local_addr();
    let id = open_session(a, V).await;
    let headers = session_headers(&id);
    wait_feed(&handles[0]).await;
    assert_eq!(ping(a, &headers, 2).await, 200);

    // Redis stops: once the replica's feed is lost every request goes to Redis again, and
    // fails clearly; none is served from a lease that can no longer be invalidated.
    redis.stop().await;
    eventually("A answers 503 with Redis stopped", || async {
        ping(a, &headers, 3).await == 503
    })
    .await;
    let reply = post(a, &headers, &rpc(4, "ping", json!({}))).await;
    assert_eq!(reply.status, 503, "{}", reply.text());
    assert!(reply.text().contains("unavailable"), "{}", reply.text());

    // Redis is back (empty): the replica, never restarted, serves new sessions again.
    let redis = PrivateRedis::start(port).await;
    let mut fresh = None;
    for _ in 0..200 {
        let reply = post(a, &[], &initialize(1, V)).await;
        if reply.status == 200 {
            fresh = Some(reply);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(fresh.is_some(), "a new session once Redis is back");
    shut_down(servers).await;
    redis.stop().await;
}
