//! Anthropic Messages: `POST {base}/v1/messages` with `stream: true`. The answer is a series of
//! named events: `message_start` (input tokens), per content block `content_block_start`
//! (`text`, `tool_use` with id and name, `thinking`), `content_block_delta` (`text_delta`,
//! `input_json_delta`, `thinking_delta`, `signature_delta`) and `content_block_stop`, then
//! `message_delta` (stop reason, output tokens) and `message_stop`; `ping` and `error` may come
//! between.

use std::collections::VecDeque;

use bytes::Bytes;
use mcp_hub::ExportFormat;
use mcp_proto::sse::SseEvent;
use serde_json::{json, Value};

use super::ProviderConfig;
use crate::error::ModelError;
use crate::http::{event_json, HttpClient, SseDecoder};
use crate::message::{Message, Part, ResultPart, Role};
use crate::model::{BoxFuture, Delta, DeltaStream, FinishReason, Model, ModelRequest, Usage};

const PROVIDER: &str = "anthropic";
/// The API version we speak.
const VERSION: &str = "2023-06-01";

/// An Anthropic Messages model.
#[derive(Clone)]
pub struct Anthropic {
    config: ProviderConfig,
    url: String,
    http: HttpClient,
}

impl std::fmt::Debug for Anthropic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Anthropic")
            .field("model", &self.config.model)
            .field("url", &self.url)
            .finish()
    }
}

impl Anthropic {
    /// A model at `config`; the key is required.
    pub fn new(config: ProviderConfig) -> Result<Self, ModelError> {
        let key = config.require_key(PROVIDER)?;
        let http = HttpClient::new(
            PROVIDER,
            &config,
            &[("x-api-key", key), ("anthropic-version", VERSION.into())],
        )?;
        let base = config.base();
        let url = if base.ends_with("/v1") {
            format!("{base}/messages")
        } else {
            format!("{base}/v1/messages")
        };
        Ok(Anthropic { config, url, http })
    }

    /// `model` with the key from `ANTHROPIC_API_KEY`.
    pub fn from_env(model: impl Into<String>) -> Result<Self, ModelError> {
        Self::new(ProviderConfig::from_env(super::Provider::Anthropic, model))
    }
}

impl Model for Anthropic {
    fn name(&self) -> &str {
        &self.config.model
    }

    fn tool_format(&self) -> ExportFormat {
        ExportFormat::Anthropic
    }

    fn stream<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<DeltaStream, ModelError>> {
        Box::pin(async move {
            let body = request_body(&self.config, &request);
            let body = Bytes::from(serde_json::to_vec(&body).unwrap_or_default());
            self.http
                .stream(&self.url, body, EventDecoder::default())
                .await
        })
    }
}

fn request_body(config: &ProviderConfig, request: &ModelRequest<'_>) -> Value {
    let messages: Vec<Value> = request.messages.iter().map(write_message).collect();
    let mut body = json!({
        "model": config.model,
        "max_tokens": request.max_tokens.unwrap_or(config.max_tokens),
        "messages": messages,
        "stream": true,
    });
    if !request.system.is_empty() {
        body["system"] = request.system.into();
    }
    if request.tools.as_array().is_some_and(|t| !t.is_empty()) {
        body["tools"] = request.tools.clone();
    }
    body
}

fn image(mime_type: &str, data: &str) -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": mime_type, "data": data}})
}

fn write_message(message: &Message) -> Value {
    let mut content = Vec::new();
    for part in &message.parts {
        match part {
            Part::Text { text } if !text.is_empty() => {
                content.push(json!({"type": "text", "text": text}))
            }
            Part::Text { .. } => {}
            Part::Reasoning { text, signature } => {
                // Only signed thinking may be sent back.
                if let Some(signature) = signature {
                    content.push(
                        json!({"type": "thinking", "thinking": text, "signature": signature}),
                    );
                }
            }
            Part::Image { mime_type, data } => content.push(image(mime_type, data)),
            Part::ToolCall(call) => {
                let input = serde_json::from_str::<Value>(&call.arguments)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| json!({}));
                content.push(
                    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}),
                );
            }
            Part::ToolResult(result) => {
                let blocks: Vec<Value> = result
                    .content
                    .iter()
                    .map(|p| match p {
                        ResultPart::Text { text } => json!({"type": "text", "text": text}),
                        ResultPart::Image { mime_type, data } => image(mime_type, data),
                    })
                    .collect();
                let mut block = json!({"type": "tool_result", "tool_use_id": result.call_id, "content": blocks});
                if result.is_error {
                    block["is_error"] = true.into();
                }
                content.push(block);
            }
        }
    }
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    json!({"role": role, "content": content})
}

/// Reads Messages stream events.
#[derive(Debug, Default)]
struct EventDecoder {
    /// Content block index → tool call, for blocks that are tool uses.
    tool_blocks: Vec<usize>,
    /// `message_stop` seen.
    stopped: bool,
}

impl SseDecoder for EventDecoder {
    fn event(&mut self, event: SseEvent, out: &mut VecDeque<Delta>) -> Result<(), ModelError> {
        let kind = event.event_type().to_owned();
        if kind == "ping" || event.data.trim().is_empty() {
            return Ok(());
        }
        let data = event_json(PROVIDER, &event)?;
        let kind = data.get("type").and_then(Value::as_str).unwrap_or(&kind);
        let index = || {
            data.get("index")
                .and_then(Value::as_u64)
                .and_then(|i| usize::try_from(i).ok())
                .ok_or_else(|| ModelError::Stream(format!("{kind} without an index")))
        };
        match kind {
            "message_start" => {
                if let Some(usage) = data.pointer("/message/usage") {
                    out.push_back(Delta::Usage(usage_of(usage)));
                }
            }
            "content_block_start" => {
                let block = data.get("content_block").unwrap_or(&Value::Null);
                let index = index()?;
                match block.get("type").and_then(Value::as_str) {
                    Some("tool_use") | Some("server_tool_use") => {
                        self.tool_blocks.push(index);
                        let text = |k: &str| {
                            block
                                .get(k)
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned()
                        };
                        out.push_back(Delta::ToolCallStart {
                            index,
                            id: text("id"),
                            name: text("name"),
                        });
                        // A non-empty `input` here is the whole input (no deltas follow).
                        if let Some(input) = block
                            .get("input")
                            .and_then(Value::as_object)
                            .filter(|o| !o.is_empty())
                        {
                            out.push_back(Delta::ToolCallArguments {
                                index,
                                fragment: Value::Object(input.clone()).to_string(),
                            });
                        }
                    }
                    Some("text") => {
                        if let Some(text) = block
                            .get("text")
                            .and_then(Value::as_str)
                            .filter(|t| !t.is_empty())
                        {
                            out.push_back(Delta::Text(text.to_owned()));
                        }
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let index = index()?;
                let delta = data.get("delta").unwrap_or(&Value::Null);
                let text = |k: &str| {
                    delta
                        .get(k)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => out.push_back(Delta::Text(text("text"))),
                    Some("thinking_delta") => out.push_back(Delta::Reasoning(text("thinking"))),
                    Some("signature_delta") => {
                        out.push_back(Delta::ReasoningSignature(text("signature")))
                    }
                    Some("input_json_delta") => out.push_back(Delta::ToolCallArguments {
                        index,
                        fragment: text("partial_json"),
                    }),
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = index()?;
                if let Some(at) = self.tool_blocks.iter().position(|i| *i == index) {
                    self.tool_blocks.remove(at);
                    out.push_back(Delta::ToolCallEnd { index });
                }
            }
            "message_delta" => {
                if let Some(usage) = data.get("usage") {
                    out.push_back(Delta::Usage(usage_of(usage)));
                }
                if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    out.push_back(Delta::Finish(match reason {
                        "end_turn" | "stop_sequence" => FinishReason::Stop,
                        "tool_use" => FinishReason::ToolCalls,
                        "max_tokens" => FinishReason::Length,
                        "refusal" => FinishReason::ContentFilter,
                        other => FinishReason::Other(other.to_owned()),
                    }));
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let message = data
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .map_or_else(|| data.to_string(), str::to_owned);
                return Err(ModelError::Provider(message));
            }
            _ => {}
        }
        Ok(())
    }

    fn end(&mut self, _out: &mut VecDeque<Delta>) -> Result<(), ModelError> {
        if self.stopped {
            Ok(())
        } else {
            Err(ModelError::Stream(
                "the stream ended before message_stop".into(),
            ))
        }
    }
}

fn usage_of(usage: &Value) -> Usage {
    let count = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: count("input_tokens")
            + count("cache_read_input_tokens")
            + count("cache_creation_input_tokens"),
        output_tokens: count("output_tokens"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Reply;

    #[test]
    fn tool_use_with_split_json_and_thinking() {
        let events = [
            (
                "message_start",
                r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Need weather."}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            ("ping", r#"{"type": "ping"}"#),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"w__get","input":{}}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"ci"}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ty\": \"Paris\"}"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":1}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ];
        let mut decoder = EventDecoder::default();
        let mut out = VecDeque::new();
        for (name, data) in events {
            let mut event = SseEvent::message(data);
            event.event = Some(name.into());
            decoder.event(event, &mut out).unwrap();
        }
        decoder.end(&mut out).unwrap();
        let mut reply = Reply::default();
        out.iter().for_each(|d| reply.apply(d));
        assert_eq!(reply.tool_calls[0].id, "toolu_1");
        assert_eq!(reply.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
        assert_eq!(reply.reasoning, "Need weather.");
        assert_eq!(reply.signature.as_deref(), Some("sig"));
        assert_eq!(reply.finish, Some(FinishReason::ToolCalls));
        assert_eq!(reply.usage.input_tokens, 25);
        assert_eq!(reply.usage.output_tokens, 89);
    }
}
