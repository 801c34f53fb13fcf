//! What `mcp proxy` tells about the calls it forwards: the `--log-calls` audit log (one JSON
//! line per call: sizes, never contents unless asked), and, with the `otlp` feature, one
//! connected OpenTelemetry trace for one `mcp call` through the proxy into weather-server,
//! checked against a minimal OTLP/HTTP receiver in this test that decodes what arrives.

mod common;

use std::path::Path;

use common::{mcp_in, run, scratch, weather_entry, write_config};
use serde_json::{json, Value};

/// An outer config whose one server, `hub`, is `mcp proxy` over an inner config with
/// weather-server, the proxy run with `proxy_args`.
fn proxy_config(home: &Path, proxy_args: &[&str]) -> std::path::PathBuf {
    #[cfg(feature = "otlp")]
    otlp::weather_server_with_otlp();
    let inner_dir = home.join("inner");
    std::fs::create_dir_all(&inner_dir).expect("mkdir");
    let inner = write_config(&inner_dir, json!({ "weather": weather_entry() }));
    let mut args = vec![
        "--config".to_owned(),
        inner.to_string_lossy().into_owned(),
        "proxy".to_owned(),
    ];
    args.extend(proxy_args.iter().map(|a| (*a).to_owned()));
    write_config(
        home,
        json!({ "hub": { "type": "stdio", "command": common::mcp_bin().to_string_lossy(), "args": args } }),
    )
}

/// `mcp --config CONFIG call hub__weather__get_weather {"city":"Shenzhen"}` in `home`.
fn call_weather(home: &Path, config: &str) -> std::process::Command {
    mcp_in(
        home,
        &[
            "--config",
            config,
            "call",
            "hub__weather__get_weather",
            r#"{"city":"Shenzhen"}"#,
        ],
    )
}

#[test]
fn log_calls_writes_one_line_per_call_without_contents() {
    let home = scratch("log-calls");
    let log = home.join("calls.jsonl");
    let log_arg = log.to_string_lossy().into_owned();
    let config = proxy_config(&home, &["--log-calls", &log_arg]);
    let config_arg = config.to_string_lossy().into_owned();
    let out = run(call_weather(&home, &config_arg), 60);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("thunderstorms"), "{out:?}");
    // The proxy has exited with `mcp call`; its writer flushed each line as it went.
    let text = std::fs::read_to_string(&log).expect("the call log exists");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    let line = &lines[0];
    assert_eq!(line["server"], "weather", "{line}");
    assert_eq!(line["tool"], "get_weather", "{line}");
    assert_eq!(line["called"], "weather__get_weather", "{line}");
    assert_eq!(line["outcome"], "ok", "{line}");
    assert_eq!(line["argument_bytes"], 19, "{line}");
    assert!(
        line["result_bytes"].as_u64().is_some_and(|n| n > 20),
        "{line}"
    );
    assert!(
        line["duration_ms"].as_f64().is_some_and(|d| d > 0.0),
        "{line}"
    );
    assert!(
        line["time"].as_str().is_some_and(|t| t.ends_with('Z')),
        "{line}"
    );
    assert!(
        line["client"].as_str().is_some_and(|c| !c.is_empty()),
        "{line}"
    );
    assert!(
        line.get("arguments").is_none() && line.get("result").is_none(),
        "{line}"
    );
    assert!(
        !text.contains("Shenzhen"),
        "no contents unless asked: {text}"
    );
}

#[cfg(feature = "otlp")]
mod otlp {
    use std::collections::{BTreeSet, HashMap};
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use super::*;

    /// A minimal OTLP/HTTP receiver: every POST body (JSON) is kept; every answer is `{}`.
    fn receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let kept = bodies.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = kept.clone();
                std::thread::spawn(move || {
                    let mut writer = stream.try_clone().expect("clone");
                    let mut reader = BufReader::new(stream);
                    // Keep-alive: requests follow one another on the connection.
                    loop {
                        let mut length = 0usize;
                        let mut first = true;
                        loop {
                            let mut line = String::new();
                            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                                return;
                            }
                            if first {
                                assert!(line.starts_with("POST /v1/traces "), "{line}");
                                first = false;
                            }
                            let line = line.trim_end();
                            if line.is_empty() {
                                break;
                            }
                            if let Some((name, value)) = line.split_once(':') {
                                if name.eq_ignore_ascii_case("content-length") {
                                    length = value.trim().parse().expect("length");
                                }
                            }
                        }
                        let mut body = vec![0; length];
                        reader.read_exact(&mut body).expect("body");
                        let value: Value = serde_json::from_slice(&body).expect("OTLP JSON");
                        kept.lock().expect("lock").push(value);
                        let _ = writer.write_all(
                            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
                        );
                    }
                });
            }
        });
        (format!("http://{addr}"), bodies)
    }

    /// One decoded span.
    #[derive(Debug, Clone)]
    struct Span {
        service: String,
        name: String,
        kind: i64,
        trace: String,
        id: String,
        parent: String,
    }

    fn spans(bodies: &[Value]) -> Vec<Span> {
        let mut out = Vec::new();
        for body in bodies {
            for rs in body["resourceSpans"].as_array().into_iter().flatten() {
                let service = rs["resource"]["attributes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|a| a["key"] == "service.name")
                    .and_then(|a| a["value"]["stringValue"].as_str())
                    .unwrap_or_default()
                    .to_owned();
                for ss in rs["scopeSpans"].as_array().into_iter().flatten() {
                    for s in ss["spans"].as_array().into_iter().flatten() {
                        out.push(Span {
                            service: service.clone(),
                            name: s["name"].as_str().unwrap_or_default().to_owned(),
                            kind: s["kind"].as_i64().unwrap_or(-1),
                            trace: s["traceId"].as_str().unwrap_or_default().to_owned(),
                            id: s["spanId"].as_str().unwrap_or_default().to_owned(),
                            parent: s["parentSpanId"].as_str().unwrap_or_default().to_owned(),
                        });
                    }
                }
            }
        }
        out
    }

    /// weather-server built with the `otlp` feature, next to `mcp` (the binary is the same
    /// without the exporter's environment variables set); once per run, before any test of
    /// this file could build it without the feature.
    pub(super) fn weather_server_with_otlp() {
        static BUILT: std::sync::Once = std::sync::Once::new();
        BUILT.call_once(build_weather_server_with_otlp);
    }

    fn build_weather_server_with_otlp() {
        let target = common::mcp_bin()
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .expect("target dir");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args([
                "build",
                "-p",
                "weather-server",
                "--features",
                "otlp",
                "--target-dir",
            ])
            .arg(&target)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo build");
        assert!(
            status.success(),
            "cargo build -p weather-server --features otlp"
        );
    }

    #[test]
    fn one_call_through_the_proxy_is_one_connected_trace() {
        let (endpoint, bodies) = receiver();
        let home = scratch("otlp-trace");
        let config = proxy_config(&home, &[]);
        let config_arg = config.to_string_lossy().into_owned();
        let mut command = call_weather(&home, &config_arg);
        command
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)
            .env_remove("OTEL_SERVICE_NAME")
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
        let out = run(command, 60);
        assert_eq!(out.code, 0, "{out:?}");

        // Every process flushes its spans as it exits; the proxy and weather-server end just
        // after `mcp call`.
        let deadline = Instant::now() + Duration::from_secs(20);
        let (trace, all) = loop {
            let all = spans(&bodies.lock().expect("lock"));
            let served = all.iter().find(|s| {
                s.service == "weather-server" && s.name == "tools/call get_weather" && s.kind == 2
            });
            if let Some(served) = served {
                let trace = served.trace.clone();
                let services: BTreeSet<&str> = all
                    .iter()
                    .filter(|s| s.trace == trace)
                    .map(|s| s.service.as_str())
                    .collect();
                if services.len() == 3 {
                    break (trace, all);
                }
            }
            assert!(
                Instant::now() < deadline,
                "no complete trace arrived within 20 s: {all:#?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        let in_trace: Vec<&Span> = all.iter().filter(|s| s.trace == trace).collect();
        let services: BTreeSet<&str> = in_trace.iter().map(|s| s.service.as_str()).collect();
        assert_eq!(
            services,
            BTreeSet::from(["mcp", "mcp-proxy", "weather-server"]),
            "{in_trace:#?}"
        );
        // One root (`mcp call`); every other span's parent is a span of the same trace.
        let ids: HashMap<&str, &Span> = in_trace.iter().map(|s| (s.id.as_str(), *s)).collect();
        let roots: Vec<&&Span> = in_trace.iter().filter(|s| s.parent.is_empty()).collect();
        assert_eq!(roots.len(), 1, "{in_trace:#?}");
        assert_eq!(roots[0].name, "mcp call");
        for span in &in_trace {
            assert!(
                span.parent.is_empty() || ids.contains_key(span.parent.as_str()),
                "span {span:?} has a parent outside the trace: {in_trace:#?}"
            );
        }
        // The chain of the call itself, from weather-server up to the root.
        let mut chain = Vec::new();
        let mut at = in_trace
            .iter()
            .find(|s| s.service == "weather-server" && s.name == "tools/call get_weather")
            .copied();
        while let Some(span) = at {
            chain.push(format!("{} {}", span.service, span.name));
            at = ids.get(span.parent.as_str()).copied();
        }
        assert_eq!(
            chain,
            [
                "weather-server tools/call get_weather",
                "mcp-proxy tools/call get_weather",
                "mcp-proxy execute_tool weather__get_weather",
                "mcp-proxy tools/call weather__get_weather",
                "mcp tools/call weather__get_weather",
                "mcp execute_tool hub__weather__get_weather",
                "mcp mcp call",
            ],
            "{in_trace:#?}"
        );
    }
}
