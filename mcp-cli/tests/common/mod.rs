//! What the CLI tests share: the `mcp` binary under test and isolated runs of it, plus, from
//! mcp-client's tests (one copy for both crates), the `weather-server` binary, config entries
//! for the servers the tests run, and where the interop peers are.

#![allow(dead_code, unused_imports)]

#[path = "../../../mcp-client/tests/interop/hub_support.rs"]
mod hub_support;
#[path = "../../../mcp-client/tests/common/mod.rs"]
mod peers;
pub mod ui;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub use hub_support::{broken_entry, everything_entry, weather_entry, weather_server, CLOCK};
pub use peers::{bounded, node_modules};

/// The `mcp` binary under test.
pub fn mcp_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcp"))
}

/// `mcp --config CONFIG proxy` as a stdio server, run in `home` (also its `HOME`).
pub fn proxy_stdio(home: &Path, config: &Path) -> mcp_client::StdioServerConfig {
    mcp_client::StdioServerConfig::new(
        mcp_bin().to_string_lossy(),
        [
            "--config".to_owned(),
            config.to_string_lossy().into_owned(),
            "proxy".to_owned(),
        ],
    )
    .with_cwd(home)
    .with_env("HOME", home.to_string_lossy())
}

/// `mcp --config CONFIG proxy --http 127.0.0.1:0` started in `home`, with the URL it printed
/// (`None` when it printed none within 90 s). Stop it with [`stop_proxy`].
pub fn spawn_http_proxy(home: &Path, config: &str) -> (std::process::Child, Option<String>) {
    use std::io::BufRead;
    let mut proxy = Command::new(mcp_bin())
        .args(["--config", config, "proxy", "--http", "127.0.0.1:0"])
        .current_dir(home)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the proxy");
    let stderr = proxy.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if let Some(rest) = line.split("Streamable HTTP at ").nth(1) {
                let url = rest
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                let _ = tx.send(url);
            }
        }
    });
    let url = rx.recv_timeout(Duration::from_secs(90)).ok();
    (proxy, url)
}

/// Stops a proxy from [`spawn_http_proxy`] with SIGTERM (it closes its servers, their process
/// groups, first), killing it after 20 s; its exit status, `None` when it had to be killed.
pub fn stop_proxy(mut proxy: std::process::Child) -> Option<std::process::ExitStatus> {
    if let Some(pid) = rustix::process::Pid::from_raw(proxy.id() as i32) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match proxy.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = proxy.kill();
                return None;
            }
        }
    }
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
    peers::temp_dir(&format!("cli-{tag}"))
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
