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
    // Nothing listens on port 9: the run ends at once, nothing hangs.
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
        // Nothing answers: the runner could not run, which is not a verdict (exit 2).
        assert_eq!(out.status.code(), Some(2), "{kind}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("could not be reached"));
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

/// `mcp-conformance ARGS stdio -- python3 fixture [--broken BROKEN]`.
fn run_fixture(args: &[&str], broken: Option<&str>) -> std::process::Output {
    let fixture = fixture();
    let mut cmd = bin();
    cmd.args(args)
        .args(["stdio", "--", "python3", fixture.as_str()]);
    if let Some(b) = broken {
        cmd.args(["--broken", b]);
    }
    cmd.output().expect("runs")
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-conformance-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir.join(name)
}

#[test]
fn a_server_that_never_answers_exits_2() {
    let out = bin()
        .args(["stdio", "--", "python3", "-c", "import sys; sys.exit(0)"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("could not be reached"));
}

#[test]
fn strict_counts_should_failures() {
    // tools.unknown-tool is a SHOULD case: a warning, unless --strict.
    let only = ["--only", "tools.unknown-tool,ping"];
    let out = run_fixture(&only, Some("unknown-tool-result"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("WARN  SHOULD  tools.unknown-tool"));
    let strict = [&only[..], &["--strict"]].concat();
    let out = run_fixture(&strict, Some("unknown-tool-result"));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
}

#[test]
fn baseline_accepts_known_failures_and_reports_fixed_ones() {
    let file = scratch("baseline.json");
    let only = ["--only", "jsonrpc.parse-error,ping"];
    // A MUST failure: exit 1, and --write-baseline records it.
    let write = [
        &only[..],
        &["--write-baseline", file.to_str().expect("utf-8 path")],
    ]
    .concat();
    let out = run_fixture(&write, Some("no-parse-error"));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = std::fs::read_to_string(&file).expect("the baseline was written");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(doc["mcpConformanceBaseline"], 1);
    assert!(doc["failures"]["jsonrpc.parse-error"].is_string(), "{text}");
    // With it, the same failure is accepted.
    let with = [
        &only[..],
        &["--baseline", file.to_str().expect("utf-8 path")],
    ]
    .concat();
    let out = run_fixture(&with, Some("no-parse-error"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 known failure(s) accepted"));
    // Against a server that passes it now, the entry is reported for removal.
    let out = run_fixture(&with, None);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("passing now, remove from the baseline: jsonrpc.parse-error"),
        "{table}"
    );
    // A failure the baseline does not list still fails the run.
    let other = [
        "--only",
        "jsonrpc.integer-id",
        "--baseline",
        file.to_str().expect("utf-8"),
    ];
    let out = run_fixture(&other, Some("zero-id"));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // A baseline that is not one is a usage error.
    std::fs::write(&file, "{}").expect("write");
    let out = run_fixture(&with, None);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn html_report_is_self_contained_with_evidence() {
    let file = scratch("report.html");
    let args = [
        "--format",
        "html",
        "--output",
        file.to_str().expect("utf-8 path"),
        "--only",
        "jsonrpc.parse-error,ping,tools.list",
    ];
    let out = run_fixture(&args, Some("no-parse-error"));
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty(), "the report went to the file");
    let page = std::fs::read_to_string(&file).expect("the report was written");
    let _ = std::fs::remove_file(&file);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("Summary by area"));
    assert!(page
        .contains("https://modelcontextprotocol.io/specification/2025-11-25/basic/index#messages"));
    // The failing case shows what was sent and the spec's sentence.
    assert!(
        page.contains("→ {&quot;jsonrpc&quot;: &quot;2.0&quot;, &quot;id&quot;: 9001"),
        "{page}"
    );
    assert!(page.contains("Parse error"));
    // Nothing is fetched: no script, no stylesheet link, no image.
    for tag in ["<script", "<link", "<img"] {
        assert!(!page.contains(tag), "{tag}");
    }
}

#[test]
fn explain_prints_the_why_and_the_fix() {
    let out = bin()
        .args(["--explain", "tools.unknown-tool"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("checks: "), "{text}");
    assert!(text.contains("Unknown tools"), "{text}");
    assert!(text.contains("fix:"), "{text}");
    assert!(text.contains("https://modelcontextprotocol.io/specification/"));
    let out = bin().args(["--explain", "no.such"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn progress_line_on_a_terminal_only() {
    // `script` gives the runner a terminal; without one (the other tests) stderr stays clean.
    let fixture = fixture();
    let command = format!(
        "{} --only ping stdio -- python3 {fixture} >/dev/null",
        env!("CARGO_BIN_EXE_mcp-conformance")
    );
    let Ok(out) = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
    else {
        eprintln!("skipping: no `script` to make a terminal");
        return;
    };
    let seen = String::from_utf8_lossy(&out.stdout);
    assert!(seen.contains("[1/2] ping.empty-result"), "{seen:?}");
    assert!(seen.contains("[2/2] ping.meta-params"), "{seen:?}");
    let piped = run_fixture(&["--only", "ping"], None);
    assert!(!String::from_utf8_lossy(&piped.stderr).contains("[1/2]"));
}

#[test]
fn the_binary_needs_nothing_from_the_workspace() {
    // As `cargo install` leaves it: the binary alone in a directory of its own, run from
    // elsewhere, against a server given on the command line.
    let dir = scratch("installed");
    std::fs::create_dir_all(&dir).expect("a directory");
    let installed = dir.join("mcp-conformance");
    std::fs::copy(env!("CARGO_BIN_EXE_mcp-conformance"), &installed).expect("copy");
    let fixture = fixture();
    let out = Command::new(&installed)
        .current_dir(std::env::temp_dir())
        .env_remove("CARGO_MANIFEST_DIR")
        .args([
            "--only",
            "ping,tools.list",
            "stdio",
            "--",
            "python3",
            fixture.as_str(),
        ])
        .output()
        .expect("runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 cases: 3 passed"));
}
