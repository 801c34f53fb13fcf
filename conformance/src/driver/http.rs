//! The Streamable HTTP driver: every frame is POSTed to the endpoint with the headers the spec
//! asks for; JSON answers and the `data` of SSE answers go into the session's frame channel.
//! The session id from the `initialize` answer and the negotiated `MCP-Protocol-Version` are
//! sent on every later request, and the GET stream is opened once the session is initialized.
//! A 2026-07-28 request (one whose `params._meta` has `io.modelcontextprotocol/…` fields) gets
//! the modern headers instead, derived from its body ([`modern_headers`]).
//!
//! [`HttpClient`] is also the raw client the transport cases use: it reports statuses and
//! headers exactly as they came.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::{BoxFuture, Connector, Frame, Journal, Kind, Session, Transport};
use crate::error::Error;

/// The session header.
pub const SESSION_ID: &str = "mcp-session-id";
/// The version header.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The 2026-07-28 header naming the method.
pub const MCP_METHOD: &str = "mcp-method";
/// The 2026-07-28 header naming the tool, prompt or resource of a call, get or read.
pub const MCP_NAME: &str = "mcp-name";
/// The version a modern request without its own `_meta` version is sent under.
const MODERN_VERSION: &str = "2026-07-28";
/// The Accept header every POST carries.
pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";
/// The most bytes read from one non-streaming body.
const MAX_BODY: usize = 64 * 1024 * 1024;
/// How many diagnostics notes are kept.
const KEEP_NOTES: usize = 32;
/// How long a request's answer headers are waited for before `send_frame` returns (the answer
/// itself may take as long as the work; it is read in the background).
const HEADER_GRACE: Duration = Duration::from_millis(200);

/// One HTTP answer as it came, with its body read (unless it is an event stream).
#[derive(Clone, Debug)]
pub struct RawResponse {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The body (empty for event streams, which are not read).
    pub body: Bytes,
}

impl RawResponse {
    /// A header as text, if present and visible ASCII.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The media type of the body, lower-cased, without parameters.
    pub fn media_type(&self) -> String {
        media_type(&self.headers)
    }

    /// The body as JSON, if it is.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The answer in a few words, for failure notes.
    pub fn describe(&self) -> String {
        let body: String = String::from_utf8_lossy(&self.body)
            .chars()
            .take(200)
            .collect();
        let ct = self.media_type();
        if body.is_empty() {
            format!("HTTP {} ({ct})", self.status.as_u16())
        } else {
            format!("HTTP {} ({ct}) {body}", self.status.as_u16())
        }
    }
}

/// The media type of `headers`' Content-Type, lower-cased, without parameters.
pub fn media_type(headers: &HeaderMap) -> String {
    headers
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// A plain-HTTP client with the run's extra headers (`--header`).
#[derive(Clone, Debug)]
pub struct HttpClient {
    client: Client<HttpConnector, Full<Bytes>>,
    headers: Vec<(HeaderName, HeaderValue)>,
    /// The bound on one answer's headers and on reading a non-streaming body.
    pub timeout: Duration,
}

impl HttpClient {
    /// A client sending `headers` (`Name: value` pairs) on every request.
    pub fn new(headers: &[(String, String)]) -> Result<Self, Error> {
        let mut parsed = Vec::new();
        for (name, value) in headers {
            let n = HeaderName::from_bytes(name.trim().as_bytes())
                .map_err(|e| Error::Usage(format!("--header {name:?}: {e}")))?;
            let v = HeaderValue::from_str(value.trim())
                .map_err(|e| Error::Usage(format!("--header {name:?}: {e}")))?;
            parsed.push((n, v));
        }
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(5))
            .build(HttpConnector::new());
        Ok(HttpClient {
            client,
            headers: parsed,
            timeout: Duration::from_secs(10),
        })
    }

    /// Sends a request and returns the answer with its headers; the body is not read. `extra`
    /// headers replace configured ones of the same name; an empty value removes the header.
    pub async fn send(
        &self,
        method: Method,
        uri: &Uri,
        extra: &[(&str, &str)],
        body: Bytes,
    ) -> Result<Response<Incoming>, Error> {
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = method.clone();
        *request.uri_mut() = uri.clone();
        let headers = request.headers_mut();
        for (name, value) in &self.headers {
            headers.append(name.clone(), value.clone());
        }
        for (name, value) in extra {
            let n = HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| Error::Protocol(format!("header {name:?}: {e}")))?;
            if value.is_empty() {
                headers.remove(&n);
                continue;
            }
            let v = HeaderValue::from_str(value)
                .map_err(|e| Error::Protocol(format!("header {name:?}: {e}")))?;
            headers.insert(n, v);
        }
        match tokio::time::timeout(self.timeout, self.client.request(request)).await {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => Err(Error::Io(std::io::Error::other(format!(
                "{method} {uri}: {e}"
            )))),
            Err(_) => Err(Error::Timeout {
                what: format!("answer headers to {method} {uri}"),
                timeout: self.timeout,
            }),
        }
    }

    /// Sends a request and reads the whole answer; event streams are not read (empty body).
    pub async fn raw(
        &self,
        method: Method,
        uri: &Uri,
        extra: &[(&str, &str)],
        body: impl Into<Bytes>,
    ) -> Result<RawResponse, Error> {
        let response = self.send(method, uri, extra, body.into()).await?;
        let (parts, incoming) = response.into_parts();
        let body = if media_type(&parts.headers) == "text/event-stream" {
            Bytes::new()
        } else {
            read_body(incoming, self.timeout).await?
        };
        Ok(RawResponse {
            status: parts.status,
            headers: parts.headers,
            body,
        })
    }
}

/// Reads a whole body, bounded in size and time.
pub async fn read_body(incoming: Incoming, timeout: Duration) -> Result<Bytes, Error> {
    let limited = http_body_util::Limited::new(incoming, MAX_BODY);
    match tokio::time::timeout(timeout, limited.collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) => Err(Error::Io(std::io::Error::other(format!(
            "reading an answer body: {e}"
        )))),
        Err(_) => Err(Error::Timeout {
            what: "the end of an answer body".into(),
            timeout,
        }),
    }
}

/// Reads an event stream, handing every `message` event's data to `tx` until it ends; other
/// events go to `other` when given.
pub async fn pump_sse(
    mut incoming: Incoming,
    tx: mpsc::Sender<Frame>,
    other: Option<mpsc::Sender<mcp_proto::sse::SseEvent>>,
) {
    let mut parser = mcp_proto::sse::SseParser::new();
    while let Some(frame) = incoming.frame().await {
        let Ok(frame) = frame else { return };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        parser.feed(&data);
        while let Some(event) = parser.next_event() {
            let Ok(event) = event else { return };
            if event.is_message() {
                if event.data.is_empty() {
                    continue;
                }
                if tx.send(Frame::Data(Bytes::from(event.data))).await.is_err() {
                    return;
                }
            } else if let Some(other) = &other {
                let _ = other.send(event).await;
            }
        }
    }
}

/// A Streamable HTTP endpoint (`http://127.0.0.1:PORT/mcp`).
#[derive(Clone, Debug)]
pub struct HttpTarget {
    /// The endpoint.
    pub url: Uri,
    /// The client with the run's extra headers.
    pub client: HttpClient,
}

/// Parses a plain `http://` URL.
pub fn parse_url(url: &str) -> Result<Uri, Error> {
    let uri: Uri = url
        .parse()
        .map_err(|e| Error::Usage(format!("{url:?} is not a URL: {e}")))?;
    if uri.scheme_str() != Some("http") || uri.authority().is_none() {
        return Err(Error::Usage(format!(
            "{url}: only absolute plain http:// URLs are supported"
        )));
    }
    Ok(uri)
}

impl HttpTarget {
    /// A target at `url` sending `headers` on every request.
    pub fn new(url: &str, headers: &[(String, String)]) -> Result<Self, Error> {
        Ok(HttpTarget {
            url: parse_url(url)?,
            client: HttpClient::new(headers)?,
        })
    }

    /// Opens an uninitialized session.
    pub async fn open(&self, journal: Arc<Journal>) -> Result<Session, Error> {
        let (tx, rx) = mpsc::channel(1024);
        let transport = HttpTransport {
            target: self.clone(),
            state: Arc::new(Mutex::new(State::default())),
            tx,
            tasks: Vec::new(),
            get_opened: false,
        };
        Ok(Session::new(Box::new(transport), rx, journal))
    }
}

impl Connector for HttpTarget {
    fn connect(&self, journal: Arc<Journal>) -> BoxFuture<'_, Result<Session, Error>> {
        Box::pin(self.open(journal))
    }

    fn describe(&self) -> String {
        format!("http: {}", self.url)
    }

    fn kind(&self) -> Kind {
        Kind::Http(self.clone())
    }
}

#[derive(Default)]
struct State {
    session_id: Option<String>,
    version: Option<String>,
    notes: VecDeque<String>,
}

impl State {
    fn note(&mut self, note: String) {
        self.notes.push_back(note);
        while self.notes.len() > KEEP_NOTES {
            self.notes.pop_front();
        }
    }
}

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    match state.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

struct HttpTransport {
    target: HttpTarget,
    state: Arc<Mutex<State>>,
    tx: mpsc::Sender<Frame>,
    tasks: Vec<JoinHandle<()>>,
    get_opened: bool,
}

/// What kind of JSON-RPC message a frame is, as far as the driver cares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FrameKind {
    Initialize,
    Initialized,
    Notification,
    Request,
    Other,
}

fn frame_kind(frame: &[u8]) -> FrameKind {
    let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(frame) else {
        return FrameKind::Other;
    };
    match (obj.get("method").and_then(Value::as_str), obj.get("id")) {
        (Some("initialize"), Some(_)) => FrameKind::Initialize,
        (Some("notifications/initialized"), None) => FrameKind::Initialized,
        (Some(_), None) => FrameKind::Notification,
        (Some(_), Some(_)) => FrameKind::Request,
        _ => FrameKind::Other,
    }
}

/// `text` as a header value: as it is when it is visible ASCII (inner spaces allowed), else
/// `=?base64?…?=`.
pub fn header_value(text: &str) -> String {
    let safe = !text.is_empty()
        && text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !text.starts_with(' ')
        && !text.ends_with(' ');
    if safe {
        text.to_owned()
    } else {
        format!("=?base64?{}?=", base64(text.as_bytes()))
    }
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The headers a 2026-07-28 client sends with `message`: `MCP-Protocol-Version` (the `_meta`
/// version), `Mcp-Method`, and `Mcp-Name` for `tools/call`, `prompts/get`, `resources/read` and
/// the tasks extension's `tasks/get`, `tasks/update` and `tasks/cancel`.
/// Empty for a message that is not a modern request or notification.
pub fn modern_headers(message: &Value) -> Vec<(String, String)> {
    let Some(meta) = message.pointer("/params/_meta").and_then(Value::as_object) else {
        return Vec::new();
    };
    if !meta
        .keys()
        .any(|k| k.starts_with("io.modelcontextprotocol/"))
    {
        return Vec::new();
    }
    let version = meta
        .get("io.modelcontextprotocol/protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or(MODERN_VERSION);
    let mut headers = vec![(PROTOCOL_VERSION.to_owned(), header_value(version))];
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return headers;
    };
    headers.push((MCP_METHOD.to_owned(), header_value(method)));
    let name = match method {
        "tools/call" | "prompts/get" => message.pointer("/params/name"),
        "resources/read" => message.pointer("/params/uri"),
        // The tasks extension (SEP-2663): task requests name their task.
        "tasks/get" | "tasks/update" | "tasks/cancel" => message.pointer("/params/taskId"),
        _ => None,
    };
    if let Some(name) = name.and_then(Value::as_str) {
        headers.push((MCP_NAME.to_owned(), header_value(name)));
    }
    headers
}

/// Handles one POST answer: stores the session id and version of an initialize answer, hands
/// JSON bodies and SSE data to the session.
/// The `error.data` key of the reply the driver makes up for an HTTP rejection without a
/// JSON-RPC body (see `answer`); its value is the HTTP status.
pub const HTTP_REJECTION: &str = "dev.conformance/httpStatus";

async fn answer(
    response: Response<Incoming>,
    state: Arc<Mutex<State>>,
    tx: mpsc::Sender<Frame>,
    initialize: bool,
    expects_reply: bool,
    timeout: Duration,
) {
    let (parts, incoming) = response.into_parts();
    if initialize && parts.status.is_success() {
        if let Some(id) = parts.headers.get(SESSION_ID).and_then(|v| v.to_str().ok()) {
            lock(&state).session_id = Some(id.to_owned());
        }
    }
    let media = media_type(&parts.headers);
    if media == "text/event-stream" {
        let (itx, mut irx) = mpsc::channel(1024);
        let reader = tokio::spawn(pump_sse(incoming, itx, None));
        while let Some(frame) = irx.recv().await {
            if initialize {
                remember_version(&state, &frame);
            }
            if tx.send(frame).await.is_err() {
                break;
            }
        }
        let _ = reader.await;
        return;
    }
    let body = match read_body(incoming, timeout).await {
        Ok(b) => b,
        Err(e) => {
            lock(&state).note(format!("HTTP {}: {e}", parts.status.as_u16()));
            return;
        }
    };
    if !parts.status.is_success() {
        let text: String = String::from_utf8_lossy(&body).chars().take(300).collect();
        lock(&state).note(format!("HTTP {} {media} {text}", parts.status.as_u16()));
    }
    if body.is_empty() || media != "application/json" {
        // "If the server cannot accept the input, it MUST return an HTTP error status code
        // (e.g., 400 Bad Request). The HTTP response body MAY comprise a JSON-RPC error
        // response" (basic/transports#sending-messages-to-the-server): the status alone is the
        // answer. The session gets it as an error with a null id whose data carries the status,
        // so a case waiting for an answer to bad input sees one (and can tell it apart).
        if expects_reply && (parts.status.is_client_error() || parts.status.is_server_error()) {
            let text: String = String::from_utf8_lossy(&body).chars().take(200).collect();
            let reply = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {
                "code": 0,
                "message": format!("HTTP {} without a JSON-RPC body: {text}", parts.status.as_u16()),
                "data": {HTTP_REJECTION: parts.status.as_u16()}}});
            let _ = tx.send(Frame::Data(Bytes::from(reply.to_string()))).await;
        }
        return;
    }
    let frame = Frame::Data(body);
    if initialize {
        remember_version(&state, &frame);
    }
    let _ = tx.send(frame).await;
}

fn remember_version(state: &Mutex<State>, frame: &Frame) {
    let Frame::Data(data) = frame else { return };
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    if let Some(v) = value
        .pointer("/result/protocolVersion")
        .and_then(Value::as_str)
    {
        lock(state).version = Some(v.to_owned());
    }
}

fn session_headers(state: &Mutex<State>) -> Vec<(String, String)> {
    let state = lock(state);
    let mut out = Vec::new();
    if let Some(id) = &state.session_id {
        out.push((SESSION_ID.to_owned(), id.clone()));
    }
    if let Some(v) = &state.version {
        out.push((PROTOCOL_VERSION.to_owned(), v.clone()));
    }
    out
}

fn as_pairs(headers: &[(String, String)]) -> Vec<(&str, &str)> {
    headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect()
}

impl HttpTransport {
    fn open_get_stream(&mut self) {
        if self.get_opened {
            return;
        }
        self.get_opened = true;
        let target = self.target.clone();
        let tx = self.tx.clone();
        let state = self.state.clone();
        let headers = session_headers(&self.state);
        self.tasks.push(tokio::spawn(async move {
            let mut extra = as_pairs(&headers);
            extra.push(("accept", "text/event-stream"));
            match target
                .client
                .send(Method::GET, &target.url, &extra, Bytes::new())
                .await
            {
                Ok(response)
                    if response.status() == StatusCode::OK
                        && media_type(response.headers()) == "text/event-stream" =>
                {
                    pump_sse(response.into_body(), tx, None).await;
                }
                Ok(response) => lock(&state).note(format!(
                    "GET stream not offered: HTTP {}",
                    response.status().as_u16()
                )),
                Err(e) => lock(&state).note(format!("GET stream: {e}")),
            }
        }));
    }
}

impl Transport for HttpTransport {
    fn send_frame<'a>(&'a mut self, frame: &'a [u8]) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(async move {
            self.tasks.retain(|t| !t.is_finished());
            let kind = frame_kind(frame);
            let target = self.target.clone();
            let state = self.state.clone();
            let tx = self.tx.clone();
            let body = Bytes::copy_from_slice(frame);
            let modern = serde_json::from_slice::<Value>(frame)
                .map(|v| modern_headers(&v))
                .unwrap_or_default();
            let is_init = kind == FrameKind::Initialize;
            let (sent_tx, sent_rx) = oneshot::channel::<Result<(), Error>>();
            let task = tokio::spawn(async move {
                let headers = match modern.is_empty() {
                    true => session_headers(&state),
                    false => modern,
                };
                let mut extra = as_pairs(&headers);
                extra.push(("accept", ACCEPT_BOTH));
                extra.push(("content-type", "application/json"));
                match target
                    .client
                    .send(Method::POST, &target.url, &extra, body)
                    .await
                {
                    Ok(response) => {
                        let expects_reply =
                            kind != FrameKind::Notification && kind != FrameKind::Initialized;
                        if is_init {
                            answer(
                                response,
                                state,
                                tx,
                                true,
                                expects_reply,
                                target.client.timeout,
                            )
                            .await;
                            let _ = sent_tx.send(Ok(()));
                        } else {
                            let _ = sent_tx.send(Ok(()));
                            answer(
                                response,
                                state,
                                tx,
                                false,
                                expects_reply,
                                target.client.timeout,
                            )
                            .await;
                        }
                    }
                    Err(e) => {
                        lock(&state).note(format!("POST: {e}"));
                        let _ = sent_tx.send(Err(e));
                    }
                }
            });
            self.tasks.push(task);
            // The initialize answer carries the session id, and notifications are answered at
            // once: wait for those, so later frames go out in order with the right headers.
            // A request's answer may take as long as the work: give it a moment only.
            let wait = match kind {
                FrameKind::Request => HEADER_GRACE,
                _ => self.target.client.timeout,
            };
            if let Ok(Ok(Err(e))) = tokio::time::timeout(wait, sent_rx).await {
                return Err(e);
            }
            if kind == FrameKind::Initialized {
                self.open_get_stream();
            }
            Ok(())
        })
    }

    fn diagnostics(&self) -> String {
        let state = lock(&self.state);
        state.notes.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            for task in self.tasks.drain(..) {
                task.abort();
            }
            let headers = session_headers(&self.state);
            if headers.iter().any(|(n, _)| n == SESSION_ID) {
                let extra = as_pairs(&headers);
                let _ = tokio::time::timeout(
                    Duration::from_secs(2),
                    self.target
                        .client
                        .send(Method::DELETE, &self.target.url, &extra, Bytes::new()),
                )
                .await;
            }
        })
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn base64_and_header_values() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(header_value("tools/call"), "tools/call");
        assert_eq!(header_value("caf\u{e9}"), "=?base64?Y2Fmw6k=?=");
        assert_eq!(header_value(" x"), "=?base64?IHg=?=");
    }

    #[test]
    fn modern_headers_come_from_the_body() {
        let call = json!({"method": "tools/call", "params": {"name": "t",
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        let headers = modern_headers(&call);
        assert!(headers.contains(&(PROTOCOL_VERSION.into(), "2026-07-28".into())));
        assert!(headers.contains(&(MCP_METHOD.into(), "tools/call".into())));
        assert!(headers.contains(&(MCP_NAME.into(), "t".into())));
        assert!(modern_headers(&json!({"method": "ping", "params": {}})).is_empty());
    }
}
