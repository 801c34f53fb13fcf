//! `mcp`: the command-line face of the hub. It loads the MCP server config you already have
//! (Cline, Claude Desktop, VS Code or LangChain format; see `config_path`), connects the
//! servers, and lists, calls (also as tasks), reads, exports, edits the config, or serves them all as one
//! MCP server (`mcp proxy`).
//!
//! Exit statuses: 0 success; 1 a tool answered with `isError`; 2 usage, config or
//! connection errors; 130 interrupted by SIGINT or SIGTERM (after closing the servers; see
//! `interrupt`).

#![forbid(unsafe_code)]

/// Like `println!` to stdout, but a closed pipe (`mcp tools | head`) is not a panic.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// Like `print!` to stdout, but a closed pipe is not a panic.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod commands;
mod config_path;
mod interrupt;
mod output;
#[cfg(feature = "otlp")]
mod telemetry;
mod ui;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Talk to the MCP servers in your config: list, call, read, export, add, remove, proxy.
#[derive(Debug, Parser)]
#[command(name = "mcp", version)]
pub struct Cli {
    /// The config file (Cline, Claude Desktop, VS Code or LangChain format). Default:
    /// $MCP_CONFIG, ./mcp.json, ~/.config/mcp/mcp.json, Cline's settings, Claude Desktop's
    /// config, else a built-in default running weather-server.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Each server: transport, status, protocol version, counts of tools, resources, prompts.
    Servers,
    /// The merged tools: exposed name, raw name, server, description (MCP Apps tools marked
    /// `[app]`, or `[app only]` when only their view may call them).
    Tools {
        /// Only this server's tools.
        server: Option<String>,
        /// Full definitions as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Calls a tool by exposed name (`server__tool`) or by a bare name that is unique.
    Call {
        /// The tool.
        name: String,
        /// Its arguments as a JSON object (default `{}`).
        args: Option<String>,
        /// Print the raw result as JSON.
        #[arg(long)]
        json: bool,
        /// Run the call as a task: show its status and progress, then print its result.
        #[arg(long)]
        task: bool,
        /// With --task: print the task id and return without waiting (see `mcp task`).
        #[arg(long, requires = "task")]
        detach: bool,
    },
    /// Tasks of every server that lists them, or of one (2025-11-25 `tasks/list`).
    Tasks {
        /// Only this server's tasks.
        server: Option<String>,
        /// Print the tasks as JSON.
        #[arg(long)]
        json: bool,
    },
    /// One task by id: get its status, wait for its result, or cancel it.
    Task {
        /// What to do.
        #[command(subcommand)]
        action: commands::tasks::TaskAction,
    },
    /// Resources and resource templates.
    Resources {
        /// Only this server's.
        server: Option<String>,
    },
    /// Reads a resource of a server.
    Read {
        /// The server.
        server: String,
        /// The resource's URI.
        uri: String,
    },
    /// Prompts, exposed as `server__prompt`.
    Prompts {
        /// Only this server's.
        server: Option<String>,
    },
    /// Gets a prompt of a server with its arguments.
    Prompt {
        /// The server.
        server: String,
        /// The prompt's name on that server.
        name: String,
        /// Its arguments as a JSON object of strings (default `{}`).
        args: Option<String>,
    },
    /// Pings every server, or one.
    Ping {
        /// Only this server.
        server: Option<String>,
    },
    /// Ranks the tools for a plain-language query (BM25 over names, titles, descriptions and
    /// parameters), as the proxy's `search_tools` does.
    Search {
        /// What the tool should do, e.g. "read a file".
        query: String,
        /// How many tools to show.
        #[arg(long, default_value_t = 5)]
        limit: usize,
        /// Full definitions as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The merged tools as LLM function definitions (JSON), each schema in the form the
    /// provider accepts; app-only tools (MCP Apps) are left out, as they are not the model's.
    Export {
        /// openai, openai-strict, anthropic or gemini.
        #[arg(long, default_value = "openai")]
        format: String,
    },
    /// The servers' instructions, labelled per server, as a block for a system prompt.
    Instructions,
    /// Adds a server to the config file, in that file's format.
    Add(commands::edit::AddArgs),
    /// Removes a server from the config file.
    #[command(visible_aliases = ["rm", "uninstall"])]
    Remove {
        /// The server's name.
        name: String,
    },
    /// Serves every server of the hub as one MCP server under the exposed names.
    Proxy {
        /// Serve Streamable HTTP (and HTTP+SSE) on this address, e.g. 127.0.0.1:8080.
        #[arg(long, value_name = "ADDR", conflicts_with = "stdio")]
        http: Option<String>,
        /// Serve over stdin/stdout (the default).
        #[arg(long)]
        stdio: bool,
        /// Offer only `search_tools` and `call_tool` instead of every tool, so the list stays
        /// small whatever the number of servers.
        #[arg(long)]
        tool_search: bool,
        /// Append a JSON line per forwarded tool call to FILE (time, client, server, tool,
        /// duration, outcome, argument and result sizes).
        #[arg(long, value_name = "FILE")]
        log_calls: Option<PathBuf>,
        /// Also log the arguments and results themselves (with --log-calls).
        #[arg(long, requires = "log_calls")]
        log_contents: bool,
    },
    /// The hub as a local web page: servers, tools with forms, results, MCP Apps, history.
    /// Serves 127.0.0.1 only, prints the URL with a per-run token, opens the browser.
    Ui {
        /// The page's port (default: any free port).
        #[arg(long)]
        port: Option<u16>,
        /// Print the URL but do not open a browser.
        #[arg(long)]
        no_open: bool,
    },
    /// Logs in to a remote server with OAuth (browser, loopback redirect on 127.0.0.1).
    Login {
        /// The server's name in the config.
        server: String,
        /// No browser here: print the URL and read the URL the browser ended on from stdin.
        #[arg(long)]
        headless: bool,
        /// The loopback redirect port (default: the config's callbackPort, else a stable
        /// port derived from the server URL).
        #[arg(long)]
        port: Option<u16>,
    },
    /// Forgets a server's OAuth tokens (its client registration stays).
    Logout {
        /// The server's name in the config.
        server: String,
    },
    /// Chat with a model that calls the servers' tools (interactive, or one-shot with -p).
    Chat(commands::chat::ChatArgs),
    /// OAuth logins.
    Auth {
        /// What to show.
        #[command(subcommand)]
        command: AuthCommand,
    },
}

/// `mcp auth` subcommands.
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Each remote server: logged in or not, issuer, scopes, expiry (never the tokens).
    Status,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // `mcp proxy` over stdio serves one client: each call hops between tasks (the client's
    // reader, the hub, the upstream's reader and writer), and on one thread a hop is a queue
    // push instead of waking another worker. Everything else (HTTP, many servers) gets two.
    let one_client = matches!(&cli.command, Command::Proxy { http: None, .. });
    let mut builder = if one_client {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    #[cfg(feature = "otlp")]
    let (ending, exporter) = {
        let (service, root) = match &cli.command {
            Command::Proxy { .. } => ("mcp-proxy", None),
            other => ("mcp", Some(format!("mcp {}", command_name(other)))),
        };
        let exporter = telemetry::init(service, runtime.handle());
        let run = interrupt::run(commands::run(cli));
        let ending = match (root, &exporter) {
            (Some(name), Some(_)) => runtime.block_on(telemetry::root(&name, run)),
            _ => runtime.block_on(run),
        };
        (ending, exporter)
    };
    // `mcp chat` handles Ctrl-C itself: the first cancels the running turn.
    #[cfg(not(feature = "otlp"))]
    let ending = if matches!(cli.command, Command::Chat(_)) {
        interrupt::Ending::Finished(runtime.block_on(commands::run(cli)))
    } else {
        runtime.block_on(interrupt::run(commands::run(cli)))
    };
    #[cfg(feature = "otlp")]
    if let Some(exporter) = exporter {
        runtime.block_on(exporter.shutdown());
    }
    // Servers were closed (or killed); do not wait long on stray blocking tasks.
    let wait = match ending {
        interrupt::Ending::Forced => std::time::Duration::from_millis(100),
        _ => std::time::Duration::from_secs(2),
    };
    runtime.shutdown_timeout(wait);
    ending.exit_code()
}

/// The subcommand's name, for the root span of a traced run.
#[cfg(feature = "otlp")]
fn command_name(command: &Command) -> String {
    let debug = format!("{command:?}");
    let name: String = debug
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    name.to_ascii_lowercase()
}
