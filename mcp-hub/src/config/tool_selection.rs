//! The per-server keys that choose and present tools, and cap results:
//!
//! - ours: `"tools": {"include": [globs], "exclude": [globs], "overrides": {"raw_name":
//!   {"name", "title", "description"}}}`;
//! - Gemini CLI's `includeTools` / `excludeTools` (lists of tool names);
//! - Roo Code's `disabledTools` and mcphub.nvim's `disabled_tools` (tools switched off: read as
//!   exclusions);
//! - result caps: `"resultLimits": {"text": BYTES, "structured": BYTES}`, or `"maxResultBytes":
//!   BYTES` for both.
//!
//! (Roo Code's `alwaysAllow` means auto-approval and is read with `autoApprove`.)

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{kind_of, ConfigError, Ctx};
use crate::filter::{ToolFilter, ToolOverride};
use crate::result_limit::ResultLimit;

/// Reads the tool filter of a server entry.
pub(super) fn parse_filter(
    ctx: &mut Ctx<'_>,
    server: &str,
    entry: &Map<String, Value>,
) -> Result<ToolFilter, ConfigError> {
    let mut filter = ToolFilter::default();
    match entry.get("tools") {
        None | Some(Value::Null) => {}
        Some(Value::Object(tools)) => {
            for key in tools.keys() {
                if !matches!(key.as_str(), "include" | "exclude" | "overrides") {
                    ctx.warnings.push(format!(
                        "{}: server \"{server}\": field \"tools.{key}\" is unknown; use include, exclude or overrides",
                        ctx.file
                    ));
                }
            }
            filter.include = prefixed(ctx.strings(server, tools, "include"), "tools")?;
            filter.exclude = prefixed(ctx.strings(server, tools, "exclude"), "tools")?;
            filter.overrides = parse_overrides(ctx, server, tools.get("overrides"))?;
        }
        Some(other) => {
            return Err(ctx.field_error(
                server,
                "tools",
                format!(
                    "must be an object like {{\"include\": [\"get_*\"], \"exclude\": [\"*delete*\"]}}, found {}",
                    kind_of(other)
                ),
            ))
        }
    }
    filter
        .include
        .extend(ctx.strings(server, entry, "includeTools")?);
    for key in ["excludeTools", "disabledTools", "disabled_tools"] {
        filter.exclude.extend(ctx.strings(server, entry, key)?);
    }
    Ok(filter)
}

/// Names a field inside `tools` in an error (`tools.include` rather than `include`).
fn prefixed<T>(result: Result<T, ConfigError>, parent: &str) -> Result<T, ConfigError> {
    result.map_err(|e| match e {
        ConfigError::Field {
            file,
            server,
            field,
            problem,
        } => ConfigError::Field {
            file,
            server,
            field: format!("{parent}.{field}"),
            problem,
        },
        other => other,
    })
}

fn parse_overrides(
    ctx: &mut Ctx<'_>,
    server: &str,
    value: Option<&Value>,
) -> Result<BTreeMap<String, ToolOverride>, ConfigError> {
    let mut out = BTreeMap::new();
    let map = match value {
        None | Some(Value::Null) => return Ok(out),
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(ctx.field_error(
                server,
                "tools.overrides",
                format!(
                    "must be an object of tool names to {{\"name\", \"title\", \"description\"}}, found {}",
                    kind_of(other)
                ),
            ))
        }
    };
    for (tool, changes) in map {
        let field = format!("tools.overrides.{tool}");
        let Value::Object(changes) = changes else {
            return Err(ctx.field_error(
                server,
                &field,
                format!(
                    "must be an object with \"name\", \"title\" or \"description\", found {}",
                    kind_of(changes)
                ),
            ));
        };
        let over = ToolOverride {
            name: prefixed(ctx.string(server, changes, "name"), &field)?,
            title: prefixed(ctx.string(server, changes, "title"), &field)?,
            description: prefixed(ctx.string(server, changes, "description"), &field)?,
        };
        if over.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
            return Err(ctx.field_error(
                server,
                &format!("{field}.name"),
                "must not be empty; leave it out to keep the server's name",
            ));
        }
        out.insert(tool.clone(), over);
    }
    Ok(out)
}

/// Reads the result caps of a server entry.
pub(super) fn parse_result_limit(
    ctx: &mut Ctx<'_>,
    server: &str,
    entry: &Map<String, Value>,
) -> Result<ResultLimit, ConfigError> {
    let mut limit = ResultLimit::default();
    if let Some(value) = entry.get("maxResultBytes").filter(|v| !v.is_null()) {
        let bytes = byte_count(ctx, server, "maxResultBytes", value)?;
        limit.max_text_bytes = Some(bytes);
        limit.max_structured_bytes = Some(bytes);
    }
    match entry.get("resultLimits") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (key, value) in map {
                let field = format!("resultLimits.{key}");
                match key.as_str() {
                    "text" => limit.max_text_bytes = Some(byte_count(ctx, server, &field, value)?),
                    "structured" => {
                        limit.max_structured_bytes = Some(byte_count(ctx, server, &field, value)?)
                    }
                    _ => {
                        return Err(ctx.field_error(
                            server,
                            &field,
                            "unknown limit; use \"text\" or \"structured\" (bytes)",
                        ))
                    }
                }
            }
        }
        Some(other) => {
            return Err(ctx.field_error(
                server,
                "resultLimits",
                format!(
                    "must be an object like {{\"text\": 20000, \"structured\": 50000}}, found {}",
                    kind_of(other)
                ),
            ))
        }
    }
    Ok(limit)
}

fn byte_count(
    ctx: &Ctx<'_>,
    server: &str,
    field: &str,
    value: &Value,
) -> Result<usize, ConfigError> {
    value
        .as_u64()
        .filter(|n| *n > 0)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| {
            ctx.field_error(
                server,
                field,
                format!(
                    "must be a positive whole number of bytes, found {}",
                    kind_of(value)
                ),
            )
        })
}

/// The `tools` object for a filter, or `None` when it changes nothing.
pub(super) fn filter_to_json(filter: &ToolFilter) -> Option<Value> {
    if filter.is_empty() {
        return None;
    }
    let mut map = Map::new();
    if !filter.include.is_empty() {
        map.insert("include".into(), filter.include.clone().into());
    }
    if !filter.exclude.is_empty() {
        map.insert("exclude".into(), filter.exclude.clone().into());
    }
    if !filter.overrides.is_empty() {
        let overrides: Map<String, Value> = filter
            .overrides
            .iter()
            .map(|(tool, o)| {
                let mut m = Map::new();
                for (key, value) in [
                    ("name", &o.name),
                    ("title", &o.title),
                    ("description", &o.description),
                ] {
                    if let Some(v) = value {
                        m.insert(key.into(), v.clone().into());
                    }
                }
                (tool.clone(), Value::Object(m))
            })
            .collect();
        map.insert("overrides".into(), Value::Object(overrides));
    }
    Some(Value::Object(map))
}

/// The `resultLimits` object for a limit, or `None` when it has no cap.
pub(super) fn result_limit_to_json(limit: &ResultLimit) -> Option<Value> {
    if limit.is_unlimited() {
        return None;
    }
    let mut map = Map::new();
    if let Some(n) = limit.max_text_bytes {
        map.insert("text".into(), n.into());
    }
    if let Some(n) = limit.max_structured_bytes {
        map.insert("structured".into(), n.into());
    }
    Some(Value::Object(map))
}
