//! `mcp proxy [--http ADDR | --stdio] [--tool-search]`: serves the whole hub as one MCP server
//! under the exposed names (or, with `--tool-search`, as `search_tools` and `call_tool`), over
//! stdio (the default) or Streamable HTTP plus HTTP+SSE.

use std::path::Path;
use std::process::ExitCode;

use mcp_cli::audit::CallLog;
use mcp_cli::input_forwarding::{downstream_client, InputForwarder};
use mcp_cli::proxy::{follow_changes, proxy_server};
use mcp_hub::{HubOptions, ServerStatus};

use super::{connect, load, Failure, Outcome};
use crate::config_path::ConfigSource;
use crate::interrupt;

/// Connects the hub and serves it until stdin closes (stdio) or a signal arrives (HTTP, which
/// then exits 0; see [`crate::interrupt`]).
/// `log`: the `--log-calls` file and whether to log contents.
pub async fn proxy(
    source: &ConfigSource,
    http: Option<&str>,
    tool_search: bool,
    log: Option<(&Path, bool)>,
) -> Outcome {
    let config = load(source)?;
    let on_call = match log {
        Some((path, contents)) => Some(
            CallLog::open(path, contents)
                .map_err(|e| Failure::usage(format!("cannot open {}: {e}", path.display())))?
                .observer(downstream_client),
        ),
        None => None,
    };
    let input = InputForwarder::new();
    let options = HubOptions {
        input: input.upstream_input(),
        tool_search,
        // Views pass through: every server hears that the proxy's clients may render them.
        apps: true,
        on_call,
        ..HubOptions::default()
    };
    let hub = connect(config, options).await;
    for s in hub.servers() {
        if let ServerStatus::Failed(reason) = &s.status {
            eprintln!("mcp proxy: server {} failed: {reason}", s.config.name);
        }
    }
    for warning in hub.filter_warnings() {
        eprintln!("mcp proxy: warning: {warning}");
    }
    let server = proxy_server(&hub, &input);
    let follower = follow_changes(&hub, &server, &input);
    let Some(addr) = http else {
        server.serve_stdio().await;
        follower.abort();
        hub.close().await;
        return Ok(ExitCode::SUCCESS);
    };
    let factory = {
        let server = server.clone();
        move |transport| server.serve(transport)
    };
    let http = match mcp_server::http::bind(addr, mcp_server::http::HttpConfig::default(), factory)
        .await
    {
        Ok(http) => http,
        Err(e) => {
            follower.abort();
            hub.close().await;
            return Err(Failure::usage(format!("cannot serve on {addr}: {e}")));
        }
    };
    eprintln!(
        "mcp proxy: serving Streamable HTTP at http://{0}/mcp and HTTP+SSE at http://{0}/sse",
        http.local_addr()
    );
    // A signal stops the HTTP server and closes the hub (`interrupt::run`).
    interrupt::serve_until_signal(http).await;
    follower.abort();
    Ok(ExitCode::SUCCESS)
}
