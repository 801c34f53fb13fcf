//! The HTTP+SSE transport (2024-11-05): GET on the SSE path opens a session's stream,
//! whose first event (`endpoint`) names the URL to POST messages to; every POST is answered 202
//! and the answers travel on the stream.

use std::sync::Arc;

use bytes::BytesMut;
use hyper::header::ACCEPT;
use hyper::{Method, Request, Response, StatusCode};
use mcp_proto::jsonrpc;
use mcp_proto::sse;

use super::body::{self, read_body, ResponseBody, SseStart};
use super::request_body::RequestBody;
use super::session::{CreateError, SessionKind};
use super::streamable::{admits, is_json, lists_media, push_failed};
use super::{method_not_allowed, App};
use crate::auth::AuthIdentity;

/// GET on the SSE path: a new session and its stream.
pub(crate) fn open(
    app: &Arc<App>,
    req: Request<RequestBody>,
    identity: Option<Arc<AuthIdentity>>,
) -> Response<ResponseBody> {
    if req.method() != Method::GET {
        return method_not_allowed("GET");
    }
    let headers = req.headers();
    if headers.contains_key(ACCEPT)
        && !lists_media(headers, &ACCEPT, "text/event-stream")
        && !lists_media(headers, &ACCEPT, "*/*")
    {
        return body::rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "Not Acceptable: the client must accept text/event-stream",
        );
    }
    let Some(sse) = &app.config.http_sse else {
        return body::status(StatusCode::NOT_FOUND);
    };
    let session = match app.sessions.create(SessionKind::Legacy) {
        Ok(s) => s,
        Err(CreateError::Full) => {
            return body::rpc_error(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                "Service Unavailable: too many sessions",
            )
        }
        Err(CreateError::Random(e)) => {
            tracing::error!("cannot create a session id: {e}");
            return body::status(StatusCode::INTERNAL_SERVER_ERROR);
        }
    };
    session.identity().set(identity);
    let Some(stream) = session.standalone() else {
        return body::status(StatusCode::SERVICE_UNAVAILABLE);
    };
    let Some((generation, cursor)) = stream.connect(None, false) else {
        return body::status(StatusCode::SERVICE_UNAVAILABLE);
    };
    let mount = app.config.mount_path.trim_end_matches('/');
    let endpoint = format!("{mount}{}?sessionId={}", sse.messages_path, session.id());
    let mut first = BytesMut::new();
    // The event name and data are ours and hold no line breaks.
    let _ = sse::write_event(&mut first, Some("endpoint"), None, &endpoint);
    app.start_session(&session);
    body::sse_response(
        &session,
        stream,
        generation,
        cursor,
        SseStart {
            retry: None,
            prime: false,
            close_after: None,
            first: Some(first.freeze()),
            keep_alive: app.config.sse_keep_alive,
        },
    )
}

/// POST on the messages path: one message (or batch) for the session named by `sessionId`.
pub(crate) async fn post(
    app: &Arc<App>,
    req: Request<RequestBody>,
    identity: Option<Arc<AuthIdentity>>,
) -> Response<ResponseBody> {
    if req.method() != Method::POST {
        return method_not_allowed("POST");
    }
    let id = req.uri().query().and_then(|q| {
        q.split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(k, _)| *k == "sessionId")
            .map(|(_, v)| v.to_owned())
    });
    let Some(id) = id else {
        return body::rpc_error(
            StatusCode::BAD_REQUEST,
            -32000,
            "Bad Request: the sessionId query parameter is required",
        );
    };
    let session = match app.sessions.get(&id) {
        Some(s) if s.kind() == SessionKind::Legacy && admits(&s, identity.as_ref()) => s,
        _ => return body::rpc_error(StatusCode::NOT_FOUND, -32001, "Session not found"),
    };
    let (parts, incoming) = req.into_parts();
    if !is_json(&parts.headers) {
        return body::rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32000,
            "Unsupported Media Type: Content-Type must be application/json",
        );
    }
    let _attached = session.attach();
    let limit = app.config.max_body_size;
    let bytes = match read_body(
        &parts.headers,
        incoming,
        limit,
        app.config.body_read_timeout,
    )
    .await
    {
        Ok(b) => b,
        Err(e) => return e.response(limit),
    };
    let frame = match jsonrpc::parse(&bytes) {
        Ok(frame) => frame,
        Err(e) => return body::message_response(StatusCode::BAD_REQUEST, &e.to_error_response()),
    };
    if let (Some(auth), Some(identity)) = (&app.config.auth, &identity) {
        if let Err(refusal) =
            auth.check_tool_scopes(identity, &frame, &parts.headers, &app.public_endpoint)
        {
            return refusal.into();
        }
    }
    match session.push(Ok(frame), &[], None) {
        Ok(()) => {
            let mut response = body::status(StatusCode::ACCEPTED);
            *response.body_mut() = ResponseBody::full("Accepted");
            response
        }
        Err(e) => push_failed(e),
    }
}
