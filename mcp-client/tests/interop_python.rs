//! Against a small FastMCP server written with the Python SDK (PyPI `mcp`), run as a stdio
//! child: tools with progress, sampling and elicitation, logging, resources, templates, prompts.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{bounded, fixture, interop_python};
use mcp_client::{CallOptions, Client, ClientOptions, ServerEvent, StdioServerConfig};
use mcp_proto::schema::{CreateMessageResult, ElicitResult, LoggingLevel};
use serde_json::json;

fn text_of(result: &mcp_proto::schema::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn fastmcp_server() {
    let Some(python) = interop_python() else {
        return;
    };
    let config = StdioServerConfig::new(
        python.to_string_lossy().into_owned(),
        [fixture("fastmcp_server.py")],
    );
    let options = ClientOptions::new()
        .with_sampling(|_| async { Ok(CreateMessageResult::text("m", "forty-two")) })
        .with_elicitation(|params| async move {
            assert_eq!(params.message(), "What is your name?");
            let mut content = serde_json::Map::new();
            content.insert("name".into(), json!("Ada"));
            Ok(ElicitResult::accept(Some(content)))
        });
    let client = bounded(30, "connect", Client::spawn_stdio(config, options))
        .await
        .expect("connect");
    assert_eq!(client.server_info().name, "py-fixture");
    assert_eq!(
        client.instructions().as_deref(),
        Some("A FastMCP test server.")
    );
    assert!(client.name().starts_with("python"), "{}", client.name());

    let tools = client.list_tools().await.expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(
        names.contains(&"add") && names.contains(&"slow"),
        "{names:?}"
    );

    let sum = client
        .call_tool("add", json!({"a": 2, "b": 40}))
        .await
        .expect("add");
    assert_eq!(text_of(&sum), "42");

    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let slow = bounded(
        10,
        "slow",
        client.call_tool_with(
            "slow",
            json!({"steps": 3}),
            CallOptions::timeout(Duration::from_secs(5)).on_progress(move |p| {
                sink.lock().unwrap().push((p.progress, p.message));
            }),
        ),
    )
    .await
    .expect("slow");
    assert_eq!(text_of(&slow), "done after 3 steps");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(seen[2], (3.0, Some("step 3".into())));

    let asked = bounded(
        10,
        "sampling",
        client.call_tool("ask_model", json!({"question": "?"})),
    )
    .await
    .expect("sampling");
    assert_eq!(text_of(&asked), "model said: forty-two");

    let named = bounded(10, "elicitation", client.call_tool("ask_user", json!({})))
        .await
        .expect("elicitation");
    assert_eq!(text_of(&named), "hello Ada");

    let mut events = client.notifications();
    // FastMCP does not implement logging/setLevel (-32601) but sends log messages anyway.
    let level = client.set_logging_level(LoggingLevel::Info).await;
    assert!(level.is_ok() || level.unwrap_err().rpc_error().map(|e| e.code) == Some(-32601));
    let shout = client
        .call_tool("shout", json!({"text": "hey"}))
        .await
        .expect("shout");
    assert_eq!(text_of(&shout), "HEY");
    let log = bounded(5, "a log message", async {
        loop {
            if let Ok(ServerEvent::Log(entry)) = events.recv().await {
                break entry;
            }
        }
    })
    .await;
    assert_eq!(log.level, LoggingLevel::Info);
    assert!(log.data.to_string().contains("shouting hey"), "{log:?}");

    let resources = client.list_resources().await.expect("resources");
    assert!(resources.iter().any(|r| r.uri == "config://app"));
    let config = client.read_resource("config://app").await.expect("read");
    assert_eq!(
        serde_json::to_value(&config.contents[0]).unwrap()["text"],
        json!("debug=true")
    );
    let templates = client.list_resource_templates().await.expect("templates");
    assert!(templates
        .iter()
        .any(|t| t.uri_template == "greeting://{name}"));
    let hello = client
        .read_resource("greeting://Bob")
        .await
        .expect("template read");
    assert_eq!(
        serde_json::to_value(&hello.contents[0]).unwrap()["text"],
        json!("Hello, Bob!")
    );

    let prompts = client.list_prompts().await.expect("prompts");
    assert!(prompts.iter().any(|p| p.name == "review"));
    let prompt = client
        .get_prompt("review", [("code", "fn main() {}")])
        .await
        .expect("prompt");
    let text = serde_json::to_string(&prompt.messages).unwrap();
    assert!(text.contains("fn main() {}"), "{text}");

    client.ping().await.expect("ping");
    let pid = client.pid().expect("pid") as i32;
    bounded(10, "close", client.close()).await;
    assert!(common::wait_process_gone(pid, 5).await);
}
