//! Build an MCP server from tools, resources, resource templates and prompts, and serve it
//! over stdio, Streamable HTTP or HTTP+SSE (and, through [`Server::serve`], over any
//! `mcp_proto` transport). Over HTTP it listens on its own ([`Server::serve_http`]) or is a
//! tower service an axum or hyper app mounts beside its routes ([`Server::http_service`],
//! `examples/axum.rs`).
//!
//! The smallest complete server: stdio, one tool with typed arguments and a derived schema
//! (`examples/minimal.rs`).
//!
//! ```no_run
//! use mcp_server::{Server, Tool};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Add {
//!     a: i64,
//!     b: i64,
//! }
//!
//! #[tokio::main]
//! async fn main() {
//!     let add = |Add { a, b }: Add| async move { (a + b).to_string() };
//!     let server = Server::builder("adder", "1.0.0").tool(Tool::new("add", "Adds a and b"), add);
//!     server.build().serve_stdio().await;
//! }
//! ```
//!
//! - [`Server::builder`] takes the server's name and version, then tools, resources, templates,
//!   prompts and completions; capabilities are derived from what is registered.
//! - Handlers are async functions whose parameters are extractors, in any order, none
//!   required: the request's input (a tool's typed arguments, a prompt's arguments, a
//!   [`ResourceRequest`], a [`CompletionRequest`]), [`State<S>`](State) (what
//!   [`ServerBuilder::state`] shares), [`Context`] and [`Meta`]. See [`Handler`].
//! - A tool's input schema is derived from its arguments type (`Deserialize + JsonSchema`, doc
//!   comments become descriptions) and its output schema from a [`Json<T>`] or [`Structured<T>`]
//!   result; schemas set on the [`Tool`] by hand win. The `schemars` feature (default) does
//!   this; without it, schemas are written by hand.
//! - Tool handlers return anything [`IntoToolResult`]: `String`, [`Json`], [`Structured`],
//!   `CallToolResult`, or `Result<T, E>` where `E: Into<`[`HandlerError`]`>` (any error, `?`
//!   works): the error and its source chain become an `isError` result, or a JSON-RPC error
//!   when made with [`HandlerError::protocol`].
//! - The [`Context`] reports progress, logs to the client, carries the cancellation signal and
//!   calls back to the client (sampling, roots, elicitation), refusing locally what the
//!   client did not declare.
//! - A [`Server`] is cheap to clone and serves many connections; tools, resources and prompts
//!   can change while it runs, and clients that were told `listChanged` hear about it.
//! - A handler that panics fails only its own request, with -32603; every other request and
//!   session goes on. This needs unwinding: do not build a server with `panic = "abort"`.
//! - Input is bounded before work: a message must be a JSON object (an array is never read as
//!   one), params and tool arguments must be objects (-32602 otherwise), and resource-template
//!   matching refuses URIs over [`MAX_MATCH_LEN`] bytes.
//! - stdout carries protocol messages only: write diagnostics with `tracing` (to stderr),
//!   never with `println!`.
//!
//! Shared state, a typed result with its derived output schema, and an error with a source:
//!
//! ```no_run
//! use std::sync::Arc;
//! use mcp_server::{Context, Json, Server, State, Tool, HandlerError};
//!
//! struct Db;
//! impl Db {
//!     async fn lookup(&self, key: &str) -> std::io::Result<String> { Ok(key.to_owned()) }
//! }
//!
//! /// What to look up.
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Lookup {
//!     /// The key, as stored.
//!     key: String,
//! }
//!
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! struct Found {
//!     value: String,
//! }
//!
//! async fn lookup(State(db): State<Arc<Db>>, args: Lookup, ctx: Context) -> Result<Json<Found>, HandlerError> {
//!     ctx.progress(0.5, Some(1.0), None).await;
//!     let value = db.lookup(&args.key).await?;
//!     Ok(Json(Found { value }))
//! }
//!
//! # async fn run() {
//! Server::builder("db", "1.0.0")
//!     .state(Arc::new(Db))
//!     .tool(Tool::new("lookup", "Looks a key up"), lookup)
//!     .build()
//!     .serve_stdio()
//!     .await;
//! # }
//! ```
//!
//! ## Both protocol eras, on the same endpoints
//!
//! A server serves the 2025 era (an `initialize` handshake per connection or session) and the
//! 2026-07-28 era (no handshake: each request names its version, the client's capabilities and
//! info, and its log level in `params._meta`) side by side, chosen per request. Handlers never
//! care which: [`Context`] reads what the request is served under from one place.
//!
//! - `server/discover` lists the per-request versions, capabilities and instructions. Every
//!   2026-07-28 result carries `resultType` and the server's info in `_meta`; list, read and
//!   discover results carry `ttlMs`/`cacheScope` ([`ServerBuilder::cache_hint`]; a resource's
//!   read result may set its own with `schema::ModernResultFields::with_cache`).
//! - `ping`, `logging/setLevel` and `resources/subscribe` do not exist under 2026-07-28 (-32601);
//!   `subscriptions/listen` delivers list changes and resource updates instead. Log messages
//!   go only to a request that asked for a level, at or above it.
//! - [`ServerOptions::protocol_versions`] chooses the versions served; leave 2026-07-28 out to
//!   serve the 2025 era only.
//!
//! ### Asking the client for input: one API, two eras
//!
//! [`Context::elicit`], [`Context::sample`] and [`Context::list_roots`] work in both eras.
//! Under 2025 they are server-to-client requests. Under 2026-07-28 a server may not send
//! requests, so `tools/call`, `prompts/get` and `resources/read` answer `input_required` (MRTR)
//! and the client retries with the answers. The resumption model is **re-run with answers**:
//!
//! 1. Each ask gets a key from its place in the handler's run (`elicit-0`, `sample-1`, …).
//! 2. If the request carries the answer under that key, the ask returns it at once.
//! 3. Otherwise the ask is recorded and never returns: the handler's future is dropped there,
//!    and the request is answered `input_required` with every recorded ask and a
//!    `requestState`.
//! 4. The retry runs the handler again from the start with all answers so far, so every ask
//!    up to the next unanswered one returns at once.
//!
//! So: work before an ask runs again on each retry (keep it idempotent or cheap), and ask in
//! the same order every run. Nothing is kept between rounds except the `requestState`, which
//! holds the answers so far, the request it belongs to and an expiry, sealed with HMAC-SHA-256
//! under the server's key ([`ServerBuilder::request_state_key`]). A forged, altered, expired
//! or misplaced state is refused with -32602, and any replica with the same key resumes a
//! request another one started. Asking for something the client did not declare is -32021.
//!
//! ## Tasks
//!
//! A tool that takes minutes declares `Tool::new(..).task_support(TaskSupport::Optional)` (or
//! `Required`); its handler stays the same async function. Under 2025-11-25 a client asks for a
//! task with `params.task` and polls `tasks/get`, waits on `tasks/result`, lists and cancels;
//! under 2026-07-28 a client that declares the `io.modelcontextprotocol/tasks` extension may get
//! a task instead of a result and polls `tasks/get`, answers input with `tasks/update`, cancels
//! with `tasks/cancel`. `ctx.elicit` and friends work inside a task in both eras,
//! [`Context::cancelled`] fires on `tasks/cancel`, and [`Context::progress`] also becomes the
//! task's status message. Records live in a [`TaskStore`] held by the server, so a task outlives
//! the connection that started it. See [`tasks`].
//!
//! ## MCP Apps
//!
//! A tool may come with an HTML view the host renders in a sandboxed iframe (the
//! `io.modelcontextprotocol/ui` extension): [`ServerBuilder::app`] registers the tool, its
//! `ui://` view resource and their `_meta.ui` in one call, and declares the extension in both
//! eras. The tool's result is what every client gets, so a client without the extension still
//! has a useful answer; [`Context::client_supports_apps`] says whether this one renders views.
//! See [`App`].
//!
//! ## Cargo features
//!
//! - `schemars` (default): tool input and output schemas derived from Rust types.
//! - `http` (default): the Streamable HTTP and HTTP+SSE transports (`http`,
//!   [`Server::serve_http`], [`Server::http_service`]) with hyper. Without it a server serves
//!   stdio (or any `mcp_proto` transport) and compiles no HTTP stack:
//!   `mcp-server = { version = "0.1", default-features = false, features = ["schemars"] }`.
//! - `oauth` (default, implies `http`): token verifiers that ask an OAuth authorization server (JWKS,
//!   introspection) over HTTPS; without it, bring your own [`auth::TokenVerifier`].
//! - `otlp` (off): OTLP/HTTP export of the MCP spans (see `otlp`).
//!
//! ## Replicas behind a load balancer
//!
//! State that must outlive a process or be seen by every replica sits behind traits with
//! in-memory defaults: [`TaskStore`], [`session_store::SessionStore`],
//! [`event_store::EventStore`], [`session_store::SessionRelay`] and the change bus
//! [`shared::ReplicaBus`], gathered by one [`shared::StateBackend`] given to
//! [`ServerBuilder::shared_state`]. The `mcp-server-redis` crate implements them all on Redis;
//! this crate has no Redis code.

#![warn(missing_docs)]
#![deny(unsafe_code)]

mod app;
pub mod auth;
mod builder;
mod completion;
mod connection;
mod context;
#[cfg(feature = "schemars")]
mod derived_schema;
mod error;
pub mod event_store;
// Not API: the fast paths and their twins, for fuzz-checks (see its doc).
#[doc(hidden)]
pub mod fast_paths;
#[cfg(test)]
mod future_sizes;
mod handler;
#[cfg(feature = "http")]
pub mod http;
mod modern;
#[cfg(feature = "otlp")]
pub mod otlp;
mod pagination;
mod prompt;
mod random_id;
mod request_scope;
mod resource;
mod router;
mod server;
mod services;
pub mod session_store;
pub mod shared;
mod stdio;
pub mod tasks;
mod tool;
mod uri_template;

pub use app::{App, DEFAULT_VIEW_TTL};
pub use completion::{complete_from, CompletionRequest, IntoCompletion};
pub use context::Context;
pub use error::{HandlerError, ServerError};
pub use handler::{Call, FromCall, Handler, Meta, Rejection, State, StateType, ToolArguments};
pub use modern::CacheHint;
pub use prompt::{IntoPromptResult, Prompt, PromptArguments};
pub use resource::{IntoReadResult, Resource, ResourceRequest, ResourceTemplate};
pub use server::{RunningConnection, Server, ServerBuilder, ServerOptions};
pub use stdio::StdioTransport;
pub use tasks::{MemoryTaskStore, TaskOptions, TaskStore};
pub use tool::{IntoToolResult, Json, Structured, StructuredContent, Tool, ToolOutput};
pub use uri_template::{UriTemplate, UriTemplateError, MAX_MATCH_LEN};

/// The wire types, re-exported so servers need not depend on `mcp-proto` directly.
pub use mcp_proto::schema;
pub use mcp_proto::schema::LoggingLevel;
/// The schema derive, re-exported: `#[derive(JsonSchema)]` on argument and result types.
#[cfg(feature = "schemars")]
pub use schemars::{self, JsonSchema};
