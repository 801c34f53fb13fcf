//! The official TypeScript SDK v1 (1.32.2) client's experimental tasks against
//! `conformance-server --stdio`: a task-augmented call streamed to its result, input asked for
//! from inside a task (answered over `tasks/result`), `getTask`, `listTasks`, `cancelTask`.
//! The peer comes from `scripts/interop-setup.sh`; without it the test skips, unless
//! `MCP_INTEROP_REQUIRED=1`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn node_modules() -> Option<PathBuf> {
    match std::env::var_os("MCP_INTEROP_NODE_MODULES") {
        Some(path) if Path::new(&path).exists() => Some(PathBuf::from(path)),
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!("MCP_INTEROP_NODE_MODULES is not set but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh");
            }
            eprintln!("skipped: MCP_INTEROP_NODE_MODULES is not set; run `eval \"$(scripts/interop-setup.sh)\"`");
            None
        }
    }
}

#[test]
fn typescript_sdk_client_runs_tasks() {
    let Some(node_modules) = node_modules() else {
        return;
    };
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance"));
    let server = exe
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
        .join("conformance-server");
    assert!(
        server.exists(),
        "{} is built with the tests",
        server.display()
    );
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/ts_tasks_client.mjs");
    let mut child = Command::new("node")
        .arg(driver)
        .arg(node_modules)
        .arg(server)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().expect("wait for node").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the TypeScript driver did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("node output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.starts_with("OK"),
        "driver failed ({}):\nstdout: {stdout}\nstderr: {stderr}",
        output.status
    );
    eprintln!("{}", stdout.trim());
}
