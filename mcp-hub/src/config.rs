//! Hub configuration: the MCP server lists users already have, told apart by their shape.
//!
//! - Cline `cline_mcp_settings.json` and Claude Desktop `claude_desktop_config.json`: an
//!   `mcpServers` map (Cline's flat entries and its nested `transport` form);
//! - VS Code `mcp.json`: a `servers` map with `type` stdio | http | sse and `${input:id}`;
//! - LangChain-style maps whose entries name a `transport`.
//!
//! `${env:VAR}` and `${VAR}` are expanded in string fields (a missing variable stays as written
//! and becomes a warning). Errors name the file, the server and the field. Writing back (adding
//! or removing a server) keeps every key we do not know and replaces the file atomically.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

mod edit;
mod entry;
mod fields;
mod format;
mod oauth;
mod tool_selection;

pub use edit::{parse_header, validate_new_server, write_atomically};
use entry::parse_server;
use fields::{kind_of, Ctx};
use format::{detect, entry_for, servers_of, servers_of_mut};

pub use oauth::OAuthSettings;

use mcp_client::Negotiation;
use mcp_client::{clamp_timeout, DEFAULT_TIMEOUT};

/// Which file format a config came in; writing back keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFormat {
    /// Cline's `mcpServers` with `type`, `disabled`, `autoApprove`, `timeout`.
    Cline,
    /// Claude Desktop's `mcpServers` with `command`, `args`, `env` only.
    ClaudeDesktop,
    /// VS Code's `servers` (and `inputs`).
    VsCode,
    /// A map of servers each naming its `transport` (LangChain's MultiServerMCPClient).
    LangChain,
}

impl fmt::Display for ConfigFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConfigFormat::Cline => "Cline",
            ConfigFormat::ClaudeDesktop => "Claude Desktop",
            ConfigFormat::VsCode => "VS Code",
            ConfigFormat::LangChain => "LangChain",
        })
    }
}

/// How to reach one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportConfig {
    /// A child process speaking NDJSON on stdin/stdout.
    Stdio {
        /// The program to run (never through a shell).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables (the child also inherits ours).
        env: BTreeMap<String, String>,
        /// Its working directory.
        cwd: Option<PathBuf>,
    },
    /// The HTTP+SSE transport (2024-11-05).
    Sse {
        /// The SSE endpoint.
        url: String,
        /// Extra request headers, e.g. `Authorization`.
        headers: BTreeMap<String, String>,
    },
    /// Streamable HTTP (2025-03-26 and later).
    StreamableHttp {
        /// The MCP endpoint.
        url: String,
        /// Extra request headers, e.g. `Authorization`.
        headers: BTreeMap<String, String>,
    },
}

impl TransportConfig {
    /// The transport's name as Cline writes it.
    pub fn kind(&self) -> &'static str {
        match self {
            TransportConfig::Stdio { .. } => "stdio",
            TransportConfig::Sse { .. } => "sse",
            TransportConfig::StreamableHttp { .. } => "streamableHttp",
        }
    }

    /// What identifies the server behind this transport, for remembering its protocol era:
    /// the URL, or the command line of a stdio server.
    pub fn identity(&self) -> String {
        match self {
            TransportConfig::Stdio { command, args, .. } => {
                let mut line = command.clone();
                for arg in args {
                    line.push(' ');
                    line.push_str(arg);
                }
                line
            }
            TransportConfig::Sse { url, .. } | TransportConfig::StreamableHttp { url, .. } => {
                url.clone()
            }
        }
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The server's name: the key in the config, the prefix of its exposed tool names.
    pub name: String,
    /// How to reach it.
    pub transport: TransportConfig,
    /// Disabled servers are listed but not connected.
    pub disabled: bool,
    /// Tools that run without asking for approval.
    pub auto_approve: Vec<String>,
    /// The timeout of each call (1 s to 3600 s).
    pub timeout: Duration,
    /// How the protocol era is chosen: the `protocol` key, `"auto"` (the default: probe for
    /// 2026-07-28, fall back to `initialize`), `"legacy"`, or a version to pin.
    pub protocol: Negotiation,
    /// OAuth settings of a remote server (`oauth`, or Cursor's `auth`).
    pub oauth: Option<OAuthSettings>,
    /// Which tools are offered and how they are presented (`tools`, `includeTools`,
    /// `excludeTools`, `disabledTools`).
    pub tool_filter: super::filter::ToolFilter,
    /// Caps on the size of results (`resultLimits`, `maxResultBytes`).
    pub result_limit: super::result_limit::ResultLimit,
    /// How many calls run at once and wait (`maxConcurrentCalls`, `maxQueuedCalls`).
    pub limits: super::limits::CallLimits,
}

impl ServerConfig {
    /// Whether two configs differ in a field that needs a reconnect (everything but the
    /// auto-approve list, the tool filter and the result caps).
    pub fn needs_restart(&self, other: &ServerConfig) -> bool {
        self.transport != other.transport
            || self.disabled != other.disabled
            || self.timeout != other.timeout
            || self.protocol != other.protocol
            || self.oauth != other.oauth
    }
}

/// A loaded config: the servers, how the file looked, and what was odd about it.
#[derive(Debug, Clone)]
pub struct HubConfig {
    /// The file it came from, if any.
    pub path: Option<PathBuf>,
    /// The file's format.
    pub format: ConfigFormat,
    /// The servers, in file order.
    pub servers: Vec<ServerConfig>,
    /// Things a user should know: unexpanded variables, unknown types, placeholders.
    pub warnings: Vec<String>,
    /// VS Code `${input:id}` references without a value.
    pub missing_inputs: Vec<String>,
    raw: Value,
}

/// Why a config could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read or written.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error("{file}: not valid JSON: {detail}")]
    Json {
        /// The file.
        file: String,
        /// What the parser said.
        detail: String,
    },
    /// The JSON has none of the known shapes.
    #[error("{file}: no MCP servers found: expected an \"mcpServers\" object (Cline, Claude Desktop), a \"servers\" object (VS Code) or a map of servers that each name a \"transport\" (LangChain)")]
    UnknownShape {
        /// The file.
        file: String,
    },
    /// One field of one server is wrong.
    #[error("{file}: server \"{server}\": field \"{field}\": {problem}")]
    Field {
        /// The file.
        file: String,
        /// The server's name.
        server: String,
        /// The field.
        field: String,
        /// What is wrong and how to fix it.
        problem: String,
    },
    /// A server to add already exists, or one to remove does not.
    #[error("{file}: {problem}")]
    Conflict {
        /// The file.
        file: String,
        /// What is wrong.
        problem: String,
    },
}

/// Values for VS Code `${input:id}` references, and where environment variables come from.
#[derive(Debug, Clone, Default)]
pub struct Variables {
    /// `${input:id}` values.
    pub inputs: HashMap<String, String>,
    /// Environment overrides for `${env:VAR}` and `${VAR}`; the process environment otherwise.
    pub env: HashMap<String, String>,
    /// Do not consult the process environment (tests).
    pub no_process_env: bool,
}

impl Variables {
    fn env_var(&self, name: &str) -> Option<String> {
        self.env.get(name).cloned().or_else(|| {
            if self.no_process_env {
                None
            } else {
                std::env::var(name).ok()
            }
        })
    }
}

/// Clamps a timeout in seconds as Cline does: not a finite number means 60; else rounded to the
/// millisecond (so that writing it back as seconds gives the same value) and brought into
/// 1..=3600 s by [`clamp_timeout`], the one rule for every timeout.
pub fn clamp_timeout_secs(seconds: f64) -> Duration {
    if !seconds.is_finite() {
        return DEFAULT_TIMEOUT;
    }
    // The cast saturates: a negative count becomes 0 and a huge one u64::MAX, both then clamped.
    clamp_timeout(Duration::from_millis((seconds * 1000.0).round() as u64))
}

impl HubConfig {
    /// Reads and parses a config file.
    pub fn load(path: &Path, vars: &Variables) -> Result<HubConfig, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            file: file.clone(),
            source,
        })?;
        let mut config = Self::parse(&text, &file, vars)?;
        config.path = Some(path.to_owned());
        Ok(config)
    }

    /// Parses config text; `file` names it in errors.
    pub fn parse(text: &str, file: &str, vars: &Variables) -> Result<HubConfig, ConfigError> {
        let raw: Value = serde_json::from_str(text).map_err(|e| ConfigError::Json {
            file: file.into(),
            detail: e.to_string(),
        })?;
        Self::from_value(raw, file, vars)
    }

    /// An empty config of the given format (for a file that does not exist yet).
    pub fn empty(format: ConfigFormat, path: Option<PathBuf>) -> HubConfig {
        let raw = match format {
            ConfigFormat::VsCode => serde_json::json!({ "servers": {} }),
            _ => serde_json::json!({ "mcpServers": {} }),
        };
        HubConfig {
            path,
            format,
            servers: Vec::new(),
            warnings: Vec::new(),
            missing_inputs: Vec::new(),
            raw,
        }
    }

    fn from_value(raw: Value, file: &str, vars: &Variables) -> Result<HubConfig, ConfigError> {
        let format = detect(&raw).ok_or_else(|| ConfigError::UnknownShape { file: file.into() })?;
        let mut ctx = Ctx {
            file,
            vars,
            warnings: Vec::new(),
            missing_inputs: Vec::new(),
        };
        let mut servers = Vec::new();
        if let Some(map) = servers_of(format, &raw) {
            for (name, entry) in map {
                let Value::Object(entry) = entry else {
                    return Err(ctx.field_error(
                        name,
                        "",
                        format!("must be an object, found {}", kind_of(entry)),
                    ));
                };
                servers.push(parse_server(&mut ctx, format, name, entry)?);
            }
        }
        if !ctx.missing_inputs.is_empty() {
            ctx.warnings.push(format!(
                "{file}: no value for input(s) {}; pass them with the inputs option",
                ctx.missing_inputs.join(", ")
            ));
        }
        Ok(HubConfig {
            path: None,
            format,
            servers,
            warnings: ctx.warnings,
            missing_inputs: ctx.missing_inputs,
            raw,
        })
    }

    /// The server of that name.
    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.name == name)
    }

    fn file_name(&self) -> String {
        self.path
            .as_ref()
            .map_or_else(|| "config".into(), |p| p.display().to_string())
    }

    /// Adds a server, written the way this file's format writes servers.
    pub fn add_server(&mut self, server: ServerConfig) -> Result<(), ConfigError> {
        let file = self.file_name();
        if self.server(&server.name).is_some() {
            return Err(ConfigError::Conflict {
                file,
                problem: format!(
                    "a server named \"{}\" already exists; remove it first or pick another name",
                    server.name
                ),
            });
        }
        let entry = entry_for(self.format, &server);
        let map = servers_of_mut(self.format, &mut self.raw)
            .ok_or_else(|| ConfigError::UnknownShape { file: file.clone() })?;
        map.insert(server.name.clone(), entry);
        self.servers.push(server);
        Ok(())
    }

    /// Removes a server; every other key of the file stays as it was.
    pub fn remove_server(&mut self, name: &str) -> Result<ServerConfig, ConfigError> {
        let file = self.file_name();
        let index = self
            .servers
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| ConfigError::Conflict {
                file: file.clone(),
                problem: format!("no server named \"{name}\""),
            })?;
        if let Some(map) = servers_of_mut(self.format, &mut self.raw) {
            map.shift_remove(name);
        }
        Ok(self.servers.remove(index))
    }

    /// The file's JSON as it will be written.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.raw).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        text
    }

    /// Writes the file back atomically: a temporary file beside it, then a rename.
    pub fn save(&self) -> Result<(), ConfigError> {
        let path = self.path.as_ref().ok_or_else(|| ConfigError::Conflict {
            file: "config".into(),
            problem: "this config has no file to write to".into(),
        })?;
        write_atomically(path, self.to_json().as_bytes()).map_err(|source| ConfigError::Io {
            file: path.display().to_string(),
            source,
        })
    }
}

#[cfg(test)]
mod tests;
