//! One hub over several real servers at once: weather-server, server-everything,
//! server-filesystem and a FastMCP server, plus a misconfigured entry that fails alone.

#[path = "../../mcp-client/tests/common/mod.rs"]
mod common;
#[path = "../../mcp-client/tests/interop/hub_support.rs"]
mod hub_support;

use common::{bounded, interop_python, node_modules, temp_dir};
use hub_support::{broken_entry, everything_entry, fastmcp_entry, filesystem_entry, weather_entry};
use mcp_hub::{ErrorKind, Hub, HubConfig, HubOptions, ServerStatus, Variables};
use serde_json::json;

fn text(result: &mcp_proto::schema::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn hub_over_several_servers_one_of_them_broken() {
    let (Some(modules), Some(python)) = (node_modules(), interop_python()) else {
        return;
    };
    let dir = temp_dir("hub-fs").canonicalize().expect("dir");
    std::fs::write(dir.join("note.txt"), "from the hub test\n").expect("write");
    let servers = json!({
        "weather": weather_entry(),
        "everything": everything_entry(&modules),
        "fs": filesystem_entry(&modules, &dir),
        "py": fastmcp_entry(&python),
        "py-slow": { "command": python.to_string_lossy(), "args": [
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-client/tests/fixtures/fastmcp_server.py").to_string_lossy()
        ], "timeout": 1 },
        "broken": broken_entry(),
    });
    let text_config = json!({ "mcpServers": servers }).to_string();
    let config = HubConfig::parse(&text_config, "hub.json", &Variables::default()).expect("config");
    let hub = bounded(90, "connect", Hub::connect(config, HubOptions::default())).await;
    for server in hub.servers() {
        let expect_ok = server.config.name != "broken";
        assert_eq!(
            server.status == ServerStatus::Connected,
            expect_ok,
            "{}: {:?}",
            server.config.name,
            server.status
        );
    }
    let names: Vec<String> = hub.tools().into_iter().map(|t| t.exposed).collect();
    for expected in [
        "weather__get_weather",
        "everything__echo",
        "fs__read_text_file",
        "py__add",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} missing: {names:?}"
        );
    }

    let (w, e, f, p) = tokio::join!(
        hub.call_tool("weather__get_weather", json!({"city": "Shenzhen"})),
        hub.call_tool("everything__echo", json!({"message": "hi hub"})),
        hub.call_tool(
            "fs__read_text_file",
            json!({"path": dir.join("note.txt").to_string_lossy()})
        ),
        hub.call_tool("py__add", json!({"a": 2, "b": 40})),
    );
    assert!(text(&w.expect("weather")).contains("Shenzhen: thunderstorms"));
    assert!(text(&e.expect("everything")).contains("hi hub"));
    assert_eq!(text(&f.expect("fs")), "from the hub test\n");
    assert_eq!(text(&p.expect("py")), "42");

    // The call runs under its server's timeout (1 s for py-slow) and fails as a timeout.
    let slow = bounded(
        20,
        "slow",
        hub.call_tool("py-slow__slow", json!({"steps": 60})),
    )
    .await;
    match slow {
        Err(e) => assert_eq!(e.kind(), ErrorKind::Timeout, "{e}"),
        Ok(r) => panic!("expected a timeout, got {r:?}"),
    }
    let quick = hub
        .call_tool("py__slow", json!({"steps": 2}))
        .await
        .expect("quick");
    assert_eq!(text(&quick), "done after 2 steps");

    assert!(hub.resources().iter().any(|r| r.server == "py"));
    assert!(hub.resource_templates().iter().any(|t| t.server == "py"));
    assert!(hub.prompts().iter().any(|p| p.exposed == "py__review"));
    let block = hub.instructions_block();
    assert!(block.contains("server=\"py\""), "{block}");
    bounded(30, "close", hub.close()).await;
}
