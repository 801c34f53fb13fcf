//! What the weather-server integration tests share: the built binary with the frozen clock, a
//! client over stdio, an HTTP server child on a free port (killed on drop), JSON views of
//! results, schema validation, a bound on every wait, and (`cluster`) replicas behind nginx.

#![allow(dead_code)]

pub mod cluster;
pub mod suite;

use std::future::Future;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::Stdio;
use std::time::Duration;

use mcp_client::{Client, ClientOptions, StdioServerConfig};
use serde::Serialize;
use serde_json::Value;
use tokio::process::{Child, Command};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_weather-server");
/// The frozen clock every test runs on: 15:00 in Shenzhen, with thunderstorms.
pub const CLOCK: &str = "2026-08-02T07:00:00Z";
/// What `get_weather` says about Shenzhen at [`CLOCK`].
pub const SHENZHEN_PREFIX: &str = "Shenzhen: thunderstorms, 34.3 °C";

/// Awaits `f`, failing the test if it takes longer than `secs` seconds.
pub async fn bounded<F: Future>(secs: u64, what: &str, f: F) -> F::Output {
    match tokio::time::timeout(Duration::from_secs(secs), f).await {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish within {secs}s"),
    }
}

/// The arguments that freeze the clock, followed by `extra`.
pub fn frozen_args(extra: &[&str]) -> Vec<String> {
    ["--clock", CLOCK]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

/// Starts the server over stdio with the frozen clock and `extra` arguments.
pub async fn stdio_client(extra: &[&str]) -> Client {
    let config = StdioServerConfig::new(BIN, frozen_args(extra));
    // The suite checks the 2025 era (sessions, logging/setLevel); pin it.
    let options = ClientOptions::new()
        .with_request_timeout(Duration::from_secs(20))
        .with_negotiation(mcp_client::Negotiation::Legacy);
    bounded(20, "stdio connect", Client::spawn_stdio(config, options))
        .await
        .expect("the weather server starts over stdio")
}

/// Any serializable value as JSON.
pub fn json_of(value: &impl Serialize) -> Value {
    serde_json::to_value(value).expect("serializes")
}

/// The text of the first content block of a tool result (as JSON).
pub fn first_text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {result}"))
        .to_owned()
}

/// Checks `instance` against the JSON Schema `schema`, failing with every error.
pub fn assert_valid(schema: &Value, instance: &Value) {
    let validator = jsonschema::validator_for(schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "{instance} does not match {schema}: {errors:?}"
    );
}

/// A port nobody listens on right now: bind port 0, read it, let it go.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local addr").port()
}

/// A weather server child serving HTTP on 127.0.0.1; killed when dropped.
pub struct HttpServer {
    pub port: u16,
    child: Child,
}

impl HttpServer {
    /// Starts `weather-server --clock CLOCK --http 127.0.0.1:PORT extra...` and waits until the
    /// port accepts connections.
    pub async fn start(extra: &[&str]) -> HttpServer {
        // Another process may take the free port between our probe and the child's bind;
        // try a few ports before giving up.
        for _ in 0..5 {
            let port = free_port();
            let addr = format!("127.0.0.1:{port}");
            let mut args = frozen_args(&["--http", &addr]);
            args.extend(extra.iter().map(|s| s.to_string()));
            let mut child = spawn_server(&args);
            if wait_for_port(port, &mut child).await {
                return HttpServer { port, child };
            }
            let _ = child.kill().await;
        }
        panic!("the weather server did not accept connections on any of 5 ports");
    }

    /// A URL on this server, e.g. `url("/mcp")`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Kills the server and waits for it.
    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// Starts the weather server with `args` (stdout discarded, stderr shown); killed on drop.
pub fn spawn_server(args: &[String]) -> Child {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("the weather server starts")
}

/// Polls `port` every 50 ms for up to 10 s; false when the child exited or time ran out.
async fn wait_for_port(port: u16, child: &mut Child) -> bool {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    for _ in 0..200 {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return true;
        }
        if let Ok(Some(_)) = child.try_wait() {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// The interop peers' `node_modules` (from `scripts/interop-setup.sh`) when it holds `package`;
/// `None` skips the test, unless `MCP_INTEROP_REQUIRED=1`, which fails it instead.
pub fn node_modules_with(package: &str) -> Option<std::path::PathBuf> {
    use std::path::Path;
    match std::env::var_os("MCP_INTEROP_NODE_MODULES") {
        Some(path) if Path::new(&path).join(package).exists() => Some(path.into()),
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!("{package} is not installed but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh");
            }
            eprintln!("skipped: MCP_INTEROP_NODE_MODULES has no {package}; run `eval \"$(scripts/interop-setup.sh)\"` to enable");
            None
        }
    }
}

/// Runs the node driver `tests/interop/<script>` with `node_modules` and `args`, and returns
/// what it printed after checking it exited 0 and printed `expect` first.
pub async fn drive_node(
    script: &str,
    node_modules: &std::path::Path,
    args: &[&str],
    expect: &str,
) -> String {
    let driver = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(script);
    let mut command = Command::new("node");
    command
        .arg(driver)
        .arg(node_modules)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let output = bounded(60, script, command.output())
        .await
        .expect("node starts");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.starts_with(expect),
        "driver failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
        output.status
    );
    eprintln!("{}", stdout.trim());
    stdout
}
