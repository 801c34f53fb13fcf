//! Logging (`server/utilities/logging`): every level accepted by `logging/setLevel`, an invalid
//! level refused, and the shape of every `notifications/message` seen during the run.

use mcp_proto::jsonrpc::error_codes::INVALID_PARAMS;
use mcp_proto::ProtocolVersion;
use serde_json::{json, Value};

use super::expect_code;
use crate::case;
use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::session::brief;
use crate::driver::Reply;

/// The RFC 5424 levels, least severe first.
pub const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

const SECTION: &str = "server/utilities/logging";

/// The logging cases that run in place.
pub fn cases() -> Vec<Case> {
    vec![
        case!(
            "logging.set-level",
            Must,
            Versions::until_modern(),
            Shared,
            SECTION,
            "logging/setLevel accepts each of the eight levels with an empty result",
            set_level
        ),
        case!(
            "logging.invalid-level",
            Should,
            Versions::until_modern(),
            Shared,
            SECTION,
            "logging/setLevel with an unknown level gets error -32602",
            invalid_level
        ),
    ]
}

/// The run-wide logging check, after every other case.
pub fn final_cases() -> Vec<Case> {
    vec![case!(
        "logging.messages",
        Must,
        Versions::ALL,
        Own,
        SECTION,
        "every notifications/message had a valid level and data, from a server declaring logging",
        messages
    )]
}

async fn set_level(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("logging").await? {
        return Ok(skip);
    }
    for level in LEVELS.iter().rev().chain(std::iter::once(&"info")) {
        match cx
            .request("logging/setLevel", Some(json!({"level": level})))
            .await?
        {
            Reply::Result(Value::Object(m)) if m.keys().all(|k| k == "_meta") => {}
            other => {
                return Ok(Outcome::fail(
                    format!("an empty result for level {level:?}"),
                    other.describe(),
                ))
            }
        }
    }
    Ok(Outcome::Pass)
}

async fn invalid_level(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("logging").await? {
        return Ok(skip);
    }
    let reply = cx
        .request("logging/setLevel", Some(json!({"level": "verbose"})))
        .await?;
    Ok(expect_code(&reply, INVALID_PARAMS, "level \"verbose\""))
}

async fn messages(cx: &mut Ctx) -> CaseResult {
    let seen = cx.journal.log_messages();
    if seen.is_empty() {
        return Ok(Outcome::skip(
            "the server sent no notifications/message during the run",
        ));
    }
    if cx.capability("logging").await?.is_none() {
        return Ok(Outcome::fail(
            "the `logging` capability from a server sending notifications/message",
            format!(
                "{} log message(s) without it; the first: {}",
                seen.len(),
                seen.first().map(brief).unwrap_or_default()
            ),
        ));
    }
    for params in &seen {
        let level_ok = params
            .get("level")
            .and_then(Value::as_str)
            .is_some_and(|l| LEVELS.contains(&l));
        let logger_ok = params.get("logger").is_none_or(Value::is_string);
        if !level_ok || !logger_ok || params.get("data").is_none() {
            return Ok(Outcome::fail(
                "{level: one of the eight levels, logger?: string, data}",
                brief(params),
            ));
        }
    }
    let _ = ProtocolVersion::LATEST;
    Ok(Outcome::Pass)
}
