//! Prompts: templates of messages a server offers, `prompts/list`, `prompts/get`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::content::{Content, Icon, Role};
use super::empty::EmptyParams;
use super::modern::InputResponses;
use super::pagination::{Cursor, PaginatedParams};
use super::{JsonObject, Meta, NotificationType, RequestType};

/// A prompt template a server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    /// The name clients ask for it by.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons a client may show (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Prompt {
    /// A prompt named `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Prompt {
            name: name.into(),
            title: None,
            description: None,
            arguments: None,
            icons: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Adds an argument.
    pub fn with_argument(mut self, argument: PromptArgument) -> Self {
        self.arguments.get_or_insert_with(Vec::new).push(argument);
        self
    }
}

/// An argument a prompt takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl PromptArgument {
    /// An argument `name`, required or not.
    pub fn new(name: impl Into<String>, required: bool) -> Self {
        PromptArgument {
            name: name.into(),
            title: None,
            description: None,
            required: Some(required),
            extra: JsonObject::new(),
        }
    }
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: Content,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl PromptMessage {
    /// A message from `role` with `content`.
    pub fn new(role: Role, content: impl Into<Content>) -> Self {
        PromptMessage {
            role,
            content: content.into(),
            extra: JsonObject::new(),
        }
    }

    /// A user message of plain text.
    pub fn user(text: impl Into<String>) -> Self {
        Self::new(Role::User, Content::text(text))
    }

    /// An assistant message of plain text.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, Content::text(text))
    }
}

/// The result of `prompts/list`: a page of prompts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// The prompts on this page.
    #[serde(default)]
    pub prompts: Vec<Prompt>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `prompts/list`: list the prompts a server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListPrompts;

impl RequestType for ListPrompts {
    const METHOD: &'static str = "prompts/list";
    type Params = PaginatedParams;
    type Result = ListPromptsResult;
}

/// Params of `prompts/get`: which prompt, with which arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptParams {
    /// The prompt's name.
    pub name: String,
    /// Argument values by name (strings only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Answers to a previous `input_required` result (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// Opaque state echoed from a previous `input_required` result (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl GetPromptParams {
    /// Get prompt `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        GetPromptParams {
            name: name.into(),
            arguments: None,
            input_responses: None,
            request_state: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The result of `prompts/get`: the prompt's messages.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    #[serde(default)]
    pub messages: Vec<PromptMessage>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl GetPromptResult {
    /// A result with these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult {
            messages,
            ..Default::default()
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// `prompts/get`: fill in a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GetPrompt;

impl RequestType for GetPrompt {
    const METHOD: &'static str = "prompts/get";
    type Params = GetPromptParams;
    type Result = GetPromptResult;
}

/// `notifications/prompts/list_changed`: the list of prompts changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptListChanged;

impl NotificationType for PromptListChanged {
    const METHOD: &'static str = "notifications/prompts/list_changed";
    type Params = EmptyParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn get_prompt_round_trip() {
        let v = json!({"name": "review", "arguments": {"code": "x"}, "extension": 1});
        let p: GetPromptParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(
            p.arguments
                .as_ref()
                .and_then(|a| a.get("code"))
                .map(String::as_str),
            Some("x")
        );
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
        let r = GetPromptResult::new(vec![PromptMessage::user("hi")]);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]})
        );
    }

    #[test]
    fn non_string_arguments_are_rejected() {
        assert!(serde_json::from_value::<GetPromptParams>(
            json!({"name": "a", "arguments": {"n": 1}})
        )
        .is_err());
    }
}
