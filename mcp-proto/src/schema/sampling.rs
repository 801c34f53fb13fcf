//! Sampling: `sampling/createMessage`, the server asking the client's model for a completion,
//! with tool use from 2025-11-25.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::content::{Content, Role};
use super::tasks::TaskMetadata;
use super::tools::Tool;
use super::{JsonObject, Meta, RequestType};

/// Message content in sampling: one block or (2025-11-25+) several.
// Short-lived wire values: boxing the big variant would only complicate matching.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// A single block.
    Single(Content),
    /// Several blocks (2025-11-25+), e.g. parallel tool uses.
    Multiple(Vec<Content>),
}

impl SamplingContent {
    /// The blocks, one or many, as a slice.
    pub fn blocks(&self) -> &[Content] {
        match self {
            SamplingContent::Single(c) => std::slice::from_ref(c),
            SamplingContent::Multiple(v) => v,
        }
    }
}

impl From<Content> for SamplingContent {
    fn from(c: Content) -> Self {
        SamplingContent::Single(c)
    }
}

impl From<Vec<Content>> for SamplingContent {
    fn from(v: Vec<Content>) -> Self {
        SamplingContent::Multiple(v)
    }
}

/// One message of the conversation sent for sampling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: SamplingContent,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SamplingMessage {
    /// A message from `role` with `content`.
    pub fn new(role: Role, content: impl Into<SamplingContent>) -> Self {
        SamplingMessage {
            role,
            content: content.into(),
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// A user message of plain text.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::User, Content::text(text))
    }
}

/// A hint at which model to use, by (part of) its name.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelHint {
    /// A model name or family, e.g. `"claude-3-5-sonnet"` or `"sonnet"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The server's preferences for model selection; the client decides.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model name hints, in order of preference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters, 0 to 1.
    #[serde(
        serialize_with = "super::number::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub cost_priority: Option<f64>,
    /// How much speed matters, 0 to 1.
    #[serde(
        serialize_with = "super::number::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub speed_priority: Option<f64>,
    /// How much capability matters, 0 to 1.
    #[serde(
        serialize_with = "super::number::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub intelligence_priority: Option<f64>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Which MCP context the client should add to the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// No context.
    None,
    /// Context from this server (soft-deprecated in 2025-11-25).
    ThisServer,
    /// Context from every connected server (soft-deprecated in 2025-11-25).
    AllServers,
}

/// How the model may use the offered tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides (the default).
    Auto,
    /// The model must use a tool.
    Required,
    /// The model must not use a tool.
    None,
}

/// The tool-choice setting of a sampling request (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolChoice {
    /// The mode; absent means auto.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Params of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// Preferences for model selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which MCP context to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(
        serialize_with = "super::number::serialize_opt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub temperature: Option<f64>,
    /// The most tokens to sample.
    pub max_tokens: u64,
    /// Sequences that stop sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Tools the model may use (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use them (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Run as a task (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CreateMessageParams {
    /// Sample at most `max_tokens` tokens following `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        CreateMessageParams {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
            task: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The result of `sampling/createMessage`: the model's message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who said it (the assistant).
    pub role: Role,
    /// What was said.
    pub content: SamplingContent,
    /// The model that produced it.
    pub model: String,
    /// Why sampling stopped: `endTurn`, `stopSequence`, `maxTokens`, `toolUse` or other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CreateMessageResult {
    /// An assistant text message from `model`, ended naturally.
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> Self {
        CreateMessageResult {
            role: Role::Assistant,
            content: Content::text(text).into(),
            model: model.into(),
            stop_reason: Some("endTurn".into()),
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// `sampling/createMessage`: the server asks the client to sample its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CreateMessage;

impl RequestType for CreateMessage {
    const METHOD: &'static str = "sampling/createMessage";
    type Params = CreateMessageParams;
    type Result = CreateMessageResult;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_is_one_block_or_many() {
        let one: SamplingMessage = serde_json::from_value(
            json!({"role": "user", "content": {"type": "text", "text": "hi"}}),
        )
        .unwrap();
        assert!(matches!(one.content, SamplingContent::Single(_)));
        let many: CreateMessageResult = serde_json::from_value(json!({
            "role": "assistant", "model": "m", "stopReason": "toolUse",
            "content": [{"type": "tool_use", "id": "1", "name": "t", "input": {}}]
        }))
        .unwrap();
        assert_eq!(many.content.blocks().len(), 1);
    }

    #[test]
    fn params_round_trip_with_tools() {
        let v = json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "x"}}],
            "maxTokens": 10, "includeContext": "thisServer",
            "tools": [{"name": "t", "inputSchema": {"type": "object"}}],
            "toolChoice": {"mode": "required"}, "task": {"ttl": 1000}, "custom": 1
        });
        let p: CreateMessageParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(p.include_context, Some(IncludeContext::ThisServer));
        assert_eq!(
            p.tool_choice.as_ref().and_then(|c| c.mode),
            Some(ToolChoiceMode::Required)
        );
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
    }
}
