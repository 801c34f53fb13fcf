//! The runner's 2026-07-28 cases against `conformance-server --stdio`, the official suite's
//! fixture server on mcp-server's dual-era core: every modern case passes, the input-request
//! (MRTR) cases on each of its input fixtures, and `modern.listen` with its list-change trigger.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

fn server() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance"));
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    dir.join("conformance-server")
}

/// `mcp-conformance --format json --only modern --input-tool TOOL stdio -- conformance-server
/// --stdio`, bounded; its exit status and report.
fn run(input_tool: &str) -> (Option<i32>, Value) {
    let server = server();
    assert!(
        server.exists(),
        "{} is built with the tests",
        server.display()
    );
    let child = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .args([
            "--format",
            "json",
            "--only",
            "modern",
            "--input-tool",
            input_tool,
        ])
        .arg("stdio")
        .arg("--")
        .arg(&server)
        .arg("--stdio")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mcp-conformance");
    let pid = child.id();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let out = child.wait_with_output();
        let _ = done_tx.send(());
        out
    });
    if done_rx.recv_timeout(Duration::from_secs(180)).is_err() {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        panic!("mcp-conformance took over 180 s");
    }
    let out = waiter.join().expect("waiter").expect("output");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), report)
}

#[test]
fn every_modern_case_passes_on_each_input_fixture() {
    for tool in [
        "test_input_required_result_elicitation",
        "test_input_required_result_multi_round",
        "test_input_required_result_multiple_inputs",
    ] {
        let (code, report) = run(tool);
        assert_eq!(report["supportedVersions"][0], "2026-07-28", "{report}");
        let cases = report["cases"].as_array().expect("cases");
        assert!(cases.len() >= 15, "{tool}: {report}");
        for case in cases {
            assert_eq!(case["result"], "pass", "{tool}: {case}");
        }
        assert_eq!(code, Some(0), "{tool}: {report}");
    }
}
