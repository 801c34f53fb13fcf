//! Our client's 2025-11-25 tasks against the Python `mcp` 1.x SDK's experimental tasks
//! (`tests/interop/tasks_py_server.py`, stdio): the same scenarios as against the TypeScript
//! SDK (`tests/interop/tasks_scenarios.rs`).

#[path = "interop/tasks_scenarios.rs"]
mod scenarios;
#[path = "interop/http_support.rs"]
mod support;

use mcp_client::{Client, StdioServerConfig};
use scenarios::*;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn py_tasks_over_stdio() {
    let Some(python) = interop_var("MCP_INTEROP_PYTHON") else {
        return;
    };
    let script = script("tasks_py_server.py");
    let config = StdioServerConfig::new(
        python.to_string_lossy(),
        [script.to_string_lossy().into_owned()],
    );
    let client = bounded(30, "connect", Client::spawn_stdio(config, options()))
        .await
        .expect("connects");
    completes_with_status_and_progress(&client).await;
    cancels_mid_run(&client).await;
    answers_input(&client).await;
    refuses_what_the_server_forbids(&client).await;
    bounded(10, "close", client.close()).await;
}
