//! The runner against the servers of every SDK, each installed at a pinned version by
//! `scripts/interop-setup.sh`, over stdio and Streamable HTTP: server-everything (npm), a
//! TypeScript SDK v2 server, a Python SDK 2.x `MCPServer`, a FastMCP 4 server and an rmcp 3
//! server (the last four are `tests/peers/`). Each run must finish within 2 minutes and give
//! exactly the verdicts recorded in `tests/peers/expected.json`, the data behind the matrix of
//! `conformance/RESULTS.md` (every failure there is explained: the server's bug, with the spec
//! sentence).
//!
//! Every report is also written to `target/conformance-matrix/PEER.json`. With
//! `MCP_CONFORMANCE_RECORD=1` the runs write their verdicts into `expected.json` instead of
//! comparing (then read each new failure and decide whose bug it is before committing).
//!
//! Without the peers (`MCP_INTEROP_*` unset) the tests print a note and pass, unless
//! `MCP_INTEROP_REQUIRED=1`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use conformance::context::Config;
use conformance::driver::{Connector, HttpTarget, StdioTarget};
use conformance::runner::{self, Filter, RunReport};
use serde_json::{json, Value};

/// The bound on one whole run against one server.
const RUN_LIMIT: Duration = Duration::from_secs(120);

fn var(name: &str) -> Option<String> {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => Some(v),
        _ if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") => {
            panic!("{name} is not set and MCP_INTEROP_REQUIRED=1; run: eval \"$(scripts/interop-setup.sh)\"")
        }
        _ => {
            eprintln!("skipping: {name} is not set (run: eval \"$(scripts/interop-setup.sh)\")");
            None
        }
    }
}

fn peers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers")
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// A server process listening on HTTP, killed (with its process group) when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `program args` and waits for "LISTENING <port>" on its stdout, or, with `port` given
/// (servers that take a fixed port), for the port to accept connections.
fn start_http(
    program: &str,
    args: &[String],
    env: &[(String, String)],
    port: Option<u16>,
) -> HttpServer {
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        // Some servers log every request to stderr; the verdicts and reports say what matters.
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start {program}: {e}"));
    let deadline = Instant::now() + Duration::from_secs(60);
    let port = match port {
        Some(port) => {
            while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(
                    Instant::now() < deadline,
                    "{program} did not listen on {port}"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
            port
        }
        None => {
            let stdout = child.stdout.take().expect("piped stdout");
            let mut lines = BufReader::new(stdout).lines();
            let port: u16 = loop {
                let line = lines
                    .next()
                    .unwrap_or_else(|| panic!("{program} ended before it listened"))
                    .expect("a line");
                if let Some(p) = line.strip_prefix("LISTENING ") {
                    break p.trim().parse().expect("a port");
                }
            };
            // Some announce the port before their server accepts on it.
            while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(
                    Instant::now() < deadline,
                    "{program} did not listen on {port}"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
            port
        }
    };
    HttpServer {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// A port nobody listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Every case against `connector`, bounded by [`RUN_LIMIT`], with the measured timeouts.
fn run(connector: Arc<dyn Connector>) -> RunReport {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let started = Instant::now();
    let report = runtime
        .block_on(async {
            tokio::time::timeout(
                RUN_LIMIT,
                runner::run(
                    connector,
                    Config::default(),
                    &Filter::default(),
                    &conformance::cases::all(),
                ),
            )
            .await
        })
        .unwrap_or_else(|_| panic!("the run took over {RUN_LIMIT:?}"))
        .expect("the server starts");
    runtime.shutdown_timeout(Duration::from_secs(1));
    eprintln!("run finished in {:?}", started.elapsed());
    report
}

/// Serializes writes of the expectations file across the tests of this binary.
static RECORD: Mutex<()> = Mutex::new(());

/// Compares the verdicts of `report` with those recorded for `peer` (or records them).
fn check(peer: &str, report: &RunReport) {
    let table = conformance::report::table(report, false);
    println!("{peer}:\n{table}");
    let dir = repo_root().join("target/conformance-matrix");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(
        dir.join(format!("{peer}.json")),
        serde_json::to_string_pretty(&conformance::report::to_json(report)).unwrap_or_default(),
    );
    let got: BTreeMap<String, String> = report
        .cases
        .iter()
        .map(|c| (c.id.to_owned(), c.outcome.word().to_owned()))
        .collect();
    let path = peers_dir().join("expected.json");
    let _guard = RECORD.lock().unwrap_or_else(|p| p.into_inner());
    let mut all: BTreeMap<String, BTreeMap<String, String>> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    if std::env::var("MCP_CONFORMANCE_RECORD").as_deref() == Ok("1") {
        all.insert(peer.to_owned(), got);
        let text = serde_json::to_string_pretty(&json!(all)).expect("JSON");
        std::fs::write(&path, text + "\n").expect("write expected.json");
        return;
    }
    let expected = all
        .get(peer)
        .unwrap_or_else(|| panic!("no verdicts recorded for {peer} in {}", path.display()));
    let mut differences = Vec::new();
    for (id, verdict) in expected.iter() {
        match got.get(id) {
            Some(v) if v == verdict => {}
            Some(v) => differences.push(format!("{id}: expected {verdict}, got {v}")),
            None => differences.push(format!("{id}: expected {verdict}, did not run")),
        }
    }
    for id in got.keys().filter(|id| !expected.contains_key(*id)) {
        differences.push(format!("{id}: ran, but no verdict is recorded"));
    }
    assert!(
        differences.is_empty(),
        "{peer}: the verdicts differ from tests/peers/expected.json:\n  {}\n{table}",
        differences.join("\n  ")
    );
}

fn node_modules() -> Option<String> {
    var("MCP_INTEROP_NODE_MODULES")
}

fn everything_script(modules: &str) -> String {
    format!("{modules}/@modelcontextprotocol/server-everything/dist/index.js")
}

fn script(name: &str) -> String {
    peers_dir().join(name).to_string_lossy().into_owned()
}

fn stdio(program: &str, args: Vec<String>, env: Vec<(String, String)>) -> Arc<dyn Connector> {
    let mut target = StdioTarget::new(program, args);
    target.env = env;
    Arc::new(target)
}

fn http(url: &str) -> Arc<dyn Connector> {
    Arc::new(HttpTarget::new(url, &[]).expect("a URL"))
}

#[test]
fn server_everything_stdio() {
    let Some(modules) = node_modules() else {
        return;
    };
    let report = run(stdio(
        "node",
        vec![everything_script(&modules), "stdio".into()],
        vec![],
    ));
    check("server-everything-stdio", &report);
}

#[test]
fn server_everything_http() {
    let Some(modules) = node_modules() else {
        return;
    };
    let port = free_port();
    // It listens on every interface unless told otherwise; the preload binds it to loopback.
    let preload = repo_root().join("scripts/conformance/localhost-only.cjs");
    let server = start_http(
        "node",
        &[
            "--require".into(),
            preload.to_string_lossy().into_owned(),
            everything_script(&modules),
            "streamableHttp".into(),
        ],
        &[("PORT".into(), port.to_string())],
        Some(port),
    );
    let report = run(http(&server.url));
    check("server-everything-http", &report);
}

fn ts_env(modules: &str) -> Vec<(String, String)> {
    vec![("MCP_INTEROP_NODE_MODULES".into(), modules.into())]
}

#[test]
fn typescript_sdk_v2_stdio() {
    let Some(modules) = node_modules() else {
        return;
    };
    let report = run(stdio(
        "node",
        vec![script("ts_v2_server.cjs")],
        ts_env(&modules),
    ));
    check("ts-sdk-v2-stdio", &report);
}

#[test]
fn typescript_sdk_v2_http() {
    let Some(modules) = node_modules() else {
        return;
    };
    let server = start_http(
        "node",
        &[script("ts_v2_server.cjs"), "http".into()],
        &ts_env(&modules),
        None,
    );
    let report = run(http(&server.url));
    check("ts-sdk-v2-http", &report);
}

/// A Python peer (`tests/peers/SCRIPT`) run with the interpreter `$PYTHON_VAR`, over stdio or
/// over Streamable HTTP (`SCRIPT http`).
fn python_peer(python_var: &str, script_name: &str, peer: &str, over_http: bool) {
    let Some(python) = var(python_var) else {
        return;
    };
    let report = match over_http {
        false => run(stdio(&python, vec![script(script_name)], vec![])),
        true => {
            let server = start_http(&python, &[script(script_name), "http".into()], &[], None);
            run(http(&server.url))
        }
    };
    check(peer, &report);
}

#[test]
fn python_sdk_v2_stdio() {
    python_peer(
        "MCP_INTEROP_PYTHON2",
        "py2_server.py",
        "python-sdk-v2-stdio",
        false,
    );
}

#[test]
fn python_sdk_v2_http() {
    python_peer(
        "MCP_INTEROP_PYTHON2",
        "py2_server.py",
        "python-sdk-v2-http",
        true,
    );
}

#[test]
fn fastmcp4_stdio() {
    python_peer(
        "MCP_INTEROP_FASTMCP_PYTHON",
        "fastmcp4_server.py",
        "fastmcp4-stdio",
        false,
    );
}

#[test]
fn fastmcp4_http() {
    python_peer(
        "MCP_INTEROP_FASTMCP_PYTHON",
        "fastmcp4_server.py",
        "fastmcp4-http",
        true,
    );
}

#[test]
fn rmcp3_stdio() {
    let Some(server) = var("MCP_INTEROP_RMCP_SERVER") else {
        return;
    };
    let report = run(stdio(&server, vec![], vec![]));
    check("rmcp3-stdio", &report);
}

#[test]
fn rmcp3_http() {
    let Some(program) = var("MCP_INTEROP_RMCP_SERVER") else {
        return;
    };
    let server = start_http(&program, &["http".into()], &[], None);
    let report = run(http(&server.url));
    check("rmcp3-http", &report);
}

/// The verdict words the expectations file may hold.
#[test]
fn expectations_are_well_formed() {
    let path = peers_dir().join("expected.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let all: Value = serde_json::from_str(&text).expect("expected.json is JSON");
    for (peer, cases) in all.as_object().expect("an object of peers") {
        for (id, verdict) in cases.as_object().expect("an object of cases") {
            assert!(
                matches!(verdict.as_str(), Some("pass" | "fail" | "skip")),
                "{peer} {id}: {verdict}"
            );
        }
    }
}
