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

use std::sync::Mutex;

use mcp_proto::sync::lock;

use std::borrow::Cow;
use std::sync::Arc;

use hyper::{HeaderMap, Response, StatusCode};
use mcp_proto::jsonrpc::{error_codes, ErrorObject, Incoming as Frame, Message, RequestId};
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::version::ProtocolVersion;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::body::{self, ResponseBody};
use super::mirrored_headers::{self, Mismatch, MCP_METHOD, MCP_NAME};
use super::session::{Session, SessionKind};
use super::streamable::{deliver, Shape, PROTOCOL_VERSION};
use super::App;

/// The session that serves one HTTP connection's 2026-07-28 POSTs, made at the first one and
/// closed with the connection.
#[derive(Default)]
pub(crate) struct ConnectionSession(Mutex<Option<Arc<Session>>>);

impl ConnectionSession {
    /// The connection's open session, started on first use (or anew after a cancellation
    /// closed the last one).
    fn get(&self, app: &App) -> Arc<Session> {
        let mut slot = lock(&self.0);
        match &*slot {
            Some(session) if !session.is_closed() => session.clone(),
            _ => {
                let session = Session::detached(SessionKind::Modern, app.config.replay_buffer);
                app.start_session(&session);
                *slot = Some(session.clone());
                session
            }
        }
    }
}

impl Drop for ConnectionSession {
    fn drop(&mut self) {
        if let Some(session) = lock(&self.0).take() {
            session.close();
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
        Frame::Single(Message::Request(r)) => ParamsView::of(r.params.as_deref()).is_modern(),
        Frame::Single(Message::Notification(n)) => ParamsView::of(n.params.as_deref()).is_modern(),
        _ => false,
    }
}

/// The fields of a request's params the transport checks, borrowed; the rest is skipped.
#[derive(Default, Deserialize)]
struct ParamsView<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    /// The task of `tasks/get`, `tasks/update` and `tasks/cancel` (the tasks extension).
    #[serde(borrow, default, rename = "taskId")]
    task_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<&'a RawValue>,
}

/// The one `_meta` key the transport reads.
#[derive(Deserialize)]
struct MetaView<'a> {
    #[serde(borrow, default, rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Option<Cow<'a, str>>,
}

impl<'a> ParamsView<'a> {
    /// The view of `params`; empty when they are absent or not an object.
    fn of(params: Option<&'a RawValue>) -> Self {
        params
            .filter(|p| p.get().starts_with('{'))
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default()
    }

    /// `_meta`'s protocol version: `Ok(None)` when `_meta` has none, `Err` when it is not a
    /// string.
    fn protocol_version(&self) -> Result<Option<Cow<'a, str>>, ()> {
        let Some(meta) = self.meta.filter(|m| m.get().starts_with('{')) else {
            return Ok(None);
        };
        match serde_json::from_str::<MetaView<'a>>(meta.get()) {
            Ok(view) => Ok(view.protocol_version),
            Err(_) => Err(()),
        }
    }

    fn is_modern(&self) -> bool {
        !matches!(self.protocol_version(), Ok(None))
    }

    /// A string field as text.
    fn text(field: Option<&'a RawValue>) -> Option<Cow<'a, str>> {
        field.and_then(|raw| serde_json::from_str(raw.get()).ok())
    }
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
        Message::Request(r) => (Some(&r.id), r.method.as_str(), r.params.as_deref()),
        Message::Notification(n) => (None, n.method.as_str(), n.params.as_deref()),
        Message::Response(_) | Message::Error(_) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                None,
                error_codes::INVALID_REQUEST,
                "Invalid request: a 2026-07-28 client sends no JSON-RPC responses",
            )
        }
    };
    if let Err(error) = check_headers(app, headers, id.is_some(), method, params) {
        return body::message_response(
            StatusCode::BAD_REQUEST,
            &Message::error(id.cloned(), error),
        );
    }
    let session = connection.get(app);
    let shape = Shape::single(id.cloned());
    // A client that goes away before the answer closes the session, cancelling the request.
    let outcome = deliver(
        app,
        &session,
        Frame::Single(message),
        shape,
        ProtocolVersion::V2026_07_28,
    )
    .await;
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
    params: Option<&RawValue>,
) -> Result<(), ErrorObject> {
    let view = ParamsView::of(params);
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
        "tools/call" | "prompts/get" => ParamsView::text(view.name),
        "resources/read" => ParamsView::text(view.uri),
        // SEP-2663: task requests name their task for routing intermediaries.
        "tasks/get" | "tasks/update" | "tasks/cancel" => ParamsView::text(view.task_id),
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
                .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok());
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
        let raw: Box<RawValue> = mcp_proto::jsonrpc::to_raw(
            &serde_json::from_str::<serde_json::Value>(json).expect("json"),
        )
        .expect("raw");
        ParamsView::of(Some(&raw))
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
