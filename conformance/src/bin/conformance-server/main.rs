//! The fixture server the official suite `@modelcontextprotocol/conformance` drives: every tool,
//! resource, template and prompt its server scenarios use, over Streamable HTTP with sessions on
//! 127.0.0.1 (`--port P`, default 3000), endpoint `/mcp`; `--stdio` serves the same fixtures on
//! stdin/stdout instead (for `mcp-conformance stdio`).
//!
//! The 2026-07-28 scenarios (suite 0.2.0, requirement set `2026-07-28`) add the fixtures in
//! [`input_tools`] and [`input_prompts`]: tools and a prompt that ask the client for input
//! through `ctx.elicit`, `ctx.sample` and `ctx.list_roots` (server-to-client requests under
//! 2025, `input_required` results under 2026-07-28), one that needs `sampling`, one that logs, and
//! two that change the tool and prompt lists. `conformance/RESULTS.md` lists what each scenario
//! expects of them.

#![forbid(unsafe_code)]

mod core_fixtures;
mod input_fixtures;
mod input_requests;
mod task_fixtures;

use std::process::ExitCode;

use mcp_server::http::HttpConfig;
use mcp_server::{LoggingLevel, Server};

use core_fixtures::{prompts, resources, tools, SSE_AFTER, SSE_CLOSE_AFTER, SSE_RETRY};
use input_fixtures::{input_prompts, input_tools};
use task_fixtures::task_tools;

/// The fixture server.
fn server() -> Server {
    let builder = Server::builder("mcp-rs-conformance-server", env!("CARGO_PKG_VERSION"))
        .instructions("The fixture server of the official MCP conformance suite.")
        .default_log_level(LoggingLevel::Debug);
    task_tools(input_prompts(input_tools(prompts(resources(tools(
        builder,
    ))))))
    .build()
}

/// Where to serve: `--port P` (or `--port=P`; 3000 without one), or `--stdio`.
enum Serve {
    Http(u16),
    Stdio,
}

fn serve_from_args() -> Result<Serve, String> {
    let mut args = std::env::args().skip(1);
    let mut serve = Serve::Http(3000);
    while let Some(arg) = args.next() {
        if arg == "--stdio" {
            serve = Serve::Stdio;
            continue;
        }
        let value = match arg.strip_prefix("--port=") {
            Some(v) => v.to_owned(),
            None if arg == "--port" => args.next().ok_or("--port needs a value")?,
            None => {
                return Err(format!(
                    "unknown argument {arg:?}; usage: --port P | --stdio"
                ))
            }
        };
        let port = value
            .parse()
            .map_err(|_| format!("not a port number: {value:?}"))?;
        serve = Serve::Http(port);
    }
    Ok(serve)
}

#[tokio::main]
async fn main() -> ExitCode {
    let port = match serve_from_args() {
        Ok(Serve::Http(port)) => port,
        Ok(Serve::Stdio) => {
            server().serve_stdio().await;
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("conformance-server: {e}");
            return ExitCode::from(2);
        }
    };
    let config = HttpConfig {
        http_sse: None,
        sse_retry: Some(SSE_RETRY),
        sse_after: Some(SSE_AFTER),
        sse_close_after: Some(SSE_CLOSE_AFTER),
        ..HttpConfig::default()
    };
    let http = match server().serve_http(("127.0.0.1", port), config).await {
        Ok(http) => http,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!(
        "conformance-server: listening on http://{}/mcp",
        http.local_addr()
    );
    let stop = http.shutdown_token();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        stop.cancel();
    });
    http.stopped().await;
    ExitCode::SUCCESS
}
