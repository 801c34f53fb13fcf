//! Our client against our own dual-era server (the `weather-server` binary, over stdio): auto
//! finds 2026-07-28, the ambiguous "Springfield" is answered through the `input_required` loop
//! with the same elicitation handler that answers the 2025-era `elicitation/create` when the
//! client is told to stay legacy.

mod common;
#[path = "interop/hub_support.rs"]
mod hub_support;

use common::bounded;
use mcp_client::{Client, ClientOptions, Era, Negotiation, StdioServerConfig};
use mcp_proto::schema::ElicitResult;
use mcp_proto::ProtocolVersion;
use serde_json::json;

/// Picks the city whose name mentions `state` among the choices the server offers.
fn options(negotiation: Negotiation, state: &'static str) -> ClientOptions {
    ClientOptions::new()
        .with_name("weather")
        .with_negotiation(negotiation)
        .with_elicitation(move |params| async move {
            let schema = serde_json::to_string(&params).unwrap_or_default();
            assert!(schema.contains(state), "{schema}");
            let mut content = serde_json::Map::new();
            content.insert("city".into(), json!(format!("Springfield, {state}")));
            Ok(ElicitResult::accept(Some(content)))
        })
}

fn weather() -> StdioServerConfig {
    StdioServerConfig::new(
        hub_support::weather_server().to_string_lossy(),
        ["--clock", hub_support::CLOCK],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn springfield_through_either_era() {
    for (negotiation, era, state) in [
        (Negotiation::Auto, Era::Modern, "Missouri"),
        (
            Negotiation::Pin(ProtocolVersion::V2026_07_28),
            Era::Modern,
            "Illinois",
        ),
        (Negotiation::Legacy, Era::Legacy, "Missouri"),
    ] {
        let client = bounded(
            30,
            "connect",
            Client::spawn_stdio(weather(), options(negotiation, state)),
        )
        .await
        .expect("connects");
        assert_eq!(client.era(), era, "{negotiation}");
        let tools = bounded(10, "tools", client.list_tools())
            .await
            .expect("tools");
        assert!(tools.iter().any(|t| t.name == "get_weather"));
        let result = bounded(
            10,
            "get_weather",
            client.call_tool("get_weather", json!({"city": "Springfield"})),
        )
        .await
        .expect("answered");
        let text = result.content[0].as_text().unwrap_or_default().to_owned();
        assert!(
            text.starts_with(&format!("Springfield, {state}:")),
            "{negotiation}: {text}"
        );
        bounded(10, "close", client.close()).await;
    }
}
