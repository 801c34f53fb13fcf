//! Gemini: `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`. Each `data:`
//! event is a whole `GenerateContentResponse`: `candidates[0].content.parts` holds text
//! (`thought: true` for reasoning) and `functionCall` parts (name and whole `args`), the last
//! has `finishReason`, and `usageMetadata` counts tokens. Tool results go back as
//! `functionResponse` parts.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use mcp_hub::ExportFormat;
use mcp_proto::sse::SseEvent;
use serde_json::{json, Value};

use super::ProviderConfig;
use crate::error::ModelError;
use crate::http::{event_json, HttpClient, SseDecoder};
use crate::message::{Message, Part, Role};
use crate::model::{BoxFuture, Delta, DeltaStream, FinishReason, Model, ModelRequest, Usage};

const PROVIDER: &str = "gemini";

/// A Gemini model.
#[derive(Clone)]
pub struct Gemini {
    config: ProviderConfig,
    url: String,
    http: HttpClient,
}

impl std::fmt::Debug for Gemini {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gemini")
            .field("model", &self.config.model)
            .field("url", &self.url)
            .finish()
    }
}

impl Gemini {
    /// A model at `config`; the key is required.
    pub fn new(config: ProviderConfig) -> Result<Self, ModelError> {
        let key = config.require_key(PROVIDER)?;
        let http = HttpClient::new(PROVIDER, &config, &[("x-goog-api-key", key)])?;
        let base = config.base();
        let version = if base.ends_with("/v1beta") || base.ends_with("/v1") {
            ""
        } else {
            "/v1beta"
        };
        let model = config.model.trim_start_matches("models/");
        let url = format!("{base}{version}/models/{model}:streamGenerateContent?alt=sse");
        Ok(Gemini { config, url, http })
    }

    /// `model` with the key from `GEMINI_API_KEY`.
    pub fn from_env(model: impl Into<String>) -> Result<Self, ModelError> {
        Self::new(ProviderConfig::from_env(super::Provider::Gemini, model))
    }
}

impl Model for Gemini {
    fn name(&self) -> &str {
        &self.config.model
    }

    fn tool_format(&self) -> ExportFormat {
        ExportFormat::Gemini
    }

    fn stream<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<DeltaStream, ModelError>> {
        Box::pin(async move {
            let body = request_body(&self.config, &request);
            let body = Bytes::from(serde_json::to_vec(&body).unwrap_or_default());
            self.http
                .stream(&self.url, body, ResponseDecoder::default())
                .await
        })
    }
}

fn request_body(config: &ProviderConfig, request: &ModelRequest<'_>) -> Value {
    let contents: Vec<Value> = request.messages.iter().map(write_message).collect();
    let mut body = json!({
        "contents": contents,
        "generationConfig": {"maxOutputTokens": request.max_tokens.unwrap_or(config.max_tokens)},
    });
    if !request.system.is_empty() {
        body["systemInstruction"] = json!({"parts": [{"text": request.system}]});
    }
    let declared = request
        .tools
        .get("functionDeclarations")
        .and_then(Value::as_array)
        .is_some_and(|d| !d.is_empty());
    if declared {
        body["tools"] = json!([request.tools]);
    }
    body
}

fn write_message(message: &Message) -> Value {
    let mut parts = Vec::new();
    for part in &message.parts {
        match part {
            Part::Text { text } if !text.is_empty() => parts.push(json!({"text": text})),
            Part::Text { .. } | Part::Reasoning { .. } => {}
            Part::Image { mime_type, data } => {
                parts.push(json!({"inlineData": {"mimeType": mime_type, "data": data}}))
            }
            Part::ToolCall(call) => {
                let args = serde_json::from_str::<Value>(&call.arguments)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| json!({}));
                parts.push(json!({"functionCall": {"name": call.name, "args": args}}));
            }
            Part::ToolResult(result) => {
                let key = if result.is_error { "error" } else { "result" };
                parts.push(json!({"functionResponse": {
                    "name": result.name,
                    "response": {key: result.text()},
                }}));
                for (mime_type, data) in result.images() {
                    parts.push(json!({"inlineData": {"mimeType": mime_type, "data": data}}));
                }
            }
        }
    }
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "model",
    };
    json!({"role": role, "parts": parts})
}

/// Ids for Gemini's calls, which come without one; unique in the process.
static CALLS: AtomicU64 = AtomicU64::new(0);

/// Reads streamed `GenerateContentResponse`s.
#[derive(Debug, Default)]
struct ResponseDecoder {
    /// Calls seen so far in this answer.
    calls: usize,
    /// A finish reason seen.
    finished: bool,
}

impl SseDecoder for ResponseDecoder {
    fn event(&mut self, event: SseEvent, out: &mut VecDeque<Delta>) -> Result<(), ModelError> {
        if event.data.trim().is_empty() {
            return Ok(());
        }
        let response = event_json(PROVIDER, &event)?;
        if let Some(error) = response.get("error") {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            return Err(ModelError::Provider(message));
        }
        let candidate = response.pointer("/candidates/0");
        let parts = candidate
            .and_then(|c| c.pointer("/content/parts"))
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            if let Some(call) = part.get("functionCall") {
                let index = self.calls;
                self.calls += 1;
                let id = call
                    .get("id")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| {
                        format!("gemini_call_{}", CALLS.fetch_add(1, Ordering::Relaxed) + 1)
                    });
                let name = call
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
                out.push_back(Delta::ToolCallStart { index, id, name });
                out.push_back(Delta::ToolCallArguments {
                    index,
                    fragment: args.to_string(),
                });
                out.push_back(Delta::ToolCallEnd { index });
            } else if let Some(text) = part.get("text").and_then(Value::as_str) {
                if text.is_empty() {
                    continue;
                }
                let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
                out.push_back(if thought {
                    Delta::Reasoning(text.to_owned())
                } else {
                    Delta::Text(text.to_owned())
                });
            }
        }
        if let Some(usage) = response.get("usageMetadata") {
            let count = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            out.push_back(Delta::Usage(Usage {
                input_tokens: count("promptTokenCount"),
                output_tokens: count("candidatesTokenCount") + count("thoughtsTokenCount"),
            }));
        }
        if let Some(reason) = candidate
            .and_then(|c| c.get("finishReason"))
            .and_then(Value::as_str)
        {
            self.finished = true;
            out.push_back(Delta::Finish(match reason {
                "STOP" if self.calls > 0 => FinishReason::ToolCalls,
                "STOP" => FinishReason::Stop,
                "MAX_TOKENS" => FinishReason::Length,
                "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" => {
                    FinishReason::ContentFilter
                }
                other => FinishReason::Other(other.to_owned()),
            }));
        }
        Ok(())
    }

    fn end(&mut self, _out: &mut VecDeque<Delta>) -> Result<(), ModelError> {
        if self.finished {
            Ok(())
        } else {
            Err(ModelError::Stream(
                "the stream ended before a finishReason".into(),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Reply;

    #[test]
    fn function_calls_and_thoughts() {
        let mut decoder = ResponseDecoder::default();
        let mut out = VecDeque::new();
        for data in [
            r#"{"candidates":[{"content":{"parts":[{"text":"Let me look.","thought":true}],"role":"model"},"index":0}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w__get","args":{"city":"Paris"}}},{"functionCall":{"name":"w__get","args":{"city":"Oslo"}}}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":8,"totalTokenCount":18}}"#,
        ] {
            decoder.event(SseEvent::message(data), &mut out).unwrap();
        }
        decoder.end(&mut out).unwrap();
        let mut reply = Reply::default();
        out.iter().for_each(|d| reply.apply(d));
        assert_eq!(reply.tool_calls.len(), 2);
        assert_eq!(reply.tool_calls[1].arguments, r#"{"city":"Oslo"}"#);
        assert_eq!(reply.reasoning, "Let me look.");
        assert_eq!(reply.finish, Some(FinishReason::ToolCalls));
    }
}
