//! Lifecycle and version negotiation (`basic/lifecycle`): the initialize result, each dated
//! version requested in turn, an unknown version, requests before `initialize`, a second
//! `initialize`.

use std::collections::BTreeSet;

use mcp_proto::ProtocolVersion;
use serde_json::Value;

use super::{first_failure, still_alive};
use crate::case;
use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::Reply;

/// A version no server speaks, to see the counter-offer.
pub const UNKNOWN_VERSION: &str = "1999-01-01";

const SECTION: &str = "basic/lifecycle";

/// The lifecycle cases.
pub fn cases() -> Vec<Case> {
    vec![
        case!("lifecycle.initialize", Must, Versions::ALL, Own,
            "basic/lifecycle#initialization",
            "initialize returns protocolVersion, capabilities and serverInfo{name, version}",
            initialize),
        case!("lifecycle.version-echo.2024-11-05", Must, Versions::ALL, Own,
            "basic/lifecycle#version-negotiation",
            "a server speaking 2024-11-05 answers it with the same version", echo_2024_11_05),
        case!("lifecycle.version-echo.2025-03-26", Must, Versions::since(ProtocolVersion::V2025_03_26), Own,
            "basic/lifecycle#version-negotiation",
            "a server speaking 2025-03-26 answers it with the same version", echo_2025_03_26),
        case!("lifecycle.version-echo.2025-06-18", Must, Versions::since(ProtocolVersion::V2025_06_18), Own,
            "basic/lifecycle#version-negotiation",
            "a server speaking 2025-06-18 answers it with the same version", echo_2025_06_18),
        case!("lifecycle.version-echo.2025-11-25", Must, Versions::since(ProtocolVersion::V2025_11_25), Own,
            "basic/lifecycle#version-negotiation",
            "a server speaking 2025-11-25 answers it with the same version", echo_2025_11_25),
        case!("lifecycle.unknown-version", Must, Versions::ALL, Own,
            "basic/lifecycle#version-negotiation",
            "an unknown requested version gets a counter-offer of a version the server speaks, not an error",
            unknown_version),
        case!("lifecycle.unknown-version-latest", Should, Versions::ALL, Own,
            "basic/lifecycle#version-negotiation",
            "the counter-offer to an unknown version is the server's latest version",
            unknown_version_latest),
        case!("lifecycle.ping-before-initialize", Must, Versions::ALL, Own, NotHttp,
            "basic/utilities/ping",
            "ping is answered before initialize", ping_before_initialize),
        case!("lifecycle.request-before-initialize", Should, Versions::ALL, Own, NotHttp, SECTION,
            "a request other than ping before initialize gets a reply (an error, or a result: the rule is the client's)",
            request_before_initialize),
        case!("lifecycle.second-initialize", Must, Versions::ALL, Own, NotHttp, SECTION,
            "a second initialize gets exactly one reply and the session goes on",
            second_initialize),
    ]
}

async fn initialize(cx: &mut Ctx) -> CaseResult {
    let mut session = cx.fresh().await?;
    let reply = session
        .send_initialize(ProtocolVersion::LATEST.as_str())
        .await?;
    let expected = "a result {protocolVersion: string, capabilities: object, serverInfo: {name: string, version: string}}";
    let result = match reply {
        Reply::Result(r) => r,
        other => return Ok(Outcome::fail(expected, other.describe())),
    };
    let mut problems: Vec<&str> = Vec::new();
    if !result.get("protocolVersion").is_some_and(Value::is_string) {
        problems.push("no string `protocolVersion`");
    }
    if !result.get("capabilities").is_some_and(Value::is_object) {
        problems.push("no `capabilities` object");
    }
    match result.get("serverInfo") {
        Some(info) if info.is_object() => {
            if !info.get("name").is_some_and(Value::is_string) {
                problems.push("`serverInfo.name` is not a string");
            }
            if !info.get("version").is_some_and(Value::is_string) {
                problems.push("`serverInfo.version` is not a string");
            }
        }
        _ => problems.push("no `serverInfo` object"),
    }
    let typed = super::schema_problem::<mcp_proto::schema::InitializeResult>(&result, "the result");
    if let Some(problem) = &typed {
        problems.push(problem);
    }
    if result.get("instructions").is_some_and(|i| !i.is_string()) {
        problems.push("`instructions` is not a string");
    }
    if let Some(caps) = result.get("capabilities").and_then(Value::as_object) {
        for (name, value) in caps {
            if !value.is_object() && !value.is_null() {
                problems.push("a capability that is not an object");
                let _ = name;
                break;
            }
        }
    }
    if !problems.is_empty() {
        session.close().await;
        return Ok(Outcome::fail(
            expected,
            format!(
                "{}: {}",
                problems.join("; "),
                crate::driver::session::brief(&result)
            ),
        ));
    }
    session.notify("notifications/initialized", None).await?;
    let alive = still_alive(&mut session, "the handshake").await?;
    session.close().await;
    Ok(first_failure(Outcome::Pass, alive))
}

/// The versions the server shows it speaks: every version it answered with.
fn spoken(
    answers: &std::collections::BTreeMap<String, Result<String, String>>,
) -> BTreeSet<String> {
    answers
        .values()
        .filter_map(|a| a.as_ref().ok().cloned())
        .collect()
}

async fn version_echo(cx: &mut Ctx, version: ProtocolVersion) -> CaseResult {
    let answers = cx.version_answers().await?;
    let spoken = spoken(&answers);
    let requested = version.as_str();
    let expected = format!("protocolVersion {requested:?} in the initialize result");
    match answers.get(requested) {
        Some(Ok(answer)) if answer == requested => Ok(Outcome::Pass),
        Some(Ok(answer)) if spoken.contains(requested) => Ok(Outcome::fail(
            expected,
            format!(
                "{answer:?}, though the server answered another request with {requested:?}, so it speaks it"
            ),
        )),
        Some(Ok(answer)) if ProtocolVersion::parse(answer).is_some() => Ok(Outcome::skip(format!(
            "the server does not speak {requested}: it counter-offered {answer:?}"
        ))),
        Some(Ok(answer)) => Ok(Outcome::fail(
            expected,
            format!("{answer:?}, which is not a version the server speaks elsewhere"),
        )),
        Some(Err(got)) => Ok(Outcome::fail(expected, got.clone())),
        None => Ok(Outcome::fail(expected, "no answer recorded")),
    }
}

async fn echo_2024_11_05(cx: &mut Ctx) -> CaseResult {
    version_echo(cx, ProtocolVersion::V2024_11_05).await
}
async fn echo_2025_03_26(cx: &mut Ctx) -> CaseResult {
    version_echo(cx, ProtocolVersion::V2025_03_26).await
}
async fn echo_2025_06_18(cx: &mut Ctx) -> CaseResult {
    version_echo(cx, ProtocolVersion::V2025_06_18).await
}
async fn echo_2025_11_25(cx: &mut Ctx) -> CaseResult {
    version_echo(cx, ProtocolVersion::V2025_11_25).await
}

async fn unknown_version(cx: &mut Ctx) -> CaseResult {
    let answers = cx.version_answers().await?;
    let expected = "a result offering a dated version the server speaks, not an error";
    Ok(match answers.get(UNKNOWN_VERSION) {
        Some(Ok(answer)) if answer == UNKNOWN_VERSION => Outcome::fail(
            expected,
            format!("the unknown version {answer:?} echoed back"),
        ),
        Some(Ok(answer)) if ProtocolVersion::parse(answer).is_some() => Outcome::Pass,
        Some(Ok(answer)) => Outcome::fail(expected, format!("{answer:?}, which is no MCP version")),
        Some(Err(got)) => Outcome::fail(expected, got.clone()),
        None => Outcome::fail(expected, "no answer recorded"),
    })
}

async fn unknown_version_latest(cx: &mut Ctx) -> CaseResult {
    let answers = cx.version_answers().await?;
    let latest = answers
        .values()
        .filter_map(|a| a.as_ref().ok())
        .filter_map(|a| ProtocolVersion::parse(a))
        .max();
    let Some(latest) = latest else {
        return Ok(Outcome::skip("the server answered no dated version"));
    };
    let expected = format!(
        "the latest version the server answered with, {:?}",
        latest.as_str()
    );
    Ok(match answers.get(UNKNOWN_VERSION) {
        Some(Ok(answer)) if answer == latest.as_str() => Outcome::Pass,
        Some(Ok(answer)) => Outcome::fail(expected, format!("{answer:?}")),
        Some(Err(got)) => Outcome::fail(expected, got.clone()),
        None => Outcome::fail(expected, "no answer recorded"),
    })
}

async fn ping_before_initialize(cx: &mut Ctx) -> CaseResult {
    let mut session = cx.fresh().await?;
    let reply = session.first_request("ping", None).await;
    session.close().await;
    Ok(match reply? {
        Reply::Result(r) if r.is_object() => Outcome::Pass,
        other => Outcome::fail("an empty result {}", other.describe()),
    })
}

async fn request_before_initialize(cx: &mut Ctx) -> CaseResult {
    let mut session = cx.fresh().await?;
    // A ping first (allowed before initialize) lets the server start up within its allowance.
    let _ = session.first_request("ping", None).await;
    let reply = session.request("tools/list", None).await;
    session.close().await;
    // "The client SHOULD NOT send requests other than pings before the server has responded
    // to the initialize request" (2025-11-25 basic/lifecycle#initialization) binds the client;
    // no sentence tells the server to refuse. An error is what a server is expected to send, a
    // result is tolerated; silence breaks JSON-RPC 2.0 §5 ("the Server MUST reply").
    let expected = "a reply to `tools/list` sent before initialize (an error is expected)";
    Ok(match reply {
        Ok(_) => Outcome::Pass,
        Err(e) => Outcome::fail(expected, e.to_string()),
    })
}

async fn second_initialize(cx: &mut Ctx) -> CaseResult {
    let mut session = cx.fresh_at(ProtocolVersion::LATEST.as_str()).await?;
    let id = session
        .start_request(
            "initialize",
            Some(crate::driver::session::initialize_params(
                ProtocolVersion::LATEST.as_str(),
            )),
        )
        .await?;
    let timeout = session.timeout;
    let first = session.wait_reply(&id, timeout).await;
    let outcome = match first {
        Ok(_) => {
            let extra = session.responses_within(session.quiet).await?;
            let repeats = extra
                .iter()
                .filter(|(rid, _)| rid.as_ref() == Some(&id))
                .count();
            if repeats > 0 {
                Outcome::fail(
                    "exactly one reply to the second initialize",
                    format!("{} replies", repeats + 1),
                )
            } else {
                first_failure(
                    Outcome::Pass,
                    still_alive(&mut session, "a second initialize").await?,
                )
            }
        }
        Err(e) => Outcome::fail(
            "a reply (result or error) to the second initialize",
            e.to_string(),
        ),
    };
    session.close().await;
    Ok(outcome)
}
