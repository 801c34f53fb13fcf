//! A session with one server: fresh request ids, bounded waits for replies, and a record of
//! everything else that arrives (notifications, requests from the server, stray responses).
//!
//! Classification is deliberately lenient (a reply whose `error.code` is not an integer is still
//! a reply) so cases can say what exactly was wrong; strict validity is checked separately with
//! [`mcp_proto::jsonrpc::parse`] and anything it refuses goes to the [`Journal`].

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{Frame, Journal, Stray, StrayKind, Transport};
use crate::error::Error;

/// The most notifications or unclaimed responses kept per session.
const KEEP: usize = 10_000;

/// The error object of an error response, read leniently.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    /// `error.code` when it is an integer.
    pub code: Option<i64>,
    /// `error.message` when it is a string.
    pub message: Option<String>,
    /// `error.data`, if any.
    pub data: Option<Value>,
}

/// What came back for a request.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// A result response (`result`, any JSON).
    Result(Value),
    /// An error response.
    Error(RpcError),
}

impl Reply {
    /// The result, if this is one.
    pub fn result(&self) -> Option<&Value> {
        match self {
            Reply::Result(v) => Some(v),
            Reply::Error(_) => None,
        }
    }

    /// The error code, if this is an error with an integer code.
    pub fn error_code(&self) -> Option<i64> {
        match self {
            Reply::Error(e) => e.code,
            Reply::Result(_) => None,
        }
    }

    /// True for an error response.
    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }

    /// A short human description: `result {...}` or `error -32601 "Method not found"`.
    pub fn describe(&self) -> String {
        match self {
            Reply::Result(v) => format!("result {}", brief(v)),
            Reply::Error(e) => {
                let code = e
                    .code
                    .map_or_else(|| "with a non-integer code".to_owned(), |c| c.to_string());
                let message = e.message.as_deref().unwrap_or("<no message>");
                format!("error {code} {message:?}")
            }
        }
    }
}

/// One classified message from the server.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// A request the server sent us.
    Request {
        /// Its id.
        id: Value,
        /// Its method.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
    /// A notification.
    Notification {
        /// Its method.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
    /// A response; `id` is `None` when the field was absent.
    Response {
        /// The `id` field as sent (may be `null`), or `None` if missing.
        id: Option<Value>,
        /// The result or error.
        reply: Reply,
    },
}

/// JSON shortened for messages: at most 300 characters.
pub fn brief(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 300 {
        text
    } else {
        let cut: String = text.chars().take(300).collect();
        format!("{cut}…")
    }
}

/// A request the session sent: which case sent it, its method, and how many times that id was
/// used (a case may repeat an id on purpose).
#[derive(Clone, Debug)]
struct Sent {
    case: &'static str,
    method: Option<String>,
    count: usize,
    answered: usize,
}

/// The label of the requests the runner sends outside any case (the handshake, the probes).
pub const SETUP: &str = "(runner setup)";

/// A connection to a server, initialized or not.
///
/// Every request it sends is recorded with the case that was running (see
/// [`Session::set_case`]). A reply to a request of an earlier case, a second reply to one
/// request, and (when a new case starts) a reply to an id nobody sent are taken out of the
/// running case's view and recorded in the [`Journal`] as a [`Stray`] of the case they belong
/// to: a late answer can never be counted against a case that did not ask.
pub struct Session {
    transport: Box<dyn Transport>,
    frames: mpsc::Receiver<Frame>,
    journal: Arc<Journal>,
    closed: bool,
    next_id: i64,
    backlog: VecDeque<(Option<Value>, Reply)>,
    notifications: Vec<(String, Value)>,
    case: &'static str,
    sent: HashMap<String, Sent>,
    /// The default bound on one request's wait.
    pub timeout: Duration,
    /// The bound on the first request of a session, which includes the server's start-up.
    pub startup_timeout: Duration,
    /// How long the cases listen where nothing should arrive (scaled with the round trip).
    pub quiet: Duration,
    /// The bound on a request that does work in the server (a tool call, a resource read, a
    /// prompt, a completion, a task, a list), which a ping's round trip does not predict.
    pub work_timeout: Duration,
    /// The `initialize` result once [`Session::handshake`] succeeded.
    pub initialized: Option<Value>,
}

impl Session {
    /// A session over `transport`, whose reader delivers frames on `frames`.
    pub fn new(
        transport: Box<dyn Transport>,
        frames: mpsc::Receiver<Frame>,
        journal: Arc<Journal>,
    ) -> Self {
        Session {
            transport,
            frames,
            journal,
            closed: false,
            next_id: 1,
            backlog: VecDeque::new(),
            notifications: Vec::new(),
            case: SETUP,
            sent: HashMap::new(),
            timeout: Duration::from_secs(10),
            startup_timeout: Duration::from_secs(30),
            quiet: Duration::from_millis(600),
            work_timeout: Duration::from_secs(10),
            initialized: None,
        }
    }

    /// True once the server closed its side.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The case now running on this session. What arrived for the previous case and was not
    /// claimed is set aside: replies with an id nobody sent are recorded as strays of the case
    /// that was running, the rest (unclaimed replies to its own requests) are dropped, and the
    /// notifications received so far are cleared, so the new case starts with an empty view.
    pub async fn set_case(&mut self, case: &'static str) {
        self.drain_ready().await;
        for (id, reply) in std::mem::take(&mut self.backlog) {
            let key = id_key(id.as_ref());
            if id.as_ref().is_some_and(|i| !i.is_null()) && !self.sent.contains_key(&key) {
                self.journal.stray(Stray {
                    case: self.case.to_owned(),
                    during: self.case.to_owned(),
                    id: key,
                    method: None,
                    kind: StrayKind::UnknownId,
                    reply: reply.describe(),
                });
            }
        }
        self.notifications.clear();
        self.case = case;
    }

    /// The case this session's requests are attributed to now.
    pub fn case(&self) -> &'static str {
        self.case
    }

    /// Files every frame that has already arrived without waiting, and notices a server that
    /// closed its side since the last read (so the next case does not inherit a dead session).
    pub async fn drain_ready(&mut self) {
        if self.closed {
            return;
        }
        loop {
            match self.frames.try_recv() {
                Ok(frame) => {
                    // Filing may answer a server request; a failure there shows up at the next
                    // send, so it is not an error here.
                    let _ = self.file_frame(frame).await;
                }
                Err(mpsc::error::TryRecvError::Empty) => return,
                Err(mpsc::error::TryRecvError::Disconnected) => {
                    self.closed = true;
                    return;
                }
            }
        }
    }

    /// The tail of the server's stderr.
    pub fn diagnostics(&self) -> String {
        self.transport.diagnostics()
    }

    fn closed_error(&self) -> Error {
        let tail = self.transport.diagnostics();
        let stderr = if tail.trim().is_empty() {
            String::new()
        } else {
            format!("; its stderr ends with:\n{}", tail.trim_end())
        };
        Error::Closed { stderr }
    }

    /// The id [`Session::fresh_id`] gave out last, if any.
    pub fn last_request_id(&self) -> Option<Value> {
        (self.next_id > 1).then(|| json!(self.next_id - 1))
    }

    /// A fresh integer request id.
    pub fn fresh_id(&mut self) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        json!(id)
    }

    /// Sends one frame exactly as given (for malformed input).
    pub async fn send_line(&mut self, line: &str) -> Result<(), Error> {
        if self.closed {
            return Err(self.closed_error());
        }
        self.record_requests(line);
        self.journal.exchange(self.case, true, line);
        match self.transport.send_frame(line.as_bytes()).await {
            Err(Error::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                // The server is gone; give its stderr a moment to drain so the error can show it.
                self.closed = true;
                tokio::time::sleep(Duration::from_millis(100)).await;
                Err(self.closed_error())
            }
            other => other,
        }
    }

    /// Notes the id of every request in `line` (one message or a batch) as the running case's.
    /// Text that does not parse carries no id anyone can answer.
    fn record_requests(&mut self, line: &str) {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            return;
        };
        let items = match value {
            Value::Array(items) => items,
            other => vec![other],
        };
        for item in items {
            let Value::Object(obj) = item else { continue };
            let (Some(id), true) = (obj.get("id"), obj.contains_key("method")) else {
                continue;
            };
            if id.is_null() {
                continue;
            }
            let method = obj.get("method").and_then(Value::as_str).map(str::to_owned);
            let case = self.case;
            let entry = self.sent.entry(id_key(Some(id))).or_insert(Sent {
                case,
                method: method.clone(),
                count: 0,
                answered: 0,
            });
            if entry.case != case {
                // An id reused by a later case belongs to that case from now on.
                *entry = Sent {
                    case,
                    method,
                    count: 0,
                    answered: 0,
                };
            }
            entry.count += 1;
        }
    }

    /// Sends one JSON value as a compact frame.
    pub async fn send(&mut self, value: &Value) -> Result<(), Error> {
        let text = serde_json::to_string(value)?;
        self.send_line(&text).await
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), Error> {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let (Some(p), Some(obj)) = (params, msg.as_object_mut()) {
            obj.insert("params".into(), p);
        }
        self.send(&msg).await
    }

    /// Sends a request with a fresh id and returns the id without waiting.
    pub async fn start_request(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, Error> {
        let id = self.fresh_id();
        self.send_request_with_id(id.clone(), method, params)
            .await?;
        Ok(id)
    }

    /// Sends a request with the given id.
    pub async fn send_request_with_id(
        &mut self,
        id: Value,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), Error> {
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let (Some(p), Some(obj)) = (params, msg.as_object_mut()) {
            obj.insert("params".into(), p);
        }
        self.send(&msg).await
    }

    /// Sends a request and waits for its reply, bounded by [`Session::work_timeout`] for the
    /// methods that do work (calls, reads, gets, completions, tasks, lists) and
    /// [`Session::timeout`] for the others.
    pub async fn request(&mut self, method: &str, params: Option<Value>) -> Result<Reply, Error> {
        let work = matches!(
            method,
            "tools/call" | "resources/read" | "prompts/get" | "completion/complete"
        ) || method.starts_with("tasks/")
            || method.ends_with("/list");
        let timeout = match work {
            true => self.work_timeout.max(self.timeout),
            false => self.timeout,
        };
        self.request_within(method, params, timeout).await
    }

    /// Sends a request and waits up to `timeout` for its reply.
    pub async fn request_within(
        &mut self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Reply, Error> {
        let id = self.start_request(method, params).await?;
        self.wait_reply(&id, timeout).await.map_err(|e| match e {
            Error::Timeout { timeout, what } => {
                let meanwhile = what.find(" (meanwhile").map_or("", |i| &what[i..]);
                Error::Timeout {
                    what: format!("reply to `{method}`{meanwhile}"),
                    timeout,
                }
            }
            other => other,
        })
    }

    /// Waits up to `timeout` for the reply with this id.
    pub async fn wait_reply(&mut self, id: &Value, timeout: Duration) -> Result<Reply, Error> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(pos) = self
                .backlog
                .iter()
                .position(|(rid, _)| rid.as_ref() == Some(id))
            {
                if let Some((_, reply)) = self.backlog.remove(pos) {
                    return Ok(reply);
                }
            }
            if self.pump(deadline).await?.is_none() {
                // Say what did come, so a reply with the wrong id is visible as one.
                let other = self.backlog.front().map_or(String::new(), |(rid, reply)| {
                    format!(
                        " (meanwhile a reply with id {}: {})",
                        id_key(rid.as_ref()),
                        reply.describe()
                    )
                });
                return Err(Error::Timeout {
                    what: format!("reply to request id {id}{other}"),
                    timeout,
                });
            }
        }
    }

    /// Waits up to `timeout` for a reply whose id is `null` or missing (the answer to input
    /// whose id could not be read).
    pub async fn wait_idless_reply(&mut self, timeout: Duration) -> Result<Reply, Error> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(pos) = self
                .backlog
                .iter()
                .position(|(rid, _)| matches!(rid, None | Some(Value::Null)))
            {
                if let Some((_, reply)) = self.backlog.remove(pos) {
                    return Ok(reply);
                }
            }
            if self.pump(deadline).await?.is_none() {
                return Err(Error::Timeout {
                    what: "reply with a null id".into(),
                    timeout,
                });
            }
        }
    }

    /// Waits for the first reply that is either id-less or carries `id`; used where either is
    /// acceptable (an invalid request whose id may or may not have been read).
    pub async fn wait_reply_or_idless(
        &mut self,
        id: &Value,
        timeout: Duration,
    ) -> Result<(Option<Value>, Reply), Error> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(pos) = self.backlog.iter().position(|(rid, _)| {
                matches!(rid, None | Some(Value::Null)) || rid.as_ref() == Some(id)
            }) {
                if let Some(found) = self.backlog.remove(pos) {
                    return Ok(found);
                }
            }
            if self.pump(deadline).await?.is_none() {
                return Err(Error::Timeout {
                    what: "reply".into(),
                    timeout,
                });
            }
        }
    }

    /// Everything that arrives within `window` (the server closing ends it early, as an error).
    pub async fn collect_for(&mut self, window: Duration) -> Result<Vec<Msg>, Error> {
        let deadline = Instant::now() + window;
        let mut seen = Vec::new();
        while let Some(msg) = self.pump(deadline).await? {
            seen.push(msg);
        }
        Ok(seen)
    }

    /// The responses (not notifications) that arrive within `window`; empty is the good case
    /// when nothing should be answered.
    pub async fn responses_within(
        &mut self,
        window: Duration,
    ) -> Result<Vec<(Option<Value>, Reply)>, Error> {
        let msgs = self.collect_for(window).await?;
        let mut out = Vec::new();
        for msg in msgs {
            if let Msg::Response { id, reply } = msg {
                if let Some(pos) = self
                    .backlog
                    .iter()
                    .position(|(rid, r)| *rid == id && *r == reply)
                {
                    self.backlog.remove(pos);
                }
                out.push((id, reply));
            }
        }
        Ok(out)
    }

    /// Takes the notifications received so far (method, params).
    pub fn take_notifications(&mut self) -> Vec<(String, Value)> {
        std::mem::take(&mut self.notifications)
    }

    /// Receives and files one frame; `None` when the deadline passed first.
    pub async fn pump(&mut self, deadline: Instant) -> Result<Option<Msg>, Error> {
        if self.closed {
            return Err(self.closed_error());
        }
        let frame = match tokio::time::timeout_at(deadline, self.frames.recv()).await {
            Err(_) => return Ok(None),
            Ok(None) => {
                self.closed = true;
                return Err(self.closed_error());
            }
            Ok(Some(frame)) => frame,
        };
        self.file_frame(frame).await
    }

    /// Classifies one frame and files what it holds; the last message in it is returned.
    async fn file_frame(&mut self, frame: Frame) -> Result<Option<Msg>, Error> {
        let bytes = match frame {
            Frame::TooLong(limit) => {
                self.journal
                    .invalid_frame(format!("a frame over {limit} bytes"));
                return Ok(Some(Msg::Notification {
                    method: String::new(),
                    params: Value::Null,
                }));
            }
            Frame::Data(bytes) => bytes,
        };
        // Evidence needs the start of a message only; a 1 MiB reply is not copied whole.
        let head = &bytes[..bytes.len().min(2400)];
        self.journal
            .exchange(self.case, false, &String::from_utf8_lossy(head));
        if let Err(e) = mcp_proto::jsonrpc::parse(&bytes) {
            if !valid_beyond_our_parser(&bytes) {
                let text = String::from_utf8_lossy(&bytes);
                let shown: String = text.chars().take(200).collect();
                self.journal.invalid_frame(format!("{e}: {shown}"));
            }
        }
        let value: Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(_) => {
                return Ok(Some(Msg::Notification {
                    method: String::new(),
                    params: Value::Null,
                }))
            }
        };
        let mut last = None;
        let items = match value {
            Value::Array(items) => items,
            other => vec![other],
        };
        for item in items {
            if let Some(msg) = classify(item) {
                if self.file(msg.clone()).await? {
                    last = Some(msg);
                }
            }
        }
        Ok(Some(last.unwrap_or(Msg::Notification {
            method: String::new(),
            params: Value::Null,
        })))
    }

    /// Files one message; false when it is a stray the running case must not see.
    async fn file(&mut self, msg: Msg) -> Result<bool, Error> {
        match msg {
            Msg::Response { id, reply } => {
                let key = id_key(id.as_ref());
                if let Some(sent) = self.sent.get_mut(&key) {
                    sent.answered += 1;
                    let kind = if sent.answered > sent.count {
                        Some(StrayKind::Duplicate)
                    } else if sent.case != self.case {
                        Some(StrayKind::Late)
                    } else {
                        None
                    };
                    if let Some(kind) = kind {
                        self.journal.stray(Stray {
                            case: sent.case.to_owned(),
                            during: self.case.to_owned(),
                            id: key,
                            method: sent.method.clone(),
                            kind,
                            reply: reply.describe(),
                        });
                    }
                    if sent.case != self.case {
                        // Not the running case's business: it never sees this reply.
                        return Ok(false);
                    }
                }
                if self.backlog.len() >= KEEP {
                    self.backlog.pop_front();
                }
                self.backlog.push_back((id, reply));
            }
            Msg::Notification { method, params } => {
                if method == "notifications/message" {
                    self.journal.log_message(params.clone());
                }
                if self.notifications.len() < KEEP {
                    self.notifications.push((method, params));
                }
            }
            Msg::Request { id, method, .. } => {
                self.journal.server_request(method.clone());
                let answer = if method == "ping" {
                    json!({"jsonrpc": "2.0", "id": id, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": id, "error": {
                        "code": mcp_proto::jsonrpc::error_codes::METHOD_NOT_FOUND,
                        "message": "the conformance runner does not offer this"}})
                };
                self.send(&answer).await?;
            }
        }
        Ok(true)
    }

    /// Sends `initialize` for `version` and waits for the reply (no `initialized` yet).
    pub async fn send_initialize(&mut self, version: &str) -> Result<Reply, Error> {
        let timeout = self.startup_timeout.max(self.timeout);
        self.request_within("initialize", Some(initialize_params(version)), timeout)
            .await
    }

    /// A request given the start-up allowance: for the first request of a fresh session.
    pub async fn first_request(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Reply, Error> {
        let timeout = self.startup_timeout.max(self.timeout);
        self.request_within(method, params, timeout).await
    }

    /// The whole handshake: `initialize`, then `notifications/initialized`. Returns the result.
    pub async fn handshake(&mut self, version: &str) -> Result<Value, Error> {
        match self.send_initialize(version).await? {
            Reply::Result(result) => {
                self.notify("notifications/initialized", None).await?;
                self.initialized = Some(result.clone());
                Ok(result)
            }
            Reply::Error(e) => Err(Error::Protocol(format!(
                "initialize failed: {}",
                Reply::Error(e).describe()
            ))),
        }
    }

    /// The version the server answered `initialize` with.
    pub fn negotiated_version(&self) -> Option<&str> {
        self.initialized
            .as_ref()
            .and_then(|r| r.get("protocolVersion"))
            .and_then(Value::as_str)
    }

    /// Ends the session and releases the server.
    pub async fn close(mut self) {
        self.transport.close().await;
    }
}

/// The `initialize` params the runner sends: no client capabilities, so the server has no
/// reason to call us back.
pub fn initialize_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "mcp-conformance", "version": env!("CARGO_PKG_VERSION")}
    })
}

/// True when a frame our own parser refuses is valid all the same, for two reasons the parser
/// does not know: an error response may leave out `id` when it could not be read (2025-11-25
/// and 2026-07-28 basic/index#error-responses: `id?`), and an integer id beyond 64 bits is
/// still an integer (JSON-RPC bounds none; `jsonrpc.huge-id` judges the echo). The frame is
/// checked again with those two things made ordinary.
fn valid_beyond_our_parser(bytes: &[u8]) -> bool {
    let Ok(mut value) = serde_json::from_slice::<Value>(bytes) else {
        return false;
    };
    let fix = |item: &mut Value| {
        let Value::Object(obj) = item else { return };
        match obj.get("id") {
            None if obj.contains_key("error") => {
                obj.insert("id".into(), Value::Null);
            }
            Some(Value::Number(n)) if n.as_i64().is_none() && n.is_u64() => {
                obj.insert("id".into(), json!(0));
            }
            _ => {}
        }
    };
    match &mut value {
        Value::Array(items) => items.iter_mut().for_each(fix),
        item => fix(item),
    }
    serde_json::to_vec(&value).is_ok_and(|b| mcp_proto::jsonrpc::parse(&b).is_ok())
}

/// The id as JSON text, the key requests and replies are matched on (`absent` for none).
fn id_key(id: Option<&Value>) -> String {
    id.map_or_else(|| "absent".to_owned(), Value::to_string)
}

fn classify(value: Value) -> Option<Msg> {
    let Value::Object(mut obj) = value else {
        return None;
    };
    if let Some(Value::String(method)) = obj.get("method").cloned() {
        let params = obj.remove("params").unwrap_or(Value::Null);
        return Some(match obj.remove("id") {
            Some(id) => Msg::Request { id, method, params },
            None => Msg::Notification { method, params },
        });
    }
    let id = obj.remove("id");
    if let Some(result) = obj.remove("result") {
        return Some(Msg::Response {
            id,
            reply: Reply::Result(result),
        });
    }
    if let Some(error) = obj.remove("error") {
        let code = error.get("code").and_then(Value::as_i64);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let data = error.get("data").cloned();
        return Some(Msg::Response {
            id,
            reply: Reply::Error(RpcError {
                code,
                message,
                data,
            }),
        });
    }
    None
}
