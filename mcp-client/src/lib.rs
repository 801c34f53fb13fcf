//! Talk to any MCP server (stdio child, Streamable HTTP, legacy SSE), a `Hub` over many
//! servers with `server__tool` names, and the `mcp` command-line tool.
//!
//! Not written yet: this crate will hold the `Client` on top of `mcp_proto::peer`.
pub mod http;
