//! Starts any MCP server as a child process, lists its tools and calls one.
//!
//! ```text
//! cargo run -p mcp-client --example stdio_call -- TOOL JSON_ARGS -- COMMAND [ARGS...]
//! cargo run -p mcp-client --example stdio_call -- echo '{"message":"hi"}' -- \
//!     npx -y @modelcontextprotocol/server-everything
//! ```

use mcp_client::{Client, ClientOptions, StdioServerConfig};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (call, server) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => return Err("usage: stdio_call TOOL JSON_ARGS -- COMMAND [ARGS...]".into()),
    };
    let (Some(command), [tool, arguments, ..]) = (server.first(), call) else {
        return Err("usage: stdio_call TOOL JSON_ARGS -- COMMAND [ARGS...]".into());
    };
    let config = StdioServerConfig::new(command.clone(), server[1..].iter().cloned());
    let client = Client::spawn_stdio(config, ClientOptions::new()).await?;
    let info = client.server_info();
    println!(
        "{} {} ({})",
        info.name,
        info.version,
        client.protocol_version()
    );
    for t in client.list_tools().await? {
        println!("  tool {}: {}", t.name, t.description.unwrap_or_default());
    }
    let result = client
        .call_tool(tool, serde_json::from_str(arguments)?)
        .await?;
    println!("{}", serde_json::to_string_pretty(&result)?);
    client.close().await;
    Ok(())
}
