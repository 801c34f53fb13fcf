//! The HTML report: one self-contained page (inline style, no script, nothing fetched) with a
//! summary by area, and per case its verdict, the spec link and sentence, what was expected and
//! what came, the runner's notes, and the first messages sent and received.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use crate::case::{Level, Outcome};
use crate::explain::{explanation, spec_link};
use crate::report::xml_escape as esc;
use crate::runner::{CaseReport, RunReport};

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222}\
h1{font-size:1.4em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}\
.pass{color:#176f2c}.fail{color:#b00020;font-weight:bold}.warn{color:#8a5a00}.skip{color:#777}\
details{border:1px solid #ddd;margin:.3em 0;padding:.3em .6em}summary{cursor:pointer}\
pre{background:#f6f6f6;padding:.4em;white-space:pre-wrap;word-break:break-all;margin:.2em 0}\
.sent{border-left:3px solid #3465a4}.recv{border-left:3px solid #4e9a06}.k{color:#555}";

/// The verdict word and its CSS class: MUST failures fail, SHOULD failures warn.
fn verdict(case: &CaseReport) -> (&'static str, &'static str) {
    match case.outcome {
        Outcome::Pass => ("PASS", "pass"),
        Outcome::Fail { .. } if case.level == Level::Must => ("FAIL", "fail"),
        Outcome::Fail { .. } => ("WARN", "warn"),
        Outcome::Skip { .. } => ("SKIP", "skip"),
    }
}

/// The area of a case: its id up to the first dot.
fn area(id: &str) -> &str {
    id.split('.').next().unwrap_or(id)
}

/// The whole page.
pub fn html(report: &RunReport) -> String {
    let version = report.negotiated.as_deref().unwrap_or("2025-11-25");
    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    let _ = write!(
        out,
        "<title>MCP conformance: {}</title><style>{STYLE}</style></head><body>",
        esc(&report.target)
    );
    let _ = write!(out, "<h1>MCP conformance report</h1><table>");
    let server = report.server.as_ref().map(|s| {
        format!(
            "{} {}",
            s.get("name").and_then(Value::as_str).unwrap_or("?"),
            s.get("version").and_then(Value::as_str).unwrap_or("?")
        )
    });
    let rows = [
        ("target", Some(report.target.clone())),
        ("server", server),
        ("negotiated", report.negotiated.clone()),
        (
            "2026-07-28 discover",
            report.modern.as_ref().map(|v| v.join(", ")),
        ),
        (
            "round trip",
            report.timing.map(|t| {
                format!(
                    "{:.2} ms (request bound {:?}, quiet window {:?})",
                    t.round_trip.as_secs_f64() * 1000.0,
                    t.timeout,
                    t.quiet
                )
            }),
        ),
    ];
    for (k, v) in rows {
        if let Some(v) = v {
            let _ = write!(out, "<tr><th>{k}</th><td>{}</td></tr>", esc(&v));
        }
    }
    let (pass, fail, skip) = report.counts();
    let _ = write!(
        out,
        "</table><p><b>{} cases: {pass} passed, {fail} failed ({} MUST), {skip} skipped.</b></p>",
        report.cases.len(),
        report.must_failures()
    );
    summary_by_area(&mut out, report);
    out.push_str("<h2>Cases</h2>");
    for case in &report.cases {
        case_details(&mut out, case, version);
    }
    out.push_str("</body></html>\n");
    out
}

fn summary_by_area(out: &mut String, report: &RunReport) {
    // area -> [pass, MUST fail, SHOULD fail, skip]
    let mut areas: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    for case in &report.cases {
        let slot = match verdict(case).1 {
            "pass" => 0,
            "fail" => 1,
            "warn" => 2,
            _ => 3,
        };
        areas.entry(area(case.id)).or_default()[slot] += 1;
    }
    out.push_str("<h2>Summary by area</h2><table><tr><th>area</th><th>pass</th><th>fail (MUST)</th><th>warn (SHOULD)</th><th>skip</th></tr>");
    for (name, [p, f, w, s]) in areas {
        let _ = write!(
            out,
            "<tr><td><a href=\"#area-{name}\">{name}</a></td><td class=\"pass\">{p}</td><td class=\"{}\">{f}</td><td class=\"{}\">{w}</td><td class=\"skip\">{s}</td></tr>",
            if f > 0 { "fail" } else { "" },
            if w > 0 { "warn" } else { "" },
        );
    }
    out.push_str("</table>");
}

fn case_details(out: &mut String, case: &CaseReport, version: &str) {
    let (word, class) = verdict(case);
    let open = if matches!(case.outcome, Outcome::Fail { .. }) {
        " open"
    } else {
        ""
    };
    let _ = write!(
        out,
        "<details id=\"area-{}\"{open}><summary><span class=\"{class}\">{word}</span> <code>{}</code> <span class=\"k\">{} · {} · {} ms</span> — {}</summary>",
        esc(area(case.id)),
        esc(case.id),
        case.level,
        esc(&case.versions),
        case.duration.as_millis(),
        esc(case.title)
    );
    let link = spec_link(case.section, version);
    let _ = write!(out, "<p>spec: <a href=\"{0}\">{0}</a></p>", esc(&link));
    if let Some(e) = explanation(case.id) {
        let _ = write!(
            out,
            "<p class=\"k\">why: {}</p><p class=\"k\">fix: {}</p>",
            esc(e.why),
            esc(e.fix)
        );
    }
    match &case.outcome {
        Outcome::Pass => {}
        Outcome::Fail { expected, got } => {
            let _ = write!(
                out,
                "<p><b>expected</b></p><pre>{}</pre><p><b>got</b></p><pre>{}</pre>",
                esc(expected),
                esc(got)
            );
        }
        Outcome::Skip { why } => {
            let _ = write!(out, "<p>skipped: {}</p>", esc(why));
        }
    }
    for note in &case.notes {
        let _ = write!(out, "<p>note: {}</p>", esc(note));
    }
    if !case.evidence.is_empty() {
        out.push_str("<p><b>messages</b> (the first few, → sent, ← received)</p>");
        for m in &case.evidence {
            let (arrow, class) = if m.sent {
                ("→", "sent")
            } else {
                ("←", "recv")
            };
            let _ = write!(out, "<pre class=\"{class}\">{arrow} {}</pre>", esc(&m.text));
        }
    }
    out.push_str("</details>");
}
