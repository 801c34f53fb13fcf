//! The `mcp-conformance` command line: listing, filters, formats, exit statuses.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
}

fn fixture() -> String {
    format!("{}/tests/fixtures/server.py", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn list_with_prefix_filters() {
    let out = bin()
        .args(["--list", "--only", "tools,ping", "--skip", "tools.names"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("tools.unknown-tool"));
    assert!(text.contains("ping.empty-result"));
    assert!(!text.contains("tools.names"));
    assert!(!text.contains("lifecycle."));
}

#[test]
fn http_and_sse_without_a_server_fail_cleanly() {
    // Nothing listens on port 9: every case fails (no MUST case can pass), nothing hangs.
    for kind in ["http", "sse"] {
        let out = bin()
            .args([
                "--only",
                "lifecycle.initialize",
                "--timeout",
                "2",
                kind,
                "http://127.0.0.1:9/mcp",
            ])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{kind}: {out:?}");
    }
    let out = bin()
        .args(["http", "ftp://127.0.0.1:9/mcp"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn usage_errors_exit_2() {
    let out = bin().args(["--format", "xml"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let out = bin().args(["stdio"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let out = bin()
        .args(["stdio", "--", "/nonexistent/mcp-server"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("could not start"));
}

#[test]
fn json_and_junit_reports_and_exit_status() {
    let fixture = fixture();
    let out = bin()
        .args([
            "--format",
            "json",
            "--only",
            "jsonrpc.parse-error,ping",
            "stdio",
            "--",
        ])
        .args(["python3", fixture.as_str(), "--broken", "no-parse-error"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "a MUST case failed");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    assert_eq!(report["summary"]["total"], 3);
    assert_eq!(report["summary"]["mustFailures"], 1);
    assert_eq!(report["cases"][0]["id"], "jsonrpc.parse-error");
    assert_eq!(report["cases"][0]["result"], "fail");

    let out = bin()
        .args([
            "--format",
            "junit",
            "--only",
            "ping",
            "stdio",
            "--",
            "python3",
            fixture.as_str(),
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let xml = String::from_utf8_lossy(&out.stdout);
    assert!(xml.starts_with("<?xml"));
    assert!(xml.contains("tests=\"2\" failures=\"0\""));
}

#[test]
fn table_has_no_colour_when_piped() {
    let fixture = fixture();
    let out = bin()
        .args(["--only", "ping", "stdio", "--", "python3", fixture.as_str()])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("PASS  MUST    ping.empty-result"));
    assert!(!text.contains('\u{1b}'));
}
