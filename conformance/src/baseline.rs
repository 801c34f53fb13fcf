//! What makes a run fail, for CI: MUST failures (and SHOULD failures with `--strict`), less the
//! known failures a baseline file accepts. A baseline lets a project adopt the runner with the
//! failures it has and then ratchet: a listed case that passes now is reported, so the entry can
//! be removed, and a failure not listed fails the run.
//!
//! The file is JSON: `{"mcpConformanceBaseline": 1, "failures": {"case.id": "why it fails"}}`;
//! `--write-baseline FILE` writes one from a run.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::case::{Level, Outcome};
use crate::error::Error;
use crate::runner::RunReport;

/// The format version written to and expected in baseline files.
pub const FORMAT: u64 = 1;

/// The known failures a project accepts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    /// Case id → the recorded reason (the failure's `got`, or the author's note).
    pub failures: BTreeMap<String, String>,
}

impl Baseline {
    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Usage(format!("--baseline {}: {e}", path.display())))?;
        Self::parse(&text)
            .map_err(|why| Error::Usage(format!("--baseline {}: {why}", path.display())))
    }

    /// Parses a baseline document.
    pub fn parse(text: &str) -> Result<Self, String> {
        let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        match doc.get("mcpConformanceBaseline").and_then(Value::as_u64) {
            Some(FORMAT) => {}
            other => {
                return Err(format!(
                    "\"mcpConformanceBaseline\" is {other:?}; this runner reads format {FORMAT}"
                ))
            }
        }
        let failures = match doc.get("failures") {
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect(),
            Some(Value::Array(ids)) => ids
                .iter()
                .filter_map(Value::as_str)
                .map(|id| (id.to_owned(), String::new()))
                .collect(),
            _ => return Err("\"failures\" must be an object of case id → reason".into()),
        };
        Ok(Baseline { failures })
    }

    /// The baseline that accepts every failure of `report` that counts under `strict`.
    pub fn from_report(report: &RunReport, strict: bool) -> Self {
        let failures = report
            .cases
            .iter()
            .filter(|c| counts(c.level, &c.outcome, strict))
            .map(|c| {
                let why = match &c.outcome {
                    Outcome::Fail { got, .. } => got.chars().take(200).collect(),
                    _ => String::new(),
                };
                (c.id.to_owned(), why)
            })
            .collect();
        Baseline { failures }
    }

    /// The file text.
    pub fn to_json(&self, target: &str) -> String {
        let doc = json!({
            "mcpConformanceBaseline": FORMAT,
            "target": target,
            "failures": self.failures,
        });
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// True if a case with this level and outcome fails the run under `strict`.
fn counts(level: Level, outcome: &Outcome, strict: bool) -> bool {
    matches!(outcome, Outcome::Fail { .. }) && (level == Level::Must || strict)
}

/// The verdict of a run for CI.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Failures that fail the run (not accepted by the baseline).
    pub failing: Vec<String>,
    /// Failures the baseline accepts.
    pub accepted: Vec<String>,
    /// Baseline entries whose case passes now: remove them.
    pub fixed: Vec<String>,
    /// Baseline entries whose case did not run, or was skipped (left as they are).
    pub unchecked: Vec<String>,
}

impl Verdict {
    /// Judges `report`: MUST failures (and SHOULD ones when `strict`) count, less those
    /// `baseline` accepts.
    pub fn of(report: &RunReport, strict: bool, baseline: Option<&Baseline>) -> Self {
        let mut v = Verdict::default();
        let listed = |id: &str| baseline.is_some_and(|b| b.failures.contains_key(id));
        for case in &report.cases {
            if counts(case.level, &case.outcome, strict) {
                if listed(case.id) {
                    v.accepted.push(case.id.to_owned());
                } else {
                    v.failing.push(case.id.to_owned());
                }
            }
        }
        if let Some(b) = baseline {
            for id in b.failures.keys() {
                match report.cases.iter().find(|c| c.id == id) {
                    Some(c) if c.outcome == Outcome::Pass => v.fixed.push(id.clone()),
                    Some(c) if matches!(c.outcome, Outcome::Fail { .. }) => {
                        // Listed and failing but not counted (a SHOULD failure without --strict).
                        if !v.accepted.contains(id) && !counts(c.level, &c.outcome, strict) {
                            v.accepted.push(id.clone());
                        }
                    }
                    _ => v.unchecked.push(id.clone()),
                }
            }
        }
        v
    }

    /// The exit status: 0 when nothing counts against the run, else 1.
    pub fn exit_code(&self) -> i32 {
        if self.failing.is_empty() {
            0
        } else {
            1
        }
    }

    /// The lines about the baseline for people (empty without one).
    pub fn summary(&self, baseline: bool) -> String {
        if !baseline {
            return String::new();
        }
        let mut out = format!(
            "baseline: {} known failure(s) accepted, {} new failure(s)\n",
            self.accepted.len(),
            self.failing.len()
        );
        if !self.failing.is_empty() {
            out.push_str(&format!("  new: {}\n", self.failing.join(", ")));
        }
        if !self.fixed.is_empty() {
            out.push_str(&format!(
                "  passing now, remove from the baseline: {}\n",
                self.fixed.join(", ")
            ));
        }
        if !self.unchecked.is_empty() {
            out.push_str(&format!(
                "  not checked by this run (skipped or not selected): {}\n",
                self.unchecked.join(", ")
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_shapes_and_refuses_others() {
        let b = Baseline::parse(r#"{"mcpConformanceBaseline":1,"failures":{"a.b":"x"}}"#);
        assert_eq!(b.map(|b| b.failures.len()), Ok(1));
        let b = Baseline::parse(r#"{"mcpConformanceBaseline":1,"failures":["a.b","c"]}"#);
        assert_eq!(b.map(|b| b.failures.len()), Ok(2));
        assert!(Baseline::parse(r#"{"failures":{}}"#).is_err());
        assert!(Baseline::parse("[").is_err());
    }
}
