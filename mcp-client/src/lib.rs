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

pub mod client;
pub mod error;
pub mod handler;
pub mod http;
pub mod hub;
pub mod options;
pub mod stderr_ring;
pub mod stdio;
pub mod supervisor;

pub use client::{Client, Handshake};
pub use error::ClientError;
pub use handler::{ElicitationHandler, HandlerFuture, RootsHandler, SamplingHandler, ServerEvent};
pub use hub::{Hub, HubError, HubOptions};
pub use mcp_proto::peer::PeerError;
pub use options::{CallOptions, ClientOptions};
pub use stderr_ring::StderrRing;
pub use stdio::StdioServerConfig;
pub use supervisor::{ChildExit, ChildProcess, RestartPolicy, ShutdownTimeouts};
pub use tokio_util::sync::CancellationToken;
