//! `list_changed` after dynamic registration (`tools.dynamic-registration`): a server that declares
//! `tools.listChanged` and offers a known way to change its tool list sends
//! `notifications/tools/list_changed` when the list changes, and the next `tools/list` shows
//! the change.
//!
//! The known trigger is a tool named `*trigger_tool_change*` (the official suite's fixture and
//! our `conformance-server`), which adds a tool when it is absent and removes it when present.
//! The case calls it twice on a session of its own, so the server's list ends as it began.

use std::collections::BTreeSet;
use std::time::Duration;

use mcp_proto::ProtocolVersion;
use serde_json::{json, Value};
use tokio::time::Instant;

use crate::case;
use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::{Ctx, MAX_PAGES};
use crate::driver::{Reply, Session};
use crate::error::Error;

const CHANGED: &str = "notifications/tools/list_changed";

/// The list-change cases.
pub fn cases() -> Vec<Case> {
    vec![
        case!("tools.dynamic-registration", Should, Versions::until_modern(), Own, "server/tools#list-changed-notification",
            "after a tool is registered or removed, notifications/tools/list_changed arrives and tools/list shows the change", list_changed),
    ]
}

/// The tool names `tools/list` gives on `session`, all pages read (bounded by [`MAX_PAGES`]).
async fn tool_names(session: &mut Session) -> Result<Result<BTreeSet<String>, String>, Error> {
    let mut names = BTreeSet::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor.take().map(|c| json!({ "cursor": c }));
        let result = match session.request("tools/list", params).await? {
            Reply::Result(r) => r,
            other => return Ok(Err(format!("tools/list got {}", other.describe()))),
        };
        names.extend(super::strings_in(&result, "tools", "name").map(str::to_owned));
        match result.get("nextCursor") {
            Some(next @ Value::String(_)) => cursor = Some(next.clone()),
            _ => return Ok(Ok(names)),
        }
    }
    Ok(Err(format!(
        "tools/list did not end within {MAX_PAGES} pages"
    )))
}

/// Waits up to `window` for a `notifications/tools/list_changed`; true if one came.
async fn changed_within(session: &mut Session, window: Duration) -> Result<bool, Error> {
    let deadline = Instant::now() + window;
    loop {
        if session
            .take_notifications()
            .iter()
            .any(|(m, _)| m == CHANGED)
        {
            return Ok(true);
        }
        if session.pump(deadline).await?.is_none() {
            return Ok(session
                .take_notifications()
                .iter()
                .any(|(m, _)| m == CHANGED));
        }
    }
}

/// What one trigger call changed: whether the notification came, and the tools added and
/// removed as `tools/list` shows them afterwards.
struct Change {
    notified: bool,
    added: Vec<String>,
    removed: Vec<String>,
}

/// Calls `trigger` and reads what changed, against the names listed `before`.
async fn trigger_once(
    session: &mut Session,
    trigger: &str,
    before: &BTreeSet<String>,
) -> Result<Result<(Change, BTreeSet<String>), String>, Error> {
    // What arrived before the trigger belongs to nothing the case asked for.
    session.take_notifications();
    let reply = session
        .request(
            "tools/call",
            Some(json!({"name": trigger, "arguments": {}})),
        )
        .await?;
    if reply.is_error() || reply.result().and_then(|r| r.get("isError")) == Some(&json!(true)) {
        return Ok(Err(format!("`{trigger}` failed: {}", reply.describe())));
    }
    let window = session.timeout;
    let notified = changed_within(session, window).await?;
    let after = match tool_names(session).await? {
        Ok(names) => names,
        Err(problem) => return Ok(Err(problem)),
    };
    let change = Change {
        notified,
        added: after.difference(before).cloned().collect(),
        removed: before.difference(&after).cloned().collect(),
    };
    Ok(Ok((change, after)))
}

/// The problems with one change: no notification, or no visible change.
pub fn change_problems(
    step: &str,
    notified: bool,
    added: &[String],
    removed: &[String],
) -> Vec<String> {
    let mut problems = Vec::new();
    if !notified {
        problems.push(format!("{step}: no {CHANGED}"));
    }
    if added.is_empty() && removed.is_empty() {
        problems.push(format!("{step}: the next tools/list shows no change"));
    }
    problems
}

async fn list_changed(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("tools").await? {
        return Ok(skip);
    }
    let declared = cx
        .capability("tools")
        .await?
        .and_then(|tools| tools.get("listChanged").and_then(Value::as_bool));
    if declared != Some(true) {
        return Ok(Outcome::skip(
            "the server does not declare tools.listChanged",
        ));
    }
    let Some(trigger) = cx
        .tools()
        .await?
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .find(|n| n.contains("trigger_tool_change"))
        .map(str::to_owned)
    else {
        return Ok(Outcome::skip(
            "no trigger: the server offers no known way to change its tool list (a tool named *trigger_tool_change*)",
        ));
    };
    let mut session = cx.fresh_at(ProtocolVersion::LATEST.as_str()).await?;
    let outcome = run_twice(&mut session, &trigger).await;
    session.close().await;
    outcome
}

/// Triggers a change and its reverse on `session` and judges both.
async fn run_twice(session: &mut Session, trigger: &str) -> CaseResult {
    let expected = format!(
        "{CHANGED} after each call of `{trigger}`, and tools/list showing the tool added, then removed"
    );
    let original = match tool_names(session).await? {
        Ok(names) => names,
        Err(problem) => return Ok(Outcome::fail(expected, problem)),
    };
    let mut problems = Vec::new();
    let mut before = original.clone();
    for step in ["first call", "second call"] {
        match trigger_once(session, trigger, &before).await? {
            Ok((change, after)) => {
                problems.extend(change_problems(
                    step,
                    change.notified,
                    &change.added,
                    &change.removed,
                ));
                before = after;
            }
            Err(problem) => {
                problems.push(format!("{step}: {problem}"));
                break;
            }
        }
    }
    Ok(match problems.is_empty() {
        true => Outcome::Pass,
        false => Outcome::fail(expected, problems.join("; ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_needs_the_notification_and_a_visible_difference() {
        let added = vec!["test_toggled".to_owned()];
        assert!(change_problems("first call", true, &added, &[]).is_empty());
        assert!(change_problems("second call", true, &[], &added).is_empty());
        let silent = change_problems("first call", false, &added, &[]);
        assert_eq!(silent.len(), 1);
        assert!(silent[0].contains("no notifications/tools/list_changed"));
        let stale = change_problems("first call", true, &[], &[]);
        assert_eq!(stale.len(), 1);
        assert!(stale[0].contains("shows no change"));
    }
}
