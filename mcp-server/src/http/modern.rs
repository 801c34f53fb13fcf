//! 2026-07-28 POSTs at the Streamable HTTP endpoint, served beside 2025 sessions: a POST whose
//! request carries `_meta["io.modelcontextprotocol/protocolVersion"]` (or that says
//! `MCP-Protocol-Version: 2026-07-28`) is served statelessly. No session id is minted or echoed;
//! `Mcp-Session-Id` and `Last-Event-ID` are ignored. The mirrored headers must match the body
//! (400 with -32020 otherwise), and the answer's error code picks the HTTP status.
//!
//! Each HTTP connection serves its modern POSTs on one detached session of its own, made at the
//! first: HTTP/1.1 answers one request at a time per connection, so their ids cannot collide,
//! and the core reads everything from each request's `_meta`, nothing from the session. A
//! client that closes its response stream closes the connection, which cancels the request.
//! A mounted service, which sees no connections, borrows a session per request instead
//! (`modern_pool`).

use std::sync::Mutex;

use mcp_proto::sync::lock;

use std::borrow::Cow;
use std::sync::Arc;

use hyper::{HeaderMap, Response, StatusCode};
use mcp_proto::jsonrpc::{
    error_codes, ErrorObject, Incoming as Frame, Message, RawJson, RequestId,
};
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::version::ProtocolVersion;

use super::body::{self, ResponseBody};
use super::mirrored_headers::{self, Mismatch, MCP_METHOD, MCP_NAME};
use super::modern_pool::ModernPool;
use super::session::{Session, SessionKind};
use super::streamable::{deliver, Shape, PROTOCOL_VERSION};
use super::App;
use crate::auth::AuthIdentity;
use crate::modern::{json_text, ParamsRead, PreRead};

/// The session that serves 2026-07-28 POSTs: one HTTP connection's, made at the first one and
/// closed with the connection; or, for a mounted service, one request's, borrowed from the
/// service's pool of idle sessions and given back when the request is over.
#[derive(Default)]
pub(crate) struct ConnectionSession {
    slot: Mutex<Option<Arc<Session>>>,
    pool: Option<Arc<ModernPool>>,
}

impl ConnectionSession {
    /// One mounted request's: its session comes from `pool` and goes back there.
    pub(crate) fn borrowing(pool: Arc<ModernPool>) -> Self {
        ConnectionSession {
            slot: Mutex::new(None),
            pool: Some(pool),
        }
    }

    /// The open session for a request of `identity`, started on first use (or anew after a
    /// cancellation closed the last one).
    fn get(&self, app: &App, identity: Option<&Arc<AuthIdentity>>) -> Arc<Session> {
        let mut slot = lock(&self.slot);
        match &*slot {
            Some(session) if !session.is_closed() => session.clone(),
            _ => {
                let idle = self.pool.as_ref().and_then(|pool| pool.take(identity));
                let session = idle.unwrap_or_else(|| {
                    let session = Session::detached(SessionKind::Modern, app.config.replay_buffer);
                    app.start_session(&session);
                    session
                });
                *slot = Some(session.clone());
                session
            }
        }
    }
}

impl Drop for ConnectionSession {
    fn drop(&mut self) {
        if let Some(session) = lock(&self.slot).take() {
            match &self.pool {
                Some(pool) => pool.give_back(session),
                None => session.close(),
            }
        }
    }
}

/// True when the client speaks a stateless-era version (2026-07-28 or later) by its
/// `MCP-Protocol-Version` header.
pub(crate) fn speaks_modern(headers: &HeaderMap) -> bool {
    headers
        .get(&PROTOCOL_VERSION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| ProtocolVersion::parse(v.trim()))
        .is_some_and(ProtocolVersion::is_stateless_era)
}

/// True when a POST is a 2026-07-28 one: its header says so, or its message's `_meta` names a
/// protocol version.
pub(crate) fn is_modern(headers: &HeaderMap, frame: &Frame) -> bool {
    if speaks_modern(headers) {
        return true;
    }
    match frame {
        Frame::Single(Message::Request(r)) => names_version(r.params.as_ref()),
        Frame::Single(Message::Notification(n)) => names_version(n.params.as_ref()),
        _ => false,
    }
}

/// The read of `params` the transport checks (empty when they are absent, not an object, or
/// `_meta` is not an object), the same the core reads `_meta` and the method's fields from.
fn read_params(params: Option<&RawJson>) -> ParamsRead<'_> {
    params
        .and_then(|p| ParamsRead::of(p.get()))
        .unwrap_or_default()
}

/// True when the params name a protocol version in `_meta` (of any type).
fn names_version(params: Option<&RawJson>) -> bool {
    read_params(params).protocol_version.is_some()
}

/// A string field as text.
fn field_text(field: Option<&str>) -> Option<Cow<'_, str>> {
    field.and_then(json_text)
}

/// A refusal as a JSON-RPC error for the request `id` (none for a notification).
fn refuse(
    status: StatusCode,
    id: Option<&RequestId>,
    code: i64,
    message: impl Into<String>,
) -> Response<ResponseBody> {
    body::message_response(
        status,
        &Message::error(id.cloned(), ErrorObject::new(code, message)),
    )
}

fn mismatch(e: Mismatch) -> ErrorObject {
    ErrorObject::new(error_codes::HEADER_MISMATCH, e.to_string())
}

/// The HTTP status of a 2026-07-28 JSON answer, from its JSON-RPC error code.
fn status_of(error_code: Option<i64>) -> StatusCode {
    match error_code {
        Some(
            error_codes::INVALID_PARAMS
            | error_codes::HEADER_MISMATCH
            | error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY
            | error_codes::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        Some(error_codes::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// Serves one 2026-07-28 POST (already read and parsed) on its connection's session.
pub(crate) async fn post(
    app: &Arc<App>,
    connection: &ConnectionSession,
    headers: &HeaderMap,
    frame: Frame,
    identity: Option<Arc<AuthIdentity>>,
) -> Response<ResponseBody> {
    let message = match frame {
        Frame::Single(message) => message,
        Frame::Batch(_) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                None,
                error_codes::INVALID_REQUEST,
                "Invalid request: a 2026-07-28 POST carries one JSON-RPC request or notification, not a batch",
            )
        }
    };
    let (id, method, params) = match &message {
        Message::Request(r) => (Some(&r.id), r.method.as_str(), r.params.as_ref()),
        Message::Notification(n) => (None, n.method.as_str(), n.params.as_ref()),
        Message::Response(_) | Message::Error(_) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                None,
                error_codes::INVALID_REQUEST,
                "Invalid request: a 2026-07-28 client sends no JSON-RPC responses",
            )
        }
    };
    let read = params.and_then(|p| Some((p.get(), ParamsRead::of(p.get())?)));
    let view = read.map(|(_, read)| read).unwrap_or_default();
    if let Err(error) = check_headers(app, headers, id.is_some(), method, &view) {
        return body::message_response(
            StatusCode::BAD_REQUEST,
            &Message::error(id.cloned(), error),
        );
    }
    // The core reads `_meta` and the method's fields from this same read.
    let pre_read = read.map(|(text, read)| PreRead::new(text, &read));
    let session = connection.get(app, identity.as_ref());
    // One request at a time per connection: the session serves this request's principal.
    session.identity().set(identity);
    let shape = Shape::single(id.cloned());
    // A client that goes away before the answer closes the session, cancelling the request.
    let delivered = deliver(
        app,
        &session,
        Frame::Single(message),
        shape,
        ProtocolVersion::V2026_07_28,
    );
    let outcome = match pre_read {
        Some(pre_read) => pre_read.scope(delivered).await,
        None => delivered.await,
    };
    let mut response = outcome.response;
    if response.status() == StatusCode::OK {
        *response.status_mut() = status_of(outcome.error_code);
    }
    response
}

/// The mirrored headers of a 2026-07-28 message against its body: `MCP-Protocol-Version` =
/// `_meta` protocolVersion, `Mcp-Method` = method, `Mcp-Name` = `params.name`, `params.uri` or
/// (task requests) `params.taskId`,
/// and a tool's `Mcp-Param-*` = its annotated arguments. Any failure is a 400.
fn check_headers(
    app: &App,
    headers: &HeaderMap,
    is_request: bool,
    method: &str,
    view: &ParamsRead<'_>,
) -> Result<(), ErrorObject> {
    let body_version = match view.protocol_version() {
        Ok(v) => v,
        Err(()) => {
            return Err(ErrorObject::new(
                error_codes::INVALID_PARAMS,
                format!(
                    "Invalid params: _meta[\"{}\"] must be a string",
                    meta_keys::PROTOCOL_VERSION
                ),
            ))
        }
    };
    match (&body_version, headers.get(&PROTOCOL_VERSION)) {
        (None, _) if is_request => {
            return Err(ErrorObject::new(
                error_codes::INVALID_PARAMS,
                format!(
                    "Invalid params: a 2026-07-28 request needs _meta[\"{}\"]",
                    meta_keys::PROTOCOL_VERSION
                ),
            ))
        }
        (None, _) => {}
        (Some(version), _) => {
            mirrored_headers::require_equal(headers, &PROTOCOL_VERSION, version)
                .map_err(mismatch)?;
        }
    }
    if is_request {
        mirrored_headers::require_equal(headers, &MCP_METHOD, method)
    } else {
        match mirrored_headers::decoded(headers, &MCP_METHOD) {
            Ok(Some(sent)) if sent != method => Err(Mismatch(format!(
                "{MCP_METHOD} header value {sent:?} does not match body value {method:?}"
            ))),
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }
    .map_err(mismatch)?;
    if !is_request {
        return Ok(());
    }
    let named = match method {
        "tools/call" | "prompts/get" => field_text(view.name),
        "resources/read" => field_text(view.uri),
        // SEP-2663: task requests name their task for routing intermediaries.
        "tasks/get" | "tasks/update" | "tasks/cancel" => field_text(view.task_id),
        _ => return Ok(()),
    };
    // A missing name is bad params, which the server reports itself.
    let Some(name) = named else { return Ok(()) };
    mirrored_headers::require_equal(headers, &MCP_NAME, &name).map_err(mismatch)?;
    if method == "tools/call" {
        let annotated = app.factory.tool_header_params(&name);
        if !annotated.is_empty() {
            let arguments = view
                .arguments
                .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw).ok());
            mirrored_headers::check_tool_params(headers, &annotated, arguments.as_ref())
                .map_err(mismatch)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(json: &str) -> Option<String> {
        let raw: RawJson = mcp_proto::jsonrpc::to_raw(
            &serde_json::from_str::<serde_json::Value>(json).expect("json"),
        )
        .expect("raw");
        read_params(Some(&raw))
            .protocol_version()
            .ok()
            .flatten()
            .map(Cow::into_owned)
    }

    #[test]
    fn the_era_is_read_from_meta() {
        assert_eq!(
            view(
                r#"{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#
            )
            .as_deref(),
            Some("2026-07-28")
        );
        assert_eq!(view(r#"{"name":"x","_meta":{"progressToken":1}}"#), None);
        assert_eq!(view(r#"{"name":"x"}"#), None);
        assert_eq!(view(r#"{"_meta":7}"#), None);
        assert_eq!(
            view(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-\u0030"}}"#)
                .as_deref(),
            Some("2026-0")
        );
        let number = RawJson::from_string(
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}"#.into(),
        )
        .expect("raw");
        assert!(read_params(Some(&number)).protocol_version().is_err());
    }

    #[test]
    fn statuses_follow_error_codes() {
        assert_eq!(status_of(None), StatusCode::OK);
        assert_eq!(status_of(Some(-32602)), StatusCode::BAD_REQUEST);
        assert_eq!(status_of(Some(-32020)), StatusCode::BAD_REQUEST);
        assert_eq!(status_of(Some(-32021)), StatusCode::BAD_REQUEST);
        assert_eq!(status_of(Some(-32022)), StatusCode::BAD_REQUEST);
        assert_eq!(status_of(Some(-32601)), StatusCode::NOT_FOUND);
        assert_eq!(status_of(Some(-32603)), StatusCode::OK);
    }
}
