//! `mcp proxy [--http ADDR | --stdio]`: serves the whole hub as one MCP server under the
//! exposed names, over stdio (the default) or Streamable HTTP plus legacy SSE.

use std::process::ExitCode;

use mcp_client::hub::proxy::{follow_changes, proxy_server};
use mcp_client::hub::{Hub, HubOptions, ServerStatus};

use super::{load, Failure, Outcome};
use crate::config_path::ConfigSource;

/// Connects the hub and serves it until stdin closes (stdio) or a signal arrives (HTTP).
pub async fn proxy(source: &ConfigSource, http: Option<&str>) -> Outcome {
    let config = load(source)?;
    let hub = Hub::connect(config, HubOptions::default()).await;
    for s in hub.servers() {
        if let ServerStatus::Failed(reason) = &s.status {
            eprintln!("mcp proxy: server {} failed: {reason}", s.config.name);
        }
    }
    let server = proxy_server(&hub);
    let follower = follow_changes(&hub, &server);
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
        "mcp proxy: serving Streamable HTTP at http://{0}/mcp and legacy SSE at http://{0}/sse",
        http.local_addr()
    );
    wait_for_signal().await;
    http.shutdown().await;
    follower.abort();
    hub.close().await;
    Ok(ExitCode::SUCCESS)
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
