//! Tool search mode: instead of every tool of every server, a model sees two tools, so the
//! list stays small whatever the number of servers:
//!
//! - `search_tools(query, limit)` ranks the tools the filters allow (see `search`) and returns
//!   their full definitions under their exposed names;
//! - `call_tool(name, arguments)` calls any of them, through the same routing, approval,
//!   filters and result caps as a direct call.
//!
//! [`HubOptions::tool_search`](super::HubOptions) turns it on for [`Hub::model_tools`],
//! [`Hub::call_model_tool`] and [`Hub::export`]; `mcp proxy --tool-search` serves it.

use std::sync::{Arc, Mutex};

use mcp_proto::schema::{CallToolResult, Tool};
use serde_json::{json, Value};

use super::search::ToolIndex;
use super::{Hub, HubError, HubTool};

/// The last index built, with the hub's change count it was built at: searches reuse it until
/// a server's lists or the config change.
#[derive(Default)]
pub(crate) struct SearchCache(Mutex<Option<(u64, Arc<IndexedTools>)>>);

/// Tools and their index, built together.
type IndexedTools = (Vec<HubTool>, ToolIndex);

/// The name of the search tool.
pub const SEARCH_TOOLS: &str = "search_tools";
/// The name of the tool that calls a found tool.
pub const CALL_TOOL: &str = "call_tool";
/// How many definitions `search_tools` returns when the caller names no limit.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;
/// The most definitions one search returns.
pub const MAX_SEARCH_LIMIT: usize = 50;

/// The definition of `search_tools`.
pub fn search_tools_definition() -> Tool {
    Tool::new(
        SEARCH_TOOLS,
        "Find tools for a task. Describe what you want to do in plain words; the best matching \
         tools come back with their full definitions (name, description, input schema). Then \
         run one with call_tool.",
    )
    .with_title("Search tools")
    .with_input_schema(json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What the tool should do, e.g. \"read a file\" or \"weather forecast for a city\""
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_SEARCH_LIMIT,
                "description": "How many tools to return (default 5)"
            }
        },
        "required": ["query"]
    }))
}

/// The definition of `call_tool`.
pub fn call_tool_definition() -> Tool {
    Tool::new(
        CALL_TOOL,
        "Run a tool found with search_tools: give its exact name and its arguments as an object \
         matching its input schema.",
    )
    .with_title("Call a tool")
    .with_input_schema(json!({
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "description": "The tool's name as search_tools returned it"
            },
            "arguments": {
                "type": "object",
                "description": "The tool's arguments"
            }
        },
        "required": ["name"]
    }))
}

/// `search_tools` and `call_tool` in the shape of merged tools, for export.
pub(crate) fn search_mode_hub_tools() -> Vec<HubTool> {
    [search_tools_definition(), call_tool_definition()]
        .into_iter()
        .map(|tool| HubTool {
            exposed: tool.name.clone(),
            server: String::new(),
            description: tool.description.clone().unwrap_or_default(),
            tool,
        })
        .collect()
}

/// A tool's definition as a model sees it: its exposed name and shaped description.
pub fn presented_definition(tool: &HubTool) -> Tool {
    let mut definition = tool.tool.clone();
    definition.name = tool.exposed.clone();
    definition.description = Some(tool.description.clone());
    definition
}

/// The arguments of a `call_tool` call, checked.
pub fn call_tool_arguments(arguments: &Value) -> Result<(String, Value), String> {
    let name = arguments
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or("call_tool needs \"name\": the name of a tool that search_tools returned")?;
    let inner = match arguments.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => {
            return Err(
                "call_tool's \"arguments\" must be an object matching the tool's input schema"
                    .into(),
            )
        }
    };
    Ok((name.to_owned(), inner))
}

/// The query and limit of a `search_tools` call, checked.
pub fn search_tools_arguments(arguments: &Value) -> Result<(String, usize), String> {
    let query = arguments
        .get("query")
        .and_then(Value::as_str)
        .filter(|q| !q.trim().is_empty())
        .ok_or("search_tools needs \"query\": what you want to do, in plain words")?;
    let limit = match arguments.get("limit") {
        None | Some(Value::Null) => DEFAULT_SEARCH_LIMIT,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n >= 1)
            .ok_or("search_tools' \"limit\" must be a whole number from 1 to 50")?
            .min(MAX_SEARCH_LIMIT),
    };
    Ok((query.to_owned(), limit))
}

impl Hub {
    /// The tools the filters allow, best first for `query` (BM25 over name, title,
    /// description and parameters), at most `limit`.
    pub fn search_tools(&self, query: &str, limit: usize) -> Vec<HubTool> {
        let indexed = self.tool_index();
        let (tools, index) = &*indexed;
        index
            .search(query, limit)
            .into_iter()
            .map(|hit| tools[hit.index].clone())
            .collect()
    }

    /// The index of the tools now, built again only after a change.
    fn tool_index(&self) -> Arc<IndexedTools> {
        let version = self.inner.changes.version();
        let cache = &self.inner.search_cache.0;
        if let Some((built, indexed)) = &*mcp_proto::sync::lock(cache) {
            if *built == version {
                return indexed.clone();
            }
        }
        let tools = self.tools();
        let index = ToolIndex::new(&tools);
        let indexed = Arc::new((tools, index));
        *mcp_proto::sync::lock(cache) = Some((version, indexed.clone()));
        indexed
    }

    /// The `search_tools` answer: the found definitions as structured content
    /// (`{"tools": [...]}`) and as JSON text.
    pub fn search_tools_result(&self, query: &str, limit: usize) -> CallToolResult {
        let found: Vec<Tool> = self
            .search_tools(query, limit)
            .iter()
            .map(presented_definition)
            .collect();
        let value = json!({ "tools": found });
        if found.is_empty() {
            let mut result = CallToolResult::text(format!(
                "No tool matches {query:?}; try other words (what the tool does, or what it works on)."
            ));
            result.structured_content = Some(value);
            return result;
        }
        CallToolResult::structured(value)
    }

    /// For `call_tool` of a name no allowed tool has: an error result that points the model
    /// at `search_tools` (a filtered-out tool gets the same answer as one that does not exist).
    pub fn check_searchable(&self, name: &str) -> Option<CallToolResult> {
        match self.resolve_tool(name) {
            Err(HubError::UnknownTool { .. }) => Some(CallToolResult::error(format!(
                "[{}] no tool named {name:?}; call {SEARCH_TOOLS} to find the exact name of a tool that does what you need",
                super::ErrorKind::NotFound.as_str()
            ))),
            _ => None,
        }
    }

    /// The tools a model is offered: every tool under its exposed name, or in tool search
    /// mode only `search_tools` and `call_tool`.
    pub fn model_tools(&self) -> Vec<Tool> {
        if self.options().tool_search {
            vec![search_tools_definition(), call_tool_definition()]
        } else {
            self.tools().iter().map(presented_definition).collect()
        }
    }

    /// Runs a call of one of [`model_tools`](Self::model_tools): in tool search mode
    /// `search_tools` and `call_tool`, else any exposed tool. Failures come back as `isError`
    /// results, as in [`call_tool_for_model`](Self::call_tool_for_model).
    pub async fn call_model_tool(&self, name: &str, arguments: Value) -> CallToolResult {
        if !self.options().tool_search {
            return self.call_tool_for_model(name, arguments).await;
        }
        match name {
            SEARCH_TOOLS => match search_tools_arguments(&arguments) {
                Ok((query, limit)) => self.search_tools_result(&query, limit),
                Err(message) => CallToolResult::error(message),
            },
            CALL_TOOL => match call_tool_arguments(&arguments) {
                Ok((name, inner)) => match self.check_searchable(&name) {
                    Some(refusal) => refusal,
                    None => self.call_tool_for_model(&name, inner).await,
                },
                Err(message) => CallToolResult::error(message),
            },
            other => HubError::UnknownTool { name: other.into() }.to_tool_result(),
        }
    }
}
