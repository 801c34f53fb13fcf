//! The tools a model is offered and how its calls reach the hub: every tool in the model's
//! format (OpenAI strict where the schema converts, per tool), or, past a threshold,
//! `search_tools` and `call_tool` only. The export is kept until the hub's lists change.

use std::sync::{Arc, Mutex};

use mcp_client::CallOptions;
use mcp_hub::{
    call_tool_arguments, export_tools, search_mode_hub_tools, search_tools_arguments, ExportFormat,
    Hub, CALL_TOOL, SEARCH_TOOLS,
};
use mcp_proto::schema::CallToolResult;
use serde_json::Value;

/// The tools of one model request.
#[derive(Debug, Clone)]
pub(crate) struct Offer {
    /// Whether the model gets the two search tools instead of the list.
    pub(crate) search: bool,
    /// The definitions in the model's format.
    pub(crate) tools: Arc<Value>,
}

/// The last offer made, with the hub's change count and the format it was made for.
#[derive(Default)]
pub(crate) struct OfferCache(Mutex<Option<(u64, ExportFormat, Offer)>>);

impl OfferCache {
    /// The offer for `hub` now in `format`, exported again only after the hub changed.
    pub(crate) fn offer(&self, hub: &Hub, format: ExportFormat, threshold: usize) -> Offer {
        let version = *hub.changes().borrow();
        if let Some((v, f, offer)) = &*mcp_proto::sync::lock(&self.0) {
            if *v == version && *f == format {
                return offer.clone();
            }
        }
        let tools = hub.tools();
        let search = hub.options().tool_search || tools.len() > threshold;
        let exported = if search {
            export_tools(&search_mode_hub_tools(), format)
        } else {
            export_tools(&tools, format)
        };
        let offer = Offer {
            search,
            tools: Arc::new(exported),
        };
        *mcp_proto::sync::lock(&self.0) = Some((version, format, offer.clone()));
        offer
    }
}

/// Runs one call of the model's: in search mode `search_tools` and `call_tool` (and a direct
/// call of a found tool, which models make), else the exposed tool. Every failure comes back
/// as an `isError` result the model can read.
pub(crate) async fn call(
    hub: &Hub,
    search: bool,
    name: &str,
    arguments: Value,
    options: CallOptions,
) -> CallToolResult {
    if search {
        match name {
            SEARCH_TOOLS => {
                return match search_tools_arguments(&arguments) {
                    Ok((query, limit)) => hub.search_tools_result(&query, limit),
                    Err(message) => CallToolResult::error(message),
                }
            }
            CALL_TOOL => {
                return match call_tool_arguments(&arguments) {
                    Ok((inner, arguments)) => match hub.check_searchable(&inner) {
                        Some(refusal) => refusal,
                        None => direct(hub, &inner, arguments, options).await,
                    },
                    Err(message) => CallToolResult::error(message),
                }
            }
            _ => {}
        }
    }
    direct(hub, name, arguments, options).await
}

async fn direct(hub: &Hub, name: &str, arguments: Value, options: CallOptions) -> CallToolResult {
    hub.call_tool_with(name, arguments, options)
        .await
        .unwrap_or_else(|e| e.to_tool_result())
}

/// The model's argument text as a JSON object, or the error that tells the model what was
/// wrong with it.
pub(crate) fn parse_arguments(name: &str, text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(other) => Err(format!(
            "the arguments of {name} must be a JSON object, not {other}; call it again with an object matching its input schema"
        )),
        Err(e) => Err(format!(
            "the arguments of {name} are not valid JSON ({e}): {}; call it again with a JSON object matching its input schema",
            text.chars().take(500).collect::<String>()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_arguments_become_a_readable_error() {
        let e = parse_arguments("w__get", r#"{"city": "Par"#).unwrap_err();
        assert!(e.contains("not valid JSON"), "{e}");
        assert!(parse_arguments("w__get", "[1]").is_err());
        assert_eq!(
            parse_arguments("w__get", "").unwrap(),
            serde_json::json!({})
        );
    }
}
