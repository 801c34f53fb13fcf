//! The runner against deliberately broken servers: `fixtures/server.py` is a hand-written MCP
//! server that passes every applicable case, and with `--broken NAME` gets exactly one thing
//! wrong. Each test checks that exactly the cases for that behaviour fail.

mod support;

use conformance::runner::RunReport;
use conformance::Outcome;
use support::{assert_failed, explain, failed, run_fixture};

fn run(broken: Option<&str>) -> RunReport {
    run_fixture("server.py", broken)
}

fn assert_fails(broken: &str, expected: &[&str]) {
    assert_failed(&run(Some(broken)), expected, &format!("--broken {broken}"));
}

#[test]
fn correct_server_passes_everything_that_applies() {
    let report = run(None);
    assert!(failed(&report).is_empty(), "{}", explain(&report));
    let skipped: Vec<&str> = report
        .cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Skip { .. }))
        .map(|c| c.id)
        .filter(|id| !id.starts_with("modern.") && !id.starts_with("tasks."))
        .collect();
    // The fixture declares completions, so the "undeclared" case does not apply.
    assert_eq!(skipped, ["completion.undeclared"], "{}", explain(&report));
    // It has no task-supporting tool: every task case is skipped, none fails.
    for case in report.cases.iter().filter(|c| c.id.starts_with("tasks.")) {
        assert!(matches!(case.outcome, Outcome::Skip { .. }), "{}", case.id);
    }
    // It speaks only the 2025 era: every 2026-07-28 case is skipped, none fails.
    assert!(report.modern.is_none(), "{}", explain(&report));
    for case in report.cases.iter().filter(|c| c.id.starts_with("modern.")) {
        assert!(matches!(case.outcome, Outcome::Skip { .. }), "{}", case.id);
    }
    assert_eq!(report.exit_code(), 0);
}

#[test]
fn wrong_id_for_zero() {
    // The reply with id null is also an invalid message, which the run-wide check reports.
    assert_fails("zero-id", &["jsonrpc.integer-id", "jsonrpc.valid-output"]);
}

#[test]
fn answers_cancelled_request() {
    assert_fails("answers-cancelled", &["cancellation.no-response"]);
}

#[test]
fn answers_a_cancellation_after_the_response() {
    assert_fails("late-cancel-error", &["cancellation.after-response"]);
}

#[test]
fn no_parse_error() {
    assert_fails("no-parse-error", &["jsonrpc.parse-error"]);
}

#[test]
fn version_not_echoed() {
    assert_fails(
        "version-off-by-one",
        &[
            "lifecycle.version-echo.2025-03-26",
            "lifecycle.version-echo.2025-06-18",
            "lifecycle.version-echo.2025-11-25",
        ],
    );
}

#[test]
fn serving_before_initialize_is_tolerated() {
    // The spec's rule on requests before initialize binds the client (basic/lifecycle): a
    // server that answers them fails no case.
    assert_fails("no-init-rule", &[]);
}

#[test]
fn unknown_tool_internal_error() {
    assert_fails("unknown-tool-result", &["tools.unknown-tool"]);
}

#[test]
fn structured_content_off_schema() {
    // The dialect case validates the same structuredContent under the schema's dialect.
    assert_fails(
        "bad-structured",
        &["tools.structured-content", "tools.schema-dialect"],
    );
}

#[test]
fn progress_goes_down() {
    assert_fails(
        "progress-decreasing",
        &[
            "progress.token-echo",
            "progress.integer-token",
            "progress.stops-after-response",
        ],
    );
}

#[test]
fn noise_on_stdout() {
    assert_fails("stdout-noise", &["jsonrpc.valid-output"]);
}

#[test]
fn refuses_batches_in_2025_03_26() {
    assert_fails("no-batch", &["jsonrpc.batch"]);
}

#[test]
fn replies_to_notifications() {
    assert_fails("notification-reply", &["jsonrpc.notification-no-reply"]);
}

#[test]
fn overlapping_pages() {
    // The repeated tool also breaks the uniqueness of names; the walk over every list sees the
    // repeats in all of them.
    assert_fails(
        "page-overlap",
        &["tools.pagination", "tools.names", "pagination.cursor-walk"],
    );
}

#[test]
fn argument_errors_as_protocol_errors_in_2025_11_25() {
    assert_fails("args-as-error", &["tools.bad-arguments"]);
}

#[test]
fn exit_status_follows_must_failures() {
    let report = run(Some("no-parse-error"));
    assert_eq!(report.exit_code(), 1);
    let report = run(Some("unknown-tool-internal"));
    // tools.unknown-tool is a SHOULD: reported, but the run still passes.
    assert_eq!(report.exit_code(), 0);
}

/// The misbehaviours the cases beyond the official suite are there to catch, each failing
/// exactly its cases.
#[test]
fn misbehaviours_beyond_the_official_suite() {
    for (broken, expected) in [
        ("silent-list-change", &["tools.dynamic-registration"][..]),
        // Reading every listed resource meets the same URI.
        ("decoded-uri", &["resources.read-all", "unicode.round-trip"]),
        ("ascii-echo", &["unicode.round-trip"]),
        // Invalid under the 2020-12 default: the validity case and the dialect case both fail.
        (
            "draft4-schema",
            &["tools.input-schemas", "tools.schema-dialect"],
        ),
    ] {
        assert_fails(broken, expected);
    }
}
