//! The smallest complete server: stdio, one tool with typed arguments and a derived schema.
//! `cargo run -p mcp-server --example minimal`, then speak MCP on its stdin.

use mcp_server::{Server, Tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

#[tokio::main]
async fn main() {
    let add = |Add { a, b }: Add| async move { (a + b).to_string() };
    let server = Server::builder("adder", "1.0.0").tool(Tool::new("add", "Adds a and b"), add);
    server.build().serve_stdio().await;
}
