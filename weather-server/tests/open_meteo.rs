//! The Open-Meteo provider against a local stub on 127.0.0.1: a good answer, malformed JSON,
//! an HTTP error, a server that never answers (`--provider-timeout 1`), and no server at all.

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::suite::{self, assert_structured, call, output_schema};
use common::{bounded, first_text, free_port, json_of, stdio_client};
use mcp_client::{CallOptions, Client};
use serde_json::{json, Value};

/// How the stub answers.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Open-Meteo-shaped JSON.
    Good,
    /// A 200 with a body that is not the JSON Open-Meteo sends.
    Malformed,
    /// HTTP 500.
    Failing,
    /// Reads the request and never answers (until the stub stops).
    Hang,
}

/// A tiny HTTP/1.1 server on a std thread: one request per connection.
struct Stub {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Stub {
    fn start(mode: Mode) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the stub");
        let port = listener.local_addr().expect("addr").port();
        listener.set_nonblocking(true).expect("nonblocking");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen, stopped) = (requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            // At most a minute of polling, whatever the test does.
            let deadline = Instant::now() + Duration::from_secs(60);
            while !stopped.load(Ordering::Relaxed) && Instant::now() < deadline {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (seen, stopped) = (seen.clone(), stopped.clone());
                        std::thread::spawn(move || serve(stream, mode, &seen, &stopped));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Stub {
            port,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn requests(&self) -> Vec<String> {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads one request head and answers it as `mode` says.
fn serve(mut stream: TcpStream, mode: Mode, seen: &Mutex<Vec<String>>, stop: &AtomicBool) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let target = head
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    seen.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(target.clone());
    let (status, body) = match mode {
        Mode::Hang => {
            // Hold the connection open without a word, for at most 10 s.
            for _ in 0..200 {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            return;
        }
        Mode::Failing => ("500 Internal Server Error", r#"{"error":true}"#.to_owned()),
        Mode::Malformed => (
            "200 OK",
            r#"{"current": {"time": "2026-08-02T07:00", "temperature_2m": "#.to_owned(),
        ),
        Mode::Good if target.starts_with("/v1/forecast?") => {
            ("200 OK", answer(&target).to_string())
        }
        Mode::Good => ("404 Not Found", "{}".to_owned()),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
}

/// Open-Meteo's answer to a `current=` or a `daily=` query.
fn answer(target: &str) -> Value {
    let query = target.split_once('?').map(|(_, q)| q).unwrap_or_default();
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
            .unwrap_or_default()
            .to_owned()
    };
    let base = json!({
        "latitude": param("latitude").parse::<f64>().unwrap_or(0.0),
        "longitude": param("longitude").parse::<f64>().unwrap_or(0.0),
        "generationtime_ms": 0.05,
        "utc_offset_seconds": 0,
        "timezone": "GMT",
        "timezone_abbreviation": "GMT",
        "elevation": 10.0,
    });
    let mut out = base.as_object().cloned().unwrap_or_default();
    if query.contains("current=") {
        out.insert(
            "current_units".into(),
            json!({"time": "iso8601", "interval": "seconds", "temperature_2m": "°C"}),
        );
        out.insert(
            "current".into(),
            json!({
                "time": "2026-08-02T07:00",
                "interval": 900,
                "temperature_2m": 31.26,
                "relative_humidity_2m": 78,
                "weather_code": 95,
                "wind_speed_10m": 12.4,
                "wind_direction_10m": 135,
                "is_day": 1
            }),
        );
    }
    if query.contains("daily=") {
        let days: usize = param("forecast_days").parse().unwrap_or(7);
        let dates: Vec<String> = (0..days).map(|d| format!("2026-08-{:02}", 2 + d)).collect();
        let codes = [95, 61, 3, 0, 2, 45, 71];
        let chances = [
            json!(90),
            json!(60),
            json!(20),
            json!(0),
            json!(null),
            json!(10),
            json!(80),
        ];
        out.insert(
            "daily".into(),
            json!({
                "time": dates,
                "temperature_2m_max": (0..days).map(|d| 33.0 - d as f64 * 0.5).collect::<Vec<_>>(),
                "temperature_2m_min": (0..days).map(|d| 26.0 + d as f64 * 0.1).collect::<Vec<_>>(),
                "weather_code": codes[..days].to_vec(),
                "precipitation_probability_max": chances[..days].to_vec(),
            }),
        );
    }
    Value::Object(out)
}

async fn client_for(stub: &Stub, extra: &[&str]) -> Client {
    let url = stub.url();
    let mut args = vec!["--provider", "open-meteo", "--provider-url", &url];
    args.extend_from_slice(extra);
    stdio_client(&args).await
}

#[tokio::test]
async fn a_good_answer_becomes_weather_and_forecast() {
    let stub = Stub::start(Mode::Good);
    let client = client_for(&stub, &[]).await;
    // With the network provider the weather tools talk to an open world.
    suite::check_tool_list(&client, true).await;

    let schema = output_schema(&client, "get_weather").await;
    let weather = call(&client, "get_weather", json!({"city": "Shenzhen"})).await;
    assert_eq!(
        first_text(&weather),
        "Shenzhen: thunderstorms, 31.3 °C, humidity 78 %, wind 12 km/h SE"
    );
    let s = assert_structured(&weather, &schema);
    assert_eq!(s["observed_at"], "2026-08-02T07:00:00Z");
    let asked = stub.requests();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].starts_with("/v1/forecast?latitude=22.54&longitude=114.06&current="),
        "{asked:?}"
    );

    // The forecast: every day of the answer, a null chance read as 0, progress per day.
    let schema = output_schema(&client, "get_forecast").await;
    let progress = Arc::new(Mutex::new(Vec::new()));
    let sink = progress.clone();
    let options = CallOptions::timeout(Duration::from_secs(20)).on_progress(move |p| {
        sink.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((p.progress, p.total))
    });
    let forecast = bounded(
        20,
        "get_forecast",
        client.call_tool_with(
            "get_forecast",
            json!({"city": "Shenzhen", "days": 5}),
            options,
        ),
    )
    .await
    .expect("get_forecast");
    let forecast = json_of(&forecast);
    let s = assert_structured(&forecast, &schema);
    assert_eq!(
        s["days"],
        json!([
            {"date": "2026-08-02", "min_c": 26.0, "max_c": 33.0, "condition": "thunderstorms", "precipitation_chance_pct": 90},
            {"date": "2026-08-03", "min_c": 26.1, "max_c": 32.5, "condition": "rain", "precipitation_chance_pct": 60},
            {"date": "2026-08-04", "min_c": 26.2, "max_c": 32.0, "condition": "cloudy", "precipitation_chance_pct": 20},
            {"date": "2026-08-05", "min_c": 26.3, "max_c": 31.5, "condition": "sunny", "precipitation_chance_pct": 0},
            {"date": "2026-08-06", "min_c": 26.4, "max_c": 31.0, "condition": "partly cloudy", "precipitation_chance_pct": 0}
        ])
    );
    let progress = progress.lock().unwrap_or_else(|e| e.into_inner()).clone();
    assert_eq!(
        progress,
        (1..=5)
            .map(|d| (f64::from(d), Some(5.0)))
            .collect::<Vec<_>>()
    );
    assert!(
        stub.requests()
            .iter()
            .any(|r| r.contains("daily=") && r.contains("forecast_days=5")),
        "{:?}",
        stub.requests()
    );

    // A watch asks the provider once per sample.
    let before = stub.requests().len();
    let schema = output_schema(&client, "watch_weather").await;
    let watch = call(
        &client,
        "watch_weather",
        json!({"city": "Shenzhen", "durationMs": 100, "intervalMs": 50}),
    )
    .await;
    let s = assert_structured(&watch, &schema);
    assert_eq!(s["samples"], json!(3), "{s}");
    assert_eq!(
        (&s["min_c"], &s["max_c"]),
        (&json!(31.3), &json!(31.3)),
        "{s}"
    );
    assert_eq!(stub.requests().len(), before + 3, "{:?}", stub.requests());

    // The template reads through the provider too.
    let current = suite::read(&client, "weather://current/shenzhen").await;
    let data: Value = serde_json::from_str(current["text"].as_str().expect("text")).expect("json");
    assert_eq!(data, weather["structuredContent"]);
    bounded(10, "close", client.close()).await;
}

#[tokio::test]
async fn malformed_json_is_a_tool_error_not_a_crash() {
    let stub = Stub::start(Mode::Malformed);
    let client = client_for(&stub, &[]).await;
    for (tool, args) in [
        ("get_weather", json!({"city": "Paris"})),
        ("get_forecast", json!({"city": "Paris", "days": 2})),
    ] {
        let out = call(&client, tool, args).await;
        assert_eq!(out["isError"], json!(true), "{out}");
        let text = first_text(&out);
        assert!(
            text.contains("Paris") && text.contains("could not be read"),
            "{text}"
        );
    }
    let error = bounded(20, "read", client.read_resource("weather://current/paris"))
        .await
        .expect_err("the resource cannot be read");
    assert!(error.rpc_error().is_some(), "{error}");
    // The server is still there.
    let cities = call(&client, "list_cities", json!({"query": "france"})).await;
    assert_ne!(cities["isError"], json!(true), "{cities}");
    bounded(10, "close", client.close()).await;
}

#[tokio::test]
async fn an_http_error_status_is_reported() {
    let stub = Stub::start(Mode::Failing);
    let client = client_for(&stub, &[]).await;
    let out = call(&client, "get_weather", json!({"city": "Lima"})).await;
    assert_eq!(out["isError"], json!(true), "{out}");
    assert!(first_text(&out).contains("HTTP 500"), "{out}");
    // A watch whose every sample fails is a tool error saying why.
    let out = call(
        &client,
        "watch_weather",
        json!({"city": "Lima", "durationMs": 60, "intervalMs": 30}),
    )
    .await;
    assert_eq!(out["isError"], json!(true), "{out}");
    let text = first_text(&out);
    assert!(
        text.contains("whole watch (3 samples failed)") && text.contains("HTTP 500"),
        "{text}"
    );
    bounded(10, "close", client.close()).await;
}

#[tokio::test]
async fn a_silent_provider_times_out() {
    let stub = Stub::start(Mode::Hang);
    let client = client_for(&stub, &["--provider-timeout", "1"]).await;
    let started = Instant::now();
    let out = call(&client, "get_weather", json!({"city": "Oslo"})).await;
    let took = started.elapsed();
    assert_eq!(out["isError"], json!(true), "{out}");
    assert!(
        first_text(&out).contains("did not answer within 1 s"),
        "{out}"
    );
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        "{took:?}"
    );
    let out = call(&client, "get_forecast", json!({"city": "Oslo"})).await;
    assert_eq!(out["isError"], json!(true), "{out}");
    bounded(10, "close", client.close()).await;
}

#[tokio::test]
async fn no_provider_at_all_is_unreachable() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let client = stdio_client(&["--provider", "open-meteo", "--provider-url", &url]).await;
    let out = call(&client, "get_weather", json!({"city": "Cairo"})).await;
    assert_eq!(out["isError"], json!(true), "{out}");
    assert!(first_text(&out).contains("unreachable"), "{out}");
    bounded(10, "close", client.close()).await;
}
