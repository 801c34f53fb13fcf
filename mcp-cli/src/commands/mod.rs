//! The subcommands, one file per group, and what they share: loading the config, connecting
//! the hub, and turning failures into exit statuses.

pub mod auth;
pub mod call;
pub mod edit;
pub mod listing;
pub mod proxy;
pub mod servers;
pub mod tasks;

use std::process::ExitCode;

use mcp_hub::{Hub, HubConfig, HubError, HubOptions};

use crate::config_path::{self, ConfigSource};
use crate::{Cli, Command};

/// Exit status for usage, config and connection errors.
pub const EXIT_USAGE: u8 = 2;
/// Exit status when the tool's result has `isError`.
pub const EXIT_TOOL_ERROR: u8 = 1;

/// A command that failed: what to tell the user, and the exit status.
#[derive(Debug)]
pub struct Failure {
    /// The exit status.
    pub code: u8,
    /// The message, printed to stderr after `mcp: `.
    pub message: String,
}

impl Failure {
    /// A usage, config or connection error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Failure {
            code: EXIT_USAGE,
            message: message.into(),
        }
    }
}

impl From<HubError> for Failure {
    fn from(e: HubError) -> Self {
        Failure::usage(e.to_string())
    }
}

impl From<config_path::LoadError> for Failure {
    fn from(e: config_path::LoadError) -> Self {
        Failure::usage(e.to_string())
    }
}

/// What a command returns.
pub type Outcome = Result<ExitCode, Failure>;

/// Runs the command line.
pub async fn run(cli: Cli) -> ExitCode {
    let source = config_path::locate(cli.config.as_deref());
    let result = match cli.command {
        Command::Servers => servers::servers(&source).await,
        Command::Tools { server, json } => listing::tools(&source, server.as_deref(), json).await,
        Command::Call {
            name,
            args,
            json,
            task,
            detach,
        } => {
            let mode = match (task, detach) {
                (false, _) => call::Mode::Direct,
                (true, false) => call::Mode::Task,
                (true, true) => call::Mode::Detached,
            };
            call::call(&source, &name, args.as_deref(), json, mode).await
        }
        Command::Tasks { server, json } => tasks::list(&source, server.as_deref(), json).await,
        Command::Task { action } => tasks::task(&source, action).await,
        Command::Resources { server } => listing::resources(&source, server.as_deref()).await,
        Command::Read { server, uri } => listing::read(&source, &server, &uri).await,
        Command::Prompts { server } => listing::prompts(&source, server.as_deref()).await,
        Command::Prompt { server, name, args } => {
            listing::prompt(&source, &server, &name, args.as_deref()).await
        }
        Command::Ping { server } => servers::ping(&source, server.as_deref()).await,
        Command::Export { format } => listing::export(&source, &format).await,
        Command::Search { query, limit, json } => {
            listing::search(&source, &query, limit, json).await
        }
        Command::Instructions => listing::instructions(&source).await,
        Command::Add(args) => edit::add(&source, args),
        Command::Remove { name } => edit::remove(&source, &name),
        Command::Proxy {
            http,
            stdio: _,
            tool_search,
            log_calls,
            log_contents,
        } => {
            let log = log_calls.as_deref().map(|path| (path, log_contents));
            proxy::proxy(&source, http.as_deref(), tool_search, log).await
        }
        Command::Login {
            server,
            headless,
            port,
        } => auth::login(&source, &server, headless, port).await,
        Command::Logout { server } => auth::logout(&source, &server).await,
        Command::Auth {
            command: crate::AuthCommand::Status,
        } => auth::status(&source).await,
    };
    match result {
        Ok(code) => code,
        Err(failure) => {
            eprintln!("mcp: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

/// Loads the config, printing its warnings to stderr.
pub fn load(source: &ConfigSource) -> Result<HubConfig, Failure> {
    let config = config_path::load(source)?;
    for warning in &config.warnings {
        eprintln!("mcp: warning: {warning}");
    }
    Ok(config)
}

/// Loads the config and connects its servers (only `only` when given, which must exist).
pub async fn open_hub(source: &ConfigSource, only: Option<&str>) -> Result<Hub, Failure> {
    let mut config = load(source)?;
    if let Some(name) = only {
        if config.server(name).is_none() {
            return Err(HubError::UnknownServer { name: name.into() }.into());
        }
        config.servers.retain(|s| s.name == name);
    }
    let options = HubOptions {
        restart: None,
        ..HubOptions::default()
    };
    Ok(connect(config, options).await)
}

/// Connects a hub that a signal will close (see [`crate::interrupt`]).
pub async fn connect(config: HubConfig, mut options: HubOptions) -> Hub {
    if options.token_store.is_none() {
        options.token_store = auth::token_store();
    }
    let hub = Hub::connect(config, options).await;
    crate::interrupt::track(&hub);
    hub
}

/// Parses a JSON object given on the command line.
pub fn parse_object(text: Option<&str>, what: &str) -> Result<serde_json::Value, Failure> {
    let Some(text) = text else {
        return Ok(serde_json::json!({}));
    };
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v @ serde_json::Value::Object(_)) => Ok(v),
        Ok(other) => Err(Failure::usage(format!(
            "{what} must be a JSON object like '{{\"city\": \"Shenzhen\"}}', not {other}"
        ))),
        Err(e) => Err(Failure::usage(format!(
            "{what} is not valid JSON ({e}); quote it for the shell, e.g. '{{\"city\": \"Shenzhen\"}}'"
        ))),
    }
}
