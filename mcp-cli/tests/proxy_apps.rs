//! MCP Apps through `mcp proxy`, both eras of the proxy's client, weather-server behind it: the
//! extension declared, each tool's `_meta.ui.resourceUri` naming the proxy's URI of its view,
//! the view listed and read under that URI, the view's own calls (raw names, app-only aliases)
//! routed to its server; two servers' views kept apart. Then `mcp tools` and `mcp export` over
//! a config whose server is the proxy: app tools marked, app-only ones left out of the export.
//! Last, the weather app in Chromium inside the official `AppBridge` host, with the proxy over
//! Streamable HTTP between the host and weather-server (see weather-server's `apps_browser.rs`).

mod common;

#[path = "../../weather-server/tests/interop/apps_peers.rs"]
mod apps_peers;

use std::path::Path;

use apps_peers::{apps_driver, apps_peers, screenshots};
use common::{
    bounded, mcp_bin, mcp_in, proxy_stdio, run, scratch, spawn_http_proxy, stop_proxy,
    weather_entry, write_config,
};
use mcp_client::{Client, ClientOptions, Negotiation};
use mcp_proto::schema::apps_extension::{UiToolMeta, APPS_EXTENSION, APP_MIME_TYPE};
use mcp_proto::ProtocolVersion;
use serde_json::{json, Value};

const VIEW: &str = "ui://weather/weather/app.html";

async fn proxy_client(home: &Path, config: &Path, negotiation: Negotiation) -> Client {
    let stdio = proxy_stdio(home, config);
    let options = ClientOptions::new()
        .with_name("proxy")
        .with_negotiation(negotiation)
        .with_extension(APPS_EXTENSION, json!({"mimeTypes": [APP_MIME_TYPE]}));
    bounded(60, "connect", Client::spawn_stdio(stdio, options))
        .await
        .expect("the proxy answers")
}

fn structured(result: &mcp_proto::schema::CallToolResult) -> Value {
    result.structured_content.clone().unwrap_or(Value::Null)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_and_their_calls_pass_through_in_both_eras() {
    let home = scratch("proxy-apps");
    let config = write_config(&home, json!({ "weather": weather_entry() }));
    for negotiation in [
        Negotiation::Legacy,
        Negotiation::Pin(ProtocolVersion::V2026_07_28),
    ] {
        let client = proxy_client(&home, &config, negotiation).await;
        let caps = client.server_capabilities();
        let declared = caps.extensions.as_ref().and_then(|e| e.get(APPS_EXTENSION));
        assert!(declared.is_some(), "{negotiation}: {caps:?}");

        let tools = bounded(10, "tools", client.list_tools())
            .await
            .expect("tools");
        let named = |name: &str| tools.iter().find(|t| t.name == name).cloned();
        for tool in ["weather__get_weather", "weather__get_forecast"] {
            let ui = UiToolMeta::of(&named(tool).expect(tool)).expect("_meta.ui");
            assert_eq!(
                ui.resource_uri.as_deref(),
                Some(VIEW),
                "{negotiation} {tool}"
            );
            assert!(!ui.app_only());
        }
        // The view calls its server's tools by their own names: app-only aliases.
        for alias in ["list_cities", "get_forecast", "get_weather"] {
            let ui = UiToolMeta::of(&named(alias).expect(alias)).expect("alias _meta.ui");
            assert!(ui.app_only(), "{alias} is for views only");
        }
        assert_eq!(
            UiToolMeta::of(&named("get_forecast").unwrap())
                .unwrap()
                .resource_uri
                .as_deref(),
            Some(VIEW)
        );

        let resources = bounded(10, "resources", client.list_resources())
            .await
            .expect("resources");
        let view = resources.iter().find(|r| r.uri == VIEW).expect("the view");
        assert_eq!(view.mime_type.as_deref(), Some(APP_MIME_TYPE));
        assert!(resources.iter().any(|r| r.uri == "weather://cities"));
        let read = bounded(10, "read", client.read_resource(VIEW))
            .await
            .expect("read the view");
        let contents = serde_json::to_value(&read.contents[0]).unwrap();
        assert_eq!(contents["uri"], VIEW);
        assert_eq!(contents["mimeType"], APP_MIME_TYPE);
        assert!(contents["text"]
            .as_str()
            .unwrap()
            .starts_with("<!doctype html>"));

        // A view's calls, as a host forwards them, reach weather-server.
        let cities = bounded(
            10,
            "list_cities",
            client.call_tool("list_cities", json!({})),
        )
        .await
        .expect("list_cities");
        assert!(structured(&cities)["cities"]
            .as_array()
            .is_some_and(|c| c.len() > 50));
        let forecast = bounded(
            10,
            "get_forecast",
            client.call_tool("get_forecast", json!({"city": "Lisbon", "days": 2})),
        )
        .await
        .expect("get_forecast");
        assert_eq!(structured(&forecast)["city"], "Lisbon", "{forecast:?}");
        bounded(10, "close", client.close()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_views_stay_apart() {
    let home = scratch("proxy-apps-two");
    let mut legacy = weather_entry();
    legacy["protocol"] = json!("legacy");
    let config = write_config(
        &home,
        json!({ "weather": weather_entry(), "north": legacy }),
    );
    let client = proxy_client(&home, &config, Negotiation::Auto).await;
    let tools = bounded(10, "tools", client.list_tools())
        .await
        .expect("tools");
    let north = tools
        .iter()
        .find(|t| t.name == "north__get_weather")
        .unwrap();
    assert_eq!(
        UiToolMeta::of(north).unwrap().resource_uri.as_deref(),
        Some("ui://north/weather/app.html")
    );
    // Both servers have get_forecast: no alias, the proxy cannot tell whose view asks.
    assert!(!tools.iter().any(|t| t.name == "get_forecast"));
    for uri in [VIEW, "ui://north/weather/app.html"] {
        let read = bounded(10, "read", client.read_resource(uri))
            .await
            .expect(uri);
        assert_eq!(read.contents[0].uri(), uri);
    }
    bounded(10, "close", client.close()).await;
}

#[test]
fn tools_marks_app_tools_and_export_leaves_app_only_ones_out() {
    let home = scratch("proxy-apps-cli");
    std::fs::create_dir_all(home.join("inner")).expect("mkdir");
    let inner = write_config(&home.join("inner"), json!({ "weather": weather_entry() }));
    let outer = write_config(
        &home,
        json!({"hub": {"command": mcp_bin().to_string_lossy(),
                        "args": ["--config", inner.to_string_lossy(), "proxy"]}}),
    );
    let config = outer.to_string_lossy().into_owned();
    let tools = run(mcp_in(&home, &["--config", &config, "tools"]), 60);
    assert_eq!(tools.code, 0, "{tools:?}");
    let line = |name: &str| {
        tools
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        line("hub__weather__get_weather").contains("[app] Current weather"),
        "{tools:?}"
    );
    assert!(
        line("hub__list_cities").contains("[app only] "),
        "{tools:?}"
    );
    assert!(
        !line("hub__weather__list_cities").contains("[app"),
        "{tools:?}"
    );

    let export = run(
        mcp_in(
            &home,
            &["--config", &config, "export", "--format", "openai"],
        ),
        60,
    );
    assert_eq!(export.code, 0, "{export:?}");
    let exported: Value = serde_json::from_str(&export.stdout).expect("JSON");
    let names: Vec<&str> = exported
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"hub__weather__get_weather"), "{names:?}");
    assert!(
        !names.contains(&"hub__list_cities"),
        "app-only left out: {names:?}"
    );
}

#[test]
fn weather_app_through_the_proxy_in_chromium() {
    let Some((modules, chromium)) = apps_peers() else {
        return;
    };
    let home = scratch("proxy-apps-browser");
    let config = write_config(&home, json!({ "weather": weather_entry() }));
    let (proxy, url) = spawn_http_proxy(&home, &config.to_string_lossy());
    let shots = screenshots("proxy");
    let result = url.map(|url| {
        let mut node = std::process::Command::new("node");
        node.arg(apps_driver())
            .arg(&modules)
            .arg(url)
            .arg(&chromium)
            .arg(&shots)
            .args(["weather__", VIEW]);
        run(node, 90)
    });
    let status = stop_proxy(proxy);
    let result = result.expect("the proxy printed its address");
    assert!(
        result.code == 0 && result.stdout.starts_with("OK weather app"),
        "{result:?}"
    );
    eprintln!("{}", result.stdout.trim());
    assert!(status.is_some(), "the proxy did not stop");
}
