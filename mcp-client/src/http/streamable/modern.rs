//! A 2026-07-28 request over Streamable HTTP: one stateless POST with the era's headers
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) and no session id, whose
//! answer is a JSON body or an SSE stream read to the response (no resumption in this era). An
//! error status whose body is the JSON-RPC error for the request (400 with -32602/-32020/
//! -32021/-32022, 404 with -32601) is delivered as that error, so callers see its code. Closing
//! the stream is how such a request is cancelled; no `notifications/cancelled` is POSTed.
//!
//! The transport learns the `x-mcp-header` annotations of tools from the `tools/list` answers
//! it carries, so a later `tools/call` can mirror the annotated arguments.

use std::collections::HashMap;
use std::sync::LazyLock;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use hyper::{Method, Response};
use mcp_proto::json_text::KeySearch;
use mcp_proto::jsonrpc::{self, error_codes, ErrorResponse, Message, RequestId};
use mcp_proto::sync::lock;
use serde::Deserialize;
use serde_json::Value;

use super::{Shared, EXCERPT_BYTES, PROTOCOL_VERSION};
use crate::http::body::{self, BodyKind, EventStream};
use crate::http::error::HttpError;
use crate::param_headers::{header_params, header_value, param_headers, HeaderParam};

/// The `_meta` key that marks a request as 2026-07-28.
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The error codes a 2026-07-28 server answers with an HTTP error status.
const MODERN_ERRORS: [i64; 5] = [
    error_codes::INVALID_PARAMS,
    error_codes::METHOD_NOT_FOUND,
    error_codes::HEADER_MISMATCH,
    error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
    error_codes::UNSUPPORTED_PROTOCOL_VERSION,
];
/// How many tools' annotations one transport remembers.
const MAX_TOOLS: usize = 4096;

/// A modern request ready to POST: its headers, and whether its answer teaches tool headers.
pub(crate) struct ModernPost {
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
    pub(crate) lists_tools: bool,
}

/// The `x-mcp-header` annotations of the tools seen in `tools/list` answers, by tool name.
#[derive(Default)]
pub(crate) struct ToolHeaders(std::sync::Mutex<HashMap<String, Vec<HeaderParam>>>);

/// Whether raw request params mark a 2026-07-28 request: `_meta` names a protocol version. A
/// fast path: params that certainly have no such key (see [`KeySearch`]) are not parsed; the
/// others are read by its slow twin, [`is_modern_parsed`], and fuzz-checks compares the two.
pub(crate) fn is_modern(params: &str) -> bool {
    // Built once: building a searcher costs more than a search of a small request.
    static KEY: LazyLock<KeySearch> = LazyLock::new(|| KeySearch::new(VERSION_KEY));
    !KEY.certainly_absent(params) && is_modern_parsed(params)
}

/// Whether params read in full have `_meta` with a protocol version in it (of any type), as
/// [`Shared::modern_post`] reads them.
pub(crate) fn is_modern_parsed(params: &str) -> bool {
    serde_json::from_str::<Value>(params).is_ok_and(|params| {
        params
            .get("_meta")
            .is_some_and(|meta| meta.get(VERSION_KEY).is_some())
    })
}

impl Shared {
    /// The headers of a modern request body, or why they cannot be made.
    pub(super) fn modern_post(&self, body: &[u8]) -> Result<ModernPost, String> {
        #[derive(Deserialize)]
        struct Body {
            method: String,
            #[serde(default)]
            params: Value,
        }
        let request: Body = serde_json::from_slice(body).map_err(|e| e.to_string())?;
        let params = &request.params;
        let version = params
            .get("_meta")
            .and_then(|m| m.get(VERSION_KEY))
            .and_then(Value::as_str)
            .ok_or("the request has no protocol version in _meta")?;
        let mut headers = vec![
            (PROTOCOL_VERSION, value(version)?),
            (
                HeaderName::from_static("mcp-method"),
                value(&request.method)?,
            ),
        ];
        let name_field = match request.method.as_str() {
            "tools/call" | "prompts/get" => Some("name"),
            "resources/read" => Some("uri"),
            // SEP-2663: task requests name their task for routing intermediaries.
            "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
            _ => None,
        };
        if let Some(field) = name_field {
            let name = params.get(field).and_then(Value::as_str).unwrap_or("");
            headers.push((
                HeaderName::from_static("mcp-name"),
                value(&header_value(name))?,
            ));
        }
        if request.method == "tools/call" {
            let tool = params.get("name").and_then(Value::as_str).unwrap_or("");
            let known = lock(&self.tool_headers.0).get(tool).cloned();
            if let Some(known) = known {
                let arguments = params.get("arguments").unwrap_or(&Value::Null);
                for (name, text) in param_headers(&known, arguments) {
                    let name =
                        HeaderName::from_bytes(name.as_bytes()).map_err(|e| e.to_string())?;
                    headers.push((name, value(&text)?));
                }
            }
        }
        Ok(ModernPost {
            headers,
            lists_tools: request.method == "tools/list",
        })
    }

    /// POSTs a modern request and delivers its answer; see the module doc.
    pub(super) async fn exchange_modern(
        &self,
        id: &RequestId,
        body: Bytes,
        post: ModernPost,
    ) -> Result<(), HttpError> {
        let mut headers = vec![
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (
                ACCEPT,
                HeaderValue::from_static("application/json, text/event-stream"),
            ),
        ];
        headers.extend(post.headers);
        let request = self.conn.request(Method::POST, &self.url, &headers, body);
        let response = self.conn.send(request).await?;
        let status = response.status();
        if !status.is_success() {
            return self.modern_error(id, response).await;
        }
        match body::body_kind(&response) {
            BodyKind::Json => {
                self.deliver_json(id, response, |bytes| {
                    if post.lists_tools {
                        self.learn_tools(bytes);
                    }
                })
                .await
            }
            BodyKind::EventStream => {
                let mut stream =
                    EventStream::new(response.into_body(), self.config.max_message_size);
                while let Ok(event) = stream.next_message().await {
                    let frame = event.data.as_bytes();
                    let summary = self.inbox.deliver_frame(frame).await;
                    if summary.is_some_and(|s| s.answers(id)) {
                        if post.lists_tools {
                            self.learn_tools(frame);
                        }
                        return Ok(());
                    }
                }
                Err(HttpError::StreamEnded {
                    url: self.url_text.clone(),
                    reason: format!(
                        "it closed before the response to request {id} (2026-07-28 streams are not resumed)"
                    ),
                })
            }
            BodyKind::Other => Err(HttpError::ContentType {
                method: Method::POST,
                url: self.url_text.clone(),
                content_type: body::content_type(&response),
            }),
        }
    }

    /// An error status: delivers the body when it is the JSON-RPC error for `id`, else fails
    /// the request with the status and an excerpt of the body.
    async fn modern_error(
        &self,
        id: &RequestId,
        response: Response<Incoming>,
    ) -> Result<(), HttpError> {
        let status = response.status();
        let excerpt = body::read_excerpt(response.into_body(), EXCERPT_BYTES.max(16 * 1024)).await;
        if let Ok(jsonrpc::Incoming::Single(Message::Error(answer))) = jsonrpc::parse(&excerpt) {
            // A server that could not read the id answers with `id: null`; a modern error code
            // still tells the caller (and the era probe) what went wrong.
            let modern = MODERN_ERRORS.contains(&answer.error.code);
            if answer.id.as_ref() == Some(id) || (answer.id.is_none() && modern) {
                let ours = Message::Error(ErrorResponse {
                    id: Some(id.clone()),
                    error: answer.error,
                });
                self.inbox.deliver_frame(ours.to_json().as_bytes()).await;
                return Ok(());
            }
        }
        Err(HttpError::status_error(
            Method::POST,
            &self.url_text,
            status,
            &excerpt,
        ))
    }

    /// Remembers the `x-mcp-header` annotations of the valid tools in a `tools/list` answer.
    fn learn_tools(&self, frame: &[u8]) {
        #[derive(Deserialize)]
        struct Answer {
            result: Option<Tools>,
        }
        #[derive(Deserialize)]
        struct Tools {
            #[serde(default)]
            tools: Vec<Tool>,
        }
        #[derive(Deserialize)]
        struct Tool {
            name: String,
            #[serde(rename = "inputSchema", default)]
            input_schema: Value,
        }
        let Ok(Answer {
            result: Some(Tools { tools }),
        }) = serde_json::from_slice::<Answer>(frame)
        else {
            return;
        };
        let mut known = lock(&self.tool_headers.0);
        for tool in tools {
            match header_params(&tool.input_schema) {
                Ok(params) if !params.is_empty() => {
                    if known.len() >= MAX_TOOLS && !known.contains_key(&tool.name) {
                        known.clear();
                    }
                    known.insert(tool.name, params);
                }
                _ => {
                    known.remove(&tool.name);
                }
            }
        }
    }
}

/// A header value from text that is already header-safe (or Base64-wrapped).
fn value(text: &str) -> Result<HeaderValue, String> {
    HeaderValue::from_str(text).map_err(|e| format!("{text:?} is not a valid header value: {e}"))
}
