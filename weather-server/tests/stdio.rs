//! The weather server over stdio, driven by our `Client`: every tool, resource, template,
//! prompt, completion and error path on the frozen clock; subscriptions on the update timer;
//! determinism of the embedded data; the command line.

mod common;

use std::process::Command;

use common::suite::{self, call, read};
use common::{bounded, stdio_client, BIN, CLOCK};
use serde_json::{json, Value};

#[tokio::test]
async fn every_tool_resource_prompt_and_completion() {
    let client = stdio_client(&[]).await;
    suite::check_everything(&client).await;
    bounded(10, "close", client.close()).await;
}

#[tokio::test]
async fn subscribed_city_gets_updates_on_the_timer() {
    let client = stdio_client(&["--update-interval", "0.3"]).await;
    suite::check_subscription(&client).await;
    bounded(10, "close", client.close()).await;
}

#[tokio::test]
async fn the_completed_uri_is_the_one_notified() {
    let client = stdio_client(&["--update-interval", "0.3"]).await;
    let values = suite::complete(
        &client,
        mcp_proto::schema::CompletionReference::resource("weather://current/{city}"),
        "city",
        "são",
    )
    .await;
    let uri = format!("weather://current/{}", values[0]);
    assert_eq!(uri, "weather://current/sao-paulo");
    let mut events = client.notifications();
    bounded(10, "subscribe", client.subscribe(&uri))
        .await
        .expect("subscribe");
    assert_eq!(suite::next_update(&mut events, 10).await, uri);
    // The percent-encoded accented spelling reads the same city.
    let accented = read(&client, "weather://current/s%C3%A3o-paulo").await;
    assert!(
        accented["text"]
            .as_str()
            .is_some_and(|t| t.contains("São Paulo")),
        "{accented}"
    );
    bounded(10, "close", client.close()).await;
}

#[tokio::test]
async fn no_updates_without_a_subscription() {
    let client = stdio_client(&["--update-interval", "0.2"]).await;
    let mut events = client.notifications();
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    loop {
        match events.try_recv() {
            Ok(mcp_client::ServerEvent::ResourceUpdated(p)) => {
                panic!("update without a subscription: {}", p.uri)
            }
            Ok(_) => continue,
            Err(_) => break,
        }
    }
    // Without --update-interval the data never moves.
    let client2 = stdio_client(&[]).await;
    let a = read(&client2, "weather://current/paris").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let b = read(&client2, "weather://current/paris").await;
    assert_eq!(a, b);
    bounded(10, "close", client.close()).await;
    bounded(10, "close", client2.close()).await;
}

/// Everything a city's answers contain, from one server process.
async fn answers(extra: &[&str], cities: &[&str]) -> Vec<Value> {
    let client = stdio_client(extra).await;
    let mut out = Vec::new();
    for city in cities {
        let weather = call(&client, "get_weather", json!({ "city": city })).await;
        let forecast = call(&client, "get_forecast", json!({ "city": city, "days": 7 })).await;
        let uri = format!(
            "weather://current/{}",
            city.to_lowercase().replace(' ', "-")
        );
        let resource = read(&client, &uri).await;
        out.push(json!([weather, forecast, resource]));
    }
    bounded(10, "close", client.close()).await;
    out
}

#[tokio::test]
async fn embedded_data_is_deterministic() {
    let cities = [
        "Shenzhen",
        "Reykjavik",
        "Sydney",
        "São Paulo",
        "New York",
        "Moscow",
    ];
    let first = answers(&[], &cities).await;
    let second = answers(&[], &cities).await;
    assert_eq!(first, second, "two processes on one clock disagree");
    // The clock given as Unix seconds is the same instant.
    let unix = answers(&["--clock", "1785654000"], &cities).await;
    assert_eq!(first, unix);
    // Another instant gives other weather (the data is not constant).
    let later = answers(&["--clock", "2026-01-15T12:00:00Z"], &cities).await;
    assert_ne!(first, later);
}

#[tokio::test]
async fn fixed_answers_for_the_frozen_clock() {
    let client = stdio_client(&[]).await;
    let shenzhen = call(&client, "get_weather", json!({"city": "Shenzhen"})).await;
    assert_eq!(
        shenzhen["content"][0]["text"],
        "Shenzhen: thunderstorms, 34.3 °C, humidity 79 %, wind 17 km/h ESE",
        "{shenzhen}"
    );
    // Every known city answers, with plausible values that fit the schema.
    let schema = suite::output_schema(&client, "get_weather").await;
    let all = call(&client, "list_cities", json!({})).await;
    for city in all["structuredContent"]["cities"]
        .as_array()
        .expect("cities")
    {
        let name = city["name"].as_str().expect("name");
        let w = call(&client, "get_weather", json!({ "city": name })).await;
        let s = suite::assert_structured(&w, &schema);
        assert_eq!(s["observed_at"], CLOCK, "{name}");
        let t = s["temperature_c"].as_f64().expect("temperature");
        assert!((-45.0..=50.0).contains(&t), "{name}: {t}");
    }
    bounded(10, "close", client.close()).await;
}

#[test]
fn help_version_and_bad_flags() {
    let help = Command::new(BIN).arg("--help").output().expect("runs");
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--http",
        "--stateless",
        "--provider",
        "--provider-url",
        "--provider-timeout",
        "--clock",
        "--update-interval",
        "--log-level",
    ] {
        assert!(text.contains(flag), "{flag} missing from --help");
    }
    let version = Command::new(BIN).arg("--version").output().expect("runs");
    assert!(version.status.success());
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("weather-server {}", env!("CARGO_PKG_VERSION"))
    );
    for bad in [
        vec!["--bogus"],
        vec!["--provider", "weatherly"],
        vec!["--clock", "yesterday"],
        vec!["--provider-timeout", "0"],
        vec!["--update-interval", "-1"],
        vec!["--http", "not-an-address"],
        vec!["--log-level", "loud"],
        vec!["--http"],
    ] {
        let out = Command::new(BIN).args(&bad).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(out.stdout.is_empty(), "{bad:?}: stdout must stay clean");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("weather-server: "), "{bad:?}: {err}");
    }
}

#[test]
fn a_port_in_use_is_a_clear_failure() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = taken.local_addr().expect("addr").to_string();
    let out = Command::new(BIN)
        .args(["--http", &addr])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot bind") && err.contains(&addr), "{err}");
}

#[tokio::test]
async fn logs_go_to_stderr_only() {
    let client = stdio_client(&["--log-level", "debug"]).await;
    // A call works although the server logs at debug: stdout carries protocol messages only.
    let out = call(&client, "get_weather", json!({"city": "Paris"})).await;
    assert_ne!(out["isError"], json!(true), "{out}");
    bounded(10, "close", client.close()).await;
}

#[tokio::test]
async fn a_forecast_can_be_cancelled_between_days() {
    let client = stdio_client(&[]).await;
    let token = mcp_client::CancellationToken::new();
    let cancel = token.clone();
    let options = mcp_client::CallOptions::timeout(std::time::Duration::from_secs(20))
        .on_progress(move |_| cancel.cancel())
        .cancel_with(token);
    let out = bounded(
        20,
        "cancelled forecast",
        client.call_tool_with("get_forecast", json!({"city": "Lima", "days": 7}), options),
    )
    .await;
    assert!(
        matches!(
            out.as_ref()
                .err()
                .and_then(mcp_client::ClientError::peer_error),
            Some(mcp_client::PeerError::Cancelled { .. })
        ),
        "{out:?}"
    );
    // The session goes on.
    let after = call(&client, "get_forecast", json!({"city": "Lima", "days": 1})).await;
    assert_ne!(after["isError"], json!(true), "{after}");
    bounded(10, "close", client.close()).await;
}

/// The server's stdout, one JSON message per line, with a bound on every wait.
struct Wire {
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    _child: tokio::process::Child,
}

impl Wire {
    async fn start() -> Wire {
        let mut child = tokio::process::Command::new(BIN)
            .args(common::frozen_args(&[]))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the weather server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        use tokio::io::AsyncBufReadExt;
        Wire {
            stdin,
            lines: tokio::io::BufReader::new(stdout).lines(),
            _child: child,
        }
    }

    async fn send(&mut self, message: Value) {
        use tokio::io::AsyncWriteExt;
        let line = format!("{message}\n");
        self.stdin
            .write_all(line.as_bytes())
            .await
            .expect("write to the server");
    }

    /// The next message within `ms`, or `None` when nothing came.
    async fn next(&mut self, ms: u64) -> Option<Value> {
        let wait = std::time::Duration::from_millis(ms);
        match tokio::time::timeout(wait, self.lines.next_line()).await {
            Ok(Ok(Some(line))) => Some(serde_json::from_str(&line).expect("a JSON line")),
            Ok(other) => panic!("stdout ended: {other:?}"),
            Err(_) => None,
        }
    }

    /// Every message within the next `ms`.
    async fn collect(&mut self, ms: u64) -> Vec<Value> {
        let end = tokio::time::Instant::now() + std::time::Duration::from_millis(ms);
        let mut out = Vec::new();
        loop {
            let left = end.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return out;
            }
            match self.next(left.as_millis() as u64).await {
                Some(message) => out.push(message),
                None => return out,
            }
        }
    }

    /// Messages until the reply to `id` (within 10 s), which is returned last.
    async fn until_reply(&mut self, id: i64) -> Vec<Value> {
        let mut out = Vec::new();
        loop {
            let message = self.next(10_000).await.expect("a reply within 10 s");
            let done = message["id"] == json!(id);
            out.push(message);
            if done {
                return out;
            }
        }
    }
}

#[tokio::test]
async fn a_cancelled_watch_gets_no_reply_and_its_progress_stops() {
    let mut wire = Wire::start().await;
    wire.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "wire", "version": "0"}}}),
    )
    .await;
    wire.until_reply(1).await;
    wire.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    wire.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "watch_weather",
        "arguments": {"city": "Shenzhen", "durationMs": 60_000, "intervalMs": 50},
        "_meta": {"progressToken": "watch-1"}}}),
    )
    .await;
    // Wait for the watch to report twice, so it is surely under way.
    let mut progress = 0;
    while progress < 2 {
        let message = wire.next(10_000).await.expect("progress within 10 s");
        assert_ne!(message["id"], json!(2), "answered early: {message}");
        if message["method"] == "notifications/progress" {
            assert_eq!(message["params"]["progressToken"], "watch-1", "{message}");
            progress += 1;
        }
    }
    wire.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "test"}}),
    )
    .await;
    // What was already on its way may still come; after that, nothing for the watch.
    let draining = wire.collect(300).await;
    let later = wire.collect(1000).await;
    for message in draining.iter().chain(&later) {
        assert_ne!(message["id"], json!(2), "a reply after cancel: {message}");
    }
    assert!(
        later
            .iter()
            .all(|m| m["method"] != "notifications/progress"),
        "progress after cancel: {later:?}"
    );
    // The session goes on.
    wire.send(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await;
    let reply = wire.until_reply(3).await;
    assert_eq!(reply.last().map(|r| &r["result"]), Some(&json!({})));
}
