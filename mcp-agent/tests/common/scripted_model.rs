//! A scripted model server for the tests: a hyper server on 127.0.0.1 that answers each request
//! with the next reply of its script, recorded for the test to read back, and writers of each
//! provider's streaming protocol as documented:
//!
//! - OpenAI Chat Completions: `data:` chunks of `chat.completion.chunk`, `delta.tool_calls`
//!   by `index` with the arguments cut mid-token across chunks, several calls in one answer, a
//!   `finish_reason` chunk, a usage chunk with empty `choices`, then `data: [DONE]`;
//! - Anthropic Messages: `message_start`, `content_block_start` / `content_block_delta`
//!   (`text_delta`, `input_json_delta`) / `content_block_stop`, a `ping`, `message_delta` with
//!   the stop reason and usage, `message_stop`;
//! - Gemini `streamGenerateContent?alt=sse`: `GenerateContentResponse` events with text parts
//!   and `functionCall` parts, the last with `finishReason` and `usageMetadata`.
//!
//! Each event is written in two body frames cut in its middle, so readers must join them.
//! Shared by mcp-agent's tests and bench and mcp-cli's `mcp chat` tests (`#[path]`).

#![allow(dead_code)]

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::channel::{Channel, Sender};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};

/// What the model says in one answer.
#[derive(Debug, Clone)]
pub enum Say {
    /// Text, and done.
    Text(String),
    /// Tool calls (in one answer, so they may run in parallel), after optional text.
    Calls(Vec<Call>),
}

/// One tool call the model makes.
#[derive(Debug, Clone)]
pub struct Call {
    /// Its id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model writes them (need not be valid JSON).
    pub arguments: String,
}

/// A call of `name` with `arguments`.
pub fn call(id: &str, name: &str, arguments: Value) -> Call {
    Call {
        id: id.into(),
        name: name.into(),
        arguments: arguments.to_string(),
    }
}

/// Text.
pub fn text(t: &str) -> Say {
    Say::Text(t.into())
}

/// One reply of the script.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A 200 streaming these frames.
    Stream(Vec<Bytes>),
    /// A status with headers and a body (errors, 429 with `Retry-After`).
    Status(u16, Vec<(String, String)>, String),
}

/// Which protocol to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions.
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini.
    Gemini,
}

impl Wire {
    /// The reply saying `say` in this protocol.
    pub fn reply(self, say: &Say) -> Reply {
        Reply::Stream(match self {
            Wire::OpenAi => openai(say),
            Wire::Anthropic => anthropic(say),
            Wire::Gemini => gemini(say),
        })
    }
}

/// A request the server got.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Path and query.
    pub path: String,
    /// Its headers.
    pub headers: hyper::HeaderMap,
    /// Its body as JSON (`Null` if not JSON).
    pub body: Value,
}

/// The running server.
pub struct ScriptedModel {
    /// Where it listens.
    pub addr: SocketAddr,
    script: Arc<Mutex<VecDeque<Reply>>>,
    recorded: Arc<Mutex<Vec<Recorded>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ScriptedModel {
    /// Starts a server with `script`.
    pub async fn start(script: Vec<Reply>) -> ScriptedModel {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the scripted model");
        let addr = listener.local_addr().expect("address");
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let (s, r) = (script.clone(), recorded.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let (s, r) = (s.clone(), r.clone());
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        answer(request, s.clone(), r.clone())
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        ScriptedModel {
            addr,
            script,
            recorded,
            task,
        }
    }

    /// A server answering `says` in `wire`, in order.
    pub async fn speaking(wire: Wire, says: &[Say]) -> ScriptedModel {
        Self::start(says.iter().map(|s| wire.reply(s)).collect()).await
    }

    /// Adds replies to the script.
    pub fn push(&self, reply: Reply) {
        self.script.lock().unwrap().push_back(reply);
    }

    /// The requests so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.recorded.lock().unwrap().clone()
    }

    /// The base URL a provider of `wire` is configured with.
    pub fn base_url(&self, wire: Wire) -> String {
        match wire {
            Wire::OpenAi => format!("http://{}/v1", self.addr),
            Wire::Anthropic | Wire::Gemini => format!("http://{}", self.addr),
        }
    }
}

async fn answer(
    request: Request<Incoming>,
    script: Arc<Mutex<VecDeque<Reply>>>,
    recorded: Arc<Mutex<Vec<Recorded>>>,
) -> Result<Response<Channel<Bytes>>, Infallible> {
    let path = request
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    let headers = request.headers().clone();
    let body = request
        .into_body()
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    recorded.lock().unwrap().push(Recorded {
        path,
        headers,
        body,
    });
    let reply = script.lock().unwrap().pop_front().unwrap_or_else(|| {
        Reply::Status(
            500,
            vec![],
            r#"{"error":{"message":"script exhausted"}}"#.into(),
        )
    });
    let (mut sender, body): (Sender<Bytes>, _) = Channel::new(64);
    let mut response = Response::new(body);
    match reply {
        Reply::Stream(frames) => {
            response.headers_mut().insert(
                hyper::header::CONTENT_TYPE,
                hyper::header::HeaderValue::from_static("text/event-stream"),
            );
            tokio::spawn(async move {
                for frame in frames {
                    if sender.send_data(frame).await.is_err() {
                        return;
                    }
                    tokio::task::yield_now().await;
                }
            });
        }
        Reply::Status(status, headers, body) => {
            *response.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
            for (name, value) in headers {
                response.headers_mut().insert(
                    hyper::header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                    hyper::header::HeaderValue::from_str(&value).unwrap(),
                );
            }
            let _ = sender.try_send(hyper::body::Frame::data(Bytes::from(body)));
        }
    }
    Ok(response)
}

/// One SSE event as two frames cut in its middle.
fn event(name: Option<&str>, data: &Value, out: &mut Vec<Bytes>) {
    let mut text = String::new();
    if let Some(name) = name {
        text.push_str(&format!("event: {name}\n"));
    }
    text.push_str(&format!("data: {data}\n\n"));
    let mut cut = text.len() / 2;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    out.push(Bytes::from(text[..cut].to_owned()));
    out.push(Bytes::from(text[cut..].to_owned()));
}

/// `text` in pieces of at most `n` characters (so JSON is cut mid-token).
fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

/// The OpenAI Chat Completions stream saying `say`.
pub fn openai(say: &Say) -> Vec<Bytes> {
    let mut out = Vec::new();
    let chunk = |choices: Value, usage: Value| {
        json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1764720000,
               "model": "scripted-model", "system_fingerprint": "fp_scripted",
               "choices": choices, "usage": usage})
    };
    let delta = |delta: Value, finish: Value| json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]);
    let finish = match say {
        Say::Text(t) => {
            event(
                None,
                &chunk(
                    delta(
                        json!({"role": "assistant", "content": "", "refusal": null}),
                        Value::Null,
                    ),
                    Value::Null,
                ),
                &mut out,
            );
            for piece in pieces(t, 7) {
                event(
                    None,
                    &chunk(delta(json!({"content": piece}), Value::Null), Value::Null),
                    &mut out,
                );
            }
            "stop"
        }
        Say::Calls(calls) => {
            event(
                None,
                &chunk(
                    delta(json!({"role": "assistant", "content": null}), Value::Null),
                    Value::Null,
                ),
                &mut out,
            );
            for (index, call) in calls.iter().enumerate() {
                let first = json!({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                                    "function": {"name": call.name, "arguments": ""}}]});
                event(
                    None,
                    &chunk(delta(first, Value::Null), Value::Null),
                    &mut out,
                );
                for piece in pieces(&call.arguments, 5) {
                    let more =
                        json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]});
                    event(
                        None,
                        &chunk(delta(more, Value::Null), Value::Null),
                        &mut out,
                    );
                }
            }
            "tool_calls"
        }
    };
    event(
        None,
        &chunk(delta(json!({}), finish.into()), Value::Null),
        &mut out,
    );
    event(
        None,
        &chunk(
            json!([]),
            json!({"prompt_tokens": 42, "completion_tokens": 17, "total_tokens": 59}),
        ),
        &mut out,
    );
    out.push(Bytes::from_static(b"data: [DONE]\n\n"));
    out
}

/// A content block: its index, its start and its deltas.
type Block = (usize, Value, Vec<Value>);

/// The Anthropic Messages stream saying `say`.
pub fn anthropic(say: &Say) -> Vec<Bytes> {
    let mut out = Vec::new();
    event(
        Some("message_start"),
        &json!({"type": "message_start", "message": {"id": "msg_scripted", "type": "message",
                "role": "assistant", "content": [], "model": "scripted-model", "stop_reason": null,
                "stop_sequence": null, "usage": {"input_tokens": 42, "output_tokens": 1}}}),
        &mut out,
    );
    let (blocks, stop): (Vec<Block>, &str) = match say {
        Say::Text(t) => (
            vec![(
                0,
                json!({"type": "text", "text": ""}),
                pieces(t, 7)
                    .into_iter()
                    .map(|p| json!({"type": "text_delta", "text": p}))
                    .collect(),
            )],
            "end_turn",
        ),
        Say::Calls(calls) => (
            calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let mut deltas = vec![json!({"type": "input_json_delta", "partial_json": ""})];
                    deltas.extend(
                        pieces(&c.arguments, 5)
                            .into_iter()
                            .map(|p| json!({"type": "input_json_delta", "partial_json": p})),
                    );
                    (
                        i,
                        json!({"type": "tool_use", "id": c.id, "name": c.name, "input": {}}),
                        deltas,
                    )
                })
                .collect(),
            "tool_use",
        ),
    };
    for (index, block, deltas) in blocks {
        event(
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": index, "content_block": block}),
            &mut out,
        );
        if index == 0 {
            event(Some("ping"), &json!({"type": "ping"}), &mut out);
        }
        for delta in deltas {
            event(
                Some("content_block_delta"),
                &json!({"type": "content_block_delta", "index": index, "delta": delta}),
                &mut out,
            );
        }
        event(
            Some("content_block_stop"),
            &json!({"type": "content_block_stop", "index": index}),
            &mut out,
        );
    }
    event(
        Some("message_delta"),
        &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": 17}}),
        &mut out,
    );
    event(
        Some("message_stop"),
        &json!({"type": "message_stop"}),
        &mut out,
    );
    out
}

/// The Gemini `alt=sse` stream saying `say`.
pub fn gemini(say: &Say) -> Vec<Bytes> {
    let mut out = Vec::new();
    let usage = json!({"promptTokenCount": 42, "candidatesTokenCount": 17, "totalTokenCount": 59});
    match say {
        Say::Text(t) => {
            let parts = pieces(t, 7);
            let last = parts.len().saturating_sub(1);
            for (i, piece) in parts.into_iter().enumerate() {
                let mut candidate =
                    json!({"content": {"parts": [{"text": piece}], "role": "model"}, "index": 0});
                let mut response =
                    json!({"modelVersion": "scripted-model", "responseId": "resp_scripted"});
                if i == last {
                    candidate["finishReason"] = "STOP".into();
                    response["usageMetadata"] = usage.clone();
                }
                response["candidates"] = json!([candidate]);
                event(None, &response, &mut out);
            }
        }
        Say::Calls(calls) => {
            let parts: Vec<Value> = calls
                .iter()
                .map(|c| {
                    let args: Value = serde_json::from_str(&c.arguments).unwrap_or(json!({}));
                    json!({"functionCall": {"name": c.name, "args": args}})
                })
                .collect();
            event(
                None,
                &json!({"candidates": [{"content": {"parts": parts, "role": "model"},
                        "finishReason": "STOP", "index": 0}],
                        "usageMetadata": usage, "modelVersion": "scripted-model", "responseId": "resp_scripted"}),
                &mut out,
            );
        }
    }
    out
}

/// A 429 asking for a retry after `secs` seconds.
pub fn too_many_requests(secs: u64) -> Reply {
    Reply::Status(
        429,
        vec![("retry-after".into(), secs.to_string())],
        r#"{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}"#.into(),
    )
}

/// A short pause, for tests that need one between steps.
pub async fn pause() {
    tokio::time::sleep(Duration::from_millis(20)).await;
}
