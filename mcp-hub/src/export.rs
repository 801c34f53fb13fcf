//! The hub's merged tools as function definitions for LLM APIs, in JSON: OpenAI
//! (`type: function`, `name`, `description`, `parameters`; also in strict mode), Anthropic
//! (`name`, `description`, `input_schema`) and Gemini (`functionDeclarations`). Each
//! provider's schema rules are applied by [`schema_convert`](super::schema_convert).

use std::fmt;
use std::str::FromStr;

use serde_json::{json, Map, Value};

use super::schema_convert::{anthropic, gemini, openai_strict};
use super::HubTool;

/// Which provider's function format to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// OpenAI function tools: `{"type": "function", "name", "description", "parameters"}`.
    OpenAi,
    /// OpenAI function tools with `"strict": true` and schemas in strict mode's form; a tool
    /// whose schema has no strict form is written as for [`OpenAi`](Self::OpenAi) with
    /// `"strict": false`.
    OpenAiStrict,
    /// Anthropic tools: `{"name", "description", "input_schema"}`.
    Anthropic,
    /// Gemini: `{"functionDeclarations": [{"name", "description", "parameters"}]}` with
    /// schemas in Gemini's OpenAPI subset (references inlined, `nullable`, no
    /// `additionalProperties`).
    Gemini,
}

impl fmt::Display for ExportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ExportFormat::OpenAi => "openai",
            ExportFormat::OpenAiStrict => "openai-strict",
            ExportFormat::Anthropic => "anthropic",
            ExportFormat::Gemini => "gemini",
        })
    }
}

/// A format name that is not one of ours.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown export format {0:?}; use openai, openai-strict, anthropic or gemini")]
pub struct UnknownFormat(pub String);

impl FromStr for ExportFormat {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "openai" => Ok(ExportFormat::OpenAi),
            "openai-strict" | "openai_strict" | "strict" => Ok(ExportFormat::OpenAiStrict),
            "anthropic" | "claude" => Ok(ExportFormat::Anthropic),
            "gemini" | "google" => Ok(ExportFormat::Gemini),
            _ => Err(UnknownFormat(s.to_owned())),
        }
    }
}

/// The tools as one JSON document of `format`: an array for OpenAI and Anthropic, an object
/// with `functionDeclarations` for Gemini.
pub fn export_tools(tools: &[HubTool], format: ExportFormat) -> Value {
    match format {
        ExportFormat::OpenAi => tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "name": t.exposed,
                    "description": t.description,
                    "parameters": Value::Object(t.tool.input_schema.clone()),
                })
            })
            .collect(),
        ExportFormat::OpenAiStrict => tools
            .iter()
            .map(|t| {
                let original = Value::Object(t.tool.input_schema.clone());
                let (parameters, strict) = match openai_strict(&original) {
                    Ok(converted) => (converted, true),
                    Err(_) => (original, false),
                };
                json!({
                    "type": "function",
                    "name": t.exposed,
                    "description": t.description,
                    "parameters": parameters,
                    "strict": strict,
                })
            })
            .collect(),
        ExportFormat::Anthropic => tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.exposed,
                    "description": t.description,
                    "input_schema": anthropic(&Value::Object(t.tool.input_schema.clone())),
                })
            })
            .collect(),
        ExportFormat::Gemini => {
            let declarations: Vec<Value> = tools
                .iter()
                .map(|t| {
                    let mut decl = Map::new();
                    decl.insert("name".into(), t.exposed.clone().into());
                    decl.insert("description".into(), t.description.clone().into());
                    let schema = gemini(&Value::Object(t.tool.input_schema.clone()));
                    let has_properties = schema
                        .get("properties")
                        .and_then(Value::as_object)
                        .is_some_and(|p| !p.is_empty());
                    if has_properties {
                        decl.insert("parameters".into(), schema);
                    }
                    Value::Object(decl)
                })
                .collect();
            json!({ "functionDeclarations": declarations })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_proto::schema::Tool;

    fn sample() -> Vec<HubTool> {
        let tool = Tool::new("get_weather", "Current weather").with_input_schema(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": false
        }));
        vec![HubTool {
            exposed: "weather__get_weather".into(),
            server: "weather".into(),
            description: "Current weather".into(),
            tool,
        }]
    }

    #[test]
    fn openai_shape() {
        let v = export_tools(&sample(), ExportFormat::OpenAi);
        assert_eq!(v[0]["type"], "function");
        assert_eq!(v[0]["name"], "weather__get_weather");
        assert_eq!(v[0]["parameters"]["required"][0], "city");
    }

    #[test]
    fn anthropic_shape() {
        let v = export_tools(&sample(), ExportFormat::Anthropic);
        assert_eq!(v[0]["name"], "weather__get_weather");
        assert_eq!(v[0]["input_schema"]["type"], "object");
        assert!(v[0].get("parameters").is_none());
    }

    #[test]
    fn gemini_shape_drops_unsupported_keywords() {
        let v = export_tools(&sample(), ExportFormat::Gemini);
        let decl = &v["functionDeclarations"][0];
        assert_eq!(decl["name"], "weather__get_weather");
        assert!(decl["parameters"].get("$schema").is_none());
        assert!(decl["parameters"].get("additionalProperties").is_none());
        assert_eq!(decl["parameters"]["properties"]["city"]["type"], "string");
    }

    #[test]
    fn openai_strict_shape() {
        let v = export_tools(&sample(), ExportFormat::OpenAiStrict);
        assert_eq!(v[0]["strict"], true);
        assert_eq!(v[0]["parameters"]["additionalProperties"], false);
        assert!(v[0]["parameters"].get("$schema").is_none());
        let mut free = sample();
        free[0].tool = Tool::new("t", "d").with_input_schema(json!({
            "type": "object",
            "properties": {"env": {"type": "object"}}
        }));
        let v = export_tools(&free, ExportFormat::OpenAiStrict);
        assert_eq!(v[0]["strict"], false);
        assert_eq!(v[0]["parameters"]["properties"]["env"]["type"], "object");
    }

    #[test]
    fn format_names_parse() {
        assert_eq!(
            "OpenAI".parse::<ExportFormat>().ok(),
            Some(ExportFormat::OpenAi)
        );
        assert!("bard".parse::<ExportFormat>().is_err());
    }
}
