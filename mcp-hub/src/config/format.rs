//! The shape of each config format: where its servers live, how a file's format is told from
//! its shape, and how a server is written back as an entry of that format.

use std::time::Duration;

use mcp_client::{Negotiation, DEFAULT_TIMEOUT};
use serde_json::{Map, Value};

use super::{oauth, tool_selection, ConfigFormat, ServerConfig, TransportConfig};

/// Where the servers live in a file of each format.
pub(super) fn servers_of(format: ConfigFormat, raw: &Value) -> Option<&Map<String, Value>> {
    match format {
        ConfigFormat::Cline | ConfigFormat::ClaudeDesktop => raw.get("mcpServers")?.as_object(),
        ConfigFormat::VsCode => raw.get("servers")?.as_object(),
        ConfigFormat::LangChain => raw
            .get("mcpServers")
            .and_then(Value::as_object)
            .or(raw.as_object()),
    }
}

pub(super) fn servers_of_mut(
    format: ConfigFormat,
    raw: &mut Value,
) -> Option<&mut Map<String, Value>> {
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

pub(super) fn names_transport(entry: &Value) -> bool {
    entry.get("transport").is_some_and(Value::is_string)
}

/// Tells the format from the file's shape.
pub(super) fn detect(raw: &Value) -> Option<ConfigFormat> {
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

/// A timeout as the seconds a Cline file holds: an integer when whole, else a fraction.
pub(super) fn timeout_seconds(timeout: Duration) -> Value {
    if timeout.subsec_millis() == 0 {
        timeout.as_secs().into()
    } else {
        (timeout.as_millis() as f64 / 1000.0).into()
    }
}

/// The JSON entry for a server in a file of `format`.
pub(super) fn entry_for(format: ConfigFormat, server: &ServerConfig) -> Value {
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
