//! The library half of the `mcp` command-line tool: [`proxy`], which serves a
//! [`Hub`](mcp_hub::Hub) as one MCP server through mcp-server (`mcp proxy`), kept apart from
//! the binary so tests and other programs can put a proxy in front of a hub of their own.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod audit;
pub mod input_forwarding;
pub mod proxy;
