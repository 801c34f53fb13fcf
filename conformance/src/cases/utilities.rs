//! Utilities (`basic/utilities/*`): ping, cancellation, progress, and concurrency (many requests
//! in flight at once, answered and matched by id).
//!
//! Cancellation, progress and some concurrency cases need a slow tool: see the crate docs for
//! the fixture convention.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};

use super::{first_failure, no_reply_within_quiet, still_alive};
use crate::case;
use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::Reply;

const NO_SLOW_TOOL: &str = "no slow-tool fixture: no tool has a numeric `duration`/`durationMs` argument and other required arguments the runner can fill in (name one with --slow-tool, give arguments with --call)";

/// The utility cases.
pub fn cases() -> Vec<Case> {
    vec![
        case!("ping.empty-result", Must, Versions::ALL, Shared, "basic/utilities/ping",
            "ping without params gets an empty result {}", ping_empty),
        case!("ping.meta-params", Must, Versions::ALL, Shared, "basic/utilities/ping",
            "ping with params {_meta: {}} gets an empty result {}", ping_meta),
        case!("cancellation.no-response", Should, Versions::ALL, Shared, "basic/utilities/cancellation",
            "a cancelled in-flight request gets no reply, and the session goes on", cancel_no_response),
        case!("cancellation.unknown-request", Must, Versions::ALL, Shared, "basic/utilities/cancellation",
            "a cancellation for an unknown request is ignored (no reply, session goes on)", cancel_unknown),
        case!("cancellation.after-response", Must, Versions::ALL, Shared, "basic/utilities/cancellation",
            "a cancellation that arrives after its request was answered is ignored (no reply, session goes on)",
            cancel_after_response),
        case!("progress.token-echo", Must, Versions::ALL, Shared, "basic/utilities/progress",
            "progress notifications carry the request's string progressToken, with increasing progress",
            progress_string_token),
        case!("progress.integer-token", Must, Versions::ALL, Shared, "basic/utilities/progress",
            "an integer progressToken is echoed as the same integer", progress_integer_token),
        case!("progress.stops-after-response", Must, Versions::ALL, Shared, "basic/utilities/progress",
            "no progress for a token after its request was answered", progress_stops),
        case!("concurrency.many-requests", Must, Versions::ALL, Shared, "basic/index#requests",
            "64 requests sent at once are all answered, each id exactly once", many_requests),
        case!("concurrency.slow-call-no-block", Should, Versions::ALL, Shared, "basic/index#requests",
            "pings are answered while a slow tool call is in flight", slow_no_block),
    ]
}

fn empty_result(reply: Reply) -> Outcome {
    match reply {
        Reply::Result(Value::Object(map)) if map.keys().all(|k| k == "_meta") => Outcome::Pass,
        other => Outcome::fail("an empty result {}", other.describe()),
    }
}

async fn ping_empty(cx: &mut Ctx) -> CaseResult {
    Ok(empty_result(cx.request("ping", None).await?))
}

async fn ping_meta(cx: &mut Ctx) -> CaseResult {
    Ok(empty_result(
        cx.request("ping", Some(json!({"_meta": {}}))).await?,
    ))
}

async fn cancel_no_response(cx: &mut Ctx) -> CaseResult {
    let Some(tool) = cx.slow_tool().await? else {
        return Ok(Outcome::skip(NO_SLOW_TOOL));
    };
    let session = cx.shared().await?;
    let params = json!({"name": tool.name, "arguments": tool.args(2.0, 4)});
    let id = session.start_request("tools/call", Some(params)).await?;
    // Let the call start, then cancel it.
    let early = session.responses_within(Duration::from_millis(300)).await?;
    if early.iter().any(|(rid, _)| rid.as_ref() == Some(&id)) {
        return Ok(Outcome::skip(format!(
            "`{}` answered within 300 ms, too fast to cancel",
            tool.name
        )));
    }
    session
        .notify(
            "notifications/cancelled",
            Some(json!({"requestId": id, "reason": "conformance: cancel test"})),
        )
        .await?;
    let late = session
        .responses_within(Duration::from_millis(2700))
        .await?;
    let outcome = match late.iter().find(|(rid, _)| rid.as_ref() == Some(&id)) {
        None => Outcome::Pass,
        Some((_, reply)) => Outcome::fail(
            "no reply to the cancelled request",
            format!("a reply after cancellation: {}", reply.describe()),
        ),
    };
    let alive = still_alive(session, "a cancellation").await?;
    Ok(first_failure(outcome, alive))
}

/// The race every client makes: it cancels a request whose response is already on its way.
/// "The receiver MAY ignore the cancellation notification if: The referenced request is unknown,
/// Processing has already completed" (basic/utilities/cancellation), and a notification gets
/// no response ("The receiver MUST NOT send a response", basic/index#notifications); a server
/// that looks the finished request up and fails must neither answer nor end the session.
async fn cancel_after_response(cx: &mut Ctx) -> CaseResult {
    let session = cx.shared().await?;
    let reply = session.request("ping", None).await?;
    if reply.is_error() {
        return Ok(Outcome::fail("a `ping` result", reply.describe()));
    }
    let Some(id) = session.last_request_id() else {
        return Ok(Outcome::fail("the id of the `ping` just sent", "none"));
    };
    session
        .notify(
            "notifications/cancelled",
            Some(json!({"requestId": id, "reason": "conformance: cancel after the response"})),
        )
        .await?;
    let outcome =
        no_reply_within_quiet(session, "no reply to a cancellation of an answered request").await?;
    let alive = still_alive(session, "a late cancellation").await?;
    Ok(first_failure(outcome, alive))
}

async fn cancel_unknown(cx: &mut Ctx) -> CaseResult {
    let session = cx.shared().await?;
    session
        .notify(
            "notifications/cancelled",
            Some(json!({"requestId": 987_654_321, "reason": "conformance"})),
        )
        .await?;
    let outcome = no_reply_within_quiet(session, "no reply to the cancellation").await?;
    let alive = still_alive(session, "an unknown cancellation").await?;
    Ok(first_failure(outcome, alive))
}

/// What a call of the progress fixture brought.
struct ProgressRun {
    reply: Reply,
    /// Progress params for the token, before the reply.
    before: Vec<Value>,
    /// Progress params for the token, in a short window after the reply.
    after: Vec<Value>,
    /// Every progress params seen before the reply, whatever the token.
    any: Vec<Value>,
}

/// Calls the progress fixture with `token`; `Err(skip)` without a fixture.
async fn progress_call(
    cx: &mut Ctx,
    token: Value,
) -> Result<Result<ProgressRun, Outcome>, crate::error::Error> {
    let Some(tool) = cx.progress_tool().await? else {
        return Ok(Err(Outcome::skip(NO_SLOW_TOOL)));
    };
    let session = cx.shared().await?;
    session.take_notifications();
    let params = json!({"name": tool.name, "arguments": tool.args(1.0, 4), "_meta": {"progressToken": token}});
    let timeout = session.timeout;
    let id = session.start_request("tools/call", Some(params)).await?;
    let reply = session.wait_reply(&id, timeout).await?;
    let before = session.take_notifications();
    session.collect_for(session.quiet).await?;
    let after = session.take_notifications();
    let progress = |list: &[(String, Value)], only_token: bool| -> Vec<Value> {
        list.iter()
            .filter(|(m, p)| {
                m == "notifications/progress"
                    && (!only_token || p.get("progressToken") == Some(&token))
            })
            .map(|(_, p)| p.clone())
            .collect()
    };
    Ok(Ok(ProgressRun {
        before: progress(&before, true),
        after: progress(&after, true),
        any: progress(&before, false),
        reply,
    }))
}

fn check_progress(reply: &Reply, progress: &[Value], any: &[Value]) -> Outcome {
    if let Reply::Error(_) = reply {
        return Outcome::fail("a result from the progress fixture", reply.describe());
    }
    if progress.is_empty() {
        if let Some(other) = any.first() {
            return Outcome::fail(
                "progress notifications carrying the request's progressToken",
                format!(
                    "progress with another token: {}",
                    crate::driver::session::brief(other)
                ),
            );
        }
        return Outcome::skip("the progress fixture sent no progress for the token (allowed)");
    }
    let mut last: Option<f64> = None;
    for p in progress {
        let Some(value) = p.get("progress").and_then(Value::as_f64) else {
            return Outcome::fail("a numeric `progress`", crate::driver::session::brief(p));
        };
        if let Some(prev) = last {
            if value <= prev {
                return Outcome::fail(
                    "strictly increasing progress",
                    format!("{value} after {prev}"),
                );
            }
        }
        if p.get("total").is_some_and(|t| !t.is_number()) {
            return Outcome::fail("a numeric `total`", crate::driver::session::brief(p));
        }
        last = Some(value);
    }
    Outcome::Pass
}

async fn progress_string_token(cx: &mut Ctx) -> CaseResult {
    Ok(match progress_call(cx, json!("conf-progress-1")).await? {
        Err(skip) => skip,
        Ok(run) => check_progress(&run.reply, &run.before, &run.any),
    })
}

async fn progress_integer_token(cx: &mut Ctx) -> CaseResult {
    Ok(match progress_call(cx, json!(4242)).await? {
        Err(skip) => skip,
        Ok(run) => check_progress(&run.reply, &run.before, &run.any),
    })
}

async fn progress_stops(cx: &mut Ctx) -> CaseResult {
    Ok(match progress_call(cx, json!("conf-progress-2")).await? {
        Err(skip) => skip,
        Ok(run) => match check_progress(&run.reply, &run.before, &run.any) {
            Outcome::Pass if run.after.is_empty() => Outcome::Pass,
            Outcome::Pass => Outcome::fail(
                "no progress after the reply",
                format!("{} notification(s) after it", run.after.len()),
            ),
            other => other,
        },
    })
}

async fn many_requests(cx: &mut Ctx) -> CaseResult {
    let with_tools = cx.capability("tools").await?.is_some();
    let session = cx.shared().await?;
    let mut ids = Vec::new();
    for i in 0..64 {
        let method = if with_tools && i % 2 == 1 {
            "tools/list"
        } else {
            "ping"
        };
        ids.push(session.start_request(method, None).await?);
    }
    let timeout = session.timeout;
    for id in &ids {
        if let Err(e) = session.wait_reply(id, timeout).await {
            return Ok(Outcome::fail(
                "a reply for each of 64 requests",
                format!("id {id}: {e}"),
            ));
        }
    }
    let extra = session.responses_within(Duration::from_millis(300)).await?;
    let mut dup: HashMap<String, usize> = HashMap::new();
    for (id, _) in &extra {
        if let Some(id) = id {
            if ids.contains(id) {
                *dup.entry(id.to_string()).or_default() += 1;
            }
        }
    }
    Ok(match dup.keys().next() {
        None => Outcome::Pass,
        Some(id) => Outcome::fail(
            "exactly one reply per id",
            format!("a second reply for id {id}"),
        ),
    })
}

async fn slow_no_block(cx: &mut Ctx) -> CaseResult {
    let Some(tool) = cx.slow_tool().await? else {
        return Ok(Outcome::skip(NO_SLOW_TOOL));
    };
    let session = cx.shared().await?;
    let params = json!({"name": tool.name, "arguments": tool.args(2.0, 2)});
    let slow_id = session.start_request("tools/call", Some(params)).await?;
    let started = tokio::time::Instant::now();
    let ping = session
        .request_within("ping", None, Duration::from_millis(1500))
        .await;
    let elapsed = started.elapsed();
    let timeout = session.timeout;
    let _ = session.wait_reply(&slow_id, timeout).await;
    Ok(match ping {
        Ok(Reply::Result(_)) => Outcome::Pass,
        Ok(other) => Outcome::fail("a ping result during the slow call", other.describe()),
        Err(_) => Outcome::fail(
            "a ping answered within 1.5 s while a 2 s tool call runs",
            format!("no answer after {elapsed:?}"),
        ),
    })
}
