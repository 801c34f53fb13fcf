//! The `Model` trait: a streaming chat model with tools. A request is the system prompt, the
//! conversation and the tool definitions in the provider's format; the answer is a stream of
//! typed deltas (text, reasoning, tool call start / arguments / end, usage, finish reason).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;

use mcp_hub::ExportFormat;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ModelError;
use crate::message::{Message, Part, Role, ToolCall};

/// A boxed future, as the trait's methods return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One request to a model.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    /// The system prompt (empty for none).
    pub system: &'a str,
    /// The conversation so far.
    pub messages: &'a [Message],
    /// The tools, exported by the hub in [`Model::tool_format`] (an array for OpenAI and
    /// Anthropic, `{"functionDeclarations": [...]}` for Gemini); `Value::Null` for none.
    pub tools: &'a Value,
    /// The most tokens to generate, when the caller bounds it.
    pub max_tokens: Option<u32>,
}

/// A chat model that streams and calls tools.
pub trait Model: Send + Sync {
    /// The model's name, e.g. `gpt-4o`.
    fn name(&self) -> &str;

    /// The tool format the model takes (the hub exports its tools in it).
    fn tool_format(&self) -> ExportFormat;

    /// Whether tool results may carry images.
    fn takes_images(&self) -> bool {
        true
    }

    /// Sends `request` and returns the answer as it streams.
    fn stream<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<DeltaStream, ModelError>>;
}

/// One piece of a streamed answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Delta {
    /// Answer text.
    Text(String),
    /// Reasoning text (`reasoning_content`, Anthropic thinking, Gemini thoughts).
    Reasoning(String),
    /// The signature over the reasoning so far (Anthropic), to send back with it.
    ReasoningSignature(String),
    /// A tool call begins; `index` tells parallel calls apart.
    ToolCallStart {
        /// Which call of the answer.
        index: usize,
        /// The provider's id for it.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of a tool call's arguments (JSON text, cut anywhere).
    ToolCallArguments {
        /// Which call.
        index: usize,
        /// The next piece.
        fragment: String,
    },
    /// A tool call's arguments are complete.
    ToolCallEnd {
        /// Which call.
        index: usize,
    },
    /// Token counts (may come more than once; later counts replace earlier ones per field).
    Usage(Usage),
    /// Why the model stopped.
    Finish(FinishReason),
}

/// Token counts of one model call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
}

impl Usage {
    /// Adds another call's counts.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// Why a model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// It finished its answer.
    Stop,
    /// It wants tool calls run.
    ToolCalls,
    /// It hit the token limit.
    Length,
    /// A content filter stopped it.
    ContentFilter,
    /// Something else, as the provider named it.
    Other(String),
}

/// Where a stream's deltas come from: an HTTP body being decoded, or a script.
pub trait DeltaSource: Send {
    /// The next delta; `None` at the end.
    fn next_delta(&mut self) -> BoxFuture<'_, Option<Result<Delta, ModelError>>>;
}

/// A streamed answer.
pub struct DeltaStream {
    source: Box<dyn DeltaSource>,
}

impl std::fmt::Debug for DeltaStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeltaStream").finish_non_exhaustive()
    }
}

impl DeltaStream {
    /// A stream over a source.
    pub fn new(source: impl DeltaSource + 'static) -> Self {
        DeltaStream {
            source: Box::new(source),
        }
    }

    /// A stream of deltas known in advance (scripted models, tests).
    pub fn from_deltas(deltas: impl IntoIterator<Item = Delta>) -> Self {
        DeltaStream::new(Scripted(deltas.into_iter().map(Ok).collect()))
    }

    /// The next delta; `None` at the end.
    pub async fn next(&mut self) -> Option<Result<Delta, ModelError>> {
        self.source.next_delta().await
    }

    /// Reads the whole stream into a [`Reply`].
    pub async fn collect(mut self) -> Result<Reply, ModelError> {
        let mut reply = Reply::default();
        while let Some(delta) = self.next().await {
            reply.apply(&delta?);
        }
        Ok(reply)
    }
}

/// Deltas known in advance.
struct Scripted(VecDeque<Result<Delta, ModelError>>);

impl DeltaSource for Scripted {
    fn next_delta(&mut self) -> BoxFuture<'_, Option<Result<Delta, ModelError>>> {
        Box::pin(std::future::ready(self.0.pop_front()))
    }
}

/// A whole answer, gathered from its deltas.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    /// The answer text.
    pub text: String,
    /// The reasoning text.
    pub reasoning: String,
    /// The reasoning's signature (Anthropic).
    pub signature: Option<String>,
    /// The tool calls, in the order they began.
    pub tool_calls: Vec<ToolCall>,
    /// The indexes of the calls, beside `tool_calls`.
    indexes: Vec<usize>,
    /// Token counts.
    pub usage: Usage,
    /// Why the model stopped, if it said.
    pub finish: Option<FinishReason>,
}

impl Reply {
    /// Takes one delta in.
    pub fn apply(&mut self, delta: &Delta) {
        match delta {
            Delta::Text(text) => self.text.push_str(text),
            Delta::Reasoning(text) => self.reasoning.push_str(text),
            Delta::ReasoningSignature(s) => {
                self.signature.get_or_insert_with(String::new).push_str(s)
            }
            Delta::ToolCallStart { index, id, name } => {
                self.indexes.push(*index);
                self.tool_calls.push(ToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    arguments: String::new(),
                });
            }
            Delta::ToolCallArguments { index, fragment } => {
                if let Some(at) = self.indexes.iter().rposition(|i| i == index) {
                    self.tool_calls[at].arguments.push_str(fragment);
                }
            }
            Delta::ToolCallEnd { .. } => {}
            Delta::Usage(usage) => {
                if usage.input_tokens > 0 {
                    self.usage.input_tokens = usage.input_tokens;
                }
                if usage.output_tokens > 0 {
                    self.usage.output_tokens = usage.output_tokens;
                }
            }
            Delta::Finish(reason) => self.finish = Some(reason.clone()),
        }
    }

    /// The answer as an assistant message: reasoning, text, then tool calls.
    pub fn to_message(&self) -> Message {
        let mut parts = Vec::new();
        if !self.reasoning.is_empty() || self.signature.is_some() {
            parts.push(Part::Reasoning {
                text: self.reasoning.clone(),
                signature: self.signature.clone(),
            });
        }
        if !self.text.is_empty() {
            parts.push(Part::Text {
                text: self.text.clone(),
            });
        }
        parts.extend(self.tool_calls.iter().cloned().map(Part::ToolCall));
        Message {
            role: Role::Assistant,
            parts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_reply_gathers_split_arguments_per_index() {
        let stream = DeltaStream::from_deltas([
            Delta::ToolCallStart {
                index: 0,
                id: "a".into(),
                name: "x".into(),
            },
            Delta::ToolCallStart {
                index: 1,
                id: "b".into(),
                name: "y".into(),
            },
            Delta::ToolCallArguments {
                index: 1,
                fragment: "{\"ci".into(),
            },
            Delta::ToolCallArguments {
                index: 0,
                fragment: "{}".into(),
            },
            Delta::ToolCallArguments {
                index: 1,
                fragment: "ty\":1}".into(),
            },
            Delta::Usage(Usage {
                input_tokens: 5,
                output_tokens: 0,
            }),
            Delta::Usage(Usage {
                input_tokens: 0,
                output_tokens: 7,
            }),
            Delta::Finish(FinishReason::ToolCalls),
        ]);
        let reply = stream.collect().await.unwrap();
        assert_eq!(reply.tool_calls[0].arguments, "{}");
        assert_eq!(reply.tool_calls[1].arguments, "{\"city\":1}");
        assert_eq!(
            reply.usage,
            Usage {
                input_tokens: 5,
                output_tokens: 7
            }
        );
        assert_eq!(reply.to_message().tool_calls().count(), 2);
    }
}
