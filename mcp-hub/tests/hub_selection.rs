//! Tool selection and presentation over real servers: per-server include/exclude globs,
//! overrides of name, title and description, other clients' keys (`disabledTools`), result
//! caps with their marker, tool search mode over filtered tools, a reload that changes only a
//! filter, and strict-mode `null`s taken out before a FastMCP server sees them.

#[path = "../../mcp-client/tests/common/mod.rs"]
mod common;
#[path = "../../mcp-client/tests/interop/hub_support.rs"]
mod hub_support;

use common::{bounded, fixture, interop_python};
use hub_support::weather_entry;
use mcp_hub::{
    truncation_marker, ErrorKind, Hub, HubConfig, HubError, HubOptions, ServerStatus, Variables,
    CALL_TOOL, SEARCH_TOOLS,
};
use serde_json::{json, Value};

fn config(servers: Value) -> HubConfig {
    let text = json!({ "mcpServers": servers }).to_string();
    HubConfig::parse(&text, "test.json", &Variables::default()).expect("config")
}

fn text(result: &mcp_proto::schema::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<Vec<_>>()
        .join("\n")
}

fn with(mut entry: Value, extra: Value) -> Value {
    if let (Value::Object(e), Value::Object(x)) = (&mut entry, extra) {
        e.extend(x);
    }
    entry
}

fn servers() -> Value {
    json!({
        "weather": with(weather_entry(), json!({
            "tools": {
                "include": ["get_*", "list_*"],
                "exclude": ["*forecast*"],
                "overrides": {"get_weather": {
                    "name": "weather_now", "title": "Weather now", "description": "The weather now."
                }}
            },
            "resultLimits": {"text": 40}
        })),
        "plain": with(weather_entry(), json!({
            "disabledTools": ["watch_weather", "climate_report", "no_such_tool"]
        }))
    })
}

#[tokio::test]
async fn filters_overrides_and_result_caps() {
    let hub = bounded(
        60,
        "connect",
        Hub::connect(config(servers()), HubOptions::default()),
    )
    .await;
    for s in hub.servers() {
        assert_eq!(s.status, ServerStatus::Connected, "{}", s.config.name);
    }
    let names: Vec<String> = hub.tools().into_iter().map(|t| t.exposed).collect();
    assert_eq!(
        names,
        [
            "weather__weather_now",
            "weather__list_cities",
            "plain__get_weather",
            "plain__get_forecast",
            "plain__list_cities"
        ]
    );
    assert_eq!(
        hub.filter_warnings(),
        ["server \"plain\": tool filter entry \"no_such_tool\" matches none of its tools"]
    );
    let renamed = hub.resolve_tool("weather__weather_now").expect("renamed");
    assert_eq!(
        renamed.tool.name, "get_weather",
        "calls go out under the raw name"
    );
    assert_eq!(renamed.tool.title.as_deref(), Some("Weather now"));
    assert_eq!(renamed.description, "The weather now.");

    // Filtered-out tools are not callable, under any name.
    for name in [
        "weather__get_forecast",
        "weather__get_weather",
        "weather__watch_weather",
        "plain__climate_report",
        "watch_weather",
    ] {
        match hub.call_tool(name, json!({"city": "Paris"})).await {
            Err(HubError::UnknownTool { .. }) => {}
            other => panic!("{name}: expected unknown tool, got {other:?}"),
        }
        let for_model = hub.call_tool_for_model(name, json!({})).await;
        assert!(for_model.is_error(), "{name}");
    }
    // A bare raw name left on one server only resolves there.
    let forecast = hub.resolve_tool("get_forecast").expect("one left");
    assert_eq!(forecast.server, "plain");

    // The cap: the head of the text and "[truncated, N bytes more]", N exact.
    let args = json!({"city": "Shenzhen"});
    let full = hub
        .call_tool("plain__get_weather", args.clone())
        .await
        .expect("full");
    let blocks: Vec<&str> = full.content.iter().filter_map(|c| c.as_text()).collect();
    let total: usize = blocks.iter().map(|b| b.len()).sum();
    let first = blocks[0];
    assert!(first.len() > 40, "{first}");
    let capped = text(
        &hub.call_tool("weather__weather_now", args)
            .await
            .expect("capped"),
    );
    let cut = (0..=40).rev().find(|&i| first.is_char_boundary(i)).unwrap();
    let expected = format!("{}… {}", &first[..cut], truncation_marker(total - cut));
    assert_eq!(capped, expected);

    // Tool search mode sees the filtered set only.
    let search = Hub::connect(
        config(servers()),
        HubOptions::default().with_tool_search(true),
    );
    let search = bounded(60, "connect", search).await;
    let found = search.search_tools("daily forecast for a city", 5);
    assert_eq!(found[0].exposed, "plain__get_forecast", "{found:?}");
    assert!(found.iter().all(|t| t.exposed != "weather__get_forecast"));
    let refused = search
        .call_model_tool(
            CALL_TOOL,
            json!({"name": "weather__get_forecast", "arguments": {"city": "Paris"}}),
        )
        .await;
    assert!(refused.is_error());
    assert!(text(&refused).contains(SEARCH_TOOLS), "{refused:?}");
    assert!(
        text(&refused).starts_with(&format!("[{}]", ErrorKind::NotFound.as_str())),
        "{refused:?}"
    );
    let bad = search
        .call_model_tool(SEARCH_TOOLS, json!({"limit": 3}))
        .await;
    assert!(bad.is_error() && text(&bad).contains("query"), "{bad:?}");
    search.close().await;

    // A reload that changes only the filter keeps the server running and applies it.
    let mut changed = servers();
    changed["weather"]["tools"] = json!({"exclude": ["watch_weather", "climate_report"]});
    let report = hub.reload(config(changed)).await;
    assert!(report.kept.contains(&"weather".to_owned()), "{report:?}");
    assert!(report.restarted.is_empty(), "{report:?}");
    assert!(hub.resolve_tool("weather__get_forecast").is_ok());
    assert!(hub.resolve_tool("weather__weather_now").is_err());
    hub.close().await;
}

/// A strict-mode model sends `null` for an optional parameter; FastMCP (pydantic) would refuse
/// `limit: null`, so the hub takes it out first.
#[tokio::test]
async fn strict_mode_nulls_reach_fastmcp_as_absent() {
    let Some(python) = interop_python() else {
        return;
    };
    let hub = Hub::connect(
        config(json!({"calendar": {
            "command": python.to_string_lossy(),
            "args": [fixture("tool_catalog.py"), "calendar"]
        }})),
        HubOptions::default(),
    );
    let hub = bounded(60, "connect", hub).await;
    let direct = hub
        .client("calendar")
        .expect("client")
        .call_tool("list_event", json!({"limit": null, "cursor": null}))
        .await
        .expect("answered");
    assert!(
        direct.is_error(),
        "FastMCP refuses null for an int: {direct:?}"
    );
    let through_hub = hub
        .call_tool(
            "calendar__list_event",
            json!({"limit": null, "cursor": null}),
        )
        .await
        .expect("answered");
    assert!(!through_hub.is_error(), "{through_hub:?}");
    assert_eq!(text(&through_hub), "list_event done");
    hub.close().await;
}
