//! The runner's isolation rules against a scripted misbehaving server (`fixtures/server.py`
//! with `--broken late|twice|wrong-id|close-mid-case`): a reply is judged with the case whose
//! request it answers, never with the case that happens to be running when it arrives, and a
//! server that goes away fails only the case it went away in.

mod support;

use conformance::runner::RunReport;
use conformance::Outcome;
use support::{assert_failed, explain, run_fixture};

fn run(broken: &str) -> RunReport {
    run_fixture("server.py", Some(broken))
}

fn notes<'a>(report: &'a RunReport, id: &str) -> &'a [String] {
    report
        .cases
        .iter()
        .find(|c| c.id == id)
        .map_or(&[][..], |c| c.notes.as_slice())
}

fn outcome<'a>(report: &'a RunReport, id: &str) -> &'a Outcome {
    &report
        .cases
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no case {id}:\n{}", explain(report)))
        .outcome
}

#[test]
fn a_late_reply_belongs_to_the_case_that_asked() {
    // The second reply of jsonrpc.repeated-id arrives only while jsonrpc.notification-no-reply
    // listens for replies that must not come (the false failure of issue 40): it is recorded
    // against the case that sent the request, and neither case fails.
    let report = run("late");
    assert_failed(&report, &[], "--broken late");
    let late = notes(&report, "jsonrpc.repeated-id");
    assert!(
        late.iter()
            .any(|n| n.contains("arrived after the case ended")),
        "{late:?}\n{}",
        explain(&report)
    );
    assert_eq!(
        *outcome(&report, "jsonrpc.notification-no-reply"),
        Outcome::Pass
    );
}

#[test]
fn a_second_reply_fails_the_case_whose_request_it_answers() {
    // `ping {_meta: {}}` is answered at once and again a second later, during the cancellation
    // cases: ping.meta-params fails for it, they do not.
    let report = run("twice");
    assert_failed(&report, &["ping.meta-params"], "--broken twice");
    let Outcome::Fail { got, .. } = outcome(&report, "ping.meta-params") else {
        unreachable!()
    };
    assert!(got.contains("answered again"), "{got}");
    assert!(notes(&report, "ping.meta-params")
        .iter()
        .any(|n| n.contains("a second reply")));
    assert_eq!(
        *outcome(&report, "cancellation.unknown-request"),
        Outcome::Pass
    );
}

#[test]
fn a_reply_with_a_wrong_id_fails_only_the_case_that_waited_for_it() {
    let report = run("wrong-id");
    assert_failed(&report, &["logging.invalid-level"], "--broken wrong-id");
    assert!(
        notes(&report, "logging.invalid-level")
            .iter()
            .any(|n| n.contains("which no request of the runner carried")),
        "{}",
        explain(&report)
    );
}

#[test]
fn a_server_that_exits_mid_case_fails_that_case_and_the_next_starts_afresh() {
    let report = run("close-mid-case");
    // `pagination.cursor-walk` asks the restarted server for the templates again, and it exits
    // again: a failure of the walk's own request, not one carried over.
    assert_failed(
        &report,
        &["resources.templates", "pagination.cursor-walk"],
        "--broken close-mid-case",
    );
    let Outcome::Fail { got, .. } = outcome(&report, "resources.templates") else {
        unreachable!()
    };
    assert!(got.contains("closed"), "{got}");
    assert_eq!(*outcome(&report, "resources.not-found"), Outcome::Pass);
}

#[test]
fn timeouts_follow_the_measured_round_trip() {
    use conformance::context::{Timing, TIMEOUT_CEILING, TIMEOUT_FLOOR};
    use std::time::Duration;
    // A fast local server gets the floor, a slow one a multiple of its round trip, capped.
    assert_eq!(
        Timing::from_round_trip(Duration::from_micros(300)).timeout,
        TIMEOUT_FLOOR
    );
    assert_eq!(
        Timing::from_round_trip(Duration::from_millis(120)).timeout,
        Duration::from_secs(12)
    );
    assert_eq!(
        Timing::from_round_trip(Duration::from_secs(2)).timeout,
        TIMEOUT_CEILING
    );
    // A run measures it (the fixture answers pings).
    let report = run_fixture("server.py", None);
    let timing = report.timing.expect("a measured round trip");
    assert!(timing.round_trip < Duration::from_secs(1), "{timing:?}");
}
