//! A weather agent in about 20 lines: weather-server behind the hub, an OpenAI-compatible model
//! (`OPENAI_API_KEY`; `OPENAI_BASE_URL` for another endpoint such as Ollama), the answer and
//! the tool calls streamed to the terminal.
//!
//! `cargo build -p weather-server && PATH=target/debug:$PATH cargo run -p mcp-agent --example
//! weather_agent -- "What's the weather in Shenzhen and in Paris?"`

use std::io::Write;
use std::sync::Arc;

use mcp_agent::{Agent, AgentEvent, OpenAiChat};
use mcp_hub::{HubConfig, HubOptions, Variables};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = Arc::new(OpenAiChat::from_env(
        std::env::var("MODEL").unwrap_or_else(|_| "gpt-4o-mini".into()),
    )?);
    let servers = r#"{"mcpServers": {"weather": {"command": "weather-server"}}}"#;
    let config = HubConfig::parse(servers, "inline", &Variables::default())?;
    let agent = Agent::builder(model)
        .connect(config, HubOptions::default())
        .await;
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Weather in Shenzhen?".into());
    let mut turn = agent.send(prompt);
    while let Some(event) = turn.next().await {
        match event {
            AgentEvent::TextDelta { text } => print!("{text}"),
            AgentEvent::ToolCallStarted {
                name, arguments, ..
            } => eprintln!("→ {name} {arguments}"),
            AgentEvent::TurnFinished { reason, error, .. } => {
                println!("\n[{reason:?}] {}", error.unwrap_or_default())
            }
            _ => {}
        }
        std::io::stdout().flush()?;
    }
    agent.hub().close().await;
    Ok(())
}
