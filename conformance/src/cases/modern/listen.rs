//! `subscriptions/listen` under 2026-07-28: the first message is
//! `notifications/subscriptions/acknowledged`, every notification carries the subscription id
//! (the listen request's id), and only the requested kinds arrive. When the server has a tool
//! named `*trigger_tool_change*`, it is called on the same connection (a separate POST over
//! HTTP) to make the tool list change while the subscription listens to tools only.

use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::time::Instant;

use super::protocol::params_with;
use super::{capability, discover, open, request, verdict, META_SUBSCRIPTION_ID, MODERN};
use crate::case::{Case, CaseResult, Outcome};
use crate::context::Ctx;
use crate::driver::{Kind, Reply, Session};
use crate::error::Error;

const SECTION: &str = "2026-07-28 basic/utilities/subscriptions";
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// How long the runner waits for a triggered notification.
const TRIGGER_WINDOW: Duration = Duration::from_millis(1500);

/// The listen cases.
pub fn cases() -> Vec<Case> {
    vec![crate::case!(
        "modern.listen",
        Must,
        MODERN,
        Own,
        SECTION,
        "subscriptions/listen: acknowledged first, every notification tagged with the listen id, only requested kinds",
        listen
    )]
}

/// The listChanged kinds the server declares, as listen filter keys.
fn declared_kinds(discover: &Value) -> Map<String, Value> {
    let mut kinds = Map::new();
    for (capability_name, key) in [
        ("tools", "toolsListChanged"),
        ("prompts", "promptsListChanged"),
        ("resources", "resourcesListChanged"),
    ] {
        let declared = capability(discover, capability_name)
            .and_then(|c| c.get("listChanged"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if declared {
            kinds.insert(key.to_owned(), json!(true));
        }
    }
    kinds
}

/// The subscription id a notification carries, if any.
fn subscription_id(params: &Value) -> Option<&Value> {
    params
        .get("_meta")
        .and_then(|m| m.get(META_SUBSCRIPTION_ID))
}

/// Pumps `session` until `method` has arrived or `window` passed, adding what was received to
/// `seen` in order.
async fn wait_for(
    session: &mut Session,
    seen: &mut Vec<(String, Value)>,
    method: &str,
    window: Duration,
) -> Result<(), Error> {
    let deadline = Instant::now() + window;
    loop {
        seen.extend(session.take_notifications());
        if seen.iter().any(|(m, _)| m == method) {
            return Ok(());
        }
        if session.pump(deadline).await?.is_none() {
            seen.extend(session.take_notifications());
            return Ok(());
        }
    }
}

/// Calls the tool that changes the tool list (named `*trigger_tool_change*`) on `session`,
/// while the listen request is open on it; false without one.
async fn trigger_tool_change(session: &mut Session) -> Result<bool, Error> {
    let trigger = match request(session, "tools/list", json!({})).await? {
        Reply::Result(list) => list
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .find(|n| n.contains("trigger_tool_change"))
            .map(str::to_owned),
        Reply::Error(_) => None,
    };
    if let Some(name) = &trigger {
        request(
            session,
            "tools/call",
            json!({"name": name, "arguments": {}}),
        )
        .await?;
    }
    Ok(trigger.is_some())
}

async fn listen(cx: &mut Ctx) -> CaseResult {
    let discover = match discover(cx).await? {
        Ok(d) => d,
        Err(skip) => return Ok(skip),
    };
    let kinds = declared_kinds(&discover);
    if kinds.is_empty() {
        return Ok(Outcome::skip(
            "the server declares no listChanged capability",
        ));
    }
    // Listen to tools only when the server has tool changes, so other kinds are unrequested.
    let tools_only = kinds.contains_key("toolsListChanged");
    let filter = if tools_only {
        json!({"toolsListChanged": true})
    } else {
        Value::Object(kinds)
    };
    let mut session = open(cx).await?;
    let params = params_with(json!({"notifications": filter}), json!({}));
    let id = session
        .start_request("subscriptions/listen", Some(params))
        .await?;
    let startup = session.startup_timeout.max(session.timeout);
    let mut seen = Vec::new();
    wait_for(&mut session, &mut seen, ACKNOWLEDGED, startup).await?;
    let triggered = tools_only && trigger_tool_change(&mut session).await?;
    if triggered {
        let changed = "notifications/tools/list_changed";
        wait_for(&mut session, &mut seen, changed, TRIGGER_WINDOW).await?;
    }
    // End it: notifications/cancelled on stdio; on HTTP closing the stream is the cancel.
    if matches!(cx.kind(), Kind::Stdio) {
        session
            .notify("notifications/cancelled", Some(json!({"requestId": id})))
            .await?;
    }
    session.close().await;

    let mut problems = Vec::new();
    match seen.first() {
        Some((method, _)) if method == ACKNOWLEDGED => {}
        Some((method, _)) => problems.push(format!("the first message was {method}")),
        None => problems.push(format!("no {ACKNOWLEDGED}")),
    }
    let allowed = |method: &str| {
        method == ACKNOWLEDGED
            || method == "notifications/cancelled"
            || (filter.get("toolsListChanged").is_some()
                && method == "notifications/tools/list_changed")
            || (filter.get("promptsListChanged").is_some()
                && method == "notifications/prompts/list_changed")
            || (filter.get("resourcesListChanged").is_some()
                && method == "notifications/resources/list_changed")
    };
    for (method, params) in &seen {
        if !allowed(method) {
            problems.push(format!("unrequested {method}"));
        }
        if method != "notifications/cancelled" && subscription_id(params) != Some(&id) {
            problems.push(format!(
                "{method} tagged {:?}, not the listen id {id}",
                subscription_id(params)
            ));
        }
    }
    if triggered
        && !seen
            .iter()
            .any(|(m, _)| m == "notifications/tools/list_changed")
    {
        problems.push("no notifications/tools/list_changed after the tool list changed".into());
    }
    Ok(verdict(
        "acknowledged first, then only requested kinds, each tagged with the listen id",
        problems,
    ))
}
