//! `mcp proxy` driven by the official TypeScript SDK client, over stdio and over HTTP, with
//! weather-server and server-everything behind it.

mod common;

use std::path::Path;
use std::process::Command;

use common::{
    everything_entry, mcp_bin, node_modules, run, scratch, spawn_http_proxy, stop_proxy,
    weather_entry, write_config,
};
use serde_json::{json, Value};

fn client_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop/hub_proxy_client.cjs")
        .to_string_lossy()
        .into_owned()
}

fn check(output: &common::Run) {
    assert_eq!(output.code, 0, "{output:?}");
    let line = output.stdout.lines().last().unwrap_or_default();
    let seen: Value = serde_json::from_str(line).expect("client printed JSON");
    assert_eq!(seen["server"], "mcp-hub");
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    assert!(tools.contains(&"weather__get_weather"), "{tools:?}");
    assert!(tools.contains(&"everything__echo"), "{tools:?}");
    assert!(
        seen["weather"]
            .as_str()
            .is_some_and(|t| t.starts_with("Shenzhen: thunderstorms, 34.3 °C")),
        "{seen}"
    );
    assert!(
        seen["echo"]
            .as_str()
            .is_some_and(|t| t.contains("via proxy")),
        "{seen}"
    );
    let resources = seen["resources"].to_string();
    assert!(resources.contains("weather://cities"), "{resources}");
    assert!(
        resources.contains("demo://resource/static/document/features.md"),
        "{resources}"
    );
    let prompts = seen["prompts"].to_string();
    assert!(
        prompts.contains("weather__weather_report") && prompts.contains("everything__args-prompt"),
        "{prompts}"
    );
    assert!(
        seen["readLength"].as_u64().is_some_and(|n| n > 100),
        "{seen}"
    );
}

fn config(home: &Path, modules: &Path) -> String {
    write_config(
        home,
        json!({ "weather": weather_entry(), "everything": everything_entry(modules) }),
    )
    .to_string_lossy()
    .into_owned()
}

#[test]
fn proxy_over_stdio_with_the_typescript_client() {
    let Some(modules) = node_modules() else {
        return;
    };
    let home = scratch("proxy-stdio");
    let config = config(&home, &modules);
    let mut node = Command::new("node");
    node.arg(client_script())
        .arg("stdio")
        .arg(mcp_bin())
        .arg(&config)
        .env("MCP_INTEROP_NODE_MODULES", &modules)
        .current_dir(&home);
    check(&run(node, 120));
}

#[test]
fn proxy_over_http_with_the_typescript_client() {
    let Some(modules) = node_modules() else {
        return;
    };
    let home = scratch("proxy-http");
    let config = config(&home, &modules);
    let (proxy, url) = spawn_http_proxy(&home, &config);
    let result = url.map(|url| {
        let mut node = Command::new("node");
        node.arg(client_script())
            .arg("http")
            .arg(url)
            .env("MCP_INTEROP_NODE_MODULES", &modules);
        run(node, 120)
    });
    let status = stop_proxy(proxy);
    check(&result.expect("the proxy printed its address"));
    // Every `mcp` command interrupted by a signal exits 130 after closing its servers.
    assert!(
        status.is_some_and(|s| s.code() == Some(130)),
        "the proxy did not stop cleanly: {status:?}"
    );
}
