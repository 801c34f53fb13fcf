//! The runner against two more real servers: `@modelcontextprotocol/server-filesystem` (npm)
//! and a FastMCP server written with the Python SDK 1.x. They are not expected to pass
//! everything; the run must complete without crashing or hanging, and the handshake must work.
//! (server-everything and the servers of the other SDKs are in `third_party.rs`, with every
//! verdict pinned.)
//!
//! The peers come from `scripts/interop-setup.sh`: run `eval "$(scripts/interop-setup.sh)"`
//! first. Without `MCP_INTEROP_NODE_MODULES` / `MCP_INTEROP_PYTHON` these tests print a note and
//! pass, unless `MCP_INTEROP_REQUIRED=1`.

mod support;

use std::path::PathBuf;
use std::time::Duration;

use conformance::runner::RunReport;
use conformance::Outcome;
use support::run_stdio;

fn peer(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => Some(v),
        _ if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") => {
            panic!("{var} is not set and MCP_INTEROP_REQUIRED=1; run: eval \"$(scripts/interop-setup.sh)\"")
        }
        _ => {
            eprintln!("skipping: {var} is not set (run: eval \"$(scripts/interop-setup.sh)\")");
            None
        }
    }
}

fn run(program: &str, args: Vec<String>) -> RunReport {
    run_stdio(program, args, Duration::from_secs(40))
}

fn check_completed(report: &RunReport) {
    let table = conformance::report::table(report, false);
    println!("{table}");
    // Every case that applies to a stdio target ran (HTTP and SSE cases are not part of it).
    let applicable = conformance::cases::all()
        .iter()
        .filter(|c| c.transports.applies_to("stdio"))
        .count();
    assert_eq!(report.cases.len(), applicable, "{table}");
    let initialize = report.cases.iter().find(|c| c.id == "lifecycle.initialize");
    assert!(
        initialize.is_some_and(|c| c.outcome == Outcome::Pass),
        "the handshake failed:\n{table}"
    );
    for case in &report.cases {
        if let Outcome::Fail { expected, .. } = &case.outcome {
            assert!(
                !expected.starts_with("the case to finish within"),
                "{} hung:\n{table}",
                case.id
            );
        }
    }
}

#[test]
fn server_filesystem() {
    let Some(modules) = peer("MCP_INTEROP_NODE_MODULES") else {
        return;
    };
    let script =
        PathBuf::from(modules).join("@modelcontextprotocol/server-filesystem/dist/index.js");
    let dir = std::env::temp_dir().join(format!("mcp-conformance-fs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    std::fs::write(dir.join("hello.txt"), "hello\n").expect("a file in it");
    let report = run(
        "node",
        vec![
            script.to_string_lossy().into_owned(),
            dir.to_string_lossy().into_owned(),
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
    check_completed(&report);
}

#[test]
fn python_sdk_fastmcp() {
    let Some(python) = peer("MCP_INTEROP_PYTHON") else {
        return;
    };
    let script = format!(
        "{}/tests/fixtures/fastmcp_server.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let report = run(&python, vec![script]);
    check_completed(&report);
}
