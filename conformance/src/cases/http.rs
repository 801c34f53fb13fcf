//! Streamable HTTP transport rules (ids `http.*`): media types, session ids, DELETE, the GET
//! stream, `Origin` and `MCP-Protocol-Version`. They apply to `http` targets only and talk raw
//! HTTP so they see statuses and headers exactly as sent.

use bytes::Bytes;
use hyper::{Method, StatusCode};
use serde_json::{json, Value};

use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::http::{HttpTarget, RawResponse, ACCEPT_BOTH, PROTOCOL_VERSION, SESSION_ID};
use crate::driver::session::initialize_params;
use crate::driver::Kind;
use crate::error::Error;
use mcp_proto::ProtocolVersion;

const SECTION: &str = "basic/transports#streamable-http";

/// The Streamable HTTP cases.
pub fn cases() -> Vec<Case> {
    vec![
        crate::case!(
            "http.session-id",
            Must,
            Versions::since(ProtocolVersion::V2025_03_26),
            Own,
            Http,
            "basic/transports#session-management",
            "a session id in the initialize answer is visible ASCII (0x21-0x7E)",
            session_id
        ),
        crate::case!(
            "http.notification-accepted",
            Must,
            Versions::since(ProtocolVersion::V2025_03_26),
            Own,
            Http,
            "basic/transports#sending-messages-to-the-server",
            "a POSTed notification gets 202 Accepted with no body",
            notification_accepted
        ),
        crate::case!(
            "http.wrong-accept",
            Should,
            Versions::since(ProtocolVersion::V2025_03_26),
            Own,
            Http,
            SECTION,
            "a POST whose Accept lists neither JSON nor event streams is refused (406 or 4xx)",
            wrong_accept
        ),
        crate::case!(
            "http.wrong-content-type",
            Should,
            Versions::since(ProtocolVersion::V2025_03_26),
            Own,
            Http,
            SECTION,
            "a POST whose Content-Type is not JSON is refused (415 or 4xx)",
            wrong_content_type
        ),
        crate::case!(
            "http.malformed-json",
            Must,
            Versions::since(ProtocolVersion::V2025_03_26),
            Own,
            Http,
            "basic/transports#sending-messages-to-the-server",
            "malformed JSON gets an HTTP error status, e.g. 400 (with -32700 when the body is a JSON-RPC error)",
            malformed_json
        ),
        crate::case!(
            "http.missing-session-id",
            Should,
            Versions::since(ProtocolVersion::V2025_03_26),
            Own,
            Http,
            "basic/transports#session-management",
            "a request without Mcp-Session-Id after initialize gets 400",
            missing_session_id
        ),
        crate::case!(
            "http.unknown-session",
            Must,
            Versions::since(ProtocolVersion::V2025_03_26),
            Own,
            Http,
            "basic/transports#session-management",
            "a request naming an unknown session gets 404",
            unknown_session
        ),
        crate::case!(
            "http.delete",
            Must,
            Versions::since(ProtocolVersion::V2025_03_26),
            Own,
            Http,
            "basic/transports#session-management",
            "DELETE ends the session (later requests get 404) or is refused with 405",
            delete
        ),
        crate::case!(
            "http.session-expiry",
            Must,
            Versions::since(ProtocolVersion::V2025_03_26),
            Own,
            Http,
            "basic/transports#session-management",
            "a request on an ended (DELETEd) or unknown session gets 404 each time, and a new initialize without the id opens a new, working session",
            session_expiry
        ),
        crate::case!(
            "http.get-stream",
            Must,
            Versions::since(ProtocolVersion::V2025_03_26),
            Own,
            Http,
            "basic/transports#listening-for-messages-from-the-server",
            "GET answers text/event-stream or 405",
            get_stream
        ),
        crate::case!(
            "http.bad-origin",
            Must,
            Versions::since(ProtocolVersion::V2025_03_26),
            Own,
            Http,
            "basic/transports#security-warning",
            "a request with a foreign Origin gets 403",
            bad_origin
        ),
        crate::case!(
            "http.protocol-version",
            Must,
            Versions::since(ProtocolVersion::V2025_06_18),
            Own,
            Http,
            "basic/transports#protocol-version-header",
            "an unsupported MCP-Protocol-Version header gets 400",
            protocol_version
        ),
    ]
}

fn target(cx: &Ctx) -> Result<HttpTarget, Error> {
    match cx.kind() {
        Kind::Http(t) => Ok(t),
        other => Err(Error::Protocol(format!(
            "an http.* case ran on a {} target",
            other.name()
        ))),
    }
}

fn request(id: i64, method: &str, params: Option<Value>) -> Bytes {
    let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let (Some(p), Some(obj)) = (params, msg.as_object_mut()) {
        obj.insert("params".into(), p);
    }
    Bytes::from(msg.to_string())
}

fn initialize_body() -> Bytes {
    request(
        1,
        "initialize",
        Some(initialize_params(ProtocolVersion::LATEST.as_str())),
    )
}

fn initialized_body() -> Bytes {
    Bytes::from(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string())
}

/// A raw POST with the right Accept and Content-Type plus `extra`.
async fn post(t: &HttpTarget, extra: &[(&str, &str)], body: Bytes) -> Result<RawResponse, Error> {
    let mut headers = vec![
        ("accept", ACCEPT_BOTH),
        ("content-type", "application/json"),
    ];
    headers.extend_from_slice(extra);
    t.client.raw(Method::POST, &t.url, &headers, body).await
}

/// An initialized raw session: its id (if the server gave one) and the negotiated version.
struct RawSession {
    id: Option<String>,
    version: String,
    init: RawResponse,
}

impl RawSession {
    fn headers(&self) -> Vec<(&str, &str)> {
        let mut out = vec![(PROTOCOL_VERSION, self.version.as_str())];
        if let Some(id) = &self.id {
            out.push((SESSION_ID, id.as_str()));
        }
        out
    }
}

async fn open(t: &HttpTarget) -> Result<RawSession, Error> {
    let init = post(t, &[], initialize_body()).await?;
    if !init.status.is_success() {
        return Err(Error::Protocol(format!(
            "initialize was refused: {}",
            init.describe()
        )));
    }
    let id = init.header(SESSION_ID).map(str::to_owned);
    let session = RawSession {
        id,
        version: ProtocolVersion::LATEST.as_str().to_owned(),
        init,
    };
    let _ = post(t, &session.headers(), initialized_body()).await?;
    Ok(session)
}

async fn close(t: &HttpTarget, session: &RawSession) {
    if session.id.is_some() {
        let _ = delete_session(t, session).await;
    }
}

/// A DELETE naming `session`.
async fn delete_session(t: &HttpTarget, session: &RawSession) -> Result<RawResponse, Error> {
    t.client
        .raw(Method::DELETE, &t.url, &session.headers(), Bytes::new())
        .await
}

/// An initialized raw session and its id; `Err(skip)` when the server assigns no id.
async fn open_with_id(t: &HttpTarget) -> Result<Result<(RawSession, String), Outcome>, Error> {
    let session = open(t).await?;
    Ok(match session.id.clone() {
        Some(id) => Ok((session, id)),
        None => Err(Outcome::skip(
            "the server assigns no session id (it may run stateless)",
        )),
    })
}

fn is_client_error(r: &RawResponse) -> bool {
    r.status.is_client_error()
}

async fn session_id(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let session = open(&t).await?;
    let outcome = match session.init.headers.get(SESSION_ID) {
        None => Outcome::skip("the server assigns no session id (it may run stateless)"),
        Some(v) if !v.is_empty() && v.as_bytes().iter().all(|b| (0x21..=0x7e).contains(b)) => {
            Outcome::Pass
        }
        Some(v) => Outcome::fail(
            "Mcp-Session-Id of visible ASCII only (0x21-0x7E)",
            format!("{:?}", String::from_utf8_lossy(v.as_bytes())),
        ),
    };
    close(&t, &session).await;
    Ok(outcome)
}

async fn notification_accepted(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let init = post(&t, &[], initialize_body()).await?;
    if !init.status.is_success() {
        return Ok(Outcome::fail("initialize to succeed", init.describe()));
    }
    let id = init.header(SESSION_ID).map(str::to_owned);
    let version = ProtocolVersion::LATEST.as_str();
    let mut headers = vec![(PROTOCOL_VERSION, version)];
    if let Some(id) = &id {
        headers.push((SESSION_ID, id.as_str()));
    }
    let answer = post(&t, &headers, initialized_body()).await?;
    let outcome = if answer.status == StatusCode::ACCEPTED && answer.body.is_empty() {
        Outcome::Pass
    } else {
        Outcome::fail(
            "202 Accepted with no body for `notifications/initialized`",
            answer.describe(),
        )
    };
    let session = RawSession {
        id,
        version: version.to_owned(),
        init,
    };
    close(&t, &session).await;
    Ok(outcome)
}

async fn wrong_accept(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let answer = t
        .client
        .raw(
            Method::POST,
            &t.url,
            &[
                ("accept", "text/plain"),
                ("content-type", "application/json"),
            ],
            initialize_body(),
        )
        .await?;
    Ok(if is_client_error(&answer) {
        Outcome::Pass
    } else {
        Outcome::fail(
            "406 Not Acceptable (or another 4xx) for `Accept: text/plain`",
            answer.describe(),
        )
    })
}

async fn wrong_content_type(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let answer = t
        .client
        .raw(
            Method::POST,
            &t.url,
            &[("accept", ACCEPT_BOTH), ("content-type", "text/plain")],
            initialize_body(),
        )
        .await?;
    Ok(if is_client_error(&answer) {
        Outcome::Pass
    } else {
        Outcome::fail(
            "415 Unsupported Media Type (or another 4xx) for `Content-Type: text/plain`",
            answer.describe(),
        )
    })
}

async fn malformed_json(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let session = open(&t).await?;
    let answer = post(
        &t,
        &session.headers(),
        Bytes::from_static(b"{\"jsonrpc\": \"2.0\", \"id\": 1, "),
    )
    .await?;
    close(&t, &session).await;
    // "If the server cannot accept the input, it MUST return an HTTP error status code (e.g.,
    // 400 Bad Request). The HTTP response body MAY comprise a JSON-RPC error response that has
    // no id." (2025-11-25 basic/transports#sending-messages-to-the-server): any 4xx, and a
    // JSON-RPC error in the body only when there is one.
    if !answer.status.is_client_error() {
        return Ok(Outcome::fail(
            "an HTTP error status (e.g. 400) for malformed JSON",
            answer.describe(),
        ));
    }
    let Some(body) = answer.json() else {
        return Ok(Outcome::Pass);
    };
    let code = body.pointer("/error/code").and_then(Value::as_i64);
    Ok(match code {
        Some(-32700) | None => Outcome::Pass,
        Some(_) => Outcome::fail(
            "a JSON-RPC error in the body, when there is one, with code -32700",
            answer.describe(),
        ),
    })
}

async fn missing_session_id(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let session = open(&t).await?;
    if session.id.is_none() {
        return Ok(Outcome::skip(
            "the server assigns no session id (it may run stateless)",
        ));
    }
    let answer = post(
        &t,
        &[(PROTOCOL_VERSION, session.version.as_str())],
        request(2, "ping", None),
    )
    .await?;
    close(&t, &session).await;
    Ok(if answer.status == StatusCode::BAD_REQUEST {
        Outcome::Pass
    } else {
        Outcome::fail(
            "HTTP 400 for a request without Mcp-Session-Id",
            answer.describe(),
        )
    })
}

async fn unknown_session(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let session = open(&t).await?;
    if session.id.is_none() {
        return Ok(Outcome::skip(
            "the server assigns no session id (it may run stateless)",
        ));
    }
    let answer = post(
        &t,
        &[
            (PROTOCOL_VERSION, session.version.as_str()),
            (SESSION_ID, "mcp-conformance-no-such-session"),
        ],
        request(2, "ping", None),
    )
    .await?;
    close(&t, &session).await;
    Ok(if answer.status == StatusCode::NOT_FOUND {
        Outcome::Pass
    } else {
        Outcome::fail("HTTP 404 for an unknown session id", answer.describe())
    })
}

async fn delete(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let session = match open_with_id(&t).await? {
        Ok((session, _)) => session,
        Err(skip) => return Ok(skip),
    };
    let answer = delete_session(&t, &session).await?;
    if answer.status == StatusCode::METHOD_NOT_ALLOWED {
        return Ok(Outcome::Pass);
    }
    if !answer.status.is_success() {
        return Ok(Outcome::fail(
            "DELETE to end the session (2xx) or 405",
            answer.describe(),
        ));
    }
    let after = post(&t, &session.headers(), request(2, "ping", None)).await?;
    Ok(if after.status == StatusCode::NOT_FOUND {
        Outcome::Pass
    } else {
        Outcome::fail(
            "HTTP 404 for a request on a session ended with DELETE",
            after.describe(),
        )
    })
}

/// The session id a client keeps after its session ended: the one it DELETEd, or (a server that
/// refuses DELETE with 405) an id the server never issued, which is an expired one to it.
const EXPIRED_SESSION: &str = "mcp-conformance-expired-session";

/// True for a 2xx answer whose body, when it is JSON, is a result rather than an error (an
/// event-stream body is not read; its 2xx status is the answer).
fn is_success_answer(answer: &RawResponse) -> bool {
    answer.status.is_success()
        && answer
            .json()
            .is_none_or(|body| body.get("result").is_some() && body.get("error").is_none())
}

async fn session_expiry(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let (first, first_id) = match open_with_id(&t).await? {
        Ok(opened) => opened,
        Err(skip) => return Ok(skip),
    };
    let deleted = delete_session(&t, &first).await?;
    let refused = deleted.status == StatusCode::METHOD_NOT_ALLOWED;
    let (ended, how) = if deleted.status.is_success() {
        (first_id, "ended with DELETE")
    } else if refused {
        (EXPIRED_SESSION.to_owned(), "never issued (DELETE got 405)")
    } else {
        close(&t, &first).await;
        return Ok(Outcome::fail(
            "DELETE to end the session (2xx) or 405",
            deleted.describe(),
        ));
    };
    let stale = |id: i64, method: &str| {
        let headers = [
            (PROTOCOL_VERSION, first.version.as_str()),
            (SESSION_ID, ended.as_str()),
        ];
        let body = request(id, method, (method == "tools/list").then(|| json!({})));
        let t = &t;
        async move { post(t, &headers, body).await }
    };
    let expected = format!(
        "HTTP 404 for every request naming a session {how}, then a new session on initialize without the id"
    );
    for (id, method) in [(2, "ping"), (3, "tools/list")] {
        let answer = stale(id, method).await?;
        if answer.status != StatusCode::NOT_FOUND {
            if refused {
                close(&t, &first).await;
            }
            return Ok(Outcome::fail(
                expected,
                format!("`{method}` on the old session: {}", answer.describe()),
            ));
        }
    }
    let second = match open(&t).await {
        Ok(s) => s,
        Err(e) => {
            return Ok(Outcome::fail(
                expected,
                format!("initialize without a session id: {e}"),
            ))
        }
    };
    let outcome = match second.id.as_deref() {
        None => Outcome::fail(expected.clone(), "the new session has no Mcp-Session-Id"),
        Some(id) if id == ended => Outcome::fail(
            expected.clone(),
            format!("the new session got the ended id {id:?} again"),
        ),
        Some(_) => {
            let ping = post(&t, &second.headers(), request(4, "ping", None)).await?;
            let again = stale(5, "ping").await?;
            if !is_success_answer(&ping) {
                Outcome::fail(
                    expected.clone(),
                    format!("`ping` on the new session: {}", ping.describe()),
                )
            } else if again.status != StatusCode::NOT_FOUND {
                Outcome::fail(
                    expected.clone(),
                    format!(
                        "after the new session opened, the old id got {}",
                        again.describe()
                    ),
                )
            } else {
                Outcome::Pass
            }
        }
    };
    close(&t, &second).await;
    if refused {
        // The server that refused the DELETE still holds the first session.
        close(&t, &first).await;
    }
    Ok(outcome)
}

async fn get_stream(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let session = open(&t).await?;
    let mut headers = session.headers();
    headers.push(("accept", "text/event-stream"));
    let answer = t
        .client
        .raw(Method::GET, &t.url, &headers, Bytes::new())
        .await?;
    close(&t, &session).await;
    Ok(
        if answer.status == StatusCode::METHOD_NOT_ALLOWED
            || (answer.status == StatusCode::OK && answer.media_type() == "text/event-stream")
        {
            Outcome::Pass
        } else {
            Outcome::fail("200 text/event-stream or 405", answer.describe())
        },
    )
}

async fn bad_origin(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let answer = post(&t, &[("origin", "http://evil.example")], initialize_body()).await?;
    if answer.status.is_success() {
        if let Some(id) = answer.header(SESSION_ID) {
            let session = RawSession {
                id: Some(id.to_owned()),
                version: ProtocolVersion::LATEST.as_str().to_owned(),
                init: answer.clone(),
            };
            close(&t, &session).await;
        }
    }
    Ok(if answer.status == StatusCode::FORBIDDEN {
        Outcome::Pass
    } else {
        Outcome::fail(
            "HTTP 403 for `Origin: http://evil.example`",
            answer.describe(),
        )
    })
}

async fn protocol_version(cx: &mut Ctx) -> CaseResult {
    let t = target(cx)?;
    let session = open(&t).await?;
    let mut headers: Vec<(&str, &str)> = session
        .headers()
        .into_iter()
        .filter(|(n, _)| *n != PROTOCOL_VERSION)
        .collect();
    headers.push((PROTOCOL_VERSION, "1999-01-01"));
    let answer = post(&t, &headers, request(2, "ping", None)).await?;
    close(&t, &session).await;
    Ok(if answer.status == StatusCode::BAD_REQUEST {
        Outcome::Pass
    } else {
        Outcome::fail(
            "HTTP 400 for `MCP-Protocol-Version: 1999-01-01`",
            answer.describe(),
        )
    })
}
