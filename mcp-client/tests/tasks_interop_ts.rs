//! Our client's 2025-11-25 tasks against a real peer: the TypeScript SDK v1 1.32.2 server with
//! its experimental tasks (`tests/interop/tasks_ts_server.cjs`), over stdio and Streamable
//! HTTP: create, poll to completion (status and progress seen), result, cancel mid-run, list,
//! a task that asks for input (elicitation tied to the task, answered by the client's handler),
//! and the checks that keep the client from asking for a task where the server forbids one.

#[path = "interop/tasks_scenarios.rs"]
mod scenarios;
#[path = "interop/http_support.rs"]
mod support;

use mcp_client::http::{self, HttpClientConfig};
use mcp_client::{Client, StdioServerConfig};
use scenarios::*;
use support::*;

/// The TS server over stdio, or `None` when the interop peers are not installed.
async fn stdio_client() -> Option<Client> {
    let modules = interop_var("MCP_INTEROP_NODE_MODULES")?;
    let script = script("tasks_ts_server.cjs");
    let config = StdioServerConfig::new("node", [script.to_string_lossy().into_owned()])
        .with_env("MCP_INTEROP_NODE_MODULES", modules.to_string_lossy());
    Some(
        bounded(30, "connect", Client::spawn_stdio(config, options()))
            .await
            .expect("connects"),
    )
}

/// The TS server over Streamable HTTP and a client of it.
async fn http_client() -> Option<(ServerChild, Client)> {
    let modules = interop_var("MCP_INTEROP_NODE_MODULES")?;
    let script = script("tasks_ts_server.cjs");
    let script = script.to_string_lossy().into_owned();
    let node = std::path::PathBuf::from("node");
    let server = ServerChild::start(
        &node,
        &[&script, "--http"],
        &[("MCP_INTEROP_NODE_MODULES", &modules)],
    )
    .await;
    let transport = http::connect_auto(HttpClientConfig::new(server.url("/mcp")))
        .await
        .expect("transport");
    let client = bounded(30, "connect", Client::connect(transport, options()))
        .await
        .expect("connects");
    Some((server, client))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_tasks_over_stdio() {
    let Some(client) = stdio_client().await else {
        return;
    };
    completes_with_status_and_progress(&client).await;
    cancels_mid_run(&client).await;
    answers_input(&client).await;
    refuses_what_the_server_forbids(&client).await;
    bounded(10, "close", client.close()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_tasks_over_http() {
    let Some((server, client)) = http_client().await else {
        return;
    };
    completes_with_status_and_progress(&client).await;
    cancels_mid_run(&client).await;
    answers_input(&client).await;
    refuses_what_the_server_forbids(&client).await;
    bounded(10, "close", client.close()).await;
    server.stop().await;
}
