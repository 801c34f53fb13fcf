//! MCP Apps on the server, both eras over the in-memory transport: the extension declared and
//! read, one `app` call registering the tool and its `ui://` view with their `_meta.ui`, an
//! app-only tool listed and marked, the same useful result for clients without the extension,
//! and the view's read result cacheable under 2026-07-28.

mod common;

use common::RawClient;
use mcp_server::schema::apps_extension::{ResourceCsp, ToolVisibility, UiToolMeta};
use mcp_server::{App, Context, Json, Server, Tool, ToolOutput};
use serde_json::{json, Value};

const VIEW: &str = "<!doctype html><html><body><p id=\"card\"></p></body></html>";
const URI: &str = "ui://test/card.html";

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Show {
    city: String,
}

fn server() -> Server {
    let show = |args: Show, ctx: Context| async move {
        let data = json!({"city": args.city, "apps": ctx.client_supports_apps()});
        ToolOutput::structured(format!("The card for {}", args.city), &data)
    };
    let refresh = || async { Json(json!({"refreshed": true})) };
    Server::builder("apps-test", "1.0.0")
        .app(
            App::new(Tool::new("show", "Shows a card"), URI, VIEW)
                .csp(ResourceCsp {
                    connect_domains: Some(vec!["https://api.example.com".into()]),
                    ..Default::default()
                })
                .prefers_border(true),
            show,
        )
        .tool(
            Tool::new("refresh", "Refreshes the card (the view's own button)")
                .ui(UiToolMeta::view(URI).with_visibility(&[ToolVisibility::App])),
            refresh,
        )
        .build()
}

fn apps_caps() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
}

fn modern(mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "apps-test", "version": "1"}
    });
    params
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed: {list}"))
}

fn assert_listings(tools: &Value, resources: &Value) {
    let show = tool(tools, "show");
    assert_eq!(show["_meta"]["ui"], json!({"resourceUri": URI}));
    assert_eq!(show["_meta"]["ui/resourceUri"], json!(URI));
    let refresh = tool(tools, "refresh");
    assert_eq!(
        refresh["_meta"]["ui"]["visibility"],
        json!(["app"]),
        "an app-only tool is listed, marked"
    );
    let view = &resources["resources"][0];
    assert_eq!(view["uri"], URI);
    assert_eq!(view["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(
        view["_meta"]["ui"],
        json!({"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": true})
    );
}

fn assert_view(read: &Value) {
    let contents = &read["contents"][0];
    assert_eq!(contents["uri"], URI);
    assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(contents["text"], VIEW);
    assert_eq!(contents["_meta"]["ui"]["prefersBorder"], json!(true));
}

#[tokio::test]
async fn handshake_era_declares_reads_and_degrades() {
    let server = server();
    for (caps, supports) in [(apps_caps(), true), (json!({}), false)] {
        let mut client = RawClient::connect(&server);
        let init = client.initialize("2025-11-25", caps).await;
        assert_eq!(
            init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/ui"],
            json!({"mimeTypes": ["text/html;profile=mcp-app"]})
        );
        client.notify("notifications/initialized", json!({})).await;
        let tools = client.call("tools/list", json!({})).await;
        let resources = client.call("resources/list", json!({})).await;
        assert_listings(&tools, &resources);
        let read = client.call("resources/read", json!({"uri": URI})).await;
        assert_view(&read);
        assert!(
            read.get("ttlMs").is_none(),
            "no cache fields before 2026-07-28"
        );
        let call = client
            .call(
                "tools/call",
                json!({"name": "show", "arguments": {"city": "Lisbon"}}),
            )
            .await;
        assert_eq!(call["content"][0]["text"], "The card for Lisbon");
        assert_eq!(
            call["structuredContent"],
            json!({"city": "Lisbon", "apps": supports})
        );
    }
}

#[tokio::test]
async fn modern_era_declares_reads_and_caches_the_view() {
    let server = server();
    let mut client = RawClient::connect(&server);
    let discover = client
        .call("server/discover", modern(json!({}), json!({})))
        .await;
    assert_eq!(
        discover["capabilities"]["extensions"]["io.modelcontextprotocol/ui"],
        json!({"mimeTypes": ["text/html;profile=mcp-app"]})
    );
    let tools = client
        .call("tools/list", modern(json!({}), apps_caps()))
        .await;
    let resources = client
        .call("resources/list", modern(json!({}), apps_caps()))
        .await;
    assert_listings(&tools, &resources);
    let read = client
        .call("resources/read", modern(json!({"uri": URI}), apps_caps()))
        .await;
    assert_view(&read);
    assert_eq!(read["ttlMs"], json!(3_600_000), "{read}");
    assert_eq!(read["cacheScope"], "public");
    for (caps, supports) in [(apps_caps(), true), (json!({}), false)] {
        let call = client
            .call(
                "tools/call",
                modern(
                    json!({"name": "show", "arguments": {"city": "Porto"}}),
                    caps,
                ),
            )
            .await;
        assert_eq!(call["content"][0]["text"], "The card for Porto");
        assert_eq!(call["structuredContent"]["apps"], json!(supports));
    }
}

#[tokio::test]
async fn a_server_without_apps_declares_nothing() {
    let server = Server::builder("plain", "1.0.0")
        .tool(Tool::new("t", "d"), || async { "x" })
        .build();
    let mut client = RawClient::connect(&server);
    let init = client.initialize("2025-11-25", apps_caps()).await;
    assert!(init["result"]["capabilities"].get("extensions").is_none());
}
