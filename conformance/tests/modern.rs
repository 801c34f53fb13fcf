//! The 2026-07-28 cases against `fixtures/modern_server.py`, a hand-written server that speaks
//! only 2026-07-28 on stdio: plain, it passes every modern case that applies to stdio (and the
//! handshake cases are skipped, not failed); with `--broken NAME` it gets one thing wrong, and
//! exactly the cases for that behaviour fail.

mod support;

use conformance::runner::RunReport;
use conformance::Outcome;
use support::{assert_failed, explain, failed, run_fixture};

fn run(broken: Option<&str>) -> RunReport {
    run_fixture("modern_server.py", broken)
}

fn assert_fails(broken: &str, expected: &[&str]) {
    assert_failed(&run(Some(broken)), expected, &format!("--broken {broken}"));
}

#[test]
fn modern_only_server_passes_the_modern_cases() {
    let report = run(None);
    assert!(failed(&report).is_empty(), "{}", explain(&report));
    assert_eq!(
        report.modern.as_deref(),
        Some(&["2026-07-28".to_owned()][..])
    );
    for case in &report.cases {
        // The fixture has no task-supporting tool: the tasks cases (both eras) are skipped.
        let tasks = case.id.starts_with("modern.tasks-") || case.id.starts_with("tasks.");
        if tasks {
            assert!(matches!(case.outcome, Outcome::Skip { .. }), "{}", case.id);
            continue;
        }
        let modern = case.id.starts_with("modern.");
        let passed = matches!(case.outcome, Outcome::Pass);
        // Every modern case on stdio passes; the handshake cases are skipped.
        assert_eq!(modern, passed, "{}: {:?}", case.id, case.outcome);
    }
    assert!(report
        .cases
        .iter()
        .any(|c| c.id == "modern.mrtr-round-trip"));
    assert_eq!(report.exit_code(), 0);
}

#[test]
fn forged_state_accepted() {
    assert_fails("accepts-forged-state", &["modern.mrtr-forged-state"]);
}

#[test]
fn ping_still_answered() {
    assert_fails("ping-alive", &["modern.removed-methods"]);
}

#[test]
fn any_version_served() {
    assert_fails("no-version-error", &["modern.unsupported-version"]);
}

#[test]
fn untagged_listen_notifications() {
    assert_fails("listen-untagged", &["modern.listen"]);
}

#[test]
fn list_without_cache_hints() {
    assert_fails("no-cache-hints", &["modern.cache-hints"]);
}

#[test]
fn meta_fields_not_required() {
    assert_fails(
        "meta-optional",
        &[
            "modern.meta-missing-version",
            "modern.meta-missing-capabilities",
        ],
    );
}
