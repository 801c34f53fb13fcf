//! `mcp proxy` bridges protocol eras both ways: a 2026-07-28 client in front of a 2025-era
//! server (weather-server told `"protocol": "legacy"`), and a 2025-era client in front of a
//! 2026-07-28-only server (the TypeScript SDK v2 fixture, which refuses `initialize`). The
//! clients are ours, pinned to one era each; `mcp servers` shows the era of each server.
//! A server's requests for input (elicitation, sampling, roots) reach the proxy's own client in
//! that client's era, whichever era the server speaks.

mod common;

use std::path::Path;

use common::{
    bounded, everything_entry, mcp_in, node_modules, proxy_stdio, run, scratch, weather_entry,
    write_config,
};
use mcp_client::{Client, ClientOptions, Era, Negotiation};
use mcp_proto::ProtocolVersion;
use serde_json::json;

/// The TypeScript SDK v2 fixture in its modern-only stdio mode.
fn modern_ts_entry(modules: &Path) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp-client/tests/interop/modern_ts_server.cjs");
    json!({
        "command": "node",
        "args": [script.to_string_lossy(), "stdio-modern"],
        "env": {"MCP_INTEROP_NODE_MODULES": modules.to_string_lossy()}
    })
}

/// Our client on `mcp --config CONFIG proxy` over stdio, with `negotiation`.
async fn proxy_client(home: &Path, config: &Path, negotiation: Negotiation) -> Client {
    let stdio = proxy_stdio(home, config);
    let options = ClientOptions::new()
        .with_name("proxy")
        .with_negotiation(negotiation)
        .with_elicitation(|params| async move {
            let mut content = serde_json::Map::new();
            if params
                .message()
                .contains("several cities called Springfield")
            {
                // weather-server's question (a 2025 server-to-client request upstream).
                content.insert("city".into(), json!("Springfield, Missouri"));
            } else {
                assert!(params.message().contains("Really"), "{params:?}");
                content.insert("confirm".into(), json!(true));
            }
            Ok(mcp_proto::schema::ElicitResult::accept(Some(content)))
        })
        .with_sampling(|params| async move {
            let asked = format!("{:?}", params.messages);
            Ok(mcp_proto::schema::CreateMessageResult::text(
                "test-model",
                format!("sampled: {}", asked.contains("the proxy's question")),
            ))
        })
        .with_roots(|| async {
            Ok(mcp_proto::schema::ListRootsResult::new(vec![
                mcp_proto::schema::Root::new("file:///proxy/root", Some("proxied".into())),
            ]))
        });
    bounded(
        60,
        "connect to the proxy",
        Client::spawn_stdio(stdio, options),
    )
    .await
    .expect("the proxy answers")
}

/// `name(arguments)` through the proxy, within `secs`.
async fn call(
    client: &Client,
    secs: u64,
    name: &str,
    arguments: serde_json::Value,
) -> mcp_proto::schema::CallToolResult {
    bounded(secs, name, client.call_tool(name, arguments))
        .await
        .expect("call")
}

fn text(result: &mcp_proto::schema::CallToolResult) -> String {
    result.content[0].as_text().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_client_in_front_of_a_2025_server() {
    let home = scratch("proxy-modern-client");
    let mut weather = weather_entry();
    weather["protocol"] = json!("legacy");
    let config = write_config(&home, json!({ "weather": weather }));
    let client = proxy_client(
        &home,
        &config,
        Negotiation::Pin(ProtocolVersion::V2026_07_28),
    )
    .await;
    assert_eq!(client.era(), Era::Modern);
    let tools = bounded(10, "tools", client.list_tools())
        .await
        .expect("tools");
    assert!(tools.iter().any(|t| t.name == "weather__get_weather"));
    let result = call(
        &client,
        10,
        "weather__get_weather",
        json!({"city": "Shenzhen"}),
    )
    .await;
    assert!(text(&result).starts_with("Shenzhen:"), "{result:?}");
    bounded(10, "close", client.close()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_client_in_front_of_a_modern_server() {
    let Some(modules) = node_modules() else {
        return;
    };
    let home = scratch("proxy-legacy-client");
    let config = write_config(&home, json!({ "ts": modern_ts_entry(&modules) }));

    let servers = run(
        mcp_in(&home, &["--config", &config.to_string_lossy(), "servers"]),
        60,
    );
    assert_eq!(servers.code, 0, "{servers:?}");
    assert!(
        servers.stdout.contains("modern 2026-07-28"),
        "{}",
        servers.stdout
    );

    let client = proxy_client(&home, &config, Negotiation::Legacy).await;
    assert_eq!(client.era(), Era::Legacy);
    let result = call(&client, 10, "ts__echo", json!({"message": "through"})).await;
    assert_eq!(text(&result), "echo: through");
    // The upstream's 2026-07-28 head stays upstream: a 2025 answer has no `resultType` and no
    // server's info in its `_meta`.
    let no_head = |meta: &Option<serde_json::Map<String, serde_json::Value>>,
                   extra: &serde_json::Map<String, serde_json::Value>| {
        !extra.contains_key("resultType")
            && meta
                .as_ref()
                .is_none_or(|m| !m.contains_key("io.modelcontextprotocol/serverInfo"))
    };
    assert!(no_head(&result.meta, &result.extra), "{result:?}");
    let prompt = bounded(
        10,
        "prompt",
        client.get_prompt("ts__greet", [("name", "Bo")]),
    )
    .await
    .expect("prompt");
    assert!(format!("{prompt:?}").contains("Hello, Bo!"), "{prompt:?}");
    assert!(no_head(&prompt.meta, &prompt.extra), "{prompt:?}");
    bounded(10, "close", client.close()).await;
}

/// A server's `input_required` (the TypeScript fixture's `confirm`) reaches the proxy's own
/// client in that client's era: as `elicitation/create` to a 2025 client, as `input_required`
/// to a 2026-07-28 one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_crosses_the_proxy_in_either_era() {
    let Some(modules) = node_modules() else {
        return;
    };
    let home = scratch("proxy-elicit");
    let config = write_config(&home, json!({ "ts": modern_ts_entry(&modules) }));
    for negotiation in [
        Negotiation::Legacy,
        Negotiation::Pin(ProtocolVersion::V2026_07_28),
    ] {
        let client = proxy_client(&home, &config, negotiation).await;
        let result = call(&client, 20, "ts__confirm", json!({"action": "ship"})).await;
        assert_eq!(text(&result), "ship: done", "{negotiation}: {result:?}");
        bounded(10, "close", client.close()).await;
    }
}

/// A 2025-era server's requests for input are server-to-client requests that nothing ties to the
/// call they serve (over stdio): the proxy puts them to the client whose call is in flight to
/// that server, as `elicitation/create` / `sampling/createMessage` / `roots/list` to a 2025
/// client and as `input_required` rounds to a 2026-07-28 one. weather-server (told to speak
/// 2025) asks which Springfield; server-everything samples and lists roots.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_servers_requests_for_input_cross_the_proxy_in_either_era() {
    let home = scratch("proxy-legacy-input");
    let mut weather = weather_entry();
    weather["protocol"] = json!("legacy");
    let mut servers = json!({ "weather": weather });
    let modules = node_modules();
    if let Some(modules) = &modules {
        let mut everything = everything_entry(modules);
        everything["protocol"] = json!("legacy");
        servers["everything"] = everything;
    }
    let config = write_config(&home, servers);
    for negotiation in [
        Negotiation::Legacy,
        Negotiation::Pin(ProtocolVersion::V2026_07_28),
    ] {
        let client = proxy_client(&home, &config, negotiation).await;
        let result = call(
            &client,
            20,
            "weather__get_weather",
            json!({"city": "Springfield"}),
        )
        .await;
        assert!(
            text(&result).starts_with("Springfield, Missouri:"),
            "{negotiation}: {result:?}"
        );
        if modules.is_some() {
            let sampled = call(
                &client,
                20,
                "everything__trigger-sampling-request",
                json!({"prompt": "the proxy's question", "maxTokens": 10}),
            )
            .await;
            assert!(
                format!("{sampled:?}").contains("sampled: true"),
                "{negotiation}: {sampled:?}"
            );
            let roots = call(&client, 20, "everything__get-roots-list", json!({})).await;
            assert!(
                format!("{roots:?}").contains("file:///proxy/root"),
                "{negotiation}: {roots:?}"
            );
        }
        bounded(10, "close", client.close()).await;
    }
}
