//! The proxy in front of a hub follows a server whose tool list changes: the hub refetches that
//! server's tools on `list_changed`, and the proxy's own clients see the new tool and can call it.

mod common;

use std::time::Duration;

use common::bounded;
use mcp_hub::{Hub, HubConfig, HubOptions, ServerStatus, Variables};
use serde_json::json;

fn config(servers: serde_json::Value) -> HubConfig {
    let text = json!({ "mcpServers": servers }).to_string();
    HubConfig::parse(&text, "test.json", &Variables::default()).expect("config")
}

/// The text of a one-item result.
fn text(result: &mcp_proto::schema::CallToolResult) -> &str {
    result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or_default()
}

#[tokio::test]
async fn list_changed_refreshes_that_servers_tools() {
    let server = mcp_server::Server::builder("dynamic", "1.0.0")
        .tool(mcp_server::Tool::new("first", "The first tool"), || async {
            "one"
        })
        .build();
    let factory = {
        let server = server.clone();
        move |t| server.serve(t)
    };
    let http = mcp_server::http::bind(
        "127.0.0.1:0",
        mcp_server::http::HttpConfig::default(),
        factory,
    )
    .await
    .expect("bind");
    let url = format!("http://{}/mcp", http.local_addr());
    let options = HubOptions {
        list_changed_debounce: Duration::from_millis(50),
        ..HubOptions::default()
    };
    let hub = bounded(
        30,
        "connect",
        Hub::connect(
            config(json!({ "dyn": { "type": "streamableHttp", "url": url } })),
            options,
        ),
    )
    .await;
    assert_eq!(hub.servers()[0].status, ServerStatus::Connected);
    assert_eq!(hub.tools().len(), 1);
    // A proxy in front of the hub follows the change too.
    let input = mcp_cli::input_forwarding::InputForwarder::new();
    let proxy = mcp_cli::proxy::proxy_server(&hub, &input);
    let follower = mcp_cli::proxy::follow_changes(&hub, &proxy, &input);
    let (near, far) = mcp_proto::peer::memory_pair(64);
    let _session = proxy.serve(near);
    let proxy_client = bounded(
        10,
        "connect to the proxy",
        mcp_client::Client::connect(far, mcp_client::ClientOptions::new()),
    )
    .await
    .expect("proxy client");
    server
        .add_tool(
            mcp_server::Tool::new("second", "The second tool"),
            || async { "two" },
        )
        .expect("a tool without arguments");
    bounded(10, "refresh", async {
        while hub.tools().len() < 2 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let result = hub.call_tool("dyn__second", json!({})).await.expect("call");
    assert_eq!(text(&result), "two");
    bounded(10, "proxy refresh", async {
        loop {
            let tools = proxy_client.list_tools().await.expect("proxy tools");
            if tools.iter().any(|t| t.name == "dyn__second") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let via_proxy = proxy_client
        .call_tool("dyn__second", json!({}))
        .await
        .expect("call through the proxy");
    assert_eq!(text(&via_proxy), "two");
    follower.abort();
    proxy_client.close().await;
    hub.close().await;
    http.shutdown().await;
}
