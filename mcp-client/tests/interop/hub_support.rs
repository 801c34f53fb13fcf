//! What the hub and CLI tests share: the `weather-server` binary (built on demand), Cline
//! configs around it, and a bound on every wait.
//!
//! An integration test of mcp-client cannot depend on another crate's binary, so the first
//! test that needs `weather-server` runs `cargo build -p weather-server` (same profile, same
//! target folder; bounded) when `target/<profile>/weather-server` is missing.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The frozen clock that makes weather-server's answers fixed.
pub const CLOCK: &str = "2026-08-02T07:00:00Z";

/// The folder the test's binaries are in: `target/<profile>`.
pub fn profile_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_mcp"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("target/debug"))
}

/// The `mcp` binary under test.
pub fn mcp_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcp"))
}

/// The `weather-server` binary, built once if missing.
pub fn weather_server() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let path = profile_dir().join("weather-server");
            if !path.exists() {
                build_weather_server(&path);
            }
            path
        })
        .clone()
}

fn build_weather_server(path: &Path) {
    let dir = profile_dir();
    let profile = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "debug".into());
    let target_dir = dir.parent().map(Path::to_path_buf).unwrap_or_default();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["build", "-p", "weather-server", "--target-dir"])
        .arg(&target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if profile != "debug" {
        command.args(["--profile", &profile]);
    }
    let mut child = command.spawn().expect("run cargo build -p weather-server");
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                assert!(status.success(), "cargo build -p weather-server failed");
                break;
            }
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(200)),
            _ => {
                let _ = child.kill();
                panic!("cargo build -p weather-server took over 10 minutes; build it first");
            }
        }
    }
    assert!(path.exists(), "{} missing after the build", path.display());
}

/// A Cline `mcpServers` entry running weather-server with the frozen clock.
pub fn weather_entry() -> serde_json::Value {
    serde_json::json!({
        "type": "stdio",
        "command": weather_server().to_string_lossy(),
        "args": ["--clock", CLOCK],
        "autoApprove": ["get_weather"]
    })
}

/// An entry whose command does not exist: it must fail alone.
pub fn broken_entry() -> serde_json::Value {
    serde_json::json!({ "command": "/nonexistent/mcp-server-that-is-not-there", "args": [] })
}

/// `@modelcontextprotocol/server-everything` over stdio, when the interop peers are set up.
pub fn everything_entry(modules: &Path) -> serde_json::Value {
    let entry = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    serde_json::json!({ "command": "node", "args": [entry.to_string_lossy(), "stdio"] })
}

/// `@modelcontextprotocol/server-filesystem` on `dir`.
pub fn filesystem_entry(modules: &Path, dir: &Path) -> serde_json::Value {
    let entry = modules.join("@modelcontextprotocol/server-filesystem/dist/index.js");
    serde_json::json!({ "command": "node", "args": [entry.to_string_lossy(), dir.to_string_lossy()] })
}

/// The FastMCP fixture server.
pub fn fastmcp_entry(python: &Path) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fastmcp_server.py");
    serde_json::json!({ "command": python.to_string_lossy(), "args": [script.to_string_lossy()] })
}

/// What one run of `mcp` did.
#[derive(Debug)]
pub struct Run {
    /// The exit status (-1 when killed by a signal).
    pub code: i32,
    /// Its stdout.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
}

/// A fresh, empty folder for one test.
pub fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcp-cli-{tag}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// `mcp` with an isolated environment: `HOME` and the working folder are `home` (so no real
/// user config is found) and the config variables are unset.
pub fn mcp_in(home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(mcp_bin());
    command
        .args(args)
        .current_dir(home)
        .env("HOME", home)
        .env_remove("MCP_CONFIG")
        .env_remove("CLINE_MCP_SETTINGS_PATH")
        .env_remove("CLINE_DATA_DIR")
        .env_remove("CLINE_DIR");
    command
}

/// Runs a command to its end (at most `secs` seconds) and collects its output.
pub fn run(mut command: Command, secs: u64) -> Run {
    use std::io::Read;
    command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("spawn mcp");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(secs);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                panic!("{command:?} did not finish within {secs}s");
            }
        }
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

/// Writes a Cline config with these servers into `dir` and returns its path.
pub fn write_config(dir: &Path, servers: serde_json::Value) -> PathBuf {
    let path = dir.join("mcp.json");
    let text = serde_json::json!({ "mcpServers": servers });
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&text).unwrap_or_default(),
    )
    .expect("write config");
    path
}
