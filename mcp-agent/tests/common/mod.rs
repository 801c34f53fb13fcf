//! What the agent tests share: the scripted model server, models pointed at it, weather-server
//! configs, and a turn run to its end with its events.

#![allow(dead_code)]

pub mod scripted_model;

use std::sync::Arc;
use std::time::Duration;

use mcp_agent::{Agent, AgentEvent, Model, Provider, ProviderConfig, RetryPolicy, TurnSummary};
use mcp_hub::{HubConfig, Variables};
use scripted_model::{ScriptedModel, Wire};
use serde_json::Value;

/// A model of `wire`'s provider at the scripted server, with a test key and quick retries.
pub fn model_at(server: &ScriptedModel, wire: Wire) -> Arc<dyn Model> {
    let provider = match wire {
        Wire::OpenAi => Provider::OpenAi,
        Wire::Anthropic => Provider::Anthropic,
        Wire::Gemini => Provider::Gemini,
    };
    let config = ProviderConfig::from_env(provider, "scripted-model")
        .with_base_url(server.base_url(wire))
        .with_api_key("test-key")
        .with_retry(RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(10),
            max_backoff: Duration::from_secs(5),
        });
    provider.connect(config).expect("model")
}

/// A hub config from an `mcpServers` object.
pub fn config(servers: Value) -> HubConfig {
    let text = serde_json::json!({ "mcpServers": servers }).to_string();
    HubConfig::parse(&text, "agent-test.json", &Variables::default()).expect("config")
}

/// Runs one turn to its end, keeping its events.
pub async fn turn(agent: &Agent, prompt: &str) -> (Vec<AgentEvent>, TurnSummary) {
    let mut turn = agent.send(prompt);
    let mut events = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while let Ok(Some(event)) = tokio::time::timeout_at(deadline, turn.next()).await {
        events.push(event);
    }
    let summary = tokio::time::timeout(Duration::from_secs(60), turn.finish())
        .await
        .expect("the turn ends");
    (events, summary)
}

/// The finished tool calls of `events`: `(name, is_error, output)`.
pub fn finished_calls(events: &[AgentEvent]) -> Vec<(String, bool, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCallFinished {
                name,
                is_error,
                output,
                ..
            } => Some((name.clone(), *is_error, output.clone())),
            _ => None,
        })
        .collect()
}
