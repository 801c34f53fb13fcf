//! The fixture client the official suite `@modelcontextprotocol/conformance` drives: the suite
//! runs `conformance-client <server-url>` with `MCP_CONFORMANCE_SCENARIO` set, and the client
//! does what that scenario expects over Streamable HTTP (the `auth/*` ones in `client_auth`).
//! Scenarios it does not know make it exit non-zero.
//!
//! When the suite asks for 2026-07-28 (`MCP_CONFORMANCE_PROTOCOL_VERSION`, set by
//! `--spec-version 2026-07-28`), the client is pinned to that version (no `initialize`, `_meta`
//! and the mirrored headers on every request) and answers input requests (elicitation, sampling,
//! roots) through the same handlers it would use for server-to-client requests.

#![forbid(unsafe_code)]

#[path = "../client_auth.rs"]
mod client_auth;

use std::process::ExitCode;
use std::time::Duration;

use mcp_client::http::{HttpClientConfig, StreamableHttpTransport};
use mcp_client::{Client, ClientOptions, Negotiation};
use mcp_proto::schema::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, Implementation,
    JsonObject, ListRootsResult, Role,
};
use mcp_proto::{ErrorObject, ProtocolVersion};
use serde_json::{json, Value};

/// The longest any scenario may take; the suite's own timeout is 30 s.
const SCENARIO_TIMEOUT: Duration = Duration::from_secs(25);

/// How long to let the standalone GET stream open before a server may send on it.
const GET_STREAM_SETTLE: Duration = Duration::from_millis(300);

/// Accepts a form with every field that has a default filled in with that default.
async fn accept_defaults(params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
    let ElicitParams::Form(form) = params else {
        return Ok(ElicitResult::decline());
    };
    let mut content = JsonObject::new();
    if let Some(Value::Object(properties)) = form.requested_schema.get("properties") {
        for (name, field) in properties {
            if let Some(default) = field.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    Ok(ElicitResult::accept(Some(content)))
}

/// Connects over `http` with `options` and the client info the suite checks.
async fn connect(http: HttpClientConfig, options: ClientOptions) -> Result<Client, String> {
    let transport = StreamableHttpTransport::new(http)
        .map_err(|e| format!("cannot set up the HTTP transport: {e}"))?;
    let options = options.with_client_info(Implementation::new(
        "mcp-rs-conformance-client",
        env!("CARGO_PKG_VERSION"),
    ));
    Client::connect(transport, options)
        .await
        .map_err(|e| format!("cannot connect: {e}"))
}

/// Calls `tool` with `arguments`; an `isError` result is a failure.
async fn call(client: &Client, tool: &str, arguments: Value) -> Result<(), String> {
    let result = client
        .call_tool(tool, arguments)
        .await
        .map_err(|e| format!("{tool} failed: {e}"))?;
    if result.is_error() {
        return Err(format!("{tool} returned an error result: {result:?}"));
    }
    Ok(())
}

/// Accepts every form with `{"confirmed": true}`.
async fn accept_confirmed(_: ElicitParams) -> Result<ElicitResult, ErrorObject> {
    let mut content = JsonObject::new();
    content.insert("confirmed".into(), Value::Bool(true));
    Ok(ElicitResult::accept(Some(content)))
}

/// Answers every sampling request with a fixed text.
async fn sample(_: CreateMessageParams) -> Result<CreateMessageResult, ErrorObject> {
    let mut result = CreateMessageResult::text("mcp-rs-conformance-client", "Hello there!");
    result.role = Role::Assistant;
    Ok(result)
}

/// No roots.
async fn roots() -> Result<ListRootsResult, ErrorObject> {
    Ok(ListRootsResult::default())
}

/// The tool calls the suite hands over in `MCP_CONFORMANCE_CONTEXT` (`toolCalls`).
fn context_tool_calls() -> Vec<(String, Value)> {
    let Ok(text) = std::env::var("MCP_CONFORMANCE_CONTEXT") else {
        return Vec::new();
    };
    let Ok(context) = serde_json::from_str::<Value>(&text) else {
        return Vec::new();
    };
    context
        .get("toolCalls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|call| {
            let name = call.get("name")?.as_str()?.to_owned();
            let arguments = call.get("arguments").cloned().unwrap_or(json!({}));
            Some((name, arguments))
        })
        .collect()
}

/// Runs one 2026-07-28 scenario against `url`.
async fn run_modern(scenario: &str, url: &str) -> Result<(), String> {
    let http = HttpClientConfig::new(url);
    let options = ClientOptions::new()
        .with_negotiation(Negotiation::Pin(ProtocolVersion::V2026_07_28))
        .with_elicitation(accept_confirmed)
        .with_sampling(sample)
        .with_roots(roots);
    let client = connect(http, options).await?;
    let outcome = match scenario {
        "tools_call" => call(&client, "add_numbers", json!({"a": 5, "b": 3})).await,
        "request-metadata" | "json-schema-ref-no-deref" => client
            .list_tools()
            .await
            .map(drop)
            .map_err(|e| format!("tools/list failed: {e}")),
        "sep-2322-client-request-state" => {
            let mut outcome = Ok(());
            for tool in [
                "test_mrtr_echo_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_state",
                "test_mrtr_no_result_type",
            ] {
                if let Err(e) = client.call_tool(tool, json!({})).await {
                    outcome = Err(format!("{tool} failed: {e}"));
                }
            }
            outcome
        }
        "http-standard-headers" => exercise(&client).await,
        "http-custom-headers" | "http-invalid-tool-headers" => {
            let listed = client
                .list_tools()
                .await
                .map_err(|e| format!("tools/list failed: {e}"))?;
            let mut calls = context_tool_calls();
            if calls.is_empty() {
                calls = listed.iter().map(|t| (t.name.clone(), json!({}))).collect();
            }
            let mut outcome = Ok(());
            for (name, arguments) in calls {
                if !listed.iter().any(|t| t.name == name) {
                    continue;
                }
                if let Err(e) = client.call_tool(&name, arguments).await {
                    outcome = Err(format!("{name} failed: {e}"));
                }
            }
            outcome
        }
        other => Err(format!("scenario {other:?} is not supported at 2026-07-28")),
    };
    client.close().await;
    outcome
}

/// Lists and uses one of each: tools, resources, prompts (what the server offers).
async fn exercise(client: &Client) -> Result<(), String> {
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    if let Some(tool) = tools.first() {
        client
            .call_tool(&tool.name, json!({}))
            .await
            .map_err(|e| format!("tools/call: {e}"))?;
    }
    if let Ok(resources) = client.list_resources().await {
        if let Some(resource) = resources.first() {
            client
                .read_resource(&resource.uri)
                .await
                .map_err(|e| format!("resources/read: {e}"))?;
        }
    }
    if let Ok(prompts) = client.list_prompts().await {
        if let Some(prompt) = prompts.first() {
            client
                .get_prompt(&prompt.name, Vec::<(String, String)>::new())
                .await
                .map_err(|e| format!("prompts/get: {e}"))?;
        }
    }
    Ok(())
}

/// Runs one scenario against `url`.
async fn run(scenario: &str, url: &str) -> Result<(), String> {
    let modern = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() == Ok("2026-07-28");
    if scenario.starts_with("auth/") {
        return client_auth::run(scenario, url, modern).await;
    }
    if modern {
        return run_modern(scenario, url).await;
    }
    let http = HttpClientConfig::new(url);
    let (client, outcome) = match scenario {
        "initialize" => {
            let client = connect(http, ClientOptions::new()).await?;
            (client, Ok(()))
        }
        "tools_call" => {
            let client = connect(http, ClientOptions::new()).await?;
            let outcome = call(&client, "add_numbers", json!({"a": 5, "b": 3})).await;
            (client, outcome)
        }
        "elicitation-sep1034-client-defaults" => {
            let options = ClientOptions::new().with_elicitation(accept_defaults);
            let client = connect(http, options).await?;
            // The suite's server sends `elicitation/create` on the standalone GET stream, which
            // opens in the background after the handshake; a request sent before that stream
            // is up is dropped by the server, so give the stream time to open.
            tokio::time::sleep(GET_STREAM_SETTLE).await;
            let outcome = call(&client, "test_client_elicitation_defaults", json!({})).await;
            (client, outcome)
        }
        "sse-retry" => {
            // No standalone GET stream: the suite's server would deliver the pending result on
            // it, and the only GET must be the reconnection after the POST stream closes.
            let http = HttpClientConfig {
                open_get_stream: false,
                ..http
            };
            let client = connect(http, ClientOptions::new()).await?;
            let outcome = call(&client, "test_reconnection", json!({})).await;
            (client, outcome)
        }
        other => return Err(format!("scenario {other:?} is not supported")),
    };
    client.close().await;
    outcome
}

#[tokio::main]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=NAME conformance-client <server-url>");
        return ExitCode::from(2);
    };
    let Ok(scenario) = std::env::var("MCP_CONFORMANCE_SCENARIO") else {
        eprintln!("conformance-client: MCP_CONFORMANCE_SCENARIO is not set");
        return ExitCode::from(2);
    };
    match tokio::time::timeout(SCENARIO_TIMEOUT, run(&scenario, &url)).await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("conformance-client: {scenario}: {e}");
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!("conformance-client: {scenario}: timed out after {SCENARIO_TIMEOUT:?}");
            ExitCode::FAILURE
        }
    }
}
