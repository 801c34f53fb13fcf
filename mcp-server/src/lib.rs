//! Build an MCP server from tools, resources, resource templates and prompts, and serve it
//! over stdio, Streamable HTTP and the legacy HTTP+SSE transport.

pub mod http;
pub mod stdio;

pub use stdio::StdioTransport;
