//! The fixture client the official suite `@modelcontextprotocol/conformance` drives: the suite
//! runs `conformance-client <server-url>` with `MCP_CONFORMANCE_SCENARIO` set, and the client
//! does what that scenario expects over Streamable HTTP. Scenarios it does not know (the OAuth
//! ones, for now) make it exit non-zero.

use std::process::ExitCode;
use std::time::Duration;

use mcp_client::http::{HttpClientConfig, StreamableHttpTransport};
use mcp_client::{Client, ClientOptions};
use mcp_proto::schema::{ElicitParams, ElicitResult, Implementation, JsonObject};
use mcp_proto::ErrorObject;
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

/// Runs one scenario against `url`.
async fn run(scenario: &str, url: &str) -> Result<(), String> {
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
