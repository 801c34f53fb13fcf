//! A session with one server: fresh request ids, bounded waits for replies, and a record of
//! everything else that arrives (notifications, requests from the server, stray responses).
//!
//! Classification is deliberately lenient (a reply whose `error.code` is not an integer is still
//! a reply) so cases can say what exactly was wrong; strict validity is checked separately with
//! [`mcp_proto::jsonrpc::parse`] and anything it refuses goes to the [`Journal`].

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{Frame, Journal, Transport};
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

/// A connection to a server, initialized or not.
pub struct Session {
    transport: Box<dyn Transport>,
    frames: mpsc::Receiver<Frame>,
    journal: Arc<Journal>,
    closed: bool,
    next_id: i64,
    backlog: VecDeque<(Option<Value>, Reply)>,
    notifications: Vec<(String, Value)>,
    /// The default bound on one request's wait.
    pub timeout: Duration,
    /// The bound on the first request of a session, which includes the server's start-up.
    pub startup_timeout: Duration,
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
            timeout: Duration::from_secs(10),
            startup_timeout: Duration::from_secs(30),
            initialized: None,
        }
    }

    /// True once the server closed its side.
    pub fn is_closed(&self) -> bool {
        self.closed
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

    /// Sends a request and waits (bounded by [`Session::timeout`]) for its reply.
    pub async fn request(&mut self, method: &str, params: Option<Value>) -> Result<Reply, Error> {
        let timeout = self.timeout;
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
            Error::Timeout { timeout, .. } => Error::Timeout {
                what: format!("reply to `{method}`"),
                timeout,
            },
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
                return Err(Error::Timeout {
                    what: format!("reply to request id {id}"),
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
        if let Err(e) = mcp_proto::jsonrpc::parse(&bytes) {
            let text = String::from_utf8_lossy(&bytes);
            let shown: String = text.chars().take(200).collect();
            self.journal.invalid_frame(format!("{e}: {shown}"));
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
                self.file(msg.clone()).await?;
                last = Some(msg);
            }
        }
        Ok(Some(last.unwrap_or(Msg::Notification {
            method: String::new(),
            params: Value::Null,
        })))
    }

    async fn file(&mut self, msg: Msg) -> Result<(), Error> {
        match msg {
            Msg::Response { id, reply } => {
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
        Ok(())
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
