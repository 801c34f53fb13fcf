//! The agent: a model that calls the hub's tools in a loop, until it answers.
//!
//! [`Model`] is a streaming chat model with tools; [`OpenAiChat`], [`Anthropic`] and [`Gemini`]
//! implement it over our own HTTP client (no provider SDK).

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod error;
mod http;
mod message;
mod model;
mod provider;

pub use error::{AgentError, ModelError};
pub use http::{retry_after, RetryPolicy};
pub use message::{Message, Part, ResultPart, Role, ToolCall, ToolResult};
pub use model::{
    BoxFuture, Delta, DeltaSource, DeltaStream, FinishReason, Model, ModelRequest, Reply, Usage,
};
pub use provider::{Anthropic, Gemini, OpenAiChat, Provider, ProviderConfig, UnknownProvider};
