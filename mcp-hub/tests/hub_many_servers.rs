//! The hub with 20 real servers at once (6 weather-server, 2 server-everything, 2
//! server-filesystem, the FastMCP fixture and 9 FastMCP tool catalogs): 300+ tools.
//!
//! - Tool search finds the right tool for 20 plain-language queries written here: top-3 recall
//!   of at least 0.9. In tool search mode a model sees two tools and can call through them.
//! - Every tool's input schema is exported for OpenAI strict mode, Anthropic and Gemini; each
//!   conversion is checked by rule, and round-tripped: instances the original schema accepts
//!   (built from the schema here: the required fields only, and every field) are accepted by
//!   the converted schema (for strict mode after filling `null`s, and accepted by the original
//!   again after `restore_arguments`). When the providers' SDK checks are installed
//!   (`MCP_PROVIDER_PYTHON`, scripts/interop-setup.sh) they check the whole export too.

#[path = "../../mcp-client/tests/common/mod.rs"]
mod common;
#[path = "../../mcp-client/tests/interop/hub_support.rs"]
mod hub_support;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{bounded, fixture, interop_python, node_modules, temp_dir};
use hub_support::{everything_entry, fastmcp_entry, filesystem_entry, weather_entry};
use mcp_hub::schema_convert::{
    anthropic, fill_nulls, gemini, gemini_to_json_schema, openai_strict, restore_arguments,
};
use mcp_hub::{
    ExportFormat, Hub, HubConfig, HubOptions, ServerStatus, Variables, CALL_TOOL, SEARCH_TOOLS,
};
use serde_json::{json, Map, Value};

const DOMAINS: [&str; 9] = [
    "calendar", "email", "code", "tracker", "chat", "database", "cloud", "finance", "docs",
];

/// The 20 servers' config, or `None` when the interop peers are not installed.
fn twenty_servers() -> Option<Value> {
    let modules = node_modules()?;
    let python = interop_python()?;
    let mut servers = Map::new();
    for i in 1..=6 {
        servers.insert(format!("weather{i}"), weather_entry());
    }
    for i in 1..=2 {
        servers.insert(format!("everything{i}"), everything_entry(&modules));
        let dir = temp_dir(&format!("many-fs{i}"));
        let dir = dir.canonicalize().unwrap_or(dir);
        servers.insert(format!("files{i}"), filesystem_entry(&modules, &dir));
    }
    servers.insert("fastmcp".into(), fastmcp_entry(&python));
    for domain in DOMAINS {
        servers.insert(
            domain.into(),
            json!({
                "command": python.to_string_lossy(),
                "args": [fixture("tool_catalog.py"), domain]
            }),
        );
    }
    assert_eq!(servers.len(), 20);
    Some(json!({ "mcpServers": servers }))
}

async fn connect(options: HubOptions) -> Option<Hub> {
    let config = twenty_servers()?;
    let config =
        HubConfig::parse(&config.to_string(), "many.json", &Variables::default()).expect("config");
    let options = HubOptions {
        connect_timeout: Duration::from_secs(120),
        restart: None,
        ..options
    };
    let hub = bounded(180, "connect 20 servers", Hub::connect(config, options)).await;
    for s in hub.servers() {
        assert_eq!(
            s.status,
            ServerStatus::Connected,
            "server {} did not connect",
            s.config.name
        );
    }
    Some(hub)
}

/// Plain-language requests and the raw names of the tools that serve them (on any server).
const QUERIES: [(&str, &[&str]); 20] = [
    (
        "What's the weather like in Tokyo right now?",
        &["get_weather"],
    ),
    (
        "Will it rain in Berlin over the next five days?",
        &["get_forecast"],
    ),
    (
        "Show me what is inside the file notes.txt",
        &["read_text_file", "read_file"],
    ),
    ("Rename report.pdf to final-report.pdf", &["move_file"]),
    ("Make a new folder called archive", &["create_directory"]),
    ("Add two numbers together", &["get-sum", "add"]),
    (
        "Schedule a meeting with the design team next Tuesday",
        &["create_event"],
    ),
    (
        "Send an email to my manager about the budget",
        &["send_message", "create_message"],
    ),
    (
        "Open a pull request to merge my feature branch into main",
        &["create_pull_request"],
    ),
    (
        "File a bug ticket about the login page crashing",
        &["create_issue"],
    ),
    (
        "Post a message in the #general channel",
        &["create_channel_message"],
    ),
    (
        "Take a backup of the production database",
        &["create_backup"],
    ),
    (
        "Spin up a new virtual machine in Europe",
        &["create_virtual_machine"],
    ),
    ("Refund the customer's last payment", &["create_refund"]),
    (
        "How many euros is 100 dollars?",
        &["convert_currency", "get_exchange_rate"],
    ),
    (
        "Translate this paragraph into French",
        &["translate_text", "create_translation"],
    ),
    (
        "Find all files ending in .log in the project",
        &["search_files"],
    ),
    (
        "Delete the staging DNS record for api.example.com",
        &["delete_dns_record"],
    ),
    ("Log 3 hours of work on ticket PROJ-12", &["create_worklog"]),
    (
        "Invite Alice to the Friday planning event",
        &["create_attendee"],
    ),
];

/// Queries written after the ranker's synonym table was tuned on the misses of `QUERIES` (6/10
/// then). The second round of ranker changes was made on their misses (10/10 since), so their
/// recall is no longer an untuned figure: `HELD_OUT_2` is. Printed, not asserted.
const HELD_OUT: [(&str, &[&str]); 10] = [
    ("Cancel my 2pm appointment", &["delete_event"]),
    (
        "Who is coming to the offsite event?",
        &["list_attendee", "get_attendee", "search_attendee"],
    ),
    (
        "Reply in the thread about the outage",
        &["create_channel_message"],
    ),
    (
        "Give Bob write access to the analytics database",
        &["create_user_account", "update_user_account"],
    ),
    (
        "Point www.example.org to the new load balancer IP",
        &["create_dns_record", "update_dns_record"],
    ),
    (
        "Submit my taxi receipt for reimbursement",
        &["create_expense"],
    ),
    (
        "What files are in my home directory?",
        &[
            "list_directory",
            "list_directory_with_sizes",
            "directory_tree",
        ],
    ),
    (
        "Write 'hello' to a new file called hello.txt",
        &["write_file"],
    ),
    ("Squash and merge PR 42", &["merge_pull_request"]),
    (
        "Set my chat status to away",
        &["update_status", "create_status"],
    ),
];

/// Queries written on 2026-12-01 before the second round of ranker changes (a wider synonym
/// table, host names, enum values) and never used to tune it: 8/10 before and after that
/// round. Printed, not asserted.
const HELD_OUT_2: [(&str, &[&str]); 10] = [
    (
        "Remind me 15 minutes before the standup",
        &["create_reminder"],
    ),
    (
        "Which meeting rooms are free for ten people?",
        &["list_room", "search_room"],
    ),
    (
        "Block emails from spam@example.com going to my inbox",
        &["create_filter"],
    ),
    ("Make the mcp-rs repository private", &["update_repository"]),
    (
        "Roll back the checkout service to version 1.4",
        &["create_deployment", "update_deployment"],
    ),
    ("Alert me when CPU goes above 90 percent", &["create_alert"]),
    (
        "How much did we charge the customer's card last week?",
        &["list_payment", "search_payment", "get_payment"],
    ),
    ("Add a thumbs-up to that message", &["create_reaction"]),
    (
        "Show the commit history of the main branch",
        &["list_commit"],
    ),
    (
        "Show me the size of every file in the downloads folder",
        &["list_directory_with_sizes"],
    ),
];

/// How many of `queries` have an expected tool in the top 3, printing each.
fn recall_at_3(hub: &Hub, queries: &[(&str, &[&str])]) -> usize {
    let mut found = 0;
    for (query, expected) in queries {
        let top = hub.search_tools(query, 3);
        let hit = top.iter().any(|t| expected.contains(&t.tool.name.as_str()));
        let names: Vec<&str> = top.iter().map(|t| t.exposed.as_str()).collect();
        eprintln!(
            "{} {query:?} -> {names:?}",
            if hit { "hit " } else { "MISS" }
        );
        found += usize::from(hit);
    }
    found
}

#[tokio::test]
async fn twenty_servers_tool_search_and_exports() {
    let started = std::time::Instant::now();
    let Some(hub) = connect(HubOptions::default().with_tool_search(true)).await else {
        return;
    };
    eprintln!("connected in {:.1?}", started.elapsed());
    let tools = hub.tools();
    eprintln!("{} servers, {} tools", hub.servers().len(), tools.len());
    assert!(tools.len() >= 300, "only {} tools", tools.len());

    // Recall at 3 over the query set.
    let found = recall_at_3(&hub, &QUERIES);
    let recall = found as f64 / QUERIES.len() as f64;
    eprintln!("top-3 recall: {found}/{} = {recall:.2}", QUERIES.len());
    let held_out = recall_at_3(&hub, &HELD_OUT);
    eprintln!(
        "top-3 recall on the held-out queries (not asserted): {held_out}/{}",
        HELD_OUT.len()
    );
    let held_out_2 = recall_at_3(&hub, &HELD_OUT_2);
    eprintln!(
        "top-3 recall on the second held-out queries (not asserted): {held_out_2}/{}",
        HELD_OUT_2.len()
    );
    assert!(recall >= 0.9, "top-3 recall {recall:.2} < 0.9");

    // Tool search mode: two tools, whatever the number of servers; search, then call.
    let offered: Vec<String> = hub.model_tools().into_iter().map(|t| t.name).collect();
    assert_eq!(offered, [SEARCH_TOOLS, CALL_TOOL]);
    let result = hub
        .call_model_tool(
            SEARCH_TOOLS,
            json!({"query": "weather forecast for a city", "limit": 2}),
        )
        .await;
    assert!(!result.is_error(), "{result:?}");
    let definitions = result.structured_content.expect("structured")["tools"].clone();
    assert_eq!(definitions.as_array().map(Vec::len), Some(2));
    let name = definitions[0]["name"].as_str().expect("name").to_owned();
    assert!(name.ends_with("__get_forecast"), "{definitions}");
    assert!(definitions[0]["inputSchema"]["properties"]["city"].is_object());
    let called = bounded(
        30,
        "call_tool",
        hub.call_model_tool(
            CALL_TOOL,
            json!({"name": name, "arguments": {"city": "Paris", "days": 2}}),
        ),
    )
    .await;
    assert!(!called.is_error(), "{called:?}");
    let text = called.content[0].as_text().unwrap_or_default().to_owned();
    assert!(text.contains("Paris"), "{text}");
    let unknown = hub
        .call_model_tool(CALL_TOOL, json!({"name": "nope__nothing"}))
        .await;
    assert!(unknown.is_error());
    let export = hub.export(ExportFormat::OpenAi);
    assert_eq!(export.as_array().map(Vec::len), Some(2));

    eprintln!("searched and called by {:.1?}", started.elapsed());
    check_conversions(&hub);
    eprintln!("conversions checked by {:.1?}", started.elapsed());
    hub.close().await;
}

/// Every tool's schema through the three conversions, with the round trip.
fn check_conversions(hub: &Hub) {
    let tools = hub.tools();
    let mut strict = 0;
    let mut fallback: Vec<String> = Vec::new();
    let mut instances = 0;
    let mut by_server: BTreeMap<String, usize> = BTreeMap::new();
    let mut seen_defs = 0;
    for tool in &tools {
        let original = Value::Object(tool.tool.input_schema.clone());
        if original.get("$defs").is_some() {
            seen_defs += 1;
        }
        let original_validator = validator(&original, &tool.exposed, "original");
        let examples: Vec<Value> = [false, true]
            .iter()
            .map(|&full| example(&original, &original, full, 0))
            .filter(|e| original_validator.is_valid(e))
            .collect();
        assert!(
            !examples.is_empty(),
            "{}: no instance of {original} could be built",
            tool.exposed
        );
        instances += examples.len();
        *by_server.entry(tool.server.clone()).or_default() += 1;

        // Anthropic: an object at the root, no combinators there, the examples still valid.
        let converted = anthropic(&original);
        assert_eq!(converted["type"], "object", "{}", tool.exposed);
        for key in ["anyOf", "oneOf", "allOf"] {
            assert!(converted.get(key).is_none(), "{}: root {key}", tool.exposed);
        }
        let v = validator(&converted, &tool.exposed, "anthropic");
        for e in &examples {
            assert!(v.is_valid(e), "{}: anthropic rejects {e}", tool.exposed);
        }

        // Gemini: only the keywords of its Schema, no references, the examples still valid.
        let converted = gemini(&original);
        check_gemini_keywords(&converted, &tool.exposed);
        let v = validator(&gemini_to_json_schema(&converted), &tool.exposed, "gemini");
        for e in &examples {
            assert!(
                v.is_valid(e),
                "{}: gemini form {converted} rejects {e}",
                tool.exposed
            );
        }

        // OpenAI strict: closed objects with every property required; the examples, with
        // nulls filled in, valid; restored, valid for the original again.
        match openai_strict(&original) {
            Ok(converted) => {
                strict += 1;
                check_strict(&converted, &tool.exposed);
                let v = validator(&converted, &tool.exposed, "openai strict");
                for e in &examples {
                    let filled = fill_nulls(&original, e);
                    assert!(
                        v.is_valid(&filled),
                        "{}: strict form {converted} rejects {filled}",
                        tool.exposed
                    );
                    let restored = restore_arguments(&original, filled.clone());
                    assert!(
                        original_validator.is_valid(&restored),
                        "{}: {filled} restored to {restored} is not valid for the original",
                        tool.exposed
                    );
                }
            }
            Err(why) => fallback.push(format!("{}: {why}", tool.exposed)),
        }
    }
    eprintln!(
        "conversions: {} tools ({} with $defs), {instances} instances; openai strict {strict}, non-strict fallback {}",
        tools.len(),
        seen_defs,
        fallback.len()
    );
    for f in &fallback {
        eprintln!("  non-strict: {f}");
    }
    assert!(seen_defs > 0, "no schema with $defs among the real ones");
    assert!(
        strict * 10 >= tools.len() * 8,
        "only {strict} of {} tools have a strict form",
        tools.len()
    );
    let checks = std::time::Instant::now();
    provider_checks(hub);
    eprintln!("provider checks took {:.1?}", checks.elapsed());
}

fn validator(schema: &Value, tool: &str, what: &str) -> jsonschema::Validator {
    jsonschema::validator_for(schema).unwrap_or_else(|e| {
        panic!("{tool}: the {what} schema is not valid JSON Schema: {e}\n{schema}")
    })
}

/// The keywords of Gemini's `Schema`, at every depth.
fn check_gemini_keywords(schema: &Value, tool: &str) {
    const ALLOWED: &[&str] = &[
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    ];
    let Some(map) = schema.as_object() else {
        panic!("{tool}: gemini subschema {schema} is not an object");
    };
    for (k, v) in map {
        assert!(ALLOWED.contains(&k.as_str()), "{tool}: gemini keyword {k}");
        match k.as_str() {
            "properties" => v
                .as_object()
                .into_iter()
                .flatten()
                .for_each(|(_, s)| check_gemini_keywords(s, tool)),
            "items" => check_gemini_keywords(v, tool),
            "anyOf" => v
                .as_array()
                .into_iter()
                .flatten()
                .for_each(|s| check_gemini_keywords(s, tool)),
            "type" => assert!(v.is_string(), "{tool}: gemini type {v}"),
            _ => {}
        }
    }
}

/// Strict mode's rules, at every depth.
fn check_strict(schema: &Value, tool: &str) {
    let Some(map) = schema.as_object() else {
        panic!("{tool}: strict subschema {schema} is not an object");
    };
    assert!(
        !map.contains_key("$ref") && !map.contains_key("oneOf") && !map.contains_key("allOf"),
        "{tool}: {schema}"
    );
    if let Some(properties) = map.get("properties").and_then(Value::as_object) {
        assert_eq!(
            map.get("additionalProperties"),
            Some(&Value::Bool(false)),
            "{tool}: {schema}"
        );
        let required: Vec<&str> = map["required"]
            .as_array()
            .expect("required")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let keys: Vec<&str> = properties.keys().map(String::as_str).collect();
        assert_eq!(required, keys, "{tool}: every property is required");
        properties.values().for_each(|s| check_strict(s, tool));
    }
    if let Some(items) = map.get("items") {
        check_strict(items, tool);
    }
    if let Some(variants) = map.get("anyOf").and_then(Value::as_array) {
        variants.iter().for_each(|s| check_strict(s, tool));
    }
}

/// An instance of `schema`: the required properties only, or (`full`) every property.
/// Follows local `$ref`s (to a bounded depth), `anyOf`/`oneOf` (the first non-null), `enum`,
/// `const`, `default`, `examples` and simple string formats.
fn example(schema: &Value, root: &Value, full: bool, depth: usize) -> Value {
    let Some(map) = schema.as_object() else {
        return json!("x");
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        let target = reference.strip_prefix('#').and_then(|p| {
            if p.is_empty() {
                Some(root)
            } else {
                root.pointer(p)
            }
        });
        return match target {
            Some(t) if depth < 4 => example(t, root, full, depth + 1),
            _ => json!({}),
        };
    }
    if let Some(Value::Array(examples)) = map.get("examples") {
        if let Some(first) = examples.first() {
            return first.clone();
        }
    }
    if let Some(value) = map.get("const") {
        return value.clone();
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        if let Some(first) = values.iter().find(|v| !v.is_null()) {
            return first.clone();
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(variants)) = map.get(key) {
            let pick = variants
                .iter()
                .find(|v| v.get("type").and_then(Value::as_str) != Some("null"))
                .or(variants.first());
            if let Some(pick) = pick {
                if full || map.get("default").is_none() {
                    return example(pick, root, full, depth + 1);
                }
            }
        }
    }
    if let Some(Value::Array(parts)) = map.get("allOf") {
        let mut merged = Map::new();
        for part in parts {
            if let Value::Object(m) = example(part, root, full, depth + 1) {
                merged.extend(m);
            }
        }
        return Value::Object(merged);
    }
    let ty = match map.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if map.contains_key("properties") => "object",
        _ => return map.get("default").cloned().unwrap_or(json!("x")),
    };
    match ty {
        "object" => {
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            if let Some(Value::Object(properties)) = map.get("properties") {
                for (name, property) in properties {
                    if full || required.contains(&name.as_str()) {
                        out.insert(name.clone(), example(property, root, full, depth + 1));
                    }
                }
            }
            Value::Object(out)
        }
        "array" => {
            let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let n = if full { min.max(1) } else { min };
            let item = map
                .get("items")
                .cloned()
                .unwrap_or(json!({"type": "string"}));
            if depth > 6 {
                return json!([]);
            }
            Value::Array(
                (0..n)
                    .map(|_| example(&item, root, full, depth + 1))
                    .collect(),
            )
        }
        "string" => {
            let format = map.get("format").and_then(Value::as_str).unwrap_or("");
            let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(1) as usize;
            match format {
                "uri" | "url" => json!("https://example.com/x"),
                "date-time" => json!("2026-08-02T07:00:00Z"),
                "date" => json!("2026-08-02"),
                "email" => json!("a@example.com"),
                _ => Value::String("x".repeat(min.max(1))),
            }
        }
        "integer" => json!(map
            .get("minimum")
            .and_then(Value::as_i64)
            .unwrap_or(1)
            .max(1)),
        "number" => json!(map
            .get("minimum")
            .and_then(Value::as_f64)
            .unwrap_or(1.0)
            .max(1.0)),
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => json!("x"),
    }
}

/// The providers' own checks over the whole export, when installed.
fn provider_checks(hub: &Hub) {
    let Some(python) = common::interop_var("MCP_PROVIDER_PYTHON") else {
        return;
    };
    let tools = hub.tools();
    let export = json!({
        "gemini": mcp_hub::export_tools(&tools, ExportFormat::Gemini),
        "openai_strict": mcp_hub::export_tools(&tools, ExportFormat::OpenAiStrict),
    });
    let dir = temp_dir("provider-checks");
    let file = dir.join("export.json");
    std::fs::write(&file, export.to_string()).expect("write export");
    let output = std::process::Command::new(python)
        .arg(fixture("provider_validators.py"))
        .arg(&file)
        .output()
        .expect("run provider_validators.py");
    let stdout = String::from_utf8_lossy(&output.stdout);
    eprintln!("provider checks: {stdout}");
    assert!(
        output.status.success(),
        "provider checks failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.trim()).expect("checker printed JSON");
    assert_eq!(seen["gemini"].as_u64(), Some(tools.len() as u64));
    assert!(seen["openai_strict"].as_u64().is_some_and(|n| n > 0));
}
