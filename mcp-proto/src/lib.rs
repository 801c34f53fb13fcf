//! The MCP wire: what MCP messages are and how they travel, but not where.
//!
//! - [`jsonrpc`]: the JSON-RPC 2.0 message model, ids, error objects and batches.
//! - [`schema`]: typed params and results for every MCP request and notification.
//! - [`version`]: the protocol versions we speak and the negotiation rule.
//! - [`codec`]: newline-delimited JSON framing for byte streams (stdio, child processes).
//! - [`sse`]: Server-Sent Events parsing and writing for the HTTP transports.
//! - [`peer`]: the transport-neutral engine both client and server run on.
//! - [`sync`]: poison-tolerant locking, shared by every crate of the toolkit.
//!
//! This crate has no sockets, no child processes and no HTTP.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod codec;
// Not API: the fast paths and their twins, for fuzz-checks (see its doc).
#[doc(hidden)]
pub mod fast_paths;
// Not API: the raw-JSON machinery mcp-server and mcp-client share (see its doc).
#[doc(hidden)]
pub mod json_text;
pub mod jsonrpc;
pub mod peer;
pub mod schema;
pub mod sse;
pub mod sync;
pub mod telemetry;
pub mod timestamp;
pub mod trace_context;
pub mod version;

pub use jsonrpc::{ErrorObject, Message, RequestId};
pub use version::ProtocolVersion;
