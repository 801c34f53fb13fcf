//! Tool selection from the command line: `mcp proxy --tool-search` driven by the official
//! TypeScript SDK client (two tools offered; search, then call through `call_tool`; a filtered
//! tool refused), `mcp search`, `mcp tools` with a filter, and `mcp export --format
//! openai-strict`.

mod common;

use std::path::Path;
use std::process::Command;

use common::{
    everything_entry, mcp_bin, mcp_in, node_modules, run, scratch, weather_entry, write_config,
};
use serde_json::{json, Value};

/// weather-server with `list_cities` excluded, and server-everything.
fn config(home: &Path, modules: &Path) -> String {
    let mut weather = weather_entry();
    weather["tools"] = json!({"exclude": ["list_*"]});
    write_config(
        home,
        json!({ "weather": weather, "everything": everything_entry(modules) }),
    )
    .to_string_lossy()
    .into_owned()
}

#[test]
fn proxy_tool_search_with_the_typescript_client() {
    let Some(modules) = node_modules() else {
        return;
    };
    let home = scratch("tool-search");
    let config = config(&home, &modules);
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/hub_tool_search_client.cjs");
    let mut node = Command::new("node");
    node.arg(script)
        .arg(mcp_bin())
        .arg(&config)
        .env("MCP_INTEROP_NODE_MODULES", &modules)
        .current_dir(&home);
    let output = run(node, 120);
    assert_eq!(output.code, 0, "{output:?}");
    let line = output.stdout.lines().last().unwrap_or_default();
    let seen: Value = serde_json::from_str(line).expect("client printed JSON");
    assert_eq!(
        seen["tools"],
        json!(["search_tools", "call_tool"]),
        "{seen}"
    );
    assert_eq!(seen["found"][0], "weather__get_forecast", "{seen}");
    assert!(
        seen["foundSchema"]["properties"]["city"].is_object(),
        "{seen}"
    );
    assert_eq!(seen["callError"], false, "{seen}");
    assert!(
        seen["call"]
            .as_str()
            .is_some_and(|t| t.contains("Shenzhen")),
        "{seen}"
    );
    assert_eq!(seen["filteredError"], true, "{seen}");
    assert!(
        seen["filtered"]
            .as_str()
            .is_some_and(|t| t.contains("weather__list_cities")),
        "{seen}"
    );
}

#[test]
fn search_tools_and_strict_export_from_the_command_line() {
    let Some(modules) = node_modules() else {
        return;
    };
    let home = scratch("search-cli");
    let config = config(&home, &modules);

    let found = run(
        mcp_in(
            &home,
            &[
                "--config",
                &config,
                "search",
                "add two numbers",
                "--limit",
                "2",
            ],
        ),
        120,
    );
    assert_eq!(found.code, 0, "{found:?}");
    let first = found.stdout.lines().next().unwrap_or_default();
    assert!(first.starts_with("everything__get-sum"), "{found:?}");

    let listed = run(
        mcp_in(&home, &["--config", &config, "tools", "weather"]),
        120,
    );
    assert_eq!(listed.code, 0, "{listed:?}");
    assert!(listed.stdout.contains("weather__get_weather"), "{listed:?}");
    assert!(!listed.stdout.contains("list_cities"), "{listed:?}");

    let exported = run(
        mcp_in(
            &home,
            &["--config", &config, "export", "--format", "openai-strict"],
        ),
        120,
    );
    assert_eq!(exported.code, 0, "{exported:?}");
    let tools: Value = serde_json::from_str(&exported.stdout).expect("JSON");
    let forecast = tools
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["name"] == "weather__get_forecast")
        .expect("forecast exported");
    assert_eq!(forecast["strict"], true, "{forecast}");
    assert_eq!(
        forecast["parameters"]["additionalProperties"], false,
        "{forecast}"
    );
    let properties = forecast["parameters"]["properties"]
        .as_object()
        .expect("properties");
    let required = forecast["parameters"]["required"]
        .as_array()
        .expect("required");
    assert_eq!(required.len(), properties.len(), "{forecast}");
}
