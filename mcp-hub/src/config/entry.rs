//! Reading one server entry of any format into a [`ServerConfig`]: its transport, command or
//! URL, and the Cline fields around them.

use std::path::PathBuf;

use mcp_client::{Negotiation, DEFAULT_TIMEOUT};
use serde_json::{Map, Value};

use super::fields::{kind_of, Ctx};
use super::{
    clamp_timeout_secs, oauth, tool_selection, ConfigError, ConfigFormat, ServerConfig,
    TransportConfig,
};

pub(super) fn parse_server(
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
        limits: crate::limits::CallLimits::from_entry(entry)
            .map_err(|(key, reason)| ctx.field_error(name, key, reason))?,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Stdio,
    Sse,
    StreamableHttp,
}

pub(super) fn transport_kind(
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
        // Cline's rule: a URL without a type is the HTTP+SSE transport (VS Code: HTTP).
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
