//! Tools: their definitions, `tools/list`, `tools/call` and the list-changed notification.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::content::{Content, Icon};
use super::empty::EmptyParams;
use super::modern::InputResponses;
use super::pagination::{Cursor, PaginatedParams};
use super::tasks::TaskMetadata;
use super::{JsonObject, Meta, NotificationType, RequestType};

/// A tool a server offers to call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The name clients call it by.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does, as a hint to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of its arguments, kept verbatim (`$schema`, `$defs`, `$ref` survive).
    pub input_schema: JsonObject,
    /// The JSON Schema of its `structuredContent`, kept verbatim (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// How it may be run, e.g. as a task (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Icons a client may show (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The input schema of a tool without arguments: `{"type": "object"}`.
pub fn empty_input_schema() -> JsonObject {
    let mut schema = JsonObject::new();
    schema.insert("type".into(), Value::String("object".into()));
    schema
}

/// Turns a JSON value into a schema object; anything but an object becomes `{"type":"object"}`.
fn schema_object(schema: Value) -> JsonObject {
    match schema {
        Value::Object(map) => map,
        _ => empty_input_schema(),
    }
}

impl Tool {
    /// A tool named `name` that takes no arguments; add a schema with [`Tool::with_input_schema`].
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            input_schema: empty_input_schema(),
            output_schema: None,
            annotations: None,
            execution: None,
            icons: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// Sets the argument schema (a JSON object; anything else means "no arguments").
    pub fn with_input_schema(mut self, schema: Value) -> Self {
        self.input_schema = schema_object(schema);
        self
    }

    /// Sets the output schema (a JSON object; anything else is ignored).
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        if let Value::Object(map) = schema {
            self.output_schema = Some(map);
        }
        self
    }

    /// Sets the display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the behaviour hints.
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}

/// Hints about a tool's behaviour; untrusted unless the server is trusted.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy data (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool talks to an open world, e.g. the web (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Whether a tool can run as a task (2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Never as a task (the default).
    #[default]
    Forbidden,
    /// As a task or not, as the client likes.
    Optional,
    /// Only as a task.
    Required,
}

/// How a tool may be executed (2025-11-25).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolExecution {
    /// Whether the tool can run as a task; absent means forbidden.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The result of `tools/list`: a page of tools.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// The tools on this page.
    #[serde(default)]
    pub tools: Vec<Tool>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ListToolsResult {
    /// One page holding these tools, with no next page.
    pub fn new(tools: Vec<Tool>) -> Self {
        ListToolsResult {
            tools,
            ..Default::default()
        }
    }
}

/// `tools/list`: list the tools a server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListTools;

impl RequestType for ListTools {
    const METHOD: &'static str = "tools/list";
    type Params = PaginatedParams;
    type Result = ListToolsResult;
}

/// Params of `tools/call`: which tool, with which arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolParams {
    /// The tool's name.
    pub name: String,
    /// Its arguments, to be checked against its input schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Run as a task (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Answers to a previous `input_required` result (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// Opaque state echoed from a previous `input_required` result (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CallToolParams {
    /// Call `name` with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        CallToolParams {
            name: name.into(),
            arguments: None,
            task: None,
            input_responses: None,
            request_state: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// Sets the arguments (a JSON object; anything else leaves them unset).
    pub fn with_arguments(mut self, arguments: Value) -> Self {
        if let Value::Object(map) = arguments {
            self.arguments = Some(map);
        }
        self
    }
}

/// The result of `tools/call`. Tool failures are results with `isError`, not protocol errors.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The unstructured result, for the model.
    #[serde(default)]
    pub content: Vec<Content>,
    /// The structured result matching the tool's output schema (2025-06-18+; any JSON in
    /// 2026-07-28, an object before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CallToolResult {
    /// A successful result with these content blocks.
    pub fn new(content: Vec<Content>) -> Self {
        CallToolResult {
            content,
            ..Default::default()
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![Content::text(text)])
    }

    /// A failed call (`isError: true`) explained by one text block the model can read.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            is_error: Some(true),
            ..Self::text(message)
        }
    }

    /// A structured result; its JSON text is also given as a text block for older clients.
    pub fn structured(value: Value) -> Self {
        let text = value.to_string();
        CallToolResult {
            structured_content: Some(value),
            ..Self::text(text)
        }
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

/// `tools/call`: call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallTool;

impl RequestType for CallTool {
    const METHOD: &'static str = "tools/call";
    type Params = CallToolParams;
    type Result = CallToolResult;
}

/// `notifications/tools/list_changed`: the list of tools changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolListChanged;

impl NotificationType for ToolListChanged {
    const METHOD: &'static str = "notifications/tools/list_changed";
    type Params = EmptyParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_are_kept_verbatim() {
        let v = json!({
            "name": "t",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "$defs": {"A": {"type": "string"}},
                "additionalProperties": false
            },
            "outputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": true},
            "execution": {"taskSupport": "optional"},
            "vendorField": 1
        });
        let tool: Tool = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(
            tool.execution.as_ref().and_then(|e| e.task_support),
            Some(TaskSupport::Optional)
        );
        assert_eq!(
            tool.annotations.as_ref().and_then(|a| a.read_only_hint),
            Some(true)
        );
        assert_eq!(serde_json::to_value(&tool).unwrap(), v);
    }

    #[test]
    fn constructors_build_one_line_results() {
        assert_eq!(
            serde_json::to_value(CallToolResult::text("hi")).unwrap(),
            json!({"content": [{"type": "text", "text": "hi"}]})
        );
        assert_eq!(
            serde_json::to_value(CallToolResult::error("bad")).unwrap(),
            json!({"content": [{"type": "text", "text": "bad"}], "isError": true})
        );
        let r = CallToolResult::structured(json!({"t": 1}));
        assert_eq!(r.structured_content, Some(json!({"t": 1})));
        assert_eq!(r.content[0].as_text(), Some("{\"t\":1}"));
        let tool = Tool::new("echo", "Echoes").with_input_schema(json!([1]));
        assert_eq!(Value::Object(tool.input_schema), json!({"type": "object"}));
    }

    #[test]
    fn call_params_absent_optionals() {
        let p: CallToolParams = serde_json::from_value(json!({"name": "x"})).unwrap();
        assert_eq!(p, CallToolParams::new("x"));
        assert_eq!(serde_json::to_value(&p).unwrap(), json!({"name": "x"}));
        let r: CallToolResult = serde_json::from_value(json!({"content": []})).unwrap();
        assert!(!r.is_error());
    }
}
