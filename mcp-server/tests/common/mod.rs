//! A raw JSON client over the in-memory transport: it sends exact JSON, sees every message the
//! server sends, and answers the server's requests to the client.

#![allow(dead_code)]

use std::time::Duration;

use mcp_proto::jsonrpc::{self, Incoming, Message};
use mcp_proto::peer::{memory_pair, MemorySink, MemorySource, MessageSource, Transport};
use mcp_server::{RunningConnection, Server};
use serde_json::{json, Value};

/// How long any single wait in a test may take.
pub const WAIT: Duration = Duration::from_secs(5);

/// The raw client end of a connection to a server.
pub struct RawClient {
    source: MemorySource,
    sink: MemorySink,
    /// Notifications received while waiting for responses.
    pub notifications: Vec<Value>,
    /// Server-to-client requests received (answered with `answer_requests`).
    pub requests: Vec<Value>,
    /// Responses that arrived while waiting for another one.
    pub responses: Vec<Value>,
    next_id: i64,
    /// The session on the server's side.
    pub session: RunningConnection,
}

impl RawClient {
    /// Connects to `server` without initializing.
    pub fn connect(server: &Server) -> Self {
        let (a, b) = memory_pair(64);
        let session = server.serve(b);
        let (source, sink) = a.split();
        RawClient {
            source,
            sink,
            notifications: Vec::new(),
            requests: Vec::new(),
            responses: Vec::new(),
            next_id: 1000,
            session,
        }
    }

    /// Connects and initializes with `version` and client `capabilities`.
    pub async fn initialized(server: &Server, version: &str, capabilities: Value) -> Self {
        let mut client = Self::connect(server);
        let result = client.initialize(version, capabilities).await;
        assert!(
            result.get("result").is_some(),
            "initialize failed: {result}"
        );
        client.notify("notifications/initialized", json!({})).await;
        client
    }

    /// Sends `initialize` and returns the whole response.
    pub async fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        self.request(
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": capabilities,
                "clientInfo": {"name": "raw-test-client", "version": "0.0.1"}
            }),
        )
        .await
    }

    /// Sends raw JSON text as one frame.
    pub async fn send_text(&self, text: &str) {
        let incoming = jsonrpc::parse(text.as_bytes()).expect("test frames are valid JSON-RPC");
        assert!(self.sink.inject(Ok(incoming)).await, "server is gone");
    }

    /// Sends a JSON value as one frame.
    pub async fn send(&self, value: &Value) {
        self.send_text(&value.to_string()).await
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    /// A fresh request id.
    pub fn next_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends a request and waits for its response (the whole message).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.response_to(&json!(id)).await
    }

    /// Sends a request and returns its `result`, failing the test on an error.
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params).await;
        match response.get("result") {
            Some(result) => result.clone(),
            None => panic!("{method} failed: {response}"),
        }
    }

    /// Sends a request and returns its `error`, failing the test on a result.
    pub async fn call_err(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params).await;
        match response.get("error") {
            Some(error) => error.clone(),
            None => panic!("{method} should have failed: {response}"),
        }
    }

    /// The next message from the server, within the wait limit.
    pub async fn recv(&mut self) -> Value {
        self.try_recv(WAIT)
            .await
            .expect("no message from the server in time")
    }

    /// The next message within `wait`, or `None`.
    pub async fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        let item = tokio::time::timeout(wait, self.source.recv())
            .await
            .ok()??;
        match item.expect("the server sent a frame that is not JSON-RPC") {
            Incoming::Single(m) => Some(to_value(&m)),
            Incoming::Batch(items) => Some(Value::Array(
                items
                    .into_iter()
                    .map(|m| to_value(&m.expect("valid batch item")))
                    .collect(),
            )),
        }
    }

    /// Waits for the response with `id`, collecting notifications and answering requests.
    pub async fn response_to(&mut self, id: &Value) -> Value {
        loop {
            let message = self.recv().await;
            if message.get("id") == Some(id) && message.get("method").is_none() {
                return message;
            }
            self.absorb(message).await;
        }
    }

    /// Files a message that is not the awaited response.
    async fn absorb(&mut self, message: Value) {
        if message.get("method").is_some() && message.get("id").is_some() {
            let answer = answer_for(&message);
            self.requests.push(message);
            self.send(&answer).await;
        } else if message.get("method").is_some() {
            self.notifications.push(message);
        } else {
            self.responses.push(message);
        }
    }

    /// Collects messages for `wait`, absorbing them; returns the notifications with `method`.
    pub async fn drain(&mut self, wait: Duration) -> Vec<Value> {
        while let Some(message) = self.try_recv(wait).await {
            self.absorb(message).await;
        }
        self.notifications.clone()
    }

    /// Notifications received so far with this method.
    pub fn notifications_named(&self, method: &str) -> Vec<Value> {
        self.notifications
            .iter()
            .filter(|n| n["method"] == method)
            .cloned()
            .collect()
    }

    /// Closes the client's sending side (end of input for the server).
    pub fn close_input(self) -> (MemorySource, RunningConnection) {
        (self.source, self.session)
    }
}

fn to_value(message: &Message) -> Value {
    serde_json::from_str(&message.to_json()).expect("messages are JSON")
}

/// What the test client answers to the server's requests.
fn answer_for(request: &Value) -> Value {
    let id = request["id"].clone();
    let result = match request["method"].as_str() {
        Some("sampling/createMessage") => json!({
            "role": "assistant",
            "content": {"type": "text", "text": "sampled"},
            "model": "test-model"
        }),
        Some("roots/list") => json!({"roots": [{"uri": "file:///work", "name": "work"}]}),
        Some("elicitation/create") => json!({"action": "accept", "content": {"ok": true}}),
        Some("ping") => json!({}),
        _ => {
            return json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}})
        }
    };
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}
