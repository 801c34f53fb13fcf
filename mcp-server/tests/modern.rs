//! The 2026-07-28 era over the in-memory transport, beside the 2025 era on the same connection:
//! `server/discover`, the `_meta` errors, `resultType`/`serverInfo`/cache hints, removed methods,
//! per-request logging, MRTR round trips with a sealed `requestState`, and `subscriptions/listen`.

mod common;

use std::time::Duration;

use common::{RawClient, WAIT};
use mcp_server::schema::{CacheScope, ElicitParams};
use mcp_server::{
    Context, LoggingLevel, Meta, Prompt, PromptArguments, Resource, ResourceRequest, Server, Tool,
};
use serde::Deserialize;
use serde_json::{json, Value};

const MODERN: &str = "2026-07-28";

/// `_meta` of a modern request from a client with `capabilities`.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "modern-test", "version": "1"}
    })
}

/// `params` with the modern `_meta` added.
fn modern(mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = meta(capabilities);
    params
}

#[derive(Deserialize, schemars::JsonSchema)]
struct CityArgs {
    /// A city name, maybe ambiguous.
    city: String,
}

/// Asks which city was meant, then how warm, in two rounds.
async fn pick_city(args: CityArgs, ctx: Context) -> Result<String, mcp_server::HandlerError> {
    let which = ctx
        .elicit(ElicitParams::form(
            format!("Which {} did you mean?", args.city),
            json!({"type": "object", "properties": {"state": {"type": "string"}}}),
        ))
        .await?;
    let state = which
        .content
        .as_ref()
        .and_then(|c| c.get("state"))
        .and_then(|s| s.as_str().map(str::to_owned))
        .unwrap_or_default();
    let unit = ctx
        .elicit(ElicitParams::form(
            "Celsius or Fahrenheit?",
            json!({"type": "object", "properties": {"unit": {"type": "string"}}}),
        ))
        .await?;
    let unit = unit
        .content
        .as_ref()
        .and_then(|c| c.get("unit"))
        .and_then(|s| s.as_str().map(str::to_owned))
        .unwrap_or_default();
    Ok(format!("{}, {state} in {unit}", args.city))
}

async fn chatty(ctx: Context) -> String {
    ctx.log(LoggingLevel::Debug, "debug detail").await;
    ctx.log(LoggingLevel::Warning, "a warning").await;
    "done".into()
}

fn server() -> Server {
    Server::builder("modern-test-server", "1.2.3")
        .instructions("Ask about cities.")
        .cache_hint(60_000, CacheScope::Public)
        .request_state_key(b"a shared key of the deployment".to_vec())
        .tool(
            Tool::new("echo", "Echoes").input_schema(json!({"type": "object"})),
            |args: Value| async move { args.to_string() },
        )
        .tool(Tool::new("pick_city", "Asks which city"), pick_city)
        .tool(Tool::new("chatty", "Logs at two levels"), chatty)
        .resource(
            Resource::new("mem:///a", "a").mime_type("text/plain"),
            |r: ResourceRequest| async move { mcp_server::schema::ReadResourceResult::text(r.uri, "A") },
        )
        .prompt(Prompt::new("greet", "Greets"), |_: PromptArguments| async {
            "Hello".to_string()
        })
        .build()
}

fn error_code(error: &Value) -> i64 {
    error["code"].as_i64().unwrap_or_default()
}

#[tokio::test]
async fn discover_and_modern_results() {
    let server = server();
    let mut client = RawClient::connect(&server);
    let discover = client
        .call("server/discover", modern(json!({}), json!({})))
        .await;
    assert_eq!(discover["supportedVersions"], json!([MODERN]));
    assert_eq!(discover["resultType"], json!("complete"));
    assert_eq!(discover["ttlMs"], json!(60_000));
    assert_eq!(discover["cacheScope"], json!("public"));
    assert_eq!(discover["instructions"], json!("Ask about cities."));
    assert!(discover["capabilities"]["tools"].is_object(), "{discover}");
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "modern-test-server", "version": "1.2.3"})
    );

    let list = client
        .call("tools/list", modern(json!({}), json!({})))
        .await;
    assert_eq!(list["resultType"], json!("complete"));
    assert_eq!(list["ttlMs"], json!(60_000));
    assert_eq!(list["tools"].as_array().map(Vec::len), Some(3));
    for method in ["prompts/list", "resources/list", "resources/templates/list"] {
        let r = client.call(method, modern(json!({}), json!({}))).await;
        assert_eq!(r["cacheScope"], json!("public"), "{method}: {r}");
    }
    let read = client
        .call(
            "resources/read",
            modern(json!({"uri": "mem:///a"}), json!({})),
        )
        .await;
    assert_eq!(read["contents"][0]["text"], json!("A"));
    assert_eq!(read["ttlMs"], json!(60_000));

    let call = client
        .call(
            "tools/call",
            modern(json!({"name": "echo", "arguments": {"x": 1}}), json!({})),
        )
        .await;
    assert_eq!(call["resultType"], json!("complete"));
    assert_eq!(call["content"][0]["text"], json!("{\"x\":1}"));
    assert!(
        call.get("ttlMs").is_none(),
        "tool results are not cacheable"
    );
    assert_eq!(
        call["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("modern-test-server")
    );
}

/// A tool reads the request's whole `_meta` in this era too (the server reads only its own keys
/// up front and leaves the rest in the params until a handler asks).
#[tokio::test]
async fn a_tool_reads_the_request_meta() {
    let server = Server::builder("meta-echo", "1")
        .tool(
            Tool::new("meta", "Echoes _meta").input_schema(json!({"type": "object"})),
            |Meta(meta): Meta| async move { Value::Object(meta).to_string() },
        )
        .build();
    let mut client = RawClient::connect(&server);
    let mut params = modern(json!({"name": "meta", "arguments": {}}), json!({}));
    params["_meta"]["vendor.example/key"] = json!({"a": [1, "b\"c"]});
    let call = client.call("tools/call", params.clone()).await;
    let text = call["content"][0]["text"].as_str().unwrap_or_default();
    let echoed: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {call}"));
    assert_eq!(echoed, params["_meta"]);
    assert_eq!(call["resultType"], json!("complete"));
}

#[tokio::test]
async fn meta_errors_and_removed_methods() {
    let server = server();
    let mut client = RawClient::connect(&server);
    let no_caps = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}});
    let e = client.call_err("tools/list", no_caps).await;
    assert_eq!(error_code(&e), -32602, "{e}");
    assert!(e["message"]
        .as_str()
        .unwrap_or_default()
        .contains("clientCapabilities"));

    let mut old = modern(json!({}), json!({}));
    old["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let e = client.call_err("tools/list", old).await;
    assert_eq!(error_code(&e), -32022, "{e}");
    assert_eq!(e["data"]["requested"], json!("2099-01-01"));
    assert_eq!(e["data"]["supported"], json!([MODERN]));

    for method in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "initialize",
        "no/such",
    ] {
        let e = client
            .call_err(
                method,
                modern(json!({"level": "info", "uri": "mem:///a"}), json!({})),
            )
            .await;
        assert_eq!(error_code(&e), -32601, "{method}: {e}");
    }

    // Without `_meta`, a modern-only method says what is missing.
    let e = client.call_err("server/discover", json!({})).await;
    assert_eq!(error_code(&e), -32602, "{e}");

    let e = client
        .call_err(
            "resources/read",
            modern(json!({"uri": "mem:///nope"}), json!({})),
        )
        .await;
    assert_eq!(error_code(&e), -32602, "{e}");
    assert_eq!(e["data"]["uri"], json!("mem:///nope"));
}

#[tokio::test]
async fn input_required_round_trips_with_a_sealed_state() {
    let server = server();
    let mut client = RawClient::connect(&server);
    let call = |extra: Value| {
        let mut params = json!({"name": "pick_city", "arguments": {"city": "Springfield"}});
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        modern(params, json!({"elicitation": {}}))
    };

    // Round 1: the first question.
    let first = client.call("tools/call", call(json!({}))).await;
    assert_eq!(first["resultType"], json!("input_required"), "{first}");
    let asked = &first["inputRequests"]["elicit-0"];
    assert_eq!(asked["method"], json!("elicitation/create"));
    assert!(asked["params"]["message"]
        .as_str()
        .unwrap_or_default()
        .contains("Springfield"));
    let state = first["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();
    assert!(
        client.requests.is_empty(),
        "no server-to-client request under 2026-07-28"
    );

    // Round 2: answered the first, asked the second.
    let answer = json!({"elicit-0": {"action": "accept", "content": {"state": "IL"}}});
    let second = client
        .call(
            "tools/call",
            call(json!({"inputResponses": answer, "requestState": state})),
        )
        .await;
    assert_eq!(second["resultType"], json!("input_required"), "{second}");
    assert!(
        second["inputRequests"].get("elicit-1").is_some(),
        "{second}"
    );
    let state2 = second["requestState"]
        .as_str()
        .unwrap_or_default()
        .to_owned();

    // Round 3: the sealed state carried the first answer.
    let answer = json!({"elicit-1": {"action": "accept", "content": {"unit": "C"}}});
    let done = client
        .call(
            "tools/call",
            call(json!({"inputResponses": answer, "requestState": state2.clone()})),
        )
        .await;
    assert_eq!(done["resultType"], json!("complete"), "{done}");
    assert_eq!(done["content"][0]["text"], json!("Springfield, IL in C"));

    // A forged state: one character changed.
    let mut forged = state2.into_bytes();
    forged[3] = if forged[3] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap_or_default();
    let e = client
        .call_err(
            "tools/call",
            call(json!({"inputResponses": answer, "requestState": forged})),
        )
        .await;
    assert_eq!(error_code(&e), -32602, "{e}");

    // Another server's key cannot open it either.
    let other = Server::builder("other", "1")
        .tool(Tool::new("pick_city", "Asks"), pick_city)
        .build();
    let mut elsewhere = RawClient::connect(&other);
    let e = elsewhere
        .call_err(
            "tools/call",
            call(json!({"inputResponses": answer, "requestState": state})),
        )
        .await;
    assert_eq!(error_code(&e), -32602, "{e}");

    // Without the elicitation capability: -32021 naming it.
    let e = client
        .call_err(
            "tools/call",
            modern(
                json!({"name": "pick_city", "arguments": {"city": "Paris"}}),
                json!({}),
            ),
        )
        .await;
    assert_eq!(error_code(&e), -32021, "{e}");
    assert_eq!(
        e["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
}

#[tokio::test]
async fn a_second_replica_with_the_key_resumes() {
    let key = b"replicated".to_vec();
    let make = || {
        Server::builder("replica", "1")
            .request_state_key(key.clone())
            .tool(Tool::new("pick_city", "Asks"), pick_city)
            .build()
    };
    let (a, b) = (make(), make());
    let mut on_a = RawClient::connect(&a);
    let mut on_b = RawClient::connect(&b);
    let params = |extra: Value| {
        let mut p = json!({"name": "pick_city", "arguments": {"city": "Portland"}});
        if let (Some(p), Some(e)) = (p.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        modern(p, json!({"elicitation": {}}))
    };
    let first = on_a.call("tools/call", params(json!({}))).await;
    let state = first["requestState"].clone();
    let answer = json!({"elicit-0": {"action": "accept", "content": {"state": "OR"}}});
    let second = on_b
        .call(
            "tools/call",
            params(json!({"inputResponses": answer, "requestState": state})),
        )
        .await;
    assert_eq!(second["resultType"], json!("input_required"), "{second}");
    assert!(second["inputRequests"].get("elicit-1").is_some());
}

#[tokio::test]
async fn logging_follows_each_requests_level() {
    let server = server();
    let mut client = RawClient::connect(&server);
    let mut params = modern(json!({"name": "chatty"}), json!({}));
    client.call("tools/call", params.clone()).await;
    client.drain(Duration::from_millis(50)).await;
    assert!(
        client
            .notifications_named("notifications/message")
            .is_empty(),
        "no logLevel, no log messages"
    );
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    client.call("tools/call", params).await;
    client.drain(Duration::from_millis(50)).await;
    let logs = client.notifications_named("notifications/message");
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["params"]["level"], json!("warning"));
}

#[tokio::test]
async fn listen_sends_only_what_was_asked_tagged_with_its_id() {
    let server = server();
    let mut client = RawClient::connect(&server);
    let listen = json!({
        "jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
        "params": modern(json!({"notifications": {
            "toolsListChanged": true,
            "resourceSubscriptions": ["mem:///a"]
        }}), json!({}))
    });
    client.send(&listen).await;
    let ack = client.recv().await;
    assert_eq!(
        ack["method"],
        json!("notifications/subscriptions/acknowledged"),
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!("listen-1")
    );
    assert_eq!(
        ack["params"]["notifications"]["toolsListChanged"],
        json!(true)
    );
    assert!(ack["params"]["notifications"]
        .get("promptsListChanged")
        .is_none());

    server
        .add_prompt(
            Prompt::new("unwanted", "Unwanted"),
            |_: PromptArguments| async { "x".to_string() },
        )
        .expect("a prompt without State");
    server
        .add_tool(Tool::new("later", "Added later"), |_: Value| async {
            "later".to_string()
        })
        .expect("a Value takes any arguments");
    server.notify_resource_updated("mem:///b");
    server.notify_resource_updated("mem:///a");
    let mut got = Vec::new();
    while got.len() < 2 {
        match client.try_recv(WAIT).await {
            Some(m) => got.push(m),
            None => break,
        }
    }
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0]["method"], json!("notifications/tools/list_changed"));
    assert_eq!(got[1]["method"], json!("notifications/resources/updated"));
    assert_eq!(got[1]["params"]["uri"], json!("mem:///a"));
    for m in &got {
        assert_eq!(
            m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            json!("listen-1")
        );
    }
    assert!(client.try_recv(Duration::from_millis(100)).await.is_none());

    // Cancelled: nothing more, and no answer.
    client
        .notify("notifications/cancelled", json!({"requestId": "listen-1"}))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    server
        .add_tool(Tool::new("later2", "Added later"), |_: Value| async {
            "later".to_string()
        })
        .expect("a Value takes any arguments");
    assert!(client.try_recv(Duration::from_millis(200)).await.is_none());
}

#[tokio::test]
async fn both_eras_on_one_connection() {
    let server = server();
    let mut client = RawClient::initialized(&server, "2025-11-25", json!({})).await;
    let legacy = client.call("tools/list", json!({})).await;
    assert!(
        legacy.get("resultType").is_none(),
        "2025 results are unchanged: {legacy}"
    );
    assert!(client.call("ping", json!({})).await.is_object());
    let now = client
        .call("tools/list", modern(json!({}), json!({})))
        .await;
    assert_eq!(now["resultType"], json!("complete"));
    // A modern request infers nothing from the connection's handshake: no elicitation declared.
    let e = client
        .call_err(
            "tools/call",
            modern(
                json!({"name": "pick_city", "arguments": {"city": "x"}}),
                json!({}),
            ),
        )
        .await;
    assert_eq!(error_code(&e), -32021, "{e}");
}
