//! One hub over servers of both protocol eras at once, against real peers: weather-server (told
//! `"protocol": "legacy"`), the Python `mcp` 1.x FastMCP fixture, the TypeScript SDK v2 server and
//! the Python `mcp` 2.x server of mcp-client's `tests/interop`.

#[path = "../../mcp-client/tests/interop/hub_support.rs"]
mod hub_support;
#[path = "../../mcp-client/tests/interop/http_support.rs"]
mod support;

use mcp_client::Era;
use mcp_hub::{Hub, HubConfig, HubOptions, ServerStatus, Variables};
use mcp_proto::schema::CallToolResult;
use serde_json::json;
use support::*;

/// The first text block of a result.
fn text(result: &CallToolResult) -> &str {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or_default()
}

/// Calls tool `name` through the hub (bounded) and returns the text of its result.
async fn call_text(hub: &Hub, name: &str, args: serde_json::Value) -> String {
    let result = bounded(10, name, hub.call_tool(name, args)).await;
    let result = result.unwrap_or_else(|e| panic!("{name}: {e}"));
    text(&result).to_owned()
}

/// One hub over 2025-era servers (weather-server told `"protocol": "legacy"`; the Python `mcp`
/// 1.x FastMCP fixture, which auto finds to be 2025-era) and 2026-07-28 ones (the TypeScript
/// fixture over stdio, pinned; the Python 2.x one, auto): each keeps its era, and calls route
/// to each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hub_serves_both_eras_side_by_side() {
    let (Some(modules), Some(python), Some(python1)) = (
        interop_var("MCP_INTEROP_NODE_MODULES"),
        interop_var("MCP_INTEROP_PYTHON2"),
        interop_var("MCP_INTEROP_PYTHON"),
    ) else {
        return;
    };
    let mut weather = hub_support::weather_entry();
    weather["protocol"] = json!("legacy");
    let ts = script("modern_ts_server.cjs");
    let py = script("modern_py_server.py");
    let config = json!({"mcpServers": {
        "weather": weather,
        "fast": hub_support::fastmcp_entry(&python1),
        "ts": {"command": "node", "args": [ts.to_string_lossy(), "stdio-modern"],
               "env": {"MCP_INTEROP_NODE_MODULES": modules.to_string_lossy()},
               "protocol": "2026-07-28"},
        "py": {"command": python.to_string_lossy(), "args": [py.to_string_lossy(), "stdio"]}
    }});
    let config =
        HubConfig::parse(&config.to_string(), "hub.json", &Variables::default()).expect("config");
    let hub = bounded(60, "connect", Hub::connect(config, HubOptions::default())).await;
    let mut eras = Vec::new();
    for s in hub.servers() {
        assert_eq!(
            s.status,
            ServerStatus::Connected,
            "{}: {:?}",
            s.config.name,
            s.status
        );
        eras.push((s.config.name.clone(), s.era, s.protocol_version.clone()));
    }
    eras.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        eras,
        [
            ("fast".into(), Some(Era::Legacy), Some("2025-11-25".into())),
            ("py".into(), Some(Era::Modern), Some("2026-07-28".into())),
            ("ts".into(), Some(Era::Modern), Some("2026-07-28".into())),
            (
                "weather".into(),
                Some(Era::Legacy),
                Some("2025-11-25".into())
            ),
        ]
    );
    assert_eq!(
        call_text(&hub, "ts__echo", json!({"message": "a"})).await,
        "echo: a"
    );
    assert_eq!(
        call_text(&hub, "py__echo", json!({"message": "b"})).await,
        "echo: b"
    );
    let weather = bounded(
        10,
        "weather",
        hub.call_tool("weather__get_weather", json!({"city": "Shenzhen"})),
    )
    .await
    .expect("weather");
    assert!(text(&weather).contains("Shenzhen"), "{weather:?}");
    assert_eq!(
        call_text(&hub, "fast__add", json!({"a": 2, "b": 3})).await,
        "5"
    );
    bounded(20, "close", hub.close()).await;
}
