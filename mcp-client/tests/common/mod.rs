//! Helpers shared by the integration tests: where the interop peers and fixtures are, and a
//! bound on every wait.

#![allow(dead_code)]

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

/// Reads an interop variable; `None` (with a note) when unset, unless `MCP_INTEROP_REQUIRED=1`.
pub fn interop_var(name: &str) -> Option<PathBuf> {
    match std::env::var_os(name) {
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!(
                    "{name} is not set but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh"
                );
            }
            eprintln!("skipped: {name} is not set (eval \"$(scripts/interop-setup.sh)\")");
            None
        }
    }
}

/// The node_modules with the npm interop servers.
pub fn node_modules() -> Option<PathBuf> {
    interop_var("MCP_INTEROP_NODE_MODULES")
}

/// The venv python with the `mcp` package.
pub fn interop_python() -> Option<PathBuf> {
    interop_var("MCP_INTEROP_PYTHON")
}

/// A fixture script of this crate.
pub fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The python that runs the fault fixtures (they need only the standard library).
pub fn python() -> String {
    std::env::var("MCP_INTEROP_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Awaits `f`, failing the test if it takes longer than `secs` seconds.
pub async fn bounded<F: Future>(secs: u64, what: &str, f: F) -> F::Output {
    match tokio::time::timeout(Duration::from_secs(secs), f).await {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish within {secs}s"),
    }
}

/// Whether a process with this pid exists (zombies included).
pub fn process_exists(pid: i32) -> bool {
    match rustix::process::Pid::from_raw(pid) {
        Some(pid) => rustix::process::test_kill_process(pid).is_ok(),
        None => false,
    }
}

/// Waits up to `secs` for the process to be gone; true when it is.
pub async fn wait_process_gone(pid: i32, secs: u64) -> bool {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    while tokio::time::Instant::now() < deadline {
        if !process_exists(pid) || is_zombie(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// A zombie has ended; it only waits for its parent (or init) to reap it.
fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Reads a pid a fixture wrote to `path`, waiting up to `secs` for it to appear.
pub async fn read_pid(path: &std::path::Path, secs: u64) -> i32 {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            if let Ok(pid) = text.trim().parse() {
                return pid;
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no pid in {}",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A fresh temporary directory for one test.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcp-client-{tag}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}
