//! The runner's 2026-07-28 cases against `conformance-server --stdio`, the official suite's
//! fixture server on mcp-server's dual-era core: every modern case passes, the input-request
//! (MRTR) cases on each of its input fixtures, and `modern.listen` with its list-change trigger;
//! and the cases beyond the official suite with every list paged after two items.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

fn server() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance"));
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    dir.join("conformance-server")
}

/// `mcp-conformance --only modern --input-tool TOOL stdio -- conformance-server --stdio`,
/// bounded; its exit status and JSON report.
fn run(input_tool: &str) -> (Option<i32>, Value) {
    let server = server();
    assert!(
        server.exists(),
        "{} is built with the tests",
        server.display()
    );
    let args = [
        "--only".to_owned(),
        "modern".to_owned(),
        "--input-tool".to_owned(),
        input_tool.to_owned(),
        "stdio".to_owned(),
        "--".to_owned(),
        server.to_string_lossy().into_owned(),
        "--stdio".to_owned(),
    ];
    support::run_cli(&args, Duration::from_secs(180))
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

/// The cases beyond the official suite (and the tool list's own pagination case) against the
/// fixture paging every list after two items: the walks cross many pages (some 20 for the
/// tools), `tools.dynamic-registration` reads its lists across pages, and the Unicode fixtures (a
/// percent-encoded URI, a non-ASCII prompt name, `echo`) round-trip.
#[test]
fn the_cases_beyond_the_official_suite_pass_with_small_pages() {
    let server = server();
    let args = [
        "--only".to_owned(),
        "pagination,tools.pagination,tools.schema-dialect,tools.dynamic-registration,unicode"
            .to_owned(),
        "stdio".to_owned(),
        "--".to_owned(),
        server.to_string_lossy().into_owned(),
        "--stdio".to_owned(),
        "--page-size".to_owned(),
        "2".to_owned(),
    ];
    let (code, report) = support::run_cli(&args, Duration::from_secs(120));
    let cases = report["cases"].as_array().expect("cases");
    let ids: Vec<&str> = cases.iter().filter_map(|c| c["id"].as_str()).collect();
    for id in [
        "pagination.cursor-walk",
        "pagination.invalid-cursor",
        "tools.pagination",
        "tools.schema-dialect",
        "tools.dynamic-registration",
        "unicode.round-trip",
    ] {
        assert!(ids.contains(&id), "{id} ran: {report}");
    }
    for case in cases {
        assert_eq!(case["result"], "pass", "{case}");
    }
    assert_eq!(code, Some(0), "{report}");
}
