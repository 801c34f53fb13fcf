//! The fixture server the official suite `@modelcontextprotocol/conformance` drives: every tool,
//! resource, template and prompt its server scenarios use, over Streamable HTTP with sessions on
//! 127.0.0.1 (`--port P`, default 3000), endpoint `/mcp`; `--stdio` serves the same fixtures on
//! stdin/stdout instead (for `mcp-conformance stdio`). `--page-size N` pages every list after N
//! items (default 100), so the runner's pagination cases walk several pages.
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

/// The fixture server, its lists paged after `page_size` items.
fn server(page_size: Option<usize>) -> Server {
    let mut builder = Server::builder("mcp-rs-conformance-server", env!("CARGO_PKG_VERSION"))
        .instructions("The fixture server of the official MCP conformance suite.")
        .default_log_level(LoggingLevel::Debug);
    if let Some(size) = page_size {
        builder = builder.page_size(size);
    }
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

/// What the command line asks for: where to serve, and the page size if given.
struct Args {
    serve: Serve,
    page_size: Option<usize>,
}

const USAGE: &str = "usage: [--port P | --stdio] [--page-size N]";

fn args_from_command_line() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut parsed = Args {
        serve: Serve::Http(3000),
        page_size: None,
    };
    while let Some(arg) = args.next() {
        if arg == "--stdio" {
            parsed.serve = Serve::Stdio;
            continue;
        }
        let (name, value) = match arg.split_once('=') {
            Some((name, value)) => (name.to_owned(), value.to_owned()),
            None if arg == "--port" || arg == "--page-size" => {
                let value = args.next().ok_or(format!("{arg} needs a value"))?;
                (arg, value)
            }
            None => return Err(format!("unknown argument {arg:?}; {USAGE}")),
        };
        match name.as_str() {
            "--port" => {
                let port = value
                    .parse()
                    .map_err(|_| format!("not a port number: {value:?}"))?;
                parsed.serve = Serve::Http(port);
            }
            "--page-size" => match value.parse() {
                Ok(size) if size > 0 => parsed.page_size = Some(size),
                _ => return Err(format!("not a page size (1 or more): {value:?}")),
            },
            _ => return Err(format!("unknown argument {name:?}; {USAGE}")),
        }
    }
    Ok(parsed)
}

#[tokio::main]
async fn main() -> ExitCode {
    let (port, page_size) = match args_from_command_line() {
        Ok(Args {
            serve: Serve::Http(port),
            page_size,
        }) => (port, page_size),
        Ok(Args {
            serve: Serve::Stdio,
            page_size,
        }) => {
            server(page_size).serve_stdio().await;
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
    let http = match server(page_size)
        .serve_http(("127.0.0.1", port), config)
        .await
    {
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
