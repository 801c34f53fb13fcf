//! What the integration tests share: the runner in process against a stdio server, and the
//! `mcp-conformance` binary run with a bound. Each test file uses a part of it.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use conformance::context::Config;
use conformance::driver::StdioTarget;
use conformance::runner::{self, Filter, RunReport};
use conformance::Outcome;
use serde_json::Value;

/// Every case against `program args` over stdio (3 s per request, `case_timeout` per case).
pub fn run_stdio(program: &str, args: Vec<String>, case_timeout: Duration) -> RunReport {
    let target = Arc::new(StdioTarget::new(program, args));
    let config = Config {
        timeout: Some(Duration::from_secs(3)),
        case_timeout,
        ..Config::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime
        .block_on(runner::run(
            target,
            config,
            &Filter::default(),
            &conformance::cases::all(),
        ))
        .expect("the server starts")
}

/// Every case against `python3 tests/fixtures/FILE [--broken BROKEN]`.
pub fn run_fixture(file: &str, broken: Option<&str>) -> RunReport {
    let mut args = vec![format!(
        "{}/tests/fixtures/{file}",
        env!("CARGO_MANIFEST_DIR")
    )];
    if let Some(b) = broken {
        args.push("--broken".into());
        args.push(b.into());
    }
    run_stdio("python3", args, Duration::from_secs(30))
}

/// The ids of the failed cases.
pub fn failed(report: &RunReport) -> BTreeSet<&'static str> {
    report
        .cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Fail { .. }))
        .map(|c| c.id)
        .collect()
}

/// Asserts that exactly the cases `expected` failed in `report` (of the run named `what`).
pub fn assert_failed(report: &RunReport, expected: &[&str], what: &str) {
    let expected: BTreeSet<&str> = expected.iter().copied().collect();
    assert_eq!(failed(report), expected, "{what}:\n{}", explain(report));
}

/// The report as a table, for assertion messages.
pub fn explain(report: &RunReport) -> String {
    conformance::report::table(report, false)
}

/// `mcp-conformance --format json ARGS`, killed after `limit`; its exit status and report.
pub fn run_cli(args: &[String], limit: Duration) -> (Option<i32>, Value) {
    let child = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .args(["--format", "json"])
        .args(args)
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
    if done_rx.recv_timeout(limit).is_err() {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        panic!("mcp-conformance {args:?} took over {limit:?}");
    }
    let out = waiter.join().expect("waiter").expect("output");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), report)
}
