//! MCP Apps through the hub, against our own HTTP server in-process, in both eras: with
//! `HubOptions::apps` every server is told the hub renders views; a tool with a view is listed
//! with its `_meta.ui`; an app-only tool is listed (a host needs it) but kept from a model:
//! out of `model_tools`, `export` and tool search, and a model's call of it is refused.

use std::time::Duration;

use mcp_hub::{ExportFormat, Hub, HubConfig, HubOptions, ServerStatus, Variables};
use mcp_server::http::{HttpConfig, HttpServer};
use mcp_server::schema::apps_extension::{ToolVisibility, UiToolMeta};
use mcp_server::{App, Context, Server, Tool};
use serde_json::{json, Value};

async fn bounded<F: std::future::Future>(secs: u64, what: &str, f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(secs), f)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {secs}s"))
}

const VIEW: &str = "ui://cards/card.html";

fn server() -> Server {
    Server::builder("cards", "0.1.0")
        .app(
            App::new(
                Tool::new("show", "Shows a card"),
                VIEW,
                "<!doctype html><p>card</p>",
            ),
            |_: Value, ctx: Context| async move { format!("apps={}", ctx.client_supports_apps()) },
        )
        .tool(
            Tool::new("flip", "Flips the card (its view's button)")
                .ui(UiToolMeta::view(VIEW).with_visibility(&[ToolVisibility::App])),
            |_: Value, _ctx: Context| async move { "flipped" },
        )
        .build()
}

async fn hub_on(http: &HttpServer, protocol: &str, apps: bool) -> Hub {
    let url = format!("http://{}/mcp", http.local_addr());
    let text =
        json!({"mcpServers": {"s": {"type": "streamableHttp", "url": url, "protocol": protocol}}})
            .to_string();
    let config = HubConfig::parse(&text, "hub.json", &Variables::default()).expect("config");
    let options = HubOptions {
        apps,
        ..HubOptions::default()
    };
    let hub = bounded(30, "connect", Hub::connect(config, options)).await;
    assert_eq!(hub.servers()[0].status, ServerStatus::Connected);
    hub
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apps_pass_through_the_hub_in_both_eras() {
    let http = bounded(
        10,
        "bind",
        server().serve_http("127.0.0.1:0".to_owned(), HttpConfig::default()),
    )
    .await
    .expect("bind");
    for protocol in ["legacy", "2026-07-28"] {
        for apps in [true, false] {
            let hub = hub_on(&http, protocol, apps).await;
            let said = hub.call_tool("s__show", json!({})).await.expect("call");
            let text = serde_json::to_value(&said).unwrap()["content"][0]["text"].clone();
            assert_eq!(text, json!(format!("apps={apps}")), "{protocol}");
            hub.close().await;
        }
        let hub = hub_on(&http, protocol, true).await;
        let tools = hub.tools();
        let show = tools.iter().find(|t| t.exposed == "s__show").unwrap();
        assert_eq!(show.view_uri().as_deref(), Some(VIEW));
        assert!(!show.app_only());
        let flip = tools.iter().find(|t| t.exposed == "s__flip").unwrap();
        assert!(flip.app_only(), "listed, marked app-only");

        let model: Vec<String> = hub.model_tools().into_iter().map(|t| t.name).collect();
        assert_eq!(model, ["s__show"], "{protocol}");
        let export = hub.export(ExportFormat::OpenAi);
        let names: Vec<&str> = export
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, ["s__show"]);
        let refused = hub.call_tool_for_model("s__flip", json!({})).await;
        assert!(refused.is_error(), "{refused:?}");
        // A host calls it for the view.
        let flipped = hub.call_tool("s__flip", json!({})).await.expect("call");
        assert!(!flipped.is_error());
        hub.close().await;
    }
}
