//! Tools: their definitions, the handlers that run them, and what a handler may return.
//!
//! A handler is an async function of typed arguments (any `serde::Deserialize` type, including
//! `serde_json::Value` or [`RawJson`] for raw access) and a [`Context`]. Arguments are parsed once,
//! straight from the request's raw JSON into the handler's type.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use mcp_proto::jsonrpc::{self, RawJson};
use mcp_proto::schema::{self, CallToolResult, Content, Icon, JsonObject, ToolAnnotations};
use mcp_proto::ProtocolVersion;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::context::Context;

/// A boxed, sendable future: what type-erased handlers return.
pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A tool's definition, built fluently: name, title, description, schemas, annotations, icons.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool(pub(crate) schema::Tool);

impl Tool {
    /// A tool with a name and a description; its input schema is `{"type":"object"}` until set.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Tool(schema::Tool::new(name, description))
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// A human-readable title (2025-06-18+).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.0.title = Some(title.into());
        self
    }

    /// The description the model reads.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.0.description = Some(description.into());
        self
    }

    /// The JSON Schema of the arguments, kept verbatim (`$schema`, `$defs`, `$ref` survive).
    /// A schema that is not a JSON object is replaced by `{"type":"object"}`.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.0 = self.0.with_input_schema(schema);
        self
    }

    /// The JSON Schema of the structured result (2025-06-18+), kept verbatim.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.0 = self.0.with_output_schema(schema);
        self
    }

    /// Behaviour hints for clients (read-only, destructive, idempotent, open-world).
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.0.annotations = Some(annotations);
        self
    }

    /// Marks the tool read-only (an annotation hint).
    pub fn read_only(mut self) -> Self {
        self.0
            .annotations
            .get_or_insert_with(Default::default)
            .read_only_hint = Some(true);
        self
    }

    /// Icons a client may show (2025-11-25+).
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.0.icons = Some(icons);
        self
    }

    /// The tool's `_meta`.
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.0.meta = Some(meta);
        self
    }

    /// Sets the input schema from a Rust type (feature `schemars`).
    #[cfg(feature = "schemars")]
    pub fn input_schema_for<T: schemars::JsonSchema>(self) -> Self {
        let schema = schemars::schema_for!(T);
        self.input_schema(serde_json::to_value(schema).unwrap_or(Value::Null))
    }

    /// Sets the output schema from a Rust type (feature `schemars`).
    #[cfg(feature = "schemars")]
    pub fn output_schema_for<T: schemars::JsonSchema>(self) -> Self {
        let schema = schemars::schema_for!(T);
        self.output_schema(serde_json::to_value(schema).unwrap_or(Value::Null))
    }

    /// The wire definition.
    pub fn definition(&self) -> &schema::Tool {
        &self.0
    }
}

impl From<schema::Tool> for Tool {
    fn from(tool: schema::Tool) -> Self {
        Tool(tool)
    }
}

/// What a tool call produced, ready to be written as a `CallToolResult`.
#[derive(Debug)]
pub struct ToolOutput(Repr);

#[derive(Debug)]
enum Repr {
    /// A full result.
    Result(Box<CallToolResult>),
    /// A JSON object: `structuredContent` and one text block with the same JSON.
    Json(RawJson),
    /// A text block for people and a JSON object as `structuredContent`.
    TextAndJson {
        /// The text block.
        text: String,
        /// The structured content, serialized.
        json: RawJson,
    },
}

impl ToolOutput {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput(Repr::Result(Box::new(CallToolResult::text(text))))
    }

    /// A failed call (`isError: true`) with a message the model can act on.
    pub fn error(message: impl Into<String>) -> Self {
        ToolOutput(Repr::Result(Box::new(CallToolResult::error(message))))
    }

    /// A value serialized as `structuredContent` plus a text block with the same JSON.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Self {
        match mcp_proto::jsonrpc::to_raw(value) {
            Ok(json) if json.get().starts_with('{') => ToolOutput(Repr::Json(json)),
            Ok(json) => ToolOutput::text(json.get()),
            Err(e) => ToolOutput::error(format!("the tool's result could not be serialized: {e}")),
        }
    }

    /// A result with a text block written for people (e.g. a one-line summary), then `value`,
    /// serialized once, as a JSON text block and as `structuredContent`. A value that is not a JSON object is refused
    /// (`structuredContent` must be an object), so it becomes a text block instead.
    pub fn structured<T: Serialize + ?Sized>(text: impl Into<String>, value: &T) -> Self {
        match mcp_proto::jsonrpc::to_raw(value) {
            Ok(json) if json.get().starts_with('{') => ToolOutput(Repr::TextAndJson {
                text: text.into(),
                json,
            }),
            Ok(_) => ToolOutput::text(text),
            Err(e) => ToolOutput::error(format!("the tool's result could not be serialized: {e}")),
        }
    }

    /// Whether this is an error result.
    pub fn is_error(&self) -> bool {
        match &self.0 {
            Repr::Result(r) => r.is_error(),
            Repr::Json(_) | Repr::TextAndJson { .. } => false,
        }
    }

    /// The result as the wire type.
    pub fn into_call_tool_result(self) -> CallToolResult {
        match self.0 {
            Repr::Result(r) => *r,
            Repr::Json(json) => CallToolResult {
                structured_content: serde_json::from_str(json.get()).ok(),
                ..CallToolResult::text(json.get())
            },
            Repr::TextAndJson { text, json } => CallToolResult {
                structured_content: serde_json::from_str(json.get()).ok(),
                ..CallToolResult::new(vec![Content::text(text), Content::text(json.get())])
            },
        }
    }

    /// Serializes the result for `version` (no `structuredContent` before 2025-06-18), without
    /// going through `serde_json::Value`.
    pub(crate) fn into_raw(self, version: ProtocolVersion) -> Result<RawJson, serde_json::Error> {
        match self.0 {
            Repr::Result(mut r) => {
                if !version.has_structured_output() {
                    r.structured_content = None;
                }
                mcp_proto::jsonrpc::to_raw(&r)
            }
            Repr::Json(text) => text_and_structured(None, &text, version),
            Repr::TextAndJson { text, json } => text_and_structured(Some(&text), &json, version),
        }
    }
}

/// `{"content":[{"type":"text","text":TEXT},{"type":"text","text":JSON}],"structuredContent":JSON}`
/// written in one pass: the text for people (if any), the JSON as text for clients that ignore
/// `structuredContent` (as the specification recommends), and the structured content itself
/// (not before 2025-06-18).
fn text_and_structured(
    text: Option<&str>,
    json: &RawValue,
    version: ProtocolVersion,
) -> Result<RawJson, serde_json::Error> {
    let blocks = [
        TextBlock::new(text.unwrap_or_default()),
        TextBlock::new(json.get()),
    ];
    mcp_proto::jsonrpc::to_raw(&TextAndStructured {
        content: if text.is_some() {
            &blocks
        } else {
            &blocks[1..]
        },
        structured_content: version.has_structured_output().then_some(json),
    })
}

#[derive(Serialize)]
struct TextAndStructured<'a> {
    content: &'a [TextBlock<'a>],
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    structured_content: Option<&'a RawValue>,
}

#[derive(Serialize)]
struct TextBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

impl<'a> TextBlock<'a> {
    fn new(text: &'a str) -> Self {
        TextBlock { kind: "text", text }
    }
}

/// Anything a tool handler may return.
pub trait IntoToolResult {
    /// Converts the handler's return value into a tool result.
    fn into_tool_result(self) -> ToolOutput;
}

impl IntoToolResult for ToolOutput {
    fn into_tool_result(self) -> ToolOutput {
        self
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> ToolOutput {
        ToolOutput(Repr::Result(Box::new(self)))
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> ToolOutput {
        ToolOutput::text(self)
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> ToolOutput {
        ToolOutput::text(self)
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> ToolOutput {
        ToolOutput(Repr::Result(Box::new(CallToolResult::new(Vec::new()))))
    }
}

impl IntoToolResult for Content {
    fn into_tool_result(self) -> ToolOutput {
        ToolOutput(Repr::Result(Box::new(CallToolResult::new(vec![self]))))
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> ToolOutput {
        ToolOutput(Repr::Result(Box::new(CallToolResult::new(self))))
    }
}

/// Arguments of a tool that takes none: accepts any JSON and ignores it.
pub type NoArgs = serde::de::IgnoredAny;

/// A serializable value returned as `structuredContent` and as a text block with the same JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> ToolOutput {
        ToolOutput::json(&self.0)
    }
}

impl<T: IntoToolResult, E: std::fmt::Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> ToolOutput {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(e) => ToolOutput::error(e.to_string()),
        }
    }
}

/// A tool handler with its argument type erased.
pub(crate) trait ErasedToolHandler: Send + Sync + 'static {
    /// Parses the arguments and starts the call; `Err` carries serde's complaint.
    fn call(
        &self,
        arguments: Option<&RawValue>,
        ctx: Context,
    ) -> Result<BoxFuture<ToolOutput>, String>;
}

/// Adapts an async function of typed arguments to [`ErasedToolHandler`].
pub(crate) struct FnTool<F, A> {
    f: F,
    _args: PhantomData<fn(A)>,
}

impl<F, A> FnTool<F, A> {
    pub(crate) fn new(f: F) -> Self {
        FnTool {
            f,
            _args: PhantomData,
        }
    }
}

impl<F, A, Fut, R> ErasedToolHandler for FnTool<F, A>
where
    F: Fn(A, Context) -> Fut + Send + Sync + 'static,
    A: DeserializeOwned + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoToolResult + 'static,
{
    fn call(
        &self,
        arguments: Option<&RawValue>,
        ctx: Context,
    ) -> Result<BoxFuture<ToolOutput>, String> {
        let text = arguments.map_or("{}", |raw| raw.get());
        let args: A = jsonrpc::from_object(text).map_err(|e| e.to_string())?;
        let future = (self.f)(args, ctx);
        Ok(Box::pin(async move { future.await.into_tool_result() }))
    }
}

/// A registered tool: its definition, its pre-serialized listing entry and its handler.
pub(crate) struct ToolEntry {
    pub(crate) tool: schema::Tool,
    pub(crate) listing: RawJson,
    pub(crate) handler: Box<dyn ErasedToolHandler>,
    pub(crate) seq: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_output_is_structured_and_text() {
        #[derive(Serialize)]
        struct W {
            temp: f64,
            city: &'static str,
        }
        let raw = Json(W {
            temp: 21.5,
            city: "Oslo",
        })
        .into_tool_result()
        .into_raw(ProtocolVersion::V2025_11_25)
        .unwrap();
        let v: Value = serde_json::from_str(raw.get()).unwrap();
        assert_eq!(v["structuredContent"]["city"], "Oslo");
        let text = v["content"][0]["text"].as_str().unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            v["structuredContent"]
        );
        let raw = Json(serde_json::json!({"a": 1}))
            .into_tool_result()
            .into_raw(ProtocolVersion::V2025_03_26)
            .unwrap();
        assert!(!raw.get().contains("structuredContent"));
    }

    #[test]
    fn results_and_errors() {
        let r: Result<String, String> = Err("disk full".into());
        let out = r.into_tool_result();
        assert!(out.is_error());
        let r = out.into_call_tool_result();
        assert_eq!(r.content[0].as_text(), Some("disk full"));
        assert!(!"ok".into_tool_result().is_error());
    }

    #[cfg(feature = "schemars")]
    #[test]
    fn schemas_from_rust_types() {
        #[derive(schemars::JsonSchema, serde::Deserialize)]
        #[allow(dead_code)]
        struct Args {
            /// The city.
            city: String,
            days: Option<u8>,
        }
        let t = Tool::new("t", "d").input_schema_for::<Args>();
        let schema = &t.definition().input_schema;
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["city"]["type"], "string");
        assert_eq!(schema["required"], serde_json::json!(["city"]));
    }

    #[test]
    fn schemas_are_kept_verbatim() {
        let schema = serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"p": {"type": "string"}},
            "properties": {"x": {"$ref": "#/$defs/p"}},
            "additionalProperties": false
        });
        let t = Tool::new("t", "d").input_schema(schema.clone());
        assert_eq!(Value::Object(t.definition().input_schema.clone()), schema);
    }
}
