//! The smallest complete client, as README shows it: starts the sample weather server as a child
//! process and calls one of its tools.
//! `cargo build -p weather-server && cargo run -p mcp-client --example minimal`.

use mcp_client::{Client, ClientOptions, StdioServerConfig};

#[tokio::main]
async fn main() -> Result<(), mcp_client::ClientError> {
    let server = StdioServerConfig::new("target/debug/weather-server", Vec::<String>::new());
    let client = Client::spawn_stdio(server, ClientOptions::new()).await?;
    let result = client
        .call_tool("get_weather", serde_json::json!({"city": "Paris"}))
        .await?;
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or_default();
    println!("{text}");
    client.close().await;
    Ok(())
}
