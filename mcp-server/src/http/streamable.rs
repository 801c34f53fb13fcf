//! Streamable HTTP at the MCP endpoint: POST carries client messages (answered with JSON, SSE
//! or 202), GET opens or resumes an SSE stream, DELETE ends a session.

use std::sync::Arc;

use bytes::Bytes;
use hyper::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use mcp_proto::jsonrpc::{self, error_codes, Incoming as Frame, Message, RequestId};
use mcp_proto::version::ProtocolVersion;

use super::body::{self, read_body, Refusal, ResponseBody, SseStart};
use super::request_body::RequestBody;
use super::session::{self, CreateError, PushError, Reply, Session, SessionKind, Stream};
use super::{method_not_allowed, modern, App};
use crate::auth::AuthIdentity;
use crate::session_store::{
    Restored, SessionLimits, SessionRecord, SessionStore, SessionStoreError, StoreLink,
};

/// `Mcp-Session-Id` (header names are case-insensitive).
pub(crate) static SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// `MCP-Protocol-Version`.
pub(crate) static PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Last-Event-ID`.
pub(crate) static LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// The longest a POST's SSE response waits for the shared store to record its stream (the
/// store's own commands are bounded by their timeout; this bounds the writer's queue too).
const RECORD_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

pub(crate) async fn handle(
    app: &Arc<App>,
    req: Request<RequestBody>,
    connection: &modern::ConnectionSession,
    identity: Option<Arc<AuthIdentity>>,
) -> Response<ResponseBody> {
    match *req.method() {
        // 2026-07-28 has no GET stream and no sessions to delete.
        Method::GET | Method::DELETE if modern::speaks_modern(req.headers()) => {
            method_not_allowed("POST")
        }
        Method::POST => post(app, req, connection, identity).await,
        Method::GET => get(app, req, identity.as_ref()).await,
        Method::DELETE => delete(app, req, identity.as_ref()).await,
        _ => method_not_allowed(allow(app)),
    }
}

fn allow(app: &App) -> &'static str {
    match (
        app.config.stateless,
        app.config.standalone_stream,
        app.config.allow_delete,
    ) {
        (true, _, _) => "POST",
        (false, true, true) => "GET, POST, DELETE",
        (false, true, false) => "GET, POST",
        (false, false, true) => "POST, DELETE",
        (false, false, false) => "POST",
    }
}

fn bad_request(message: impl Into<std::borrow::Cow<'static, str>>) -> Refusal {
    Refusal::new(StatusCode::BAD_REQUEST, -32000, message)
}

fn session_not_found() -> Refusal {
    Refusal::new(StatusCode::NOT_FOUND, -32001, "Session not found")
}

/// True when the header lists `media` (parameters ignored), case-insensitively.
pub(crate) fn lists_media(headers: &HeaderMap, name: &HeaderName, media: &str) -> bool {
    lists_each(headers, name, [media]) == [true]
}

/// Which of `media` the header lists (parameters ignored, case-insensitively), in one pass
/// over its values.
fn lists_each<const N: usize>(
    headers: &HeaderMap,
    name: &HeaderName,
    media: [&str; N],
) -> [bool; N] {
    let mut found = [false; N];
    for value in headers.get_all(name) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let listed = item.split(';').next().unwrap_or_default().trim();
            for (seen, m) in found.iter_mut().zip(media) {
                *seen |= listed.eq_ignore_ascii_case(m);
            }
        }
    }
    found
}

/// True when `Content-Type` is `application/json` (with any parameters).
pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

/// The `MCP-Protocol-Version` of a request: absent means 2025-03-26; unknown gets 400.
fn protocol_version(headers: &HeaderMap) -> Result<ProtocolVersion, Refusal> {
    match headers.get(&PROTOCOL_VERSION) {
        None => Ok(ProtocolVersion::HTTP_DEFAULT),
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| ProtocolVersion::parse(v.trim()))
            .ok_or_else(|| {
                let shown = String::from_utf8_lossy(value.as_bytes()).into_owned();
                bad_request(format!(
                    "Bad Request: unsupported MCP-Protocol-Version {shown:?}; supported: {}",
                    ProtocolVersion::HANDSHAKE
                        .iter()
                        .map(|v| v.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }),
    }
}

/// The session a request names: `Ok(None)` when it names none, `Err` with 404 when unknown or
/// bound to another principal than the request's token speaks for. With a shared session
/// store, the session is marked active there (and restored here when another replica made it).
async fn named_session(
    app: &Arc<App>,
    headers: &HeaderMap,
    identity: Option<&Arc<AuthIdentity>>,
) -> Result<Option<Arc<Session>>, Refusal> {
    let Some(value) = headers.get(&SESSION_ID) else {
        return Ok(None);
    };
    let id = value.to_str().map_err(|_| session_not_found())?;
    let local = app.sessions.get(id);
    let session = match &app.config.session_store {
        None => local,
        Some(store) => shared_session(app, store, id, local, identity).await?,
    };
    match session {
        Some(s) if s.kind() == SessionKind::Streamable && admits(&s, identity) => Ok(Some(s)),
        _ => Err(session_not_found()),
    }
}

/// Session `id` as the shared store knows it: one round trip marks it active and reads its
/// record; the local copy takes changes made elsewhere, or is made from the record.
async fn shared_session(
    app: &Arc<App>,
    store: &Arc<dyn SessionStore>,
    id: &str,
    local: Option<Arc<Session>>,
    identity: Option<&Arc<AuthIdentity>>,
) -> Result<Option<Arc<Session>>, Refusal> {
    let idle = app.config.session_idle_timeout;
    let record = match store.touch(id, idle).await {
        Ok(Some(record)) => record,
        Ok(None) => {
            // Deleted or expired through another replica: this copy goes too.
            if local.is_some() {
                app.sessions.remove(id);
            }
            return Ok(None);
        }
        Err(e) => return Err(store_failed(&e)),
    };
    if let (Some(owner), Some(identity)) = (&record.owner, identity) {
        if identity.owner_key() != *owner {
            return Ok(None);
        }
    }
    if let Some(session) = local {
        if let Some(link) = session.store_link() {
            link.refresh(&record).await.map_err(|e| store_failed(&e))?;
        }
        return Ok(Some(session));
    }
    let subscriptions = if record.revision == 0 {
        Vec::new()
    } else {
        store
            .subscriptions(id)
            .await
            .map_err(|e| store_failed(&e))?
    };
    let version = record.protocol_version;
    let restored = Restored {
        record,
        subscriptions,
    };
    let made = app.sessions.restore(id, |session| {
        session.set_version(version);
        session.link(StoreLink::new(id, store.clone(), idle, Some(restored)));
        app.share_events(session);
        app.start_session(session);
    });
    match made {
        Ok((session, _)) => Ok(Some(session)),
        Err(_) => Err(Refusal::new(
            StatusCode::SERVICE_UNAVAILABLE,
            -32000,
            "Service Unavailable: too many sessions on this replica",
        )),
    }
}

/// 503 naming why the shared session store failed.
fn store_failed(e: &SessionStoreError) -> Refusal {
    tracing::warn!("session store: {e}");
    Refusal::new(
        StatusCode::SERVICE_UNAVAILABLE,
        -32000,
        format!("Service Unavailable: {e}"),
    )
}

/// Whether `session` may serve a request of `identity` (always, without authorization); the
/// request's token then becomes the session's current one.
pub(crate) fn admits(session: &Session, identity: Option<&Arc<AuthIdentity>>) -> bool {
    match identity {
        Some(identity) => session.identity().admit(identity),
        None => true,
    }
}

/// What a POST body holds, as far as routing needs to know.
pub(crate) struct Shape {
    /// Ids of the requests in it, each answered on this POST, each once: a batch that repeats an
    /// id gets one answer for it and an error for the repeat (from the peer), both in its reply.
    requests: Vec<RequestId>,
    initialize: bool,
    batch: bool,
}

impl Shape {
    /// One message: a request with this id, or a notification.
    pub(crate) fn single(request: Option<RequestId>) -> Self {
        Shape {
            requests: request.into_iter().collect(),
            initialize: false,
            batch: false,
        }
    }
}

fn shape(frame: &Frame) -> Shape {
    let mut shape = Shape {
        requests: Vec::new(),
        initialize: false,
        batch: false,
    };
    let mut look = |m: &Message| {
        if let Message::Request(r) = m {
            shape.requests.push(r.id.clone());
            shape.initialize |= r.method == "initialize";
        }
    };
    match frame {
        Frame::Single(m) => look(m),
        Frame::Batch(items) => {
            for m in items.iter().flatten() {
                look(m);
            }
        }
    }
    shape.batch = matches!(frame, Frame::Batch(_));
    if shape.batch {
        // Each id once (sorting keeps this O(n log n) for a batch of any size).
        shape.requests.sort_unstable();
        shape.requests.dedup();
    }
    shape
}

async fn post(
    app: &Arc<App>,
    req: Request<RequestBody>,
    connection: &modern::ConnectionSession,
    identity: Option<Arc<AuthIdentity>>,
) -> Response<ResponseBody> {
    let (parts, incoming) = req.into_parts();
    let headers = &parts.headers;
    if lists_each(headers, &ACCEPT, ["application/json", "text/event-stream"]) != [true, true] {
        return body::rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "Not Acceptable: the client must accept both application/json and text/event-stream",
        );
    }
    if !is_json(headers) {
        return body::rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32000,
            "Unsupported Media Type: Content-Type must be application/json",
        );
    }
    let limit = app.config.max_body_size;
    let bytes: Bytes = match read_body(headers, incoming, limit, app.config.body_read_timeout).await
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
            auth.check_tool_scopes(identity, &frame, headers, &app.public_endpoint)
        {
            return refusal.into();
        }
    }
    // The era is chosen per request: a 2026-07-28 one is served on its own, whatever the mode.
    if modern::is_modern(headers, &frame) {
        return modern::post(app, connection, headers, frame, identity).await;
    }
    let version = match protocol_version(headers) {
        Ok(v) => v,
        Err(refusal) => return refusal.into(),
    };
    let named = if app.config.stateless {
        None
    } else {
        match named_session(app, headers, identity.as_ref()).await {
            Ok(s) => s,
            Err(refusal) => return refusal.into(),
        }
    };
    // Counts as activity for the rest of the request, so the session cannot expire under it.
    let _attached = named.as_ref().map(|s| s.attach());
    let shape = shape(&frame);
    if shape.batch {
        if shape.initialize {
            return body::rpc_error(
                StatusCode::BAD_REQUEST,
                error_codes::INVALID_REQUEST,
                "initialize must not be part of a JSON-RPC batch",
            );
        }
        if !version.allows_batches() {
            return body::rpc_error(
                StatusCode::BAD_REQUEST,
                error_codes::INVALID_REQUEST,
                &format!("JSON-RPC batches are not supported in protocol version {version}"),
            );
        }
    }
    let (session, created) = if app.config.stateless {
        let session = Session::detached(SessionKind::Stateless, app.config.replay_buffer);
        // No initialize reaches a stateless session: the header's version is the session's.
        session.set_version(version);
        session.identity().set(identity.clone());
        app.start_session(&session);
        (session, false)
    } else {
        match (named, shape.initialize) {
            (Some(session), false) => (session, false),
            (Some(_), true) => {
                return body::rpc_error(
                    StatusCode::BAD_REQUEST,
                    error_codes::INVALID_REQUEST,
                    "Bad Request: this session is already initialized",
                )
            }
            (None, false) => {
                return bad_request("Bad Request: Mcp-Session-Id header is required").into()
            }
            (None, true) => match app.sessions.create(SessionKind::Streamable) {
                Ok(session) => {
                    session.identity().set(identity.clone());
                    if let Some(store) = &app.config.session_store {
                        let idle = app.config.session_idle_timeout;
                        session.link(StoreLink::new(session.id(), store.clone(), idle, None));
                        app.share_events(&session);
                    }
                    app.start_session(&session);
                    (session, true)
                }
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
            },
        }
    };
    let _attached_new = created.then(|| session.attach());
    // Stream behaviour (priming, polling) follows what the session negotiated; the header is
    // only a fallback (clients may keep sending 2025-03-26).
    let effective = session.version().unwrap_or(version);
    // A stateless session ends with its POST, also when the client goes away mid-request.
    let mut close = CloseOnDrop {
        session: &session,
        armed: session.kind() == SessionKind::Stateless,
    };
    // What the shared store keeps of the client's initialize.
    let hello = (created && app.config.session_store.is_some())
        .then(|| client_hello(&frame))
        .flatten();
    let outcome = deliver(app, &session, frame, shape, effective).await;
    // A streaming answer's SSE body ends the session when it is dropped.
    close.armed &= !outcome.streaming;
    drop(close);
    if created {
        if let Some(v) = outcome.negotiated {
            session.set_version(v);
        }
    }
    let mut response = outcome.response;
    if created && response.status().is_success() {
        if let Some(store) = &app.config.session_store {
            let version = session.version().unwrap_or(effective);
            let (capabilities, info) = hello.unwrap_or_default();
            let mut record = SessionRecord::new(version, capabilities, info);
            record.owner = identity.as_ref().map(|i| i.owner_key());
            let limits = SessionLimits {
                idle: app.config.session_idle_timeout,
                max_sessions: app.config.max_sessions,
            };
            if let Err(e) = store.create(session.id(), &record, limits).await {
                app.sessions.remove(session.id());
                return Response::from(store_failed(&e));
            }
        }
    }
    if created {
        if response.status().is_success() {
            if let Ok(value) = HeaderValue::from_str(session.id()) {
                response.headers_mut().insert(SESSION_ID.clone(), value);
            }
        } else {
            app.sessions.remove(session.id());
        }
    }
    response
}

/// The `capabilities` and `clientInfo` of an `initialize` request, as JSON.
fn client_hello(frame: &Frame) -> Option<(String, String)> {
    #[derive(serde::Deserialize)]
    struct Hello<'a> {
        #[serde(borrow)]
        capabilities: Option<&'a serde_json::value::RawValue>,
        #[serde(rename = "clientInfo", borrow)]
        client_info: Option<&'a serde_json::value::RawValue>,
    }
    let Frame::Single(Message::Request(request)) = frame else {
        return None;
    };
    let hello: Hello = serde_json::from_str(request.params.as_ref()?.get()).ok()?;
    Some((
        hello.capabilities.map_or("{}", |c| c.get()).to_owned(),
        hello.client_info?.get().to_owned(),
    ))
}

/// Closes a session when dropped, if armed.
struct CloseOnDrop<'a> {
    session: &'a Session,
    armed: bool,
}

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.session.close();
        }
    }
}

/// What a POST answers, and what the caller still has to do about its session.
pub(crate) struct Outcome {
    pub(crate) response: Response<ResponseBody>,
    /// The response is an SSE stream that still needs the session.
    pub(crate) streaming: bool,
    /// The `protocolVersion` of a JSON initialize result.
    negotiated: Option<ProtocolVersion>,
    /// The JSON-RPC error code of a JSON answer that is one error.
    pub(crate) error_code: Option<i64>,
}

impl From<Response<ResponseBody>> for Outcome {
    fn from(response: Response<ResponseBody>) -> Self {
        Outcome {
            response,
            streaming: false,
            negotiated: None,
            error_code: None,
        }
    }
}

/// The `protocolVersion` in an initialize answer.
fn negotiated_version(answer: &[u8]) -> Option<ProtocolVersion> {
    #[derive(serde::Deserialize)]
    struct Answer<'a> {
        #[serde(borrow)]
        result: Option<Init<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Init<'a> {
        #[serde(rename = "protocolVersion", borrow)]
        protocol_version: Option<&'a str>,
    }
    let answer: Answer = serde_json::from_slice(answer).ok()?;
    ProtocolVersion::parse(answer.result?.protocol_version?)
}

/// Hands the frame to the session and waits for what the POST answers.
pub(crate) async fn deliver(
    app: &Arc<App>,
    session: &Arc<Session>,
    frame: Frame,
    shape: Shape,
    version: ProtocolVersion,
) -> Outcome {
    if shape.requests.is_empty() {
        if let Some(relay) = app.config.session_relay.as_ref() {
            if session.kind() == SessionKind::Streamable && !session.handles_here(&frame) {
                // An answer (or a cancellation) another replica waits for.
                let mut json = Vec::new();
                if let Frame::Single(message) = &frame {
                    message.write_json(&mut json);
                }
                return match relay.send(session.id(), &json).await {
                    Ok(()) => body::status(StatusCode::ACCEPTED).into(),
                    Err(e) => Response::from(store_failed(&e)).into(),
                };
            }
        }
        return match session.push(Ok(frame), &[], None) {
            Ok(()) => body::status(StatusCode::ACCEPTED).into(),
            Err(e) => push_failed(e).into(),
        };
    }
    let stream = session.new_post_stream(shape.requests.len());
    if shape.batch {
        stream.set_batch();
    }
    // A single request is served right here, in the connection's task; anything else goes
    // through the session's peer in order.
    let pushed = match frame {
        Frame::Single(Message::Request(request)) => {
            session.serve(request, &shape.requests, &stream).await
        }
        frame => session.push(Ok(frame), &shape.requests, Some(&stream)),
    };
    if let Err(e) = pushed {
        return push_failed(e).into();
    }
    let mut waiting = Waiting {
        session,
        stream: &stream,
        routes: &shape.requests,
        armed: true,
    };
    let resumable = session.kind() == SessionKind::Streamable;
    let switch_after = app
        .config
        .sse_after
        .filter(|_| resumable && version >= ProtocolVersion::V2025_11_25);
    let reply = match switch_after {
        None => stream.first_reply().await,
        Some(after) => match tokio::time::timeout(after, stream.first_reply()).await {
            Ok(reply) => reply,
            Err(_) => {
                if stream.force_sse() {
                    session.retain_stream(&stream);
                }
                stream.first_reply().await
            }
        },
    };
    waiting.armed = false;
    match reply {
        Reply::Json(bytes, error_code) => {
            let negotiated = if shape.initialize {
                negotiated_version(&bytes)
            } else {
                None
            };
            Outcome {
                response: body::json(StatusCode::OK, bytes),
                streaming: false,
                negotiated,
                error_code,
            }
        }
        Reply::Closed => Response::from(session_not_found()).into(),
        Reply::Sse => {
            // Shared sessions: the stream is findable from every replica before the client
            // holds an id of it (one store round trip, SSE answers only).
            stream.recorded(RECORD_WAIT).await;
            let Some((generation, cursor)) = stream.connect(None, false) else {
                return Response::from(session_not_found()).into();
            };
            let start = sse_start(app, version, resumable);
            Outcome {
                response: body::sse_response(session, stream.clone(), generation, cursor, start),
                streaming: true,
                negotiated: None,
                error_code: None,
            }
        }
    }
}

/// How an SSE response of a client speaking `version` starts.
fn sse_start(app: &App, version: ProtocolVersion, resumable: bool) -> SseStart {
    let polling = resumable && version >= ProtocolVersion::V2025_11_25;
    SseStart {
        retry: app.config.sse_retry.filter(|_| polling),
        prime: polling,
        close_after: app.config.sse_close_after.filter(|_| polling),
        first: None,
        keep_alive: app.config.sse_keep_alive,
    }
}

/// Forgets a POST's routes if its client goes away before the reply is decided.
struct Waiting<'a> {
    session: &'a Session,
    stream: &'a Arc<Stream>,
    routes: &'a [RequestId],
    armed: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if self.session.kind() == SessionKind::Modern {
            // The client of a 2026-07-28 request closed its stream: that cancels the request.
            self.session.close();
        } else {
            self.session.unroute(self.routes, Some(self.stream));
        }
    }
}

pub(crate) fn push_failed(e: PushError) -> Response<ResponseBody> {
    match e {
        PushError::Closed => session_not_found().into(),
        PushError::Full => body::rpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            -32000,
            "Service Unavailable: the session is busy",
        ),
        PushError::DuplicateId(id) => body::rpc_error(
            StatusCode::BAD_REQUEST,
            error_codes::INVALID_REQUEST,
            &format!("request id {id} is already in use by a request in flight; nothing in this POST was run"),
        ),
    }
}

async fn get(
    app: &Arc<App>,
    req: Request<RequestBody>,
    identity: Option<&Arc<AuthIdentity>>,
) -> Response<ResponseBody> {
    if app.config.stateless || !app.config.standalone_stream {
        return method_not_allowed(allow(app));
    }
    let headers = req.headers();
    if !lists_media(headers, &ACCEPT, "text/event-stream") {
        return body::rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "Not Acceptable: the client must accept text/event-stream",
        );
    }
    let version = match protocol_version(headers) {
        Ok(v) => v,
        Err(refusal) => return refusal.into(),
    };
    let session = match named_session(app, headers, identity).await {
        Ok(Some(s)) => s,
        Ok(None) => return bad_request("Bad Request: Mcp-Session-Id header is required").into(),
        Err(refusal) => return refusal.into(),
    };
    let resume = headers
        .get(&LAST_EVENT_ID)
        .and_then(|v| v.to_str().ok())
        .and_then(session::parse_event_id);
    if app.config.session_store.is_some() {
        let after = resume.and_then(|(id, seq)| (id == session::STANDALONE).then_some(seq));
        let mut prepared = session.prepare_standalone(after).await;
        // A POST's stream this replica does not hold: another replica ran it (and may be gone).
        if let Some((id, seq)) = resume.filter(|(id, _)| *id != session::STANDALONE) {
            if prepared.is_ok() && session.stream(id).is_none() {
                prepared = session.adopt_stream(id, seq).await.map(drop);
            }
        }
        if let Err(e) = prepared {
            tracing::warn!("event store: {e}");
            return body::rpc_error(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                &format!("Service Unavailable: {e}"),
            );
        }
    }
    let (stream, after) = match resume.and_then(|(id, seq)| Some((session.stream(id)?, seq))) {
        Some((stream, seq)) => (stream, Some(seq)),
        None => match session.standalone() {
            Some(stream) => (stream, None),
            None => return session_not_found().into(),
        },
    };
    let exclusive = after.is_none();
    let Some((generation, cursor)) = stream.connect(after, exclusive) else {
        return body::rpc_error(
            StatusCode::CONFLICT,
            -32000,
            "Conflict: only one standalone SSE stream is allowed per session",
        );
    };
    let effective = session.version().unwrap_or(version);
    // Only POST responses are cut short; a resumed or standalone GET stays open until its
    // stream ends, so a client that resumed gets the answer without polling again.
    let start = SseStart {
        close_after: None,
        ..sse_start(app, effective, true)
    };
    body::sse_response(&session, stream, generation, cursor, start)
}

async fn delete(
    app: &Arc<App>,
    req: Request<RequestBody>,
    identity: Option<&Arc<AuthIdentity>>,
) -> Response<ResponseBody> {
    if app.config.stateless || !app.config.allow_delete {
        return method_not_allowed(allow(app));
    }
    if let Err(refusal) = protocol_version(req.headers()) {
        return refusal.into();
    }
    if req.headers().get(&SESSION_ID).is_none() {
        return bad_request("Bad Request: Mcp-Session-Id header is required").into();
    }
    let session = match named_session(app, req.headers(), identity).await {
        Ok(Some(session)) => session,
        Ok(None) => return session_not_found().into(),
        Err(refusal) => return refusal.into(),
    };
    if let Some(store) = &app.config.session_store {
        if let Err(e) = store.remove(session.id()).await {
            return store_failed(&e).into();
        }
    }
    if let Some(events) = &app.config.event_store {
        if let Err(e) = events.remove(session.id()).await {
            tracing::warn!("event store: {e}");
        }
    }
    if app.sessions.remove(session.id()) {
        body::status(StatusCode::OK)
    } else {
        session_not_found().into()
    }
}
