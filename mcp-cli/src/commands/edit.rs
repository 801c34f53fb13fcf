//! `mcp add` and `mcp remove`: edit the config file in the format it already has, keeping
//! every key we do not know, validated as Cline validates; every refusal says how to fix it.

use std::collections::BTreeMap;
use std::process::ExitCode;

use clap::Args;
use mcp_client::DEFAULT_TIMEOUT;
use mcp_hub::{
    clamp_timeout_secs, parse_header, validate_new_server, ConfigFormat, ServerConfig,
    TransportConfig,
};

use super::{Failure, Outcome};
use crate::config_path::{self, ConfigSource};

/// `mcp add NAME [--transport T] [--header "Name: value"]... [--timeout SECS] [--protocol MODE]
/// (-- COMMAND ARGS... | URL)`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// The server's name (the prefix of its exposed tool names).
    pub name: String,
    /// stdio, sse, http, streamable-http or streamableHttp. Default: stdio for a command; for
    /// a URL, sse when it ends in /sse, else streamableHttp.
    #[arg(long, value_name = "TRANSPORT")]
    pub transport: Option<String>,
    /// A request header for a remote server, "Name: value" (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// The per-call timeout in seconds (1 to 3600; default 60).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// How the protocol era is chosen: auto (default), legacy, or a version to pin
    /// (2026-07-28, 2025-11-25, ...); written as the entry's `protocol` key.
    #[arg(long, value_name = "MODE")]
    pub protocol: Option<mcp_client::Negotiation>,
    /// Environment variables for a stdio server, KEY=VALUE (repeatable).
    #[arg(long = "env", short = 'e', value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// After `--`, the command and its arguments; or the server's URL.
    #[arg(
        value_name = "COMMAND ARGS... | URL",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub target: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stdio,
    Sse,
    Http,
}

fn parse_kind(text: &str) -> Result<Kind, Failure> {
    match text {
        "stdio" => Ok(Kind::Stdio),
        "sse" => Ok(Kind::Sse),
        "http" | "streamable-http" | "streamableHttp" | "streamable_http" => Ok(Kind::Http),
        other => Err(Failure::usage(format!(
            "unknown transport {other:?}; use --transport stdio, sse, http, streamable-http or streamableHttp"
        ))),
    }
}

fn looks_like_url(text: &str) -> bool {
    text.contains("://")
}

/// Builds the server the arguments describe, refusing what Cline refuses.
pub fn server_from_args(args: &AddArgs) -> Result<ServerConfig, Failure> {
    let Some(first) = args.target.first() else {
        return Err(Failure::usage(format!(
            "say what to run: mcp add {0} -- COMMAND ARGS... (stdio) or mcp add {0} URL (remote)",
            args.name
        )));
    };
    let kind = match &args.transport {
        Some(t) => parse_kind(t)?,
        None if looks_like_url(first) => {
            if first.trim_end_matches('/').ends_with("/sse") {
                Kind::Sse
            } else {
                Kind::Http
            }
        }
        None => Kind::Stdio,
    };
    let mut headers = BTreeMap::new();
    for header in &args.headers {
        let (name, value) = parse_header(header).map_err(Failure::usage)?;
        headers.insert(name, value);
    }
    let transport = match kind {
        Kind::Stdio => {
            if !headers.is_empty() {
                return Err(Failure::usage(
                    "--header is only for remote servers (sse, http); a stdio server takes secrets through --env KEY=VALUE",
                ));
            }
            if looks_like_url(first) {
                return Err(Failure::usage(format!(
                    "{first:?} is a URL, but the transport is stdio; use --transport http (or sse), or give a command after --"
                )));
            }
            let mut env = BTreeMap::new();
            for pair in &args.env {
                let (k, v) = pair.split_once('=').ok_or_else(|| {
                    Failure::usage(format!("--env {pair:?} must look like KEY=VALUE"))
                })?;
                env.insert(k.to_owned(), v.to_owned());
            }
            TransportConfig::Stdio {
                command: first.clone(),
                args: args.target[1..].to_vec(),
                env,
                cwd: None,
            }
        }
        Kind::Sse | Kind::Http => {
            if args.target.len() > 1 {
                return Err(Failure::usage(format!(
                    "a remote server takes one URL, got {} words; for a command use: mcp add {} -- COMMAND ARGS...",
                    args.target.len(),
                    args.name
                )));
            }
            if !args.env.is_empty() {
                return Err(Failure::usage(
                    "--env is only for stdio servers; a remote server takes --header \"Name: value\"",
                ));
            }
            let url = first.clone();
            if kind == Kind::Sse {
                TransportConfig::Sse { url, headers }
            } else {
                TransportConfig::StreamableHttp { url, headers }
            }
        }
    };
    Ok(ServerConfig {
        name: args.name.clone(),
        transport,
        disabled: false,
        auto_approve: Vec::new(),
        timeout: args.timeout.map_or(DEFAULT_TIMEOUT, clamp_timeout_secs),
        protocol: args.protocol.unwrap_or_default(),
        oauth: None,
        tool_filter: Default::default(),
        result_limit: Default::default(),
        limits: Default::default(),
    })
}

/// `mcp add`.
pub fn add(source: &ConfigSource, args: AddArgs) -> Outcome {
    let server = server_from_args(&args)?;
    let warnings = validate_new_server(&server).map_err(Failure::usage)?;
    if let Some(t) = args.timeout {
        if !(1.0..=3600.0).contains(&t) {
            eprintln!(
                "mcp: warning: --timeout {t} is outside 1..3600 seconds; using {}s",
                server.timeout.as_secs()
            );
        }
    }
    for warning in &warnings {
        eprintln!("mcp: warning: {warning}");
    }
    let mut config = config_path::load_for_write(source)?;
    if args.timeout.is_some() && config.format != ConfigFormat::Cline {
        eprintln!(
            "mcp: warning: {} config files have no timeout field; --timeout is not written",
            config.format
        );
    }
    if config.format == ConfigFormat::ClaudeDesktop
        && !matches!(server.transport, TransportConfig::Stdio { .. })
    {
        eprintln!(
            "mcp: warning: Claude Desktop's config has no remote servers; the entry is written in Cline's form (with \"type\")"
        );
    }
    config
        .add_server(server)
        .map_err(|e| Failure::usage(e.to_string()))?;
    config.save().map_err(|e| Failure::usage(e.to_string()))?;
    let path = config
        .path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    outln!("added {} to {path} ({})", args.name, config.format);
    Ok(ExitCode::SUCCESS)
}

/// `mcp remove NAME` (aliases `rm`, `uninstall`).
pub fn remove(source: &ConfigSource, name: &str) -> Outcome {
    if source.path().is_none() {
        return Err(Failure::usage(format!(
            "no config file is in use (the built-in default cannot be edited); nothing to remove {name:?} from"
        )));
    }
    let mut config = config_path::load(source)?;
    config.remove_server(name).map_err(|e| {
        Failure::usage(format!(
            "{e}; run `mcp servers` to see the configured names"
        ))
    })?;
    config.save().map_err(|e| Failure::usage(e.to_string()))?;
    let path = config
        .path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    outln!("removed {name} from {path}");
    Ok(ExitCode::SUCCESS)
}
