//! The runner against this workspace's weather-server over stdio, Streamable HTTP
//! (`http://127.0.0.1:PORT/mcp`) and HTTP+SSE (`http://127.0.0.1:PORT/sse`): no case fails,
//! the slow-tool cases pass on its `watch_weather` fixture, the task cases on `climate_report`,
//! and the only skips are `completion.undeclared`, which does not apply to a server that
//! declares completions, `tasks.required-without-task` (no required-task tool),
//! `tools.dynamic-registration` (no tool that changes the tool list) and `unicode.round-trip`
//! (no non-ASCII name or URI, no `echo`; `conformance-server` covers both).
//!
//! The 2026-07-28 cases (`modern.*`) are skipped while weather-server does not answer a modern
//! `server/discover` on that transport; where it does, every one must pass, with `get_weather`
//! for the ambiguous "Springfield" as the input-request fixture. The stdio run must speak
//! 2026-07-28 (the dual-era core is on main); over HTTP the modern set joins once a modern POST
//! is served.

mod support;

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The skips expected on weather-server: the case for servers without completions, the one
/// for required-task tools (its one task tool, `climate_report`, is optional), and two that need
/// what a weather service has no use for: a tool that changes the tool list, and a non-ASCII
/// name or URI or an `echo` tool.
const EXPECTED_SKIPS: &[&str] = &[
    "completion.undeclared",
    "tasks.required-without-task",
    "tools.dynamic-registration",
    "unicode.round-trip",
];

/// The input-request (MRTR) fixture: weather-server asks which Springfield was meant.
const INPUT_TOOL: &str = r#"get_weather={"city":"Springfield"}"#;

/// The cases that need the slow-tool fixture (`watch_weather`): they must run and pass.
const FIXTURE_CASES: &[&str] = &[
    "cancellation.no-response",
    "progress.token-echo",
    "progress.integer-token",
    "progress.stops-after-response",
    "concurrency.slow-call-no-block",
];

fn profile_dir() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance"));
    exe.parent().map(Path::to_path_buf).unwrap_or_default()
}

fn weather_server() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let path = profile_dir().join("weather-server");
            if !path.exists() {
                let dir = profile_dir();
                let target_dir = dir.parent().map(Path::to_path_buf).unwrap_or_default();
                let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
                let mut child = Command::new(cargo)
                    .args(["build", "-p", "weather-server", "--target-dir"])
                    .arg(&target_dir)
                    .current_dir(env!("CARGO_MANIFEST_DIR"))
                    .spawn()
                    .expect("run cargo build -p weather-server");
                let deadline = Instant::now() + Duration::from_secs(600);
                loop {
                    if let Some(status) = child.try_wait().expect("wait for cargo") {
                        assert!(status.success(), "cargo build -p weather-server failed");
                        break;
                    }
                    if Instant::now() > deadline {
                        let _ = child.kill();
                        let _ = child.wait();
                        panic!("cargo build -p weather-server took over 600 s");
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
            }
            path
        })
        .clone()
}

/// weather-server --http on a free port; killed on drop.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start() -> Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(weather_server())
            .args(["--http", &format!("127.0.0.1:{port}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start weather-server --http");
        let mut server = Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("weather-server exited early: {status}");
            }
            assert!(Instant::now() < deadline, "weather-server did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the runner with `args` (bounded) and returns its exit status and JSON report.
fn run(args: &[&str]) -> (Option<i32>, Value) {
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    support::run_cli(&args, Duration::from_secs(300))
}

/// Checks a run: exit 0, nothing failed, only the expected skips; returns the case ids.
fn check(kind: &str, code: Option<i32>, report: &Value) -> Vec<String> {
    let cases = report["cases"].as_array().expect("cases");
    let modern = report["supportedVersions"].is_array();
    let mut ids = Vec::new();
    for case in cases {
        let id = case["id"].as_str().expect("id").to_owned();
        let skip_ok = match id.starts_with("modern.") {
            true => !modern,
            false => EXPECTED_SKIPS.contains(&id.as_str()),
        };
        match case["result"].as_str() {
            Some("pass") => {}
            Some("skip") => assert!(skip_ok, "{kind}: unexpected skip {case}"),
            other => panic!("{kind}: {id} ended {other:?}: {case}"),
        }
        ids.push(id);
    }
    assert_eq!(code, Some(0), "{kind}: {report}");
    ids
}

/// Checks that a full run included every fixture case (which `check` saw pass).
fn check_fixture_cases(kind: &str, ids: &[String]) {
    for id in FIXTURE_CASES {
        assert!(ids.iter().any(|i| i == id), "{kind}: {id} did not run");
    }
}

#[test]
fn weather_server_over_stdio_http_and_sse() {
    let server_path = weather_server();
    let stdio = server_path.to_string_lossy().into_owned();
    let (code, report) = run(&["--input-tool", INPUT_TOOL, "stdio", "--", &stdio]);
    assert_eq!(
        report["supportedVersions"][0], "2026-07-28",
        "stdio: {report}"
    );
    let stdio_ids = check("stdio", code, &report);
    assert!(stdio_ids.iter().any(|id| id == "modern.mrtr-round-trip"));
    check_fixture_cases("stdio", &stdio_ids);
    assert!(!stdio_ids
        .iter()
        .any(|id| id.starts_with("http.") || id.starts_with("sse.")));

    let server = Server::start();
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let (code, report) = run(&["--input-tool", INPUT_TOOL, "http", &url]);
    let http_ids = check("http", code, &report);
    check_fixture_cases("http", &http_ids);
    for id in [
        "http.session-id",
        "http.unknown-session",
        "http.delete",
        "http.bad-origin",
        "http.protocol-version",
        "jsonrpc.parse-error",
        "tools.call-result",
    ] {
        assert!(http_ids.iter().any(|i| i == id), "http run lacks {id}");
    }
    assert!(!http_ids.iter().any(|id| id.starts_with("sse.")));
    assert!(!http_ids
        .iter()
        .any(|id| id == "lifecycle.second-initialize"));

    let url = format!("http://127.0.0.1:{}/sse", server.port);
    let (code, report) = run(&["sse", &url]);
    let sse_ids = check("sse", code, &report);
    check_fixture_cases("sse", &sse_ids);
    for id in [
        "sse.endpoint-event",
        "sse.post-flow",
        "lifecycle.second-initialize",
    ] {
        assert!(sse_ids.iter().any(|i| i == id), "sse run lacks {id}");
    }
    assert!(!sse_ids.iter().any(|id| id.starts_with("http.")));
    assert!(!sse_ids.iter().any(|id| id.starts_with("modern.")));
}

#[test]
fn header_option_reaches_the_server() {
    // weather-server needs no auth; an extra header must not disturb anything.
    weather_server();
    let server = Server::start();
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let (code, report) = run(&[
        "--header",
        "X-Conformance: yes",
        "--only",
        "http.,lifecycle.initialize,tools.list",
        "http",
        &url,
    ]);
    check("http --header", code, &report);
}
