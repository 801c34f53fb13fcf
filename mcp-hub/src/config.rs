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

use serde_json::{Map, Value};

mod oauth;
mod tool_selection;

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
    /// The legacy HTTP+SSE transport (2024-11-05).
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

/// A timeout as the seconds a Cline file holds: an integer when whole, else a fraction.
fn timeout_seconds(timeout: Duration) -> Value {
    if timeout.subsec_millis() == 0 {
        timeout.as_secs().into()
    } else {
        (timeout.as_millis() as f64 / 1000.0).into()
    }
}

struct Ctx<'a> {
    file: &'a str,
    vars: &'a Variables,
    warnings: Vec<String>,
    missing_inputs: Vec<String>,
}

impl Ctx<'_> {
    fn field_error(&self, server: &str, field: &str, problem: impl Into<String>) -> ConfigError {
        ConfigError::Field {
            file: self.file.into(),
            server: server.into(),
            field: field.into(),
            problem: problem.into(),
        }
    }

    /// Expands `${env:VAR}`, `${VAR}` and `${input:id}`; anything unresolved stays as written.
    fn expand(&mut self, server: &str, field: &str, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                out.push_str(&rest[start..]);
                return out;
            };
            let name = &after[..end];
            let whole = &rest[start..start + 2 + end + 1];
            let value = if let Some(id) = name.strip_prefix("input:") {
                let v = self.vars.inputs.get(id).cloned();
                if v.is_none() && !self.missing_inputs.iter().any(|m| m == id) {
                    self.missing_inputs.push(id.to_owned());
                }
                v
            } else {
                let var = name.strip_prefix("env:").unwrap_or(name);
                let v = self.vars.env_var(var);
                if v.is_none() {
                    self.warnings.push(format!(
                        "{}: server \"{server}\": field \"{field}\": variable {whole} is not set; kept as written",
                        self.file
                    ));
                }
                v
            };
            out.push_str(value.as_deref().unwrap_or(whole));
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        out
    }

    fn string(
        &mut self,
        server: &str,
        entry: &Map<String, Value>,
        field: &str,
    ) -> Result<Option<String>, ConfigError> {
        match entry.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(self.expand(server, field, s))),
            Some(other) => Err(self.field_error(
                server,
                field,
                format!("must be a string, found {}", kind_of(other)),
            )),
        }
    }

    fn strings(
        &mut self,
        server: &str,
        entry: &Map<String, Value>,
        field: &str,
    ) -> Result<Vec<String>, ConfigError> {
        match entry.get(field) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) => Ok(self.expand(server, field, s)),
                    other => Err(self.field_error(
                        server,
                        field,
                        format!("item {i} must be a string, found {}", kind_of(other)),
                    )),
                })
                .collect(),
            Some(other) => Err(self.field_error(
                server,
                field,
                format!("must be an array of strings, found {}", kind_of(other)),
            )),
        }
    }

    fn string_map(
        &mut self,
        server: &str,
        entry: &Map<String, Value>,
        field: &str,
    ) -> Result<BTreeMap<String, String>, ConfigError> {
        match entry.get(field) {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(map)) => {
                let mut out = BTreeMap::new();
                for (k, v) in map {
                    let value = match v {
                        Value::String(s) => self.expand(server, field, s),
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        other => {
                            return Err(self.field_error(
                                server,
                                &format!("{field}.{k}"),
                                format!("must be a string, found {}", kind_of(other)),
                            ))
                        }
                    };
                    out.insert(k.clone(), value);
                }
                Ok(out)
            }
            Some(other) => Err(self.field_error(
                server,
                field,
                format!("must be an object of strings, found {}", kind_of(other)),
            )),
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Where the servers live in a file of each format.
fn servers_of(format: ConfigFormat, raw: &Value) -> Option<&Map<String, Value>> {
    match format {
        ConfigFormat::Cline | ConfigFormat::ClaudeDesktop => raw.get("mcpServers")?.as_object(),
        ConfigFormat::VsCode => raw.get("servers")?.as_object(),
        ConfigFormat::LangChain => raw
            .get("mcpServers")
            .and_then(Value::as_object)
            .or(raw.as_object()),
    }
}

fn servers_of_mut(format: ConfigFormat, raw: &mut Value) -> Option<&mut Map<String, Value>> {
    let key = match format {
        ConfigFormat::Cline | ConfigFormat::ClaudeDesktop => "mcpServers",
        ConfigFormat::VsCode => "servers",
        ConfigFormat::LangChain if raw.get("mcpServers").is_some() => "mcpServers",
        ConfigFormat::LangChain => return raw.as_object_mut(),
    };
    raw.as_object_mut()?
        .entry(key)
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
}

fn names_transport(entry: &Value) -> bool {
    entry.get("transport").is_some_and(Value::is_string)
}

/// Tells the format from the file's shape.
fn detect(raw: &Value) -> Option<ConfigFormat> {
    let top = raw.as_object()?;
    if let Some(servers) = top.get("mcpServers").and_then(Value::as_object) {
        if !servers.is_empty() && servers.values().all(names_transport) {
            return Some(ConfigFormat::LangChain);
        }
        const CLINE_ONLY: [&str; 7] = [
            "type",
            "transportType",
            "transport",
            "url",
            "disabled",
            "autoApprove",
            "timeout",
        ];
        let cline = servers
            .values()
            .any(|e| CLINE_ONLY.iter().any(|k| e.get(*k).is_some()));
        return Some(if cline {
            ConfigFormat::Cline
        } else {
            ConfigFormat::ClaudeDesktop
        });
    }
    if top.get("servers").is_some_and(Value::is_object) {
        return Some(ConfigFormat::VsCode);
    }
    if !top.is_empty() && top.values().all(names_transport) {
        return Some(ConfigFormat::LangChain);
    }
    None
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

/// Writes `bytes` to a temporary file in the same folder, syncs it, and renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "config".into());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn parse_server(
    ctx: &mut Ctx<'_>,
    format: ConfigFormat,
    name: &str,
    entry: &Map<String, Value>,
) -> Result<ServerConfig, ConfigError> {
    // Cline's nested form keeps the connection fields in a `transport` object.
    let nested = entry.get("transport").and_then(Value::as_object);
    let conn = nested.unwrap_or(entry);
    let kind = transport_kind(ctx, format, name, entry, conn)?;
    let transport = match kind {
        Kind::Stdio => {
            let command = ctx
                .string(name, conn, "command")?
                .filter(|c| !c.trim().is_empty())
                .ok_or_else(|| {
                    ctx.field_error(
                        name,
                        "command",
                        "a stdio server needs a \"command\" (the program to run)",
                    )
                })?;
            let cwd = ctx.string(name, conn, "cwd")?.map(PathBuf::from);
            TransportConfig::Stdio {
                command,
                args: ctx.strings(name, conn, "args")?,
                env: ctx.string_map(name, conn, "env")?,
                cwd,
            }
        }
        Kind::Sse | Kind::StreamableHttp => {
            let url = ctx.string(name, conn, "url")?.ok_or_else(|| {
                ctx.field_error(
                    name,
                    "url",
                    "a remote server needs a \"url\" (http:// or https://)",
                )
            })?;
            let headers = ctx.string_map(name, conn, "headers")?;
            if kind == Kind::Sse {
                TransportConfig::Sse { url, headers }
            } else {
                TransportConfig::StreamableHttp { url, headers }
            }
        }
    };
    let disabled = match entry.get("disabled") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(ctx.field_error(
                name,
                "disabled",
                format!("must be true or false, found {}", kind_of(other)),
            ))
        }
    };
    let timeout = match entry.get("timeout") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT,
        Some(Value::Number(n)) => clamp_timeout_secs(n.as_f64().unwrap_or(f64::NAN)),
        Some(Value::String(s)) => clamp_timeout_secs(s.trim().parse().unwrap_or(f64::NAN)),
        Some(_) => DEFAULT_TIMEOUT,
    };
    let protocol = match entry.get("protocol") {
        None | Some(Value::Null) => Negotiation::Auto,
        Some(Value::String(s)) => {
            s.trim()
                .parse()
                .map_err(|e: mcp_client::NegotiationParseError| {
                    ctx.field_error(name, "protocol", e.to_string())
                })?
        }
        Some(other) => {
            return Err(ctx.field_error(
                name,
                "protocol",
                format!(
                    "must be \"auto\", \"legacy\" or a protocol version, found {}",
                    kind_of(other)
                ),
            ))
        }
    };
    let mut auto_approve = ctx.strings(name, entry, "autoApprove")?;
    // Roo Code's name for the same list.
    for tool in ctx.strings(name, entry, "alwaysAllow")? {
        if !auto_approve.contains(&tool) {
            auto_approve.push(tool);
        }
    }
    Ok(ServerConfig {
        name: name.to_owned(),
        transport,
        disabled,
        auto_approve,
        timeout,
        protocol,
        oauth: oauth::parse(ctx, name, entry)?,
        tool_filter: tool_selection::parse_filter(ctx, name, entry)?,
        result_limit: tool_selection::parse_result_limit(ctx, name, entry)?,
        limits: super::limits::CallLimits::from_entry(entry)
            .map_err(|(key, reason)| ctx.field_error(name, key, reason))?,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stdio,
    Sse,
    StreamableHttp,
}

fn transport_kind(
    ctx: &mut Ctx<'_>,
    format: ConfigFormat,
    name: &str,
    entry: &Map<String, Value>,
    conn: &Map<String, Value>,
) -> Result<Kind, ConfigError> {
    let pick = |field: &str, value: &str| -> Result<Kind, ConfigError> {
        match value {
            "stdio" => Ok(Kind::Stdio),
            "sse" => Ok(Kind::Sse),
            "streamableHttp" | "streamable-http" | "streamable_http" | "http" => {
                Ok(Kind::StreamableHttp)
            }
            other => Err(ctx.field_error(
                name,
                field,
                format!("unknown transport \"{other}\"; use stdio, sse or streamableHttp"),
            )),
        }
    };
    if format == ConfigFormat::LangChain {
        if let Some(Value::String(t)) = entry.get("transport") {
            return pick("transport", t);
        }
    }
    if let Some(t) = conn.get("type") {
        let Value::String(t) = t else {
            return Err(ctx.field_error(
                name,
                "type",
                "must be a string: stdio, sse or streamableHttp",
            ));
        };
        return pick("type", t);
    }
    if let Some(Value::String(t)) = entry.get("transportType") {
        return pick("transportType", t);
    }
    if conn.get("command").is_some() {
        return Ok(Kind::Stdio);
    }
    if conn.get("url").is_some() {
        // Cline's rule: a URL without a type is the legacy SSE transport (VS Code: HTTP).
        return Ok(if format == ConfigFormat::VsCode {
            Kind::StreamableHttp
        } else {
            Kind::Sse
        });
    }
    Err(ctx.field_error(
        name,
        "command",
        "neither \"command\" (stdio) nor \"url\" (remote) is set",
    ))
}

/// The JSON entry for a server in a file of `format`.
fn entry_for(format: ConfigFormat, server: &ServerConfig) -> Value {
    let mut entry = Map::new();
    let kind = match (&server.transport, format) {
        (TransportConfig::Stdio { .. }, _) => "stdio",
        (TransportConfig::Sse { .. }, _) => "sse",
        (TransportConfig::StreamableHttp { .. }, ConfigFormat::VsCode) => "http",
        (TransportConfig::StreamableHttp { .. }, ConfigFormat::LangChain) => "streamable_http",
        (TransportConfig::StreamableHttp { .. }, _) => "streamableHttp",
    };
    match format {
        ConfigFormat::LangChain => {
            entry.insert("transport".into(), kind.into());
        }
        ConfigFormat::ClaudeDesktop if kind == "stdio" => {}
        _ => {
            entry.insert("type".into(), kind.into());
        }
    }
    match &server.transport {
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            entry.insert("command".into(), command.clone().into());
            entry.insert("args".into(), args.clone().into());
            if !env.is_empty() {
                entry.insert("env".into(), serde_json::to_value(env).unwrap_or_default());
            }
            if let Some(cwd) = cwd {
                entry.insert("cwd".into(), cwd.display().to_string().into());
            }
        }
        TransportConfig::Sse { url, headers }
        | TransportConfig::StreamableHttp { url, headers } => {
            entry.insert("url".into(), url.clone().into());
            if !headers.is_empty() {
                entry.insert(
                    "headers".into(),
                    serde_json::to_value(headers).unwrap_or_default(),
                );
            }
        }
    }
    // Only Cline has a timeout field; in a Claude Desktop file it would also make the file
    // read back as Cline's.
    if server.timeout != DEFAULT_TIMEOUT && format == ConfigFormat::Cline {
        entry.insert("timeout".into(), timeout_seconds(server.timeout));
    }
    if server.disabled {
        entry.insert("disabled".into(), true.into());
    }
    if server.protocol != Negotiation::Auto {
        entry.insert("protocol".into(), server.protocol.to_string().into());
    }
    if !server.auto_approve.is_empty() {
        entry.insert("autoApprove".into(), server.auto_approve.clone().into());
    }
    if let Some(settings) = &server.oauth {
        entry.insert("oauth".into(), oauth::to_json(settings));
    }
    if let Some(tools) = tool_selection::filter_to_json(&server.tool_filter) {
        entry.insert("tools".into(), tools);
    }
    if let Some(limits) = tool_selection::result_limit_to_json(&server.result_limit) {
        entry.insert("resultLimits".into(), limits);
    }
    server.limits.write_into(&mut entry);
    Value::Object(entry)
}

/// Checks a server a user is about to add, as Cline validates: what is refused says how to fix
/// it; what is only odd comes back as warnings.
pub fn validate_new_server(server: &ServerConfig) -> Result<Vec<String>, String> {
    let mut warnings = Vec::new();
    let name = &server.name;
    if name.trim().is_empty() {
        return Err("the server name is empty; give it a name like \"weather\"".into());
    }
    match &server.transport {
        TransportConfig::Stdio { command, env, .. } => {
            if command.trim().is_empty() {
                return Err(
                    "a stdio server needs a command: mcp add NAME -- COMMAND ARGS...".into(),
                );
            }
            for value in env.values() {
                if looks_like_placeholder(value) {
                    warnings.push(format!("environment value {value:?} looks like a placeholder; replace it with the real value"));
                }
            }
        }
        TransportConfig::Sse { url, headers }
        | TransportConfig::StreamableHttp { url, headers } => {
            let lower = url.to_ascii_lowercase();
            if !(lower.starts_with("http://") || lower.starts_with("https://")) {
                return Err(format!(
                    "the URL {url:?} must start with http:// or https://"
                ));
            }
            if url.len() <= "https://".len() {
                return Err(format!("the URL {url:?} has no host"));
            }
            if looks_like_placeholder(url) {
                warnings.push(format!(
                    "the URL {url:?} looks like a placeholder; replace it with the real address"
                ));
            }
            for (header, value) in headers {
                validate_header_name(header)?;
                if looks_like_placeholder(value) {
                    warnings.push(format!(
                        "header {header}: {value:?} looks like a placeholder; replace it with the real value"
                    ));
                }
            }
        }
    }
    Ok(warnings)
}

/// Parses `Name: value` into a header pair with an RFC 7230 token as its name.
pub fn parse_header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once(':').ok_or_else(|| {
        format!(
            "header {text:?} must look like \"Name: value\", e.g. \"Authorization: Bearer TOKEN\""
        )
    })?;
    let name = name.trim();
    validate_header_name(name)?;
    Ok((name.to_owned(), value.trim().to_owned()))
}

fn validate_header_name(name: &str) -> Result<(), String> {
    const TCHAR: &str = "!#$%&'*+-.^_`|~";
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || TCHAR.contains(c))
    {
        return Err(format!(
            "header name {name:?} is not a valid HTTP token; use letters, digits and !#$%&'*+-.^_`|~ only, e.g. \"X-Api-Key\""
        ));
    }
    Ok(())
}

fn looks_like_placeholder(value: &str) -> bool {
    let v = value.trim();
    (v.contains('<') && v.contains('>'))
        || v.contains("YOUR_")
        || v.contains("your-")
        || v.eq_ignore_ascii_case("token")
        || v.contains("xxxx")
}

#[cfg(test)]
mod tests;
