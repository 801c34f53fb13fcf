//! Every method and error path of the server over the in-memory transport.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{RawClient, WAIT};
use mcp_server::schema::{
    Content, CreateMessageParams, ElicitParams, GetPromptResult, PromptMessage, Role,
    SamplingMessage,
};
use mcp_server::{
    complete_from, CompletionRequest, Context, Json, LoggingLevel, Prompt, Resource,
    ResourceRequest, ResourceTemplate, Server, ServerError, Tool, ToolOutput,
};
use serde::Deserialize;
use serde_json::{json, Value};

const LATEST: &str = "2025-11-25";

#[derive(Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Greet {
    name: String,
}

fn full_server(cancelled: Arc<AtomicBool>) -> Server {
    Server::builder("memory-server", "1.2.3")
        .title("Memory server")
        .description("A server for in-memory tests")
        .instructions("Use the tools wisely.")
        .tool(
            Tool::new("add", "Adds").input_schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"n": {"type": "integer"}},
                "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"$ref": "#/$defs/n"}},
                "required": ["a", "b"],
                "additionalProperties": false
            })),
            |args: Add, _ctx: Context| async move { Json(json!({"sum": args.a + args.b})) },
        )
        .tool(
            Tool::new("echo", "Echoes").title("Echo").read_only(),
            |args: Value, _ctx: Context| async move { args["text"].as_str().unwrap_or("").to_owned() },
        )
        .tool(Tool::new("fail", "Fails"), |_: Value, _ctx: Context| async move {
            Err::<String, _>("disk is full; free some space and retry")
        })
        .tool(Tool::new("panic", "Panics"), |_: Value, _ctx: Context| async move {
            if true {
                panic!("handler bug");
            }
            String::new()
        })
        .tool(Tool::new("progress", "Reports progress"), |_: Value, ctx: Context| async move {
            for i in 1..=3 {
                ctx.progress(f64::from(i), Some(3.0), Some(format!("step {i}"))).await;
                ctx.progress(0.5, None, None).await; // never sent: not increasing
            }
            "done"
        })
        .tool(Tool::new("log", "Logs at every level"), |_: Value, ctx: Context| async move {
            for level in LoggingLevel::ALL {
                ctx.log(level, json!({"level": level.as_str()})).await;
            }
            "logged"
        })
        .tool(Tool::new("wait", "Waits to be cancelled"), move |_: Value, ctx: Context| {
            let cancelled = cancelled.clone();
            async move {
                // Work the handler started sees the signal even though the peer drops the
                // handler's own future.
                let token = ctx.cancellation().clone();
                tokio::spawn(async move {
                    token.cancelled().await;
                    cancelled.store(true, Ordering::SeqCst);
                });
                tokio::select! {
                    _ = ctx.cancelled() => "cancelled",
                    _ = tokio::time::sleep(Duration::from_secs(30)) => "timed out",
                }
            }
        })
        .tool(Tool::new("client_calls", "Calls the client"), |_: Value, ctx: Context| async move {
            let sample = ctx
                .sample(CreateMessageParams::new(vec![SamplingMessage::user_text("hi")], 5))
                .await
                .map(|r| r.model);
            let roots = ctx.list_roots().await.map(|r| r.roots.len());
            let form = ctx.elicit(ElicitParams::form("name?", json!({"type": "object", "properties": {}}))).await;
            let url = ctx.elicit(ElicitParams::url("go", "https://example.invalid", "e1")).await;
            let ping = ctx.ping().await;
            Json(json!({
                "sample": format!("{sample:?}"),
                "roots": format!("{roots:?}"),
                "form": form.map(|r| format!("{:?}", r.action)).unwrap_or_else(|e| format!("error: {e}")),
                "url": url.map(|r| format!("{:?}", r.action)).unwrap_or_else(|e| format!("error: {e}")),
                "ping": ping.is_ok(),
            }))
        })
        .tool(Tool::new("output", "Returns a full ToolOutput"), |_: Value, _ctx: Context| async move {
            ToolOutput::text("plain")
        })
        .resource(
            Resource::new("mem://static", "static").mime_type("text/plain"),
            |_req: ResourceRequest, _ctx: Context| async { "static text" },
        )
        .resource_template(
            ResourceTemplate::new("mem://item/{id}", "item").mime_type("application/json"),
            |req: ResourceRequest, _ctx: Context| async move {
                match req.var("id") {
                    Some("missing") => Err(ServerError::ResourceNotFound(req.uri.clone())),
                    id => Ok(format!("{{\"id\":{:?}}}", id.unwrap_or_default())),
                }
            },
        )
        .resource_provider(
            |_ctx: Context| async { Ok::<_, mcp_server::HandlerError>(vec![mcp_server::schema::Resource::new("dyn://one", "one")]) },
            |req: ResourceRequest, _ctx: Context| async move {
                if req.uri == "dyn://one" {
                    Ok("dynamic one".to_owned())
                } else {
                    Err(ServerError::ResourceNotFound(req.uri))
                }
            },
        )
        .prompt(
            Prompt::new("greet", "Greets").argument("name", "Who", true),
            |args: Greet, _ctx: Context| async move {
                GetPromptResult::new(vec![
                    PromptMessage::user(format!("Hello {}", args.name)),
                    PromptMessage::new(Role::Assistant, Content::image("aGk=", "image/png")),
                    PromptMessage::new(Role::User, Content::embedded_text("mem://static", "static text")),
                ])
            },
        )
        .prompt_completion("greet", "name", |req: CompletionRequest, _ctx: Context| async move {
            if req.value == "many" {
                (0..150).map(|i| format!("n{i}")).collect::<Vec<_>>()
            } else {
                complete_from(&["alice", "albert", "bob"], &req.value)
            }
        })
        .template_completion("mem://item/{id}", "id", |_req: CompletionRequest, _ctx: Context| async { vec!["1", "2"] })
        .build()
}

fn server() -> Server {
    full_server(Arc::new(AtomicBool::new(false)))
}

#[tokio::test]
async fn initialize_negotiates_and_derives_capabilities() {
    let server = server();
    for (asked, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("1999-01-01", LATEST),
        ("2026-07-28", LATEST),
    ] {
        let mut client = RawClient::connect(&server);
        let response = client.initialize(asked, json!({})).await;
        let result = &response["result"];
        assert_eq!(result["protocolVersion"], answered, "asked {asked}");
        assert_eq!(result["serverInfo"]["name"], "memory-server");
        assert_eq!(result["serverInfo"]["version"], "1.2.3");
        assert_eq!(result["serverInfo"]["title"], "Memory server");
        assert_eq!(result["instructions"], "Use the tools wisely.");
        let caps = &result["capabilities"];
        assert_eq!(caps["tools"]["listChanged"], true);
        assert_eq!(caps["resources"]["subscribe"], true);
        assert_eq!(caps["prompts"]["listChanged"], true);
        assert!(caps["logging"].is_object());
        assert_eq!(caps["completions"].is_object(), answered != "2024-11-05");
        assert_eq!(
            client.session.protocol_version().map(|v| v.as_str()),
            Some(answered)
        );
    }
}

#[tokio::test]
async fn never_advertises_what_is_not_served() {
    let server = Server::builder("tools-only", "1")
        .tool(Tool::new("t", "d"), |_: Value, _c: Context| async { "x" })
        .build();
    let mut client = RawClient::connect(&server);
    let caps = client.initialize(LATEST, json!({})).await["result"]["capabilities"].clone();
    assert!(
        caps.get("resources").is_none() && caps.get("prompts").is_none(),
        "{caps}"
    );
    assert!(caps.get("completions").is_none(), "{caps}");
    let e = client.call_err("resources/list", json!({})).await;
    assert_eq!(e["code"], -32601);
    let e = client.call_err("prompts/list", json!({})).await;
    assert_eq!(e["code"], -32601);
}

#[tokio::test]
async fn lifecycle_gate() {
    let server = server();
    let mut client = RawClient::connect(&server);
    assert_eq!(client.call("ping", json!({})).await, json!({}));
    let e = client.call_err("tools/list", json!({})).await;
    assert_eq!(e["code"], -32600);
    assert!(e["message"].as_str().unwrap().contains("initialize"), "{e}");
    client.initialize(LATEST, json!({})).await;
    let e = client.call_err("initialize", json!({"protocolVersion": LATEST, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}})).await;
    assert_eq!(e["code"], -32600);
    let e = client.call_err("no/such/method", json!({})).await;
    assert_eq!(e["code"], -32601);
    let e = client.call_err("initialize", json!({"bad": 1})).await;
    assert_eq!(e["code"], -32600);
    let mut fresh = RawClient::connect(&server);
    let e = fresh.call_err("initialize", json!({"bad": 1})).await;
    assert_eq!(e["code"], -32602);
}

#[tokio::test]
async fn tools_list_keeps_schemas_verbatim() {
    let server = server();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    let result = client.call("tools/list", json!({})).await;
    let tools = result["tools"].as_array().unwrap();
    assert_eq!(tools[0]["name"], "add");
    let schema = &tools[0]["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["n"]["type"], "integer");
    assert_eq!(schema["properties"]["a"]["$ref"], "#/$defs/n");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(tools[1]["title"], "Echo");
    assert_eq!(tools[1]["annotations"]["readOnlyHint"], true);
    assert!(result.get("nextCursor").is_none());
}

#[tokio::test]
async fn tools_call_results_and_errors() {
    let server = server();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    let r = client
        .call(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await;
    assert_eq!(r["structuredContent"], json!({"sum": 5}));
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, json!({"sum": 5}));
    assert!(r.get("isError").is_none());

    let r = client
        .call(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        )
        .await;
    assert_eq!(r["content"], json!([{"type": "text", "text": "hi"}]));
    let r = client.call("tools/call", json!({"name": "output"})).await;
    assert_eq!(r["content"][0]["text"], "plain");

    let e = client
        .call_err("tools/call", json!({"name": "nope", "arguments": {}}))
        .await;
    assert_eq!(e["code"], -32602);
    assert!(e["message"].as_str().unwrap().contains("nope"), "{e}");

    // Bad arguments: a result the model can act on in 2025-11-25.
    let r = client
        .call(
            "tools/call",
            json!({"name": "add", "arguments": {"a": "two"}}),
        )
        .await;
    assert_eq!(r["isError"], true);
    let message = r["content"][0]["text"].as_str().unwrap();
    assert!(
        message.contains("add") && message.contains("invalid type"),
        "{message}"
    );

    let r = client.call("tools/call", json!({"name": "fail"})).await;
    assert_eq!(r["isError"], true);
    assert_eq!(
        r["content"][0]["text"],
        "disk is full; free some space and retry"
    );

    // A panic is a bug, not a tool error: the peer's one catch answers -32603.
    let e = client
        .call_err("tools/call", json!({"name": "panic"}))
        .await;
    assert_eq!(e["code"], -32603);
    assert!(
        e["message"].as_str().unwrap().contains("handler bug"),
        "{e}"
    );

    let e = client
        .call_err("tools/call", json!({"arguments": {}}))
        .await;
    assert_eq!(e["code"], -32602);
    // The server is still alive.
    assert_eq!(client.call("ping", json!({})).await, json!({}));
}

#[tokio::test]
async fn bad_arguments_are_protocol_errors_before_2025_11_25() {
    let server = server();
    let mut client = RawClient::initialized(&server, "2025-06-18", json!({})).await;
    let e = client
        .call_err("tools/call", json!({"name": "add", "arguments": {"a": 1}}))
        .await;
    assert_eq!(e["code"], -32602);
    assert!(
        e["message"].as_str().unwrap().contains("missing field `b`"),
        "{e}"
    );
    // structuredContent exists in 2025-06-18 but not in 2025-03-26.
    let r = client
        .call(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
        )
        .await;
    assert_eq!(r["structuredContent"]["sum"], 2);
    let mut old = RawClient::initialized(&server, "2025-03-26", json!({})).await;
    let r = old
        .call(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
        )
        .await;
    assert!(r.get("structuredContent").is_none());
    assert_eq!(r["content"][0]["text"], "{\"sum\":2}");
}

#[tokio::test]
async fn resources_list_read_templates_and_not_found() {
    let server = server();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    let r = client.call("resources/list", json!({})).await;
    let uris: Vec<&str> = r["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["mem://static", "dyn://one"]);
    let r = client.call("resources/templates/list", json!({})).await;
    assert_eq!(r["resourceTemplates"][0]["uriTemplate"], "mem://item/{id}");

    let r = client
        .call("resources/read", json!({"uri": "mem://static"}))
        .await;
    assert_eq!(
        r["contents"],
        json!([{"uri": "mem://static", "mimeType": "text/plain", "text": "static text"}])
    );
    let r = client
        .call("resources/read", json!({"uri": "mem://item/42"}))
        .await;
    assert_eq!(r["contents"][0]["text"], "{\"id\":\"42\"}");
    assert_eq!(r["contents"][0]["mimeType"], "application/json");
    let r = client
        .call("resources/read", json!({"uri": "dyn://one"}))
        .await;
    assert_eq!(r["contents"][0]["text"], "dynamic one");

    for uri in ["mem://nothing", "mem://item/missing", "dyn://two"] {
        let e = client.call_err("resources/read", json!({"uri": uri})).await;
        assert_eq!(e["code"], -32002, "{uri}");
        assert_eq!(e["data"]["uri"], uri);
    }
    let e = client.call_err("resources/read", json!({})).await;
    assert_eq!(e["code"], -32602);
}

#[tokio::test]
async fn subscriptions_and_updates() {
    let server = server();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    let mut other = RawClient::initialized(&server, LATEST, json!({})).await;
    assert_eq!(
        client
            .call("resources/subscribe", json!({"uri": "mem://static"}))
            .await,
        json!({})
    );
    server.notify_resource_updated("mem://static");
    server.notify_resource_updated("mem://other");
    client.drain(Duration::from_millis(200)).await;
    let updates = client.notifications_named("notifications/resources/updated");
    assert_eq!(updates.len(), 1, "{updates:?}");
    assert_eq!(updates[0]["params"]["uri"], "mem://static");
    other.drain(Duration::from_millis(100)).await;
    assert!(other
        .notifications_named("notifications/resources/updated")
        .is_empty());

    client
        .call("resources/unsubscribe", json!({"uri": "mem://static"}))
        .await;
    server.notify_resource_updated("mem://static");
    client.drain(Duration::from_millis(200)).await;
    assert_eq!(
        client
            .notifications_named("notifications/resources/updated")
            .len(),
        1
    );
}

#[tokio::test]
async fn prompts_get_list_and_errors() {
    let server = server();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    let r = client.call("prompts/list", json!({})).await;
    assert_eq!(r["prompts"][0]["name"], "greet");
    assert_eq!(
        r["prompts"][0]["arguments"][0],
        json!({"name": "name", "description": "Who", "required": true})
    );
    let r = client
        .call(
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
        .await;
    assert_eq!(
        r["messages"][0],
        json!({"role": "user", "content": {"type": "text", "text": "Hello Ada"}})
    );
    assert_eq!(r["messages"][1]["content"]["type"], "image");
    assert_eq!(r["messages"][2]["content"]["type"], "resource");
    let e = client
        .call_err("prompts/get", json!({"name": "greet", "arguments": {}}))
        .await;
    assert_eq!(e["code"], -32602);
    assert!(e["message"].as_str().unwrap().contains("name"), "{e}");
    let e = client
        .call_err("prompts/get", json!({"name": "nope"}))
        .await;
    assert_eq!(e["code"], -32602);
}

#[tokio::test]
async fn completion_values_are_capped() {
    let server = server();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    let r = client.call("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "al"}})).await;
    assert_eq!(r["completion"]["values"], json!(["alice", "albert"]));
    let r = client.call("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "many"}})).await;
    assert_eq!(r["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!(r["completion"]["hasMore"], true);
    assert_eq!(r["completion"]["total"], 150);
    let r = client.call("completion/complete", json!({"ref": {"type": "ref/resource", "uri": "mem://item/{id}"}, "argument": {"name": "id", "value": ""}})).await;
    assert_eq!(r["completion"]["values"], json!(["1", "2"]));
    let r = client.call("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "other", "value": ""}})).await;
    assert_eq!(r["completion"]["values"], json!([]));
    let e = client.call_err("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}})).await;
    assert_eq!(e["code"], -32602);
}

#[tokio::test]
async fn logging_is_filtered_by_level() {
    let server = server();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    client.call("tools/call", json!({"name": "log"})).await;
    // Default level: info and above.
    assert_eq!(client.notifications_named("notifications/message").len(), 7);
    client.notifications.clear();
    assert_eq!(
        client
            .call("logging/setLevel", json!({"level": "error"}))
            .await,
        json!({})
    );
    client.call("tools/call", json!({"name": "log"})).await;
    let levels: Vec<Value> = client
        .notifications_named("notifications/message")
        .iter()
        .map(|n| n["params"]["level"].clone())
        .collect();
    assert_eq!(
        levels,
        [
            json!("error"),
            json!("critical"),
            json!("alert"),
            json!("emergency")
        ]
    );
    let e = client
        .call_err("logging/setLevel", json!({"level": "loud"}))
        .await;
    assert_eq!(e["code"], -32602);
}

#[tokio::test]
async fn progress_only_with_a_token_and_increasing() {
    let server = server();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    client
        .call(
            "tools/call",
            json!({"name": "progress", "_meta": {"progressToken": "tok"}}),
        )
        .await;
    let progress = client.notifications_named("notifications/progress");
    let values: Vec<f64> = progress
        .iter()
        .map(|n| n["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [1.0, 2.0, 3.0]);
    assert!(progress
        .iter()
        .all(|n| n["params"]["progressToken"] == "tok" && n["params"]["total"] == 3.0));
    assert_eq!(progress[0]["params"]["message"], "step 1");
    client.notifications.clear();
    client.call("tools/call", json!({"name": "progress"})).await;
    assert!(client
        .notifications_named("notifications/progress")
        .is_empty());
}

/// JSON that means the same is served the same: a progress token whose key is written with
/// a `\u` escape gets the progress a plain one gets.
#[tokio::test]
async fn an_escaped_progress_token_key_is_the_same_key() {
    let server = server();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    client
        .send_text(
            r#"{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"progress","\u005fmeta":{"\u0070rogressToken":"tok"}}}"#,
        )
        .await;
    let answer = client.response_to(&json!("e")).await;
    assert_eq!(answer["result"]["content"][0]["text"], "done", "{answer}");
    let progress = client.notifications_named("notifications/progress");
    let tokens: Vec<&Value> = progress
        .iter()
        .map(|n| &n["params"]["progressToken"])
        .collect();
    assert_eq!(tokens, [&json!("tok"); 3]);
}

/// A 2026-07-28 request whose version key is written with escapes is one: served with no
/// handshake, its result complete with the era's head (one `_meta`, not two).
#[tokio::test]
async fn an_escaped_protocol_version_key_is_the_same_key() {
    let server = server();
    let mut client = RawClient::connect(&server);
    client
        .send_text(
            r#"{"jsonrpc":"2.0","id":"m","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol/\u0063lientCapabilities":{}}}}"#,
        )
        .await;
    let answer = client.response_to(&json!("m")).await;
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "hi", "{answer}");
}

#[tokio::test]
async fn cancellation_stops_the_handler_and_suppresses_the_response() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = full_server(cancelled.clone());
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "wait"}}),
        )
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    client
        .notify(
            "notifications/cancelled",
            json!({"requestId": 7, "reason": "user"}),
        )
        .await;
    // No response for id 7; the next request is answered.
    let pong = client.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    assert!(client.try_recv(Duration::from_millis(300)).await.is_none());
    assert!(client.notifications.is_empty());
    assert!(
        cancelled.load(Ordering::SeqCst),
        "the handler saw the cancellation signal"
    );
}

#[tokio::test]
async fn handler_sees_the_cancellation_signal() {
    // A handler that reacts to its own signal: cancellation via the server closing the session.
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = full_server(cancelled.clone());
    let client = RawClient::initialized(&server, LATEST, json!({})).await;
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "wait"}}),
        )
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(client.session.peer().requests_in_flight(), 1);
    client
        .notify("notifications/cancelled", json!({"requestId": 8}))
        .await;
    tokio::time::timeout(WAIT, async {
        while client.session.peer().requests_in_flight() > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the cancelled request left the in-flight table");
}

#[tokio::test]
async fn pagination_with_opaque_cursors() {
    let mut builder = Server::builder("many", "1").page_size(3);
    for i in 0..7 {
        builder = builder.tool(
            Tool::new(format!("t{i}"), "d"),
            |_: Value, _c: Context| async { "x" },
        );
    }
    let server = builder.build();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let r = client.call("tools/list", params).await;
        pages += 1;
        names.extend(
            r["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned()),
        );
        match r.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names, ["t0", "t1", "t2", "t3", "t4", "t5", "t6"]);
    let e = client
        .call_err("tools/list", json!({"cursor": "not-a-cursor"}))
        .await;
    assert_eq!(e["code"], -32602);
}

#[tokio::test]
async fn changes_at_run_time_notify_listening_clients() {
    let server = server();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    server
        .add_tool(
            Tool::new("late", "Added later"),
            |_: Value, _c: Context| async { "late" },
        )
        .expect("a Value takes any arguments");
    let r = client.call("tools/call", json!({"name": "late"})).await;
    assert_eq!(r["content"][0]["text"], "late");
    assert!(server.remove_tool("late"));
    assert!(!server.remove_tool("late"));
    server
        .add_prompt(
            Prompt::new("p2", "d"),
            |_: mcp_server::PromptArguments, _c: Context| async { "x".to_owned() },
        )
        .expect("a prompt without State");
    server
        .add_resource(
            Resource::new("mem://new", "new"),
            |_r: ResourceRequest, _c: Context| async { "new" },
        )
        .expect("a resource without State");
    assert!(server.remove_resource("mem://new"));
    assert!(server.remove_prompt("p2"));
    client.drain(Duration::from_millis(200)).await;
    assert_eq!(
        client
            .notifications_named("notifications/tools/list_changed")
            .len(),
        2
    );
    assert_eq!(
        client
            .notifications_named("notifications/prompts/list_changed")
            .len(),
        2
    );
    assert_eq!(
        client
            .notifications_named("notifications/resources/list_changed")
            .len(),
        2
    );
    let e = client.call_err("tools/call", json!({"name": "late"})).await;
    assert_eq!(e["code"], -32602);

    // A client that was not told listChanged (no tools at its initialize) hears nothing.
    let empty = Server::builder("empty", "1").build();
    let mut quiet = RawClient::initialized(&empty, LATEST, json!({})).await;
    empty
        .add_tool(Tool::new("x", "d"), |_: Value, _c: Context| async { "x" })
        .expect("a Value takes any arguments");
    quiet.drain(Duration::from_millis(150)).await;
    assert!(quiet.notifications.is_empty());
}

#[tokio::test]
async fn server_to_client_requests_with_capability_checks() {
    let server = server();
    let caps = json!({"sampling": {}, "roots": {"listChanged": true}, "elicitation": {"form": {}, "url": {}}});
    let mut client = RawClient::initialized(&server, LATEST, caps).await;
    let r = client
        .call("tools/call", json!({"name": "client_calls"}))
        .await;
    let s = &r["structuredContent"];
    assert_eq!(s["sample"], "Ok(\"test-model\")");
    assert_eq!(s["roots"], "Ok(1)");
    assert_eq!(s["form"], "Accept");
    assert_eq!(s["url"], "Accept");
    assert_eq!(s["ping"], true);
    let methods: Vec<&str> = client
        .requests
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        [
            "sampling/createMessage",
            "roots/list",
            "elicitation/create",
            "elicitation/create",
            "ping"
        ]
    );

    // Without capabilities everything but ping is refused locally, with a clear message.
    let mut bare = RawClient::initialized(&server, LATEST, json!({})).await;
    let r = bare
        .call("tools/call", json!({"name": "client_calls"}))
        .await;
    let s = &r["structuredContent"];
    assert!(
        s["sample"]
            .as_str()
            .unwrap()
            .contains("ClientCapabilityMissing"),
        "{s}"
    );
    assert!(s["roots"].as_str().unwrap().contains("roots"), "{s}");
    assert!(
        s["form"]
            .as_str()
            .unwrap()
            .contains("did not declare the elicitation capability"),
        "{s}"
    );
    assert!(
        s["url"].as_str().unwrap().contains("elicitation.url"),
        "{s}"
    );
    assert_eq!(s["ping"], true);
    let methods: Vec<&str> = bare
        .requests
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["ping"]);

    // `elicitation: {}` means form mode only.
    let mut form_only =
        RawClient::initialized(&server, "2025-06-18", json!({"elicitation": {}})).await;
    let r = form_only
        .call("tools/call", json!({"name": "client_calls"}))
        .await;
    assert_eq!(r["structuredContent"]["form"], "Accept");
    assert!(r["structuredContent"]["url"]
        .as_str()
        .unwrap()
        .starts_with("error"));
}

#[tokio::test]
async fn batches_only_under_2025_03_26() {
    let server = server();
    let mut client = RawClient::initialized(&server, "2025-03-26", json!({})).await;
    client.send_text(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}]"#).await;
    let answer = client.recv().await;
    let items = answer.as_array().expect("a batch answer");
    assert_eq!(items.len(), 2);
    assert_eq!(items[1]["result"]["content"][0]["text"], "b");

    let mut modern = RawClient::initialized(&server, "2025-06-18", json!({})).await;
    modern
        .send_text(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
        .await;
    let answer = modern.recv().await;
    assert_eq!(answer["error"]["code"], -32600);
    assert!(answer["id"].is_null());
}

#[tokio::test]
async fn a_batch_goes_through_the_same_panic_catch_and_id_check() {
    let server = full_server(Arc::new(AtomicBool::new(false)));
    let mut client = RawClient::initialized(&server, "2025-03-26", json!({})).await;
    client.send_text(r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"panic"}},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#).await;
    let answer = client.recv().await;
    let items = answer.as_array().expect("a batch answer");
    assert_eq!(items.len(), 3, "{answer}");
    assert_eq!(items[0]["error"]["code"], -32603, "{answer}");
    assert!(items[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("handler bug"));
    assert_eq!(items[1]["result"], json!({}), "{answer}");
    assert_eq!(items[2]["id"], 2, "{answer}");
    assert_eq!(items[2]["error"]["code"], -32600, "{answer}");
    assert_eq!(client.call("ping", json!({})).await, json!({}));
}

#[tokio::test]
async fn arrays_are_not_messages_nor_params() {
    let server = server();
    let mut client = RawClient::initialized(&server, "2025-03-26", json!({})).await;
    // The audit's lines: a message written as an array, its fields by position.
    for line in [
        r#"[["2.0", 5, "ping"]]"#,
        r#"[["2.0",6,"tools/call",{"name":"echo","arguments":{"text":"ran"}}]]"#,
    ] {
        client.send_text(line).await;
        let answer = client.recv().await;
        let items = answer.as_array().expect("a batch answer");
        assert_eq!(items.len(), 1, "{answer}");
        assert_eq!(items[0]["error"]["code"], -32600, "{answer}");
        assert!(items[0]["id"].is_null(), "{answer}");
    }
    // Positional params and arguments: refused as invalid params, and nothing runs.
    let e = client
        .call_err("tools/call", json!(["echo", {"text": "ran"}]))
        .await;
    assert_eq!(e["code"], -32602, "{e}");
    let e = client.call_err("resources/read", json!(["memo://x"])).await;
    assert_eq!(e["code"], -32602, "{e}");
    let e = client
        .call_err("tools/call", json!({"name": "echo", "arguments": ["ran"]}))
        .await;
    assert_eq!(e["code"], -32602, "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("JSON object"),
        "{e}"
    );
    let latest = RawClient::initialized(&server, LATEST, json!({})).await;
    let mut latest = latest;
    let r = latest
        .call("tools/call", json!({"name": "echo", "arguments": ["ran"]}))
        .await;
    assert_eq!(r["isError"], true, "{r}");
    // The session still works.
    let r = client
        .call(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "ok"}}),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "ok");
}

#[tokio::test]
async fn requests_are_handled_concurrently() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = full_server(cancelled);
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wait"}}),
        )
        .await;
    // While `wait` runs, another call is answered.
    let r = client
        .call(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "x"}}),
        )
        .await;
    assert_eq!(r["content"][0]["text"], "x");
}

#[tokio::test]
async fn end_of_input_answers_in_flight_and_closes() {
    let server = Server::builder("eof", "1")
        .tool(Tool::new("sleep", "d"), |_: Value, _c: Context| async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            "slept"
        })
        .build();
    let client = RawClient::initialized(&server, LATEST, json!({})).await;
    client.send(&json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "sleep"}})).await;
    let (mut source, session) = client.close_input();
    let message = tokio::time::timeout(WAIT, mcp_proto::peer::MessageSource::recv(&mut source))
        .await
        .expect("answered in time")
        .expect("a message")
        .expect("valid");
    match message {
        mcp_proto::jsonrpc::Incoming::Single(m) => assert!(m.to_json().contains("slept")),
        other => panic!("unexpected {other:?}"),
    }
    tokio::time::timeout(WAIT, session.closed())
        .await
        .expect("the session closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_initialize_then_calls() {
    let server = server();
    for _ in 0..20 {
        let mut client = RawClient::connect(&server);
        client
            .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": LATEST, "capabilities": {}, "clientInfo": {"name": "p", "version": "1"}}}))
            .await;
        client.notify("notifications/initialized", json!({})).await;
        let r = client
            .request(
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "fast"}}),
            )
            .await;
        assert_eq!(r["result"]["content"][0]["text"], "fast", "{r}");
    }
}

#[tokio::test]
async fn invalid_templates_are_reported_and_templates_change_at_run_time() {
    let bad = Server::builder("bad", "1")
        .resource_template(
            ResourceTemplate::new("x://{a", "broken"),
            |_r: ResourceRequest, _c: Context| async { "" },
        )
        .try_build();
    assert!(bad.unwrap_err().to_string().contains("x://{a"));

    let server = Server::builder("t", "1")
        .tool(Tool::new("none", "No arguments"), || async { "ok" })
        .resource(
            Resource::new("r://a", "a"),
            |_r: ResourceRequest, _c: Context| async { "a" },
        )
        .build();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    let r = client.call("tools/call", json!({"name": "none"})).await;
    assert_eq!(r["content"][0]["text"], "ok");
    server
        .add_resource_template(
            ResourceTemplate::new("r://t/{x}", "t"),
            |r: ResourceRequest, _c: Context| async move {
                format!("x={}", r.var("x").unwrap_or_default())
            },
        )
        .expect("a valid template");
    let r = client
        .call("resources/read", json!({"uri": "r://t/a%20b"}))
        .await;
    assert_eq!(r["contents"][0]["text"], "x=a b");
    assert!(server.remove_resource_template("r://t/{x}"));
    let e = client
        .call_err("resources/read", json!({"uri": "r://t/1"}))
        .await;
    assert_eq!(e["code"], -32002);
    client.drain(Duration::from_millis(150)).await;
    assert_eq!(
        client
            .notifications_named("notifications/resources/list_changed")
            .len(),
        2
    );
    assert_eq!(server.session_count(), 1);
}

#[tokio::test]
async fn a_panicking_handler_still_gets_one_response() {
    let server = Server::builder("p", "1")
        .resource(
            Resource::new("r://boom", "boom"),
            |_r: ResourceRequest, _c: Context| async {
                if true {
                    panic!("resource bug");
                }
                ""
            },
        )
        .prompt(
            Prompt::new("boom", "d"),
            |_: mcp_server::PromptArguments, _c: Context| async {
                if true {
                    panic!("prompt bug");
                }
                String::new()
            },
        )
        .build();
    let mut client = RawClient::initialized(&server, LATEST, json!({})).await;
    let e = client
        .call_err("resources/read", json!({"uri": "r://boom"}))
        .await;
    assert_eq!(e["code"], -32603);
    assert!(
        e["message"].as_str().unwrap().contains("resource bug"),
        "{e}"
    );
    let e = client
        .call_err("prompts/get", json!({"name": "boom"}))
        .await;
    assert_eq!(e["code"], -32603);
    assert_eq!(client.call("ping", json!({})).await, json!({}));
}
