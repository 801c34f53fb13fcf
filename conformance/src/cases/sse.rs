//! The HTTP+SSE transport (ids `sse.*`): the `endpoint` event and the POST flow. They
//! apply to `sse` targets only.

use std::time::Duration;

use bytes::Bytes;
use hyper::Method;
use serde_json::{json, Value};

use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::session::initialize_params;
use crate::driver::sse::SseTarget;
use crate::driver::{Frame, Kind};
use crate::error::Error;

const SECTION: &str = "2024-11-05 basic/transports#http-with-sse";

/// The HTTP+SSE cases.
pub fn cases() -> Vec<Case> {
    vec![
        crate::case!(
            "sse.endpoint-event",
            Must,
            Versions::ALL,
            Own,
            Sse,
            SECTION,
            "the stream opens with an `endpoint` event naming a URI to POST to",
            endpoint_event
        ),
        crate::case!(
            "sse.post-flow",
            Must,
            Versions::ALL,
            Own,
            Sse,
            SECTION,
            "a POSTed request is accepted (2xx) and its response arrives on the stream",
            post_flow
        ),
    ]
}

fn target(cx: &Ctx) -> Result<SseTarget, Error> {
    match cx.kind() {
        Kind::Sse(t) => Ok(t),
        other => Err(Error::Protocol(format!(
            "an sse.* case ran on a {} target",
            other.name()
        ))),
    }
}

async fn endpoint_event(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let wait = cx.request_timeout();
    Ok(match t.open_stream(wait).await {
        Ok(stream) => {
            stream.reader.abort();
            if stream.endpoint.authority() == t.url.authority() {
                Outcome::Pass
            } else {
                Outcome::fail(
                    "an endpoint on the stream's origin",
                    format!(
                        "{:?} (resolved to {})",
                        stream.endpoint_data, stream.endpoint
                    ),
                )
            }
        }
        Err(e) => Outcome::fail("an `endpoint` event first on the stream", e.to_string()),
    })
}

async fn post_flow(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let wait = cx.request_timeout();
    let mut stream = match t.open_stream(wait).await {
        Ok(s) => s,
        Err(e) => return Ok(Outcome::fail("an `endpoint` event", e.to_string())),
    };
    let body = json!({
        "jsonrpc": "2.0",
        "id": 7,
        "method": "initialize",
        "params": initialize_params(mcp_proto::ProtocolVersion::V2024_11_05.as_str())
    });
    let answer = t
        .client
        .raw(
            Method::POST,
            &stream.endpoint,
            &[("content-type", "application/json")],
            Bytes::from(body.to_string()),
        )
        .await?;
    if !answer.status.is_success() {
        stream.reader.abort();
        return Ok(Outcome::fail("the POST accepted (202)", answer.describe()));
    }
    let deadline = tokio::time::Instant::now() + wait.max(Duration::from_secs(1));
    let outcome = loop {
        match tokio::time::timeout_at(deadline, stream.frames.recv()).await {
            Ok(Some(Frame::Data(data))) => {
                let Ok(value) = serde_json::from_slice::<Value>(&data) else {
                    continue;
                };
                if value.get("id") == Some(&json!(7)) {
                    break if value.get("result").is_some() {
                        Outcome::Pass
                    } else {
                        Outcome::fail("an initialize result on the stream", value.to_string())
                    };
                }
            }
            Ok(Some(Frame::TooLong(_))) => continue,
            Ok(None) => break Outcome::fail("the response on the stream", "the stream ended"),
            Err(_) => {
                break Outcome::fail(
                    "the response on the stream",
                    format!("nothing with id 7 within {wait:?}"),
                )
            }
        }
    };
    stream.reader.abort();
    Ok(outcome)
}
