//! The read-only commands: `tools`, `resources`, `read`, `prompts`, `prompt`, `export`,
//! `instructions`.

use std::collections::BTreeMap;
use std::process::ExitCode;

use mcp_hub::{presented_definition, ExportFormat, Hub, HubError};
use serde_json::{json, Value};

use super::{open_hub, parse_object, Failure, Outcome};
use crate::config_path::ConfigSource;
use crate::output::{first_line, render_content, render_resource_contents, table};

/// Fails when the one server asked for did not connect, so the user sees why.
fn require_connected(hub: &Hub, only: Option<&str>) -> Result<(), Failure> {
    if let Some(name) = only {
        let server = hub.server(name)?;
        if server.status != mcp_hub::ServerStatus::Connected {
            return Err(HubError::NotConnected {
                server: name.into(),
                reason: server.status.describe(),
            }
            .into());
        }
    }
    Ok(())
}

/// Prints failed servers to stderr, so an empty list is not a mystery.
fn report_failures(hub: &Hub) {
    for s in hub.servers() {
        if let mcp_hub::ServerStatus::Failed(reason) = &s.status {
            eprintln!("mcp: server {} failed: {reason}", s.config.name);
        }
    }
    for warning in hub.filter_warnings() {
        eprintln!("mcp: warning: {warning}");
    }
}

/// `mcp tools [SERVER] [--json]`.
pub async fn tools(source: &ConfigSource, only: Option<&str>, as_json: bool) -> Outcome {
    let hub = open_hub(source, only).await?;
    let checked = require_connected(&hub, only);
    report_failures(&hub);
    let tools = hub.tools();
    if checked.is_ok() {
        if as_json {
            let list: Vec<Value> = tools
                .iter()
                .map(|t| {
                    let mut def = serde_json::to_value(&t.tool).unwrap_or(Value::Null);
                    if let Value::Object(map) = &mut def {
                        map.insert("name".into(), t.exposed.clone().into());
                        map.insert("server".into(), t.server.clone().into());
                        map.insert("rawName".into(), t.tool.name.clone().into());
                    }
                    def
                })
                .collect();
            outln!("{}", pretty(&Value::Array(list)));
        } else {
            let rows: Vec<Vec<String>> = tools
                .iter()
                .map(|t| {
                    vec![
                        t.exposed.clone(),
                        t.tool.name.clone(),
                        t.server.clone(),
                        first_line(&t.description),
                    ]
                })
                .collect();
            out!("{}", table(&rows));
        }
    }
    hub.close().await;
    checked.map(|()| ExitCode::SUCCESS)
}

/// `mcp resources [SERVER]`: resources, then templates.
pub async fn resources(source: &ConfigSource, only: Option<&str>) -> Outcome {
    let hub = open_hub(source, only).await?;
    let checked = require_connected(&hub, only);
    report_failures(&hub);
    if checked.is_ok() {
        let mut rows: Vec<Vec<String>> = hub
            .resources()
            .into_iter()
            .map(|r| {
                vec![
                    r.server,
                    r.resource.uri,
                    r.resource.name,
                    r.resource.mime_type.unwrap_or_default(),
                    first_line(r.resource.description.as_deref().unwrap_or_default()),
                ]
            })
            .collect();
        rows.extend(hub.resource_templates().into_iter().map(|t| {
            vec![
                t.server,
                t.template.uri_template,
                format!("{} (template)", t.template.name),
                t.template.mime_type.unwrap_or_default(),
                first_line(t.template.description.as_deref().unwrap_or_default()),
            ]
        }));
        out!("{}", table(&rows));
    }
    hub.close().await;
    checked.map(|()| ExitCode::SUCCESS)
}

/// `mcp read SERVER URI`.
pub async fn read(source: &ConfigSource, server: &str, uri: &str) -> Outcome {
    let hub = open_hub(source, Some(server)).await?;
    let result = match require_connected(&hub, Some(server)) {
        Ok(()) => hub.read_resource(server, uri).await.map_err(Failure::from),
        Err(e) => Err(e),
    };
    hub.close().await;
    let result = result?;
    for contents in &result.contents {
        outln!("{}", render_resource_contents(contents));
    }
    Ok(ExitCode::SUCCESS)
}

/// `mcp prompts [SERVER]`.
pub async fn prompts(source: &ConfigSource, only: Option<&str>) -> Outcome {
    let hub = open_hub(source, only).await?;
    let checked = require_connected(&hub, only);
    report_failures(&hub);
    if checked.is_ok() {
        let rows: Vec<Vec<String>> = hub
            .prompts()
            .into_iter()
            .map(|p| {
                let args: Vec<String> = p
                    .prompt
                    .arguments
                    .iter()
                    .flatten()
                    .map(|a| {
                        if a.required == Some(true) {
                            a.name.clone()
                        } else {
                            format!("[{}]", a.name)
                        }
                    })
                    .collect();
                vec![
                    p.exposed,
                    p.prompt.name,
                    p.server,
                    args.join(" "),
                    first_line(p.prompt.description.as_deref().unwrap_or_default()),
                ]
            })
            .collect();
        out!("{}", table(&rows));
    }
    hub.close().await;
    checked.map(|()| ExitCode::SUCCESS)
}

/// `mcp prompt SERVER NAME [JSON_ARGS]`: the messages, one block per message.
pub async fn prompt(
    source: &ConfigSource,
    server: &str,
    name: &str,
    args: Option<&str>,
) -> Outcome {
    let args = parse_object(args, "JSON_ARGS (the prompt arguments)")?;
    let mut arguments = BTreeMap::new();
    if let Value::Object(map) = args {
        for (k, v) in map {
            let text = match v {
                Value::String(s) => s,
                other => other.to_string(),
            };
            arguments.insert(k, text);
        }
    }
    let hub = open_hub(source, Some(server)).await?;
    let result = match require_connected(&hub, Some(server)) {
        Ok(()) => hub
            .get_prompt(server, name, arguments)
            .await
            .map_err(Failure::from),
        Err(e) => Err(e),
    };
    hub.close().await;
    let result = result?;
    if let Some(description) = &result.description {
        outln!("# {description}");
    }
    for message in &result.messages {
        let role = serde_json::to_value(message.role)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "message".into());
        outln!("{role}: {}", render_content(&message.content));
    }
    Ok(ExitCode::SUCCESS)
}

/// `mcp export --format openai|anthropic|gemini`.
pub async fn export(source: &ConfigSource, format: &str) -> Outcome {
    let format: ExportFormat = format.parse().map_err(|e| Failure::usage(format!("{e}")))?;
    let hub = open_hub(source, None).await?;
    report_failures(&hub);
    let doc = hub.export(format);
    hub.close().await;
    outln!("{}", pretty(&doc));
    Ok(ExitCode::SUCCESS)
}

/// `mcp search QUERY [--limit N] [--json]`: the best tools for a plain-language query.
pub async fn search(source: &ConfigSource, query: &str, limit: usize, as_json: bool) -> Outcome {
    let hub = open_hub(source, None).await?;
    report_failures(&hub);
    let found = hub.search_tools(query, limit.max(1));
    hub.close().await;
    if as_json {
        let list: Vec<Value> = found
            .iter()
            .map(|t| serde_json::to_value(presented_definition(t)).unwrap_or(Value::Null))
            .collect();
        outln!("{}", pretty(&Value::Array(list)));
    } else if found.is_empty() {
        eprintln!("mcp: no tool matches {query:?}");
    } else {
        let rows: Vec<Vec<String>> = found
            .iter()
            .map(|t| {
                vec![
                    t.exposed.clone(),
                    t.server.clone(),
                    first_line(&t.description),
                ]
            })
            .collect();
        out!("{}", table(&rows));
    }
    Ok(ExitCode::SUCCESS)
}

/// `mcp instructions`.
pub async fn instructions(source: &ConfigSource) -> Outcome {
    let hub = open_hub(source, None).await?;
    report_failures(&hub);
    let block = hub.instructions_block();
    hub.close().await;
    if block.is_empty() {
        eprintln!("mcp: no server gave instructions");
    } else {
        out!("{block}");
    }
    Ok(ExitCode::SUCCESS)
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| json!(null).to_string())
}
