//! The agent: a model that calls the hub's tools in a loop, until it answers.
//!
//! - [`Model`] is a streaming chat model with tools; [`OpenAiChat`] (any OpenAI-compatible
//!   Chat Completions endpoint), [`Anthropic`] and [`Gemini`] implement it over our own HTTP
//!   client, with no provider SDK.
//! - [`Agent`] runs the loop over a [`mcp_hub::Hub`]: the servers' instructions in the system
//!   prompt, the hub's tools in the model's format (or tool search past a threshold), parallel
//!   calls, a step limit, a per-call timeout and a budget, cancellation that reaches the
//!   servers, and a stream of [`AgentEvent`]s that also serialize as NDJSON.
//! - [`Human`] approves calls and answers the servers' elicitation and sampling requests
//!   (sampling is served by the agent's own model).
//! - [`transcript`] saves a conversation as JSON Lines and reads it back.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_agent::{Agent, OpenAiChat};
//! use mcp_hub::{HubConfig, HubOptions, Variables};
//! let model = std::sync::Arc::new(OpenAiChat::from_env("gpt-4o-mini")?);
//! let config = HubConfig::load("mcp.json".as_ref(), &Variables::default())?;
//! let agent = Agent::builder(model).connect(config, HubOptions::default()).await;
//! println!("{}", agent.run("What's the weather in Paris?").await?);
//! agent.hub().close().await;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod agent;
mod error;
mod event;
mod http;
mod human;
mod message;
mod model;
mod offer;
mod provider;
mod result_view;
pub mod transcript;

pub use agent::{Agent, AgentBuilder, AgentOptions, Turn, TurnSummary};
pub use error::{AgentError, ModelError};
pub use event::{AgentEvent, StopReason};
pub use http::{retry_after, RetryPolicy};
pub use human::{serve_sampling, ElicitationCallback, Human, SamplingApproval};
pub use message::{Message, Part, ResultPart, Role, ToolCall, ToolResult};
pub use model::{
    BoxFuture, Delta, DeltaSource, DeltaStream, FinishReason, Model, ModelRequest, Reply, Usage,
};
pub use provider::{Anthropic, Gemini, OpenAiChat, Provider, ProviderConfig, UnknownProvider};
pub use result_view::model_view;
