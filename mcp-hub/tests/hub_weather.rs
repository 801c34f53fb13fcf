//! The hub over real servers: weather-server (always, also over Streamable HTTP and HTTP+SSE),
//! a misconfigured entry that fails alone and a disabled one. A server whose tool list changes,
//! followed by the hub and its proxy, is in mcp-cli's `tests/proxy.rs`.

#[path = "../../mcp-client/tests/common/mod.rs"]
mod common;
#[path = "../../mcp-client/tests/interop/hub_support.rs"]
mod hub_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::bounded;
use hub_support::{broken_entry, weather_entry};
use mcp_hub::{
    approver, Decision, ErrorKind, ExportFormat, Hub, HubConfig, HubError, HubOptions,
    ServerStatus, Shaping, Variables,
};
use serde_json::json;

fn config(servers: serde_json::Value) -> HubConfig {
    let text = json!({ "mcpServers": servers, "otherKey": 1 }).to_string();
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

#[tokio::test]
async fn weather_and_a_broken_server_and_a_disabled_one() {
    let mut disabled = weather_entry();
    disabled["disabled"] = json!(true);
    let hub = bounded(
        60,
        "connect",
        Hub::connect(
            config(
                json!({ "weather": weather_entry(), "broken": broken_entry(), "off": disabled }),
            ),
            HubOptions::default(),
        ),
    )
    .await;
    let servers = hub.servers();
    assert_eq!(servers.len(), 3);
    assert_eq!(servers[0].status, ServerStatus::Connected);
    assert!(servers[0].protocol_version.is_some());
    match &servers[1].status {
        ServerStatus::Failed(reason) => {
            assert!(reason.contains("mcp-server-that-is-not-there"), "{reason}")
        }
        other => panic!("broken server is {other:?}"),
    }
    assert_eq!(servers[2].status, ServerStatus::Disabled);

    let tools = hub.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.exposed.as_str()).collect();
    assert!(names.contains(&"weather__get_weather"), "{names:?}");
    assert!(names.contains(&"weather__get_forecast"), "{names:?}");
    assert!(hub.collisions().is_empty());

    let result = bounded(
        20,
        "call",
        hub.call_tool("weather__get_weather", json!({"city": "Shenzhen"})),
    )
    .await
    .expect("call");
    assert!(
        text(&result).contains("Shenzhen: thunderstorms, 34.3 °C"),
        "{result:?}"
    );
    // A bare name routes when unique.
    let bare = hub
        .call_tool("get_weather", json!({"city": "Shenzhen"}))
        .await
        .expect("bare call");
    assert_eq!(text(&bare), text(&result));

    let unknown = hub.call_tool("broken__anything", json!({})).await;
    assert!(
        matches!(unknown, Err(HubError::UnknownTool { .. })),
        "{unknown:?}"
    );
    let not_connected = hub.ping("broken").await;
    assert_eq!(
        not_connected.err().map(|e| e.kind()),
        Some(ErrorKind::Connection)
    );
    hub.ping("weather").await.expect("ping");

    assert!(!hub.resources().is_empty());
    assert!(!hub.prompts().is_empty());
    let block = hub.instructions_block();
    assert!(block.contains("server=\"weather\""), "{block}");

    let openai = hub.export(ExportFormat::OpenAi);
    assert_eq!(openai[0]["type"], "function");
    let gemini = hub.export(ExportFormat::Gemini);
    assert!(gemini["functionDeclarations"]
        .as_array()
        .is_some_and(|a| !a.is_empty()));
    bounded(20, "close", hub.close()).await;
}

#[tokio::test]
async fn approval_runs_auto_approved_tools_and_denies_others() {
    let asked = Arc::new(AtomicUsize::new(0));
    let seen = asked.clone();
    let options = HubOptions::default().with_approver(approver(move |request| {
        seen.fetch_add(1, Ordering::SeqCst);
        async move {
            if request.tool == "get_forecast" {
                Decision::Deny("the user said no".into())
            } else {
                Decision::Allow
            }
        }
    }));
    let hub = bounded(
        60,
        "connect",
        Hub::connect(config(json!({ "weather": weather_entry() })), options),
    )
    .await;
    hub.call_tool("weather__get_weather", json!({"city": "Shenzhen"}))
        .await
        .expect("auto-approved");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "autoApprove skips the approver"
    );
    let denied = hub
        .call_tool("weather__get_forecast", json!({"city": "Shenzhen"}))
        .await;
    match denied {
        Err(e @ HubError::Denied { .. }) => assert_eq!(e.kind(), ErrorKind::Denied),
        other => panic!("expected a denial, got {other:?}"),
    }
    let for_model = hub
        .call_tool_for_model("weather__get_forecast", json!({"city": "Shenzhen"}))
        .await;
    assert!(for_model.is_error());
    assert!(text(&for_model).contains("[denied]"), "{for_model:?}");
    assert!(text(&for_model).contains("the user said no"));
    let cities = hub
        .call_tool("weather__list_cities", json!({}))
        .await
        .expect("allowed by the approver");
    assert!(!cities.is_error());
    assert_eq!(asked.load(Ordering::SeqCst), 3);
    hub.close().await;
}

#[tokio::test]
async fn shaping_caps_results_and_descriptions() {
    let shaping = Shaping {
        max_chars: Some(20),
        include_structured: false,
        include_meta: false,
        max_description_chars: Some(10),
    };
    let hub = bounded(
        60,
        "connect",
        Hub::connect(
            config(json!({ "weather": weather_entry() })),
            HubOptions::default()
                .with_shaping(shaping)
                .with_result_hook(|server, tool, mut result| {
                    result
                        .content
                        .push(mcp_proto::schema::Content::text(format!(
                            "hook saw {server}/{tool}"
                        )));
                    result
                }),
        ),
    )
    .await;
    assert!(hub
        .tools()
        .iter()
        .all(|t| t.description.chars().count() <= 10));
    let result = hub
        .call_tool("weather__get_weather", json!({"city": "Shenzhen"}))
        .await
        .expect("call");
    assert!(result.structured_content.is_none());
    assert!(text(&result).contains("characters cut"), "{result:?}");
    assert!(
        text(&result).ends_with("hook saw weather/get_weather"),
        "{result:?}"
    );
    hub.close().await;
}

#[tokio::test]
async fn reload_restarts_only_changed_servers() {
    let hub = bounded(
        60,
        "connect",
        Hub::connect(
            config(json!({ "weather": weather_entry(), "broken": broken_entry() })),
            HubOptions::default(),
        ),
    )
    .await;
    let pid = hub.client("weather").expect("client").pid();
    assert!(pid.is_some());

    // Only autoApprove changes for weather: it keeps running; broken goes; a second weather comes.
    let mut weather = weather_entry();
    weather["autoApprove"] = json!(["get_weather", "get_forecast"]);
    let report = bounded(
        60,
        "reload",
        hub.reload(config(
            json!({ "weather": weather, "weather2": weather_entry() }),
        )),
    )
    .await;
    assert_eq!(report.kept, ["weather"]);
    assert_eq!(report.added, ["weather2"]);
    assert_eq!(report.removed, ["broken"]);
    assert!(report.restarted.is_empty());
    assert_eq!(hub.client("weather").expect("client").pid(), pid);
    assert_eq!(
        hub.server("weather")
            .expect("weather")
            .config
            .auto_approve
            .len(),
        2
    );
    assert!(hub
        .tools()
        .iter()
        .any(|t| t.exposed == "weather2__get_weather"));

    // A changed argument restarts it.
    let mut changed = weather_entry();
    changed["args"] = json!(["--clock", "2026-08-03T07:00:00Z"]);
    let report = bounded(
        60,
        "reload",
        hub.reload(config(
            json!({ "weather": changed, "weather2": weather_entry() }),
        )),
    )
    .await;
    assert_eq!(report.restarted, ["weather"]);
    assert_eq!(report.kept, ["weather2"]);
    assert_ne!(hub.client("weather").expect("client").pid(), pid);
    hub.close().await;
}

#[tokio::test]
async fn weather_server_over_streamable_http_and_http_sse() {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(hub_support::weather_server())
        .args(["--http", "127.0.0.1:0", "--clock", hub_support::CLOCK])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start weather-server --http");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    let addr = bounded(30, "address", async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(rest) = line.split("Streamable HTTP at http://").nth(1) {
                return rest.split('/').next().unwrap_or_default().to_owned();
            }
        }
        panic!("weather-server did not print its address");
    })
    .await;
    let hub = bounded(
        30,
        "connect",
        Hub::connect(
            config(json!({
                "w-http": { "type": "streamableHttp", "url": format!("http://{addr}/mcp") },
                "w-sse": { "type": "sse", "url": format!("http://{addr}/sse") },
            })),
            HubOptions::default(),
        ),
    )
    .await;
    for s in hub.servers() {
        assert_eq!(s.status, ServerStatus::Connected, "{}", s.config.name);
    }
    for name in ["w-http__get_weather", "w-sse__get_weather"] {
        let result = bounded(20, name, hub.call_tool(name, json!({"city": "Shenzhen"})))
            .await
            .expect(name);
        assert!(
            text(&result).contains("Shenzhen: thunderstorms, 34.3 °C"),
            "{name}: {result:?}"
        );
    }
    bounded(20, "close", hub.close()).await;
    let _ = child.start_kill();
    let _ = child.wait().await;
}
