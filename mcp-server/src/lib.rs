//! Build an MCP server from tools, resources, resource templates and prompts, and serve it
//! over stdio (and, through [`Server::serve`], over any `mcp_proto` transport).
//!
//! - [`Server::builder`] takes the server's name and version, then tools, resources, templates,
//!   prompts and completions; capabilities are derived from what is registered.
//! - Tool handlers are async functions of typed arguments (any `Deserialize` type, or
//!   `serde_json::Value`, or [`NoArgs`]) and a [`Context`]; they return anything
//!   [`IntoToolResult`]: `String`, [`Json`] (structured content plus the same JSON as text),
//!   `CallToolResult`, or `Result<T, E: Display>` where `Err` becomes an `isError` result.
//! - The [`Context`] reports progress, logs to the client, carries the cancellation signal and
//!   calls back to the client (sampling, roots, elicitation), refusing locally what the
//!   client did not declare.
//! - A [`Server`] is cheap to clone and serves many connections; tools, resources and prompts
//!   can change while it runs, and clients that were told `listChanged` hear about it.
//! - A handler that panics fails only its own request, with -32603; every other request and
//!   session goes on. This needs unwinding: do not build a server with `panic = "abort"`.
//! - Input is bounded before work: a message must be a JSON object (an array is never read as
//!   one), params and tool arguments must be objects (-32602 otherwise), and resource-template
//!   matching refuses URIs over [`uri_template::MAX_MATCH_LEN`] bytes.
//! - stdout carries protocol messages only: write diagnostics with `tracing` (to stderr),
//!   never with `println!`.
//!
//! ```no_run
//! use mcp_server::{Context, Json, Server, Tool};
//! use serde::Deserialize;
//!
//! #[derive(Deserialize)]
//! struct Add { a: i64, b: i64 }
//!
//! #[tokio::main]
//! async fn main() {
//!     Server::builder("adder", "1.0.0")
//!         .tool(
//!             Tool::new("add", "Adds two integers").input_schema(serde_json::json!({
//!                 "type": "object",
//!                 "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
//!                 "required": ["a", "b"]
//!             })),
//!             |args: Add, _ctx: Context| async move { Json(serde_json::json!({"sum": args.a + args.b})) },
//!         )
//!         .build()
//!         .serve_stdio()
//!         .await;
//! }
//! ```

#![warn(missing_docs)]

mod builder;
pub mod completion;
pub mod context;
#[cfg(feature = "schemars")]
mod derived_schema;
pub mod error;
mod handler;
pub mod http;
mod pagination;
pub mod prompt;
mod registry;
pub mod resource;
pub mod server;
mod session;
pub mod stdio;
pub mod tool;
pub mod uri_template;

pub use completion::{complete_from, CompletionRequest, IntoCompletion};
pub use context::{Context, ToolContext};
pub use error::{ServerError, ToolError};
pub use handler::{Call, FromCall, Handler, Meta, Rejection, State, ToolArguments};
pub use prompt::{IntoPromptResult, Prompt, PromptArguments};
pub use resource::{IntoReadResult, Resource, ResourceRequest, ResourceTemplate};
pub use server::{RunningSession, Server, ServerBuilder, ServerOptions};
pub use stdio::StdioTransport;
pub use tool::{IntoToolResult, Json, NoArgs, StructuredContent, Tool, ToolOutput};
pub use uri_template::UriTemplate;

/// The wire types, re-exported so servers need not depend on `mcp-proto` directly.
pub use mcp_proto::schema;
pub use mcp_proto::schema::LoggingLevel;
/// The schema derive, re-exported: `#[derive(JsonSchema)]` on argument and result types.
#[cfg(feature = "schemars")]
pub use schemars::{self, JsonSchema};
