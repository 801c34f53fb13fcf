//! The ways to show a run: a readable table (coloured only on a terminal), JSON, JUnit XML for
//! CI, and a self-contained HTML page to read and attach to a bug.

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::case::{Level, Outcome};
use crate::runner::RunReport;

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A table for people.
    Table,
    /// One JSON document.
    Json,
    /// JUnit XML.
    Junit,
    /// One self-contained HTML page.
    Html,
}

impl Format {
    /// Parses `table`, `json`, `junit` or `html`.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "table" => Some(Format::Table),
            "json" => Some(Format::Json),
            "junit" => Some(Format::Junit),
            "html" => Some(Format::Html),
            _ => None,
        }
    }
}

/// Renders `report` in `format`; `color` applies to the table only.
pub fn render(report: &RunReport, format: Format, color: bool) -> String {
    match format {
        Format::Table => table(report, color),
        Format::Json => {
            serde_json::to_string_pretty(&to_json(report)).unwrap_or_else(|e| format!("{e}"))
        }
        Format::Junit => junit(report),
        Format::Html => crate::report_html::html(report),
    }
}

fn paint(text: &str, code: &str, color: bool) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// The human-readable table.
pub fn table(report: &RunReport, color: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "target:     {}", report.target);
    if let Some(server) = &report.server {
        let name = server.get("name").and_then(Value::as_str).unwrap_or("?");
        let version = server.get("version").and_then(Value::as_str).unwrap_or("?");
        let _ = writeln!(out, "server:     {name} {version}");
    }
    if let Some(versions) = &report.modern {
        let _ = writeln!(out, "discover:   {} (2026-07-28 era)", versions.join(", "));
    }
    if let Some(v) = &report.negotiated {
        let _ = writeln!(out, "negotiated: {v}");
    }
    out.push('\n');
    let width = report.cases.iter().map(|c| c.id.len()).max().unwrap_or(10);
    for case in &report.cases {
        let (word, code) = match case.outcome {
            Outcome::Pass => ("PASS", "32"),
            Outcome::Fail { .. } if case.level == Level::Must => ("FAIL", "31;1"),
            Outcome::Fail { .. } => ("WARN", "33"),
            Outcome::Skip { .. } => ("SKIP", "2"),
        };
        let _ = writeln!(
            out,
            "{}  {:<6}  {:<width$}  {}",
            paint(word, code, color),
            case.level.to_string(),
            case.id,
            case.versions,
        );
        match &case.outcome {
            Outcome::Pass => {}
            Outcome::Fail { expected, got } => {
                let _ = writeln!(out, "      expected: {expected}");
                let _ = writeln!(
                    out,
                    "      got:      {}",
                    got.replace('\n', "\n                ")
                );
            }
            Outcome::Skip { why } => {
                let _ = writeln!(out, "      {}", paint(why, "2", color));
            }
        }
        for note in &case.notes {
            let _ = writeln!(out, "      note: {note}");
        }
    }
    let (pass, fail, skip) = report.counts();
    let _ = writeln!(
        out,
        "\n{} cases: {pass} passed, {fail} failed ({} MUST), {skip} skipped",
        report.cases.len(),
        report.must_failures()
    );
    out
}

/// The JSON form.
pub fn to_json(report: &RunReport) -> Value {
    let (pass, fail, skip) = report.counts();
    let cases: Vec<Value> = report
        .cases
        .iter()
        .map(|c| {
            let mut v = json!({
                "id": c.id,
                "title": c.title,
                "level": c.level.to_string(),
                "versions": c.versions,
                "section": c.section,
                "result": c.outcome.word(),
                "durationMs": c.duration.as_millis() as u64,
            });
            if let Some(obj) = v.as_object_mut() {
                match &c.outcome {
                    Outcome::Pass => {}
                    Outcome::Fail { expected, got } => {
                        obj.insert("expected".into(), json!(expected));
                        obj.insert("got".into(), json!(got));
                    }
                    Outcome::Skip { why } => {
                        obj.insert("why".into(), json!(why));
                    }
                }
                if !c.notes.is_empty() {
                    obj.insert("notes".into(), json!(c.notes));
                }
            }
            v
        })
        .collect();
    json!({
        "target": report.target,
        "server": report.server,
        "negotiatedVersion": report.negotiated,
        "supportedVersions": report.modern,
        "roundTripMs": report.timing.map(|t| t.round_trip.as_secs_f64() * 1000.0),
        "requestTimeoutMs": report.timing.map(|t| t.timeout.as_millis() as u64),
        "summary": {"total": report.cases.len(), "passed": pass, "failed": fail, "skipped": skip,
                    "mustFailures": report.must_failures()},
        "cases": cases,
    })
}

/// Escapes text for XML and HTML (both attribute values and content).
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => {
                let _ = write!(out, "&#x{:x};", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The JUnit XML form: one test suite, a test case per conformance case, classname = area.
pub fn junit(report: &RunReport) -> String {
    let (_, fail, skip) = report.counts();
    let total: f64 = report.cases.iter().map(|c| c.duration.as_secs_f64()).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuite name=\"mcp-conformance\" tests=\"{}\" failures=\"{fail}\" errors=\"0\" skipped=\"{skip}\" time=\"{total:.3}\">",
        report.cases.len()
    );
    let _ = writeln!(
        out,
        "  <properties><property name=\"target\" value=\"{}\"/></properties>",
        xml_escape(&report.target)
    );
    for c in &report.cases {
        let area = c.id.split('.').next().unwrap_or(c.id);
        let _ = write!(
            out,
            "  <testcase classname=\"{}\" name=\"{} [{}]\" time=\"{:.3}\"",
            xml_escape(area),
            xml_escape(c.id),
            c.level,
            c.duration.as_secs_f64()
        );
        match &c.outcome {
            Outcome::Pass => out.push_str("/>\n"),
            Outcome::Fail { expected, got } => {
                let _ = writeln!(
                    out,
                    ">\n    <failure message=\"{}\">expected: {}\ngot: {}</failure>\n  </testcase>",
                    xml_escape(c.title),
                    xml_escape(expected),
                    xml_escape(got)
                );
            }
            Outcome::Skip { why } => {
                let _ = writeln!(
                    out,
                    ">\n    <skipped message=\"{}\"/>\n  </testcase>",
                    xml_escape(why)
                );
            }
        }
    }
    out.push_str("</testsuite>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::CaseReport;
    use std::time::Duration;

    fn sample() -> RunReport {
        let case = |id, level, outcome| CaseReport {
            id,
            title: "t <&>",
            versions: "2024-11-05+".into(),
            section: "s",
            level,
            outcome,
            duration: Duration::from_millis(5),
            notes: Vec::new(),
            evidence: Vec::new(),
        };
        RunReport {
            target: "stdio: x".into(),
            server: Some(json!({"name": "s", "version": "1"})),
            negotiated: Some("2025-11-25".into()),
            modern: None,
            timing: None,
            cases: vec![
                case("a.pass", Level::Must, Outcome::Pass),
                case("a.fail", Level::Should, Outcome::fail("x", "y <z>")),
                case("b.skip", Level::Must, Outcome::skip("why")),
            ],
        }
    }

    #[test]
    fn formats() {
        let r = sample();
        assert_eq!(r.exit_code(), 0);
        let t = table(&r, false);
        assert!(t.contains("WARN  SHOULD  a.fail"));
        assert!(t.contains("3 cases: 1 passed, 1 failed (0 MUST), 1 skipped"));
        let j = to_json(&r);
        assert_eq!(j["summary"]["failed"], 1);
        assert_eq!(j["cases"][1]["got"], "y <z>");
        let x = junit(&r);
        assert!(x.contains("tests=\"3\" failures=\"1\""));
        assert!(x.contains("y &lt;z&gt;"));
        assert!(x.contains("<skipped message=\"why\"/>"));
    }
}
