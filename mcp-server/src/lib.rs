//! Build an MCP server from tools, resources, resource templates and prompts, and serve it
//! over stdio, Streamable HTTP and the legacy HTTP+SSE transport.
//!
//! Not written yet: this crate will hold the `Server` builder on top of `mcp_proto::peer`.
