//! OpenAI-compatible Chat Completions: `POST {base}/chat/completions` with `stream: true` and
//! `stream_options.include_usage`; the answer is `data:` chunks of `choices[0].delta` (text in
//! `content`, reasoning in `reasoning_content`, tool calls in `tool_calls[index]` with their
//! arguments cut anywhere), a last chunk with `usage`, then `data: [DONE]`.

use std::collections::VecDeque;

use bytes::Bytes;
use mcp_hub::ExportFormat;
use mcp_proto::sse::SseEvent;
use serde_json::{json, Map, Value};

use super::ProviderConfig;
use crate::error::ModelError;
use crate::http::{event_json, HttpClient, SseDecoder};
use crate::message::{Message, Part, Role};
use crate::model::{BoxFuture, Delta, DeltaStream, FinishReason, Model, ModelRequest, Usage};

const PROVIDER: &str = "openai";

/// A Chat Completions model.
#[derive(Clone)]
pub struct OpenAiChat {
    config: ProviderConfig,
    url: String,
    http: HttpClient,
}

impl std::fmt::Debug for OpenAiChat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiChat")
            .field("model", &self.config.model)
            .field("url", &self.url)
            .finish()
    }
}

impl OpenAiChat {
    /// A model at `config`. The key is required for OpenAI's own endpoint; a local server
    /// (another base URL) may go without one.
    pub fn new(config: ProviderConfig) -> Result<Self, ModelError> {
        let official = config.base().contains("api.openai.com");
        let key = match (&config.api_key, official) {
            (Some(key), _) => Some(key.clone()),
            (None, true) => Some(config.require_key(PROVIDER)?),
            (None, false) => None,
        };
        let auth: Vec<(&str, String)> = key
            .map(|k| ("authorization", format!("Bearer {k}")))
            .into_iter()
            .collect();
        let http = HttpClient::new(PROVIDER, &config, &auth)?;
        let url = format!("{}/chat/completions", config.base());
        Ok(OpenAiChat { config, url, http })
    }

    /// `model` with the base URL and key from `OPENAI_BASE_URL` and `OPENAI_API_KEY`.
    pub fn from_env(model: impl Into<String>) -> Result<Self, ModelError> {
        Self::new(ProviderConfig::from_env(super::Provider::OpenAi, model))
    }
}

impl Model for OpenAiChat {
    fn name(&self) -> &str {
        &self.config.model
    }

    fn tool_format(&self) -> ExportFormat {
        ExportFormat::OpenAiStrict
    }

    fn stream<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<DeltaStream, ModelError>> {
        Box::pin(async move {
            let body = request_body(&self.config.model, &request);
            let body = Bytes::from(serde_json::to_vec(&body).unwrap_or_default());
            self.http
                .stream(&self.url, body, ChunkDecoder::default())
                .await
        })
    }
}

/// The request body for `request`.
pub(crate) fn request_body(model: &str, request: &ModelRequest<'_>) -> Value {
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    for message in request.messages {
        write_message(message, &mut messages);
    }
    let mut body = json!({
        "model": model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if let Some(tools) = request.tools.as_array().filter(|t| !t.is_empty()) {
        body["tools"] = tools.iter().map(chat_tool).collect();
    }
    if let Some(max) = request.max_tokens {
        body["max_tokens"] = max.into();
    }
    body
}

/// The hub's flat function export (`{type, name, description, parameters, strict}`) in Chat
/// Completions' nesting (`{type: function, function: {...}}`).
fn chat_tool(tool: &Value) -> Value {
    let mut function = Map::new();
    for key in ["name", "description", "parameters", "strict"] {
        if let Some(v) = tool.get(key) {
            function.insert(key.into(), v.clone());
        }
    }
    json!({"type": "function", "function": function})
}

fn data_url(mime_type: &str, data: &str) -> Value {
    json!({"type": "image_url", "image_url": {"url": format!("data:{mime_type};base64,{data}")}})
}

fn write_message(message: &Message, out: &mut Vec<Value>) {
    match message.role {
        Role::Assistant => {
            let text = message.text();
            let calls: Vec<Value> = message
                .tool_calls()
                .map(|c| {
                    json!({"id": c.id, "type": "function",
                           "function": {"name": c.name, "arguments": c.arguments}})
                })
                .collect();
            let mut m = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { text.into() }});
            if !calls.is_empty() {
                m["tool_calls"] = calls.into();
            }
            out.push(m);
        }
        Role::User => {
            let mut content = Vec::new();
            let mut images = Vec::new();
            for part in &message.parts {
                match part {
                    Part::Text { text } => content.push(json!({"type": "text", "text": text})),
                    Part::Image { mime_type, data } => content.push(data_url(mime_type, data)),
                    Part::ToolResult(result) => {
                        let mut text = result.text();
                        if result.is_error {
                            text = format!("Error: {text}");
                        }
                        out.push(json!({"role": "tool", "tool_call_id": result.call_id, "content": text}));
                        images.extend(result.images().map(|(m, d)| data_url(m, d)));
                    }
                    Part::ToolCall(_) | Part::Reasoning { .. } => {}
                }
            }
            // Tool messages take text only: a tool's images follow as the user's.
            if !images.is_empty() {
                content.insert(
                    0,
                    json!({"type": "text", "text": "Images returned by the tool calls above:"}),
                );
                content.extend(images);
            }
            if !content.is_empty() {
                out.push(json!({"role": "user", "content": content}));
            }
        }
    }
}

/// Reads Chat Completions chunks.
#[derive(Debug, Default)]
pub(crate) struct ChunkDecoder {
    /// The indexes of calls begun and not yet ended.
    open: Vec<usize>,
    /// `[DONE]` seen.
    done: bool,
    /// A finish reason seen.
    finished: bool,
}

impl ChunkDecoder {
    fn close_calls(&mut self, out: &mut VecDeque<Delta>) {
        for index in self.open.drain(..) {
            out.push_back(Delta::ToolCallEnd { index });
        }
    }
}

impl SseDecoder for ChunkDecoder {
    fn event(&mut self, event: SseEvent, out: &mut VecDeque<Delta>) -> Result<(), ModelError> {
        if event.data.trim() == "[DONE]" {
            self.done = true;
            self.close_calls(out);
            return Ok(());
        }
        if event.data.trim().is_empty() {
            return Ok(());
        }
        let chunk = event_json(PROVIDER, &event)?;
        if let Some(error) = chunk.get("error") {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            return Err(ModelError::Provider(message));
        }
        if let Some(choice) = chunk.pointer("/choices/0") {
            let delta = choice.get("delta").unwrap_or(&Value::Null);
            for key in ["reasoning_content", "reasoning"] {
                if let Some(text) = delta.get(key).and_then(Value::as_str) {
                    if !text.is_empty() {
                        out.push_back(Delta::Reasoning(text.to_owned()));
                    }
                    break;
                }
            }
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                if !text.is_empty() {
                    out.push_back(Delta::Text(text.to_owned()));
                }
            }
            for call in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                self.tool_call(call, out)?;
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.close_calls(out);
                self.finished = true;
                out.push_back(Delta::Finish(match reason {
                    "stop" => FinishReason::Stop,
                    "tool_calls" | "function_call" => FinishReason::ToolCalls,
                    "length" => FinishReason::Length,
                    "content_filter" => FinishReason::ContentFilter,
                    other => FinishReason::Other(other.to_owned()),
                }));
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            let count = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            out.push_back(Delta::Usage(Usage {
                input_tokens: count("prompt_tokens"),
                output_tokens: count("completion_tokens"),
            }));
        }
        Ok(())
    }

    fn end(&mut self, out: &mut VecDeque<Delta>) -> Result<(), ModelError> {
        self.close_calls(out);
        if self.done || self.finished {
            Ok(())
        } else {
            Err(ModelError::Stream(
                "the stream ended before a finish reason or [DONE]".into(),
            ))
        }
    }
}

impl ChunkDecoder {
    fn tool_call(&mut self, call: &Value, out: &mut VecDeque<Delta>) -> Result<(), ModelError> {
        let index = call
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
            .ok_or_else(|| ModelError::Stream(format!("a tool call without an index: {call}")))?;
        let function = call.get("function").unwrap_or(&Value::Null);
        if !self.open.contains(&index) {
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("call_{index}"), str::to_owned);
            self.open.push(index);
            out.push_back(Delta::ToolCallStart {
                index,
                id,
                name: name.to_owned(),
            });
        }
        if let Some(fragment) = function.get("arguments").and_then(Value::as_str) {
            if !fragment.is_empty() {
                out.push_back(Delta::ToolCallArguments {
                    index,
                    fragment: fragment.to_owned(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Reply;

    fn decode(events: &[&str]) -> Reply {
        let mut decoder = ChunkDecoder::default();
        let mut out = VecDeque::new();
        for data in events {
            decoder
                .event(SseEvent::message(*data), &mut out)
                .expect("decodes");
        }
        decoder.end(&mut out).expect("complete");
        let mut reply = Reply::default();
        out.iter().for_each(|d| reply.apply(d));
        reply
    }

    #[test]
    fn tool_calls_split_mid_token_are_joined() {
        let reply = decode(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"w__get","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"w__get","arguments":"{\"city\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"Oslo\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42}}"#,
            "[DONE]",
        ]);
        assert_eq!(reply.tool_calls.len(), 2);
        assert_eq!(reply.tool_calls[0].arguments, r#"{"city":"Paris"}"#);
        assert_eq!(reply.tool_calls[1].arguments, r#"{"city":"Oslo"}"#);
        assert_eq!(reply.finish, Some(FinishReason::ToolCalls));
        assert_eq!(reply.usage.output_tokens, 30);
    }

    #[test]
    fn reasoning_and_text_stream() {
        let reply = decode(&[
            r#"{"choices":[{"delta":{"reasoning_content":"think"}}]}"#,
            r#"{"choices":[{"delta":{"content":"Hi"},"finish_reason":"stop"}]}"#,
        ]);
        assert_eq!(reply.reasoning, "think");
        assert_eq!(reply.text, "Hi");
    }

    #[test]
    fn a_cut_stream_is_an_error() {
        let mut decoder = ChunkDecoder::default();
        let mut out = VecDeque::new();
        decoder
            .event(
                SseEvent::message(r#"{"choices":[{"delta":{"content":"Hi"}}]}"#),
                &mut out,
            )
            .unwrap();
        assert!(decoder.end(&mut out).is_err());
    }
}
