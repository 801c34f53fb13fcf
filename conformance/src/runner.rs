//! Runs the selected cases against one target: the shared session for most cases, fresh ones
//! where a case asks; `--only`/`--skip` by id prefix; a bound on every case.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::case::{Case, Level, Outcome, SessionUse};
use crate::cases::modern;
use crate::context::{Config, Ctx};
use crate::driver::{Connector, Journal, StrayKind};
use crate::error::Error;

/// Which cases run: those matching an `--only` prefix (all when none) and no `--skip` prefix.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Id prefixes to keep; empty keeps everything.
    pub only: Vec<String>,
    /// Id prefixes to drop.
    pub skip: Vec<String>,
}

impl Filter {
    /// True if the case with this id runs.
    pub fn selects(&self, id: &str) -> bool {
        (self.only.is_empty() || self.only.iter().any(|p| id.starts_with(p.as_str())))
            && !self.skip.iter().any(|p| id.starts_with(p.as_str()))
    }
}

/// One case's result with its metadata, as the reports show it.
#[derive(Clone, Debug)]
pub struct CaseReport {
    /// The case id.
    pub id: &'static str,
    /// What it checks.
    pub title: &'static str,
    /// The versions it applies to, in words.
    pub versions: String,
    /// The spec section.
    pub section: &'static str,
    /// MUST or SHOULD.
    pub level: Level,
    /// What happened.
    pub outcome: Outcome,
    /// How long it took.
    pub duration: Duration,
    /// What the runner noticed about the case after it ended: replies to its requests that
    /// arrived late (during a later case) or twice, and replies with ids nobody sent.
    pub notes: Vec<String>,
    /// The first messages sent and received during the case (evidence for the reports).
    pub evidence: Vec<crate::driver::Exchange>,
}

/// The results of a run.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The target in words.
    pub target: String,
    /// The server's `serverInfo`, if a session could be initialized.
    pub server: Option<Value>,
    /// The version the shared session negotiated.
    pub negotiated: Option<String>,
    /// The `supportedVersions` of `server/discover` when the target speaks 2026-07-28.
    pub modern: Option<Vec<String>>,
    /// Every selected case, in run order.
    pub cases: Vec<CaseReport>,
    /// The measured round trip and the bounds derived from it (`None`: not measured, e.g.
    /// the server never answered a ping).
    pub timing: Option<crate::context::Timing>,
}

impl RunReport {
    /// How many cases ended with each outcome: (pass, fail, skip).
    pub fn counts(&self) -> (usize, usize, usize) {
        let count = |w: &str| self.cases.iter().filter(|c| c.outcome.word() == w).count();
        (count("pass"), count("fail"), count("skip"))
    }

    /// How many MUST cases failed.
    pub fn must_failures(&self) -> usize {
        self.cases
            .iter()
            .filter(|c| c.level == Level::Must && matches!(c.outcome, Outcome::Fail { .. }))
            .count()
    }

    /// The process exit status: 0 only when no MUST case failed.
    pub fn exit_code(&self) -> i32 {
        if self.must_failures() == 0 {
            0
        } else {
            1
        }
    }
}

/// Runs `cases` (those `filter` selects) against `connector`. Fails only when the server
/// cannot be started or reached at all; everything else is a case outcome.
pub async fn run(
    connector: Arc<dyn Connector>,
    config: Config,
    filter: &Filter,
    cases: &[Case],
) -> Result<RunReport, Error> {
    run_with_progress(connector, config, filter, cases, &mut |_, _, _| {}).await
}

/// [`run`], calling `progress(n, total, id)` before the n-th (1-based) of `total` cases.
pub async fn run_with_progress(
    connector: Arc<dyn Connector>,
    config: Config,
    filter: &Filter,
    cases: &[Case],
    progress: &mut (dyn FnMut(usize, usize, &str) + Send),
) -> Result<RunReport, Error> {
    let journal = Arc::new(Journal::default());
    let mut cx = Ctx::new(connector, Arc::new(config.clone()), journal);
    let mut report = RunReport {
        target: cx.describe(),
        server: None,
        negotiated: None,
        modern: None,
        cases: Vec::new(),
        timing: None,
    };
    // Cases for another transport are not part of this run at all (not skips).
    let kind = cx.kind().name();
    let selected: Vec<&Case> = cases
        .iter()
        .filter(|c| filter.selects(c.id) && c.transports.applies_to(kind))
        // 2026-07-28 has no HTTP+SSE transport: its cases are not part of an `sse` run.
        .filter(|c| !(kind == "sse" && modern::is_modern(c)))
        .collect();
    let mut eras = Eras::default();
    if selected.iter().any(|c| modern::is_modern(c)) {
        match cx.modern().await {
            Ok(found) => {
                report.modern = found.as_ref().map(supported_versions);
                report.server = found
                    .as_ref()
                    .and_then(|d| d.pointer("/_meta/io.modelcontextprotocol~1serverInfo"))
                    .cloned();
                eras.modern = Some(found.is_some());
            }
            Err(e @ Error::Spawn { .. }) => {
                cx.finish().await;
                return Err(e);
            }
            Err(_) => eras.modern = Some(false),
        }
    }
    if selected.iter().any(|c| !modern::is_modern(c)) {
        match cx.init_result().await {
            Ok(init) => {
                report.server = init.get("serverInfo").cloned().or(report.server.take());
                report.negotiated = init
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                eras.legacy = true;
            }
            Err(e @ Error::Spawn { .. }) => {
                cx.finish().await;
                return Err(e);
            }
            Err(e @ (Error::Closed { .. } | Error::Timeout { .. } | Error::Io(_)))
                if eras.modern != Some(true) =>
            {
                // No era answered: the runner could not run (not a verdict on the server).
                cx.finish().await;
                return Err(Error::Unreachable(e.to_string()));
            }
            Err(_) => {}
        }
    }
    let total = selected.len();
    for (n, case) in selected.into_iter().enumerate() {
        progress(n + 1, total, case.id);
        let started = Instant::now();
        cx.begin_case(case.id).await;
        let outcome = match eras.skip(case) {
            Some(skip) => skip,
            None => run_one(&mut cx, case, config.case_timeout).await,
        };
        if matches!(outcome, Outcome::Fail { .. }) {
            // A failing case may have left the shared session in any state: it is kept only if
            // it still answers a ping (late replies to the case's requests cannot mislead the
            // next case: they are attributed to this one), else the next case starts afresh.
            cx.keep_shared_if_alive().await;
        }
        report.cases.push(CaseReport {
            id: case.id,
            title: case.title,
            versions: case.versions.to_string(),
            section: case.section,
            level: case.level,
            outcome,
            duration: started.elapsed(),
            notes: Vec::new(),
            evidence: Vec::new(),
        });
    }
    cx.begin_case(crate::driver::session::SETUP).await;
    report.timing = cx.timing();
    let journal = cx.journal.clone();
    cx.finish().await;
    attribute_strays(&mut report, &journal);
    Ok(report)
}

/// Gives every stray reply to the case it belongs to, as a note; a request answered twice
/// fails its case ("every request gets exactly one response"). Adds each case's evidence.
fn attribute_strays(report: &mut RunReport, journal: &Journal) {
    let strays = journal.strays();
    for case in &mut report.cases {
        case.evidence = journal.exchanges(case.id);
        let mine = strays.iter().filter(|s| s.case == case.id);
        let mut duplicates = Vec::new();
        for stray in mine {
            let request = match &stray.method {
                Some(m) => format!("request id {} (`{m}`)", stray.id),
                None => format!("id {}", stray.id),
            };
            let note = match stray.kind {
                StrayKind::Late => format!(
                    "the reply to {request} arrived after the case ended, during {}: {}",
                    stray.during, stray.reply
                ),
                StrayKind::Duplicate => {
                    duplicates.push(format!("{request} was answered again: {}", stray.reply));
                    format!(
                        "a second reply to {request} arrived during {}: {}",
                        stray.during, stray.reply
                    )
                }
                StrayKind::UnknownId => format!(
                    "a reply with {request}, which no request of the runner carried: {}",
                    stray.reply
                ),
            };
            case.notes.push(note);
        }
        if !duplicates.is_empty() && case.outcome == Outcome::Pass {
            case.outcome = Outcome::fail(
                "exactly one response to each request (JSON-RPC 2.0 §5: the server MUST reply \
                 to a request with a Response; a second one answers nothing)",
                duplicates.join("; "),
            );
        }
    }
}

/// Which eras the target speaks, as far as the run found out.
#[derive(Default)]
struct Eras {
    /// Whether `server/discover` answered a 2026-07-28 request (`None`: not probed).
    modern: Option<bool>,
    /// Whether `initialize` succeeded.
    legacy: bool,
}

impl Eras {
    /// The skip for a case of an era the target does not speak: a modern case against a
    /// server without 2026-07-28, a handshake case against a server that only speaks it.
    fn skip(&self, case: &Case) -> Option<Outcome> {
        if modern::is_modern(case) {
            return (self.modern == Some(false)).then(|| {
                Outcome::skip("the server does not speak 2026-07-28 (a modern server/discover got no result listing it)")
            });
        }
        (self.modern == Some(true) && !self.legacy).then(|| {
            Outcome::skip("the server speaks only 2026-07-28 (initialize did not succeed)")
        })
    }
}

/// The `supportedVersions` of a discover result.
fn supported_versions(discover: &Value) -> Vec<String> {
    discover
        .get("supportedVersions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

async fn run_one(cx: &mut Ctx, case: &Case, limit: Duration) -> Outcome {
    if case.session == SessionUse::Shared {
        match cx.version().await {
            Ok(v) if !case.versions.contains(v) => {
                return Outcome::skip(format!(
                    "the session negotiated {}; the case applies to {}",
                    v.as_str(),
                    case.versions
                ))
            }
            Ok(_) => {}
            Err(e) => {
                return Outcome::fail("an initialized session to run the case on", e.to_string())
            }
        }
    }
    match tokio::time::timeout(limit, (case.run)(cx)).await {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(e)) => Outcome::fail(case.title, e.to_string()),
        Err(_) => Outcome::fail(
            format!("the case to finish within {limit:?}"),
            "it did not (the server stopped answering?)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::Filter;

    #[test]
    fn prefixes() {
        let f = Filter {
            only: vec!["tools".into(), "jsonrpc.batch".into()],
            skip: vec!["tools.names".into()],
        };
        assert!(f.selects("tools.list"));
        assert!(f.selects("jsonrpc.batch-refused"));
        assert!(!f.selects("tools.names"));
        assert!(!f.selects("lifecycle.initialize"));
        assert!(Filter::default().selects("anything"));
    }
}
