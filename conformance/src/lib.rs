//! A conformance suite that runs against any MCP server (a stdio command or a URL) and
//! reports case by case.
//!
//! Not written yet: it will hold the cases and the `mcp-conformance` runner.
