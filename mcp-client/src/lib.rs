//! Talk to any MCP server: a [`Client`] over any `mcp_proto::peer::Transport`, or over a
//! supervised stdio child process ([`Client::spawn_stdio`]).
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcp_client::ClientError> {
//! use mcp_client::{Client, ClientOptions, StdioServerConfig};
//! let config = StdioServerConfig::new("npx", ["-y", "@modelcontextprotocol/server-everything"]);
//! let client = Client::spawn_stdio(config, ClientOptions::new()).await?;
//! let tools = client.list_tools().await?;
//! let result = client.call_tool("echo", serde_json::json!({"message": "hi"})).await?;
//! println!("{} tools; echo said {:?}", tools.len(), result.content[0].as_text());
//! client.close().await;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod auth;
mod client;
mod era;
mod error;
// Not API: the fast paths and their twins, for fuzz-checks (see its doc).
#[doc(hidden)]
pub mod fast_paths;
mod handler;
pub mod http;
mod input;
mod list_cache;
mod listen;
mod modern;
mod options;
mod param_headers;
mod raw_result;
mod stderr_ring;
mod stdio;
mod supervisor;
mod tasks;

pub use client::{Client, Handshake};
pub use era::{Era, EraCache, Negotiation, NegotiationParseError};
pub use error::ClientError;
pub use handler::{ElicitationHandler, HandlerFuture, RootsHandler, SamplingHandler, ServerEvent};
pub use input::MAX_INPUT_ROUNDS;
pub use mcp_proto::peer::PeerError;
pub use mcp_proto::schema::PassThroughResult;
pub use options::{
    clamp_timeout, CallOptions, ClientOptions, DEFAULT_DISCOVER_TIMEOUT, DEFAULT_MAX_LIST_PAGES,
    DEFAULT_TIMEOUT, MAX_TIMEOUT, MIN_TIMEOUT,
};
pub use stderr_ring::{StderrRing, DEFAULT_STDERR_CAPACITY};
pub use stdio::StdioServerConfig;
pub use supervisor::{ChildExit, ChildProcess, RestartPolicy, ShutdownTimeouts};
pub use tasks::{
    poll_interval, TaskFlavour, TaskOptions, TaskStart, TaskStatusCallback, DEFAULT_POLL_INTERVAL,
    MAX_POLL_INTERVAL, MAX_TASK_INPUTS, MIN_POLL_INTERVAL, TASKS_EXTENSION,
};
pub use tokio_util::sync::CancellationToken;
