//! The conversation as the agent keeps it, independent of any provider: user, assistant and
//! tool messages made of parts. Each provider writes these in its own wire format; a transcript
//! is these, one per line.

use serde::{Deserialize, Serialize};

/// Who said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (or, for tool results, the tools on the user's side).
    User,
    /// The model.
    Assistant,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// What it holds, in order.
    pub parts: Vec<Part>,
}

impl Message {
    /// A user's text.
    pub fn user(text: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            parts: vec![Part::Text { text: text.into() }],
        }
    }

    /// The model's text.
    pub fn assistant(text: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            parts: vec![Part::Text { text: text.into() }],
        }
    }

    /// The text parts joined.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for part in &self.parts {
            if let Part::Text { text } = part {
                out.push_str(text);
            }
        }
        out
    }

    /// The tool calls the message asks for.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolCall(call) => Some(call),
            _ => None,
        })
    }
}

/// A piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// The model's reasoning, kept so providers that need it back (Anthropic's signed thinking)
    /// get it.
    Reasoning {
        /// The reasoning text.
        text: String,
        /// Anthropic's signature over it, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// An image (base64).
    Image {
        /// Its media type, e.g. `image/png`.
        mime_type: String,
        /// The base64 data.
        data: String,
    },
    /// A tool call the model asked for.
    ToolCall(ToolCall),
    /// A tool call's result.
    ToolResult(ToolResult),
}

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call (made up for providers without one).
    pub id: String,
    /// The tool's name as the model called it.
    pub name: String,
    /// The arguments as the model wrote them (JSON text, maybe malformed).
    pub arguments: String,
}

/// What a tool call gave back, as the model will see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the call it answers.
    pub call_id: String,
    /// The tool's name (Gemini matches results by name).
    pub name: String,
    /// The result's content: text and image parts.
    pub content: Vec<ResultPart>,
    /// Whether the call failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl ToolResult {
    /// The text parts joined with newlines, images described.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for part in &self.content {
            if !out.is_empty() {
                out.push('\n');
            }
            match part {
                ResultPart::Text { text } => out.push_str(text),
                ResultPart::Image { mime_type, data } => {
                    out.push_str(&format!("[image {mime_type}, {} bytes base64]", data.len()))
                }
            }
        }
        out
    }

    /// The images of the result.
    pub fn images(&self) -> impl Iterator<Item = (&str, &str)> {
        self.content.iter().filter_map(|p| match p {
            ResultPart::Image { mime_type, data } => Some((mime_type.as_str(), data.as_str())),
            _ => None,
        })
    }
}

/// A piece of a tool result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResultPart {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image (base64).
    Image {
        /// Its media type.
        mime_type: String,
        /// The base64 data.
        data: String,
    },
}
