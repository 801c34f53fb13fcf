//! A server with a tool that panics, to show (and test, in the release profile) that a panic
//! fails only its own request: `explode` is answered -32603 and `echo` keeps working on the same
//! connection. `cargo run --release -p mcp-server --example panic_isolation` serves it over stdio.

use mcp_server::{Context, Server, Tool};
use serde_json::{json, Value};

#[tokio::main]
async fn main() {
    let echo = Tool::new("echo", "Echoes its text").input_schema(json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"]
    }));
    Server::builder("panic-isolation", "1.0.0")
        .tool(
            Tool::new("explode", "Panics"),
            |_: Value, _: Context| async {
                let cities: Vec<&str> = Vec::new();
                // A bug of the kind a real handler has: indexing past the end.
                cities[3].to_owned()
            },
        )
        .tool(echo, |args: Value, _: Context| async move {
            args["text"].as_str().unwrap_or_default().to_owned()
        })
        .build()
        .serve_stdio()
        .await;
}
