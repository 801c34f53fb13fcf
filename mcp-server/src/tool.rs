//! Tools: their definitions, the handlers that run them, and what a handler may return.
//!
//! A handler is an async function of extractors (see [`handler`](crate::handler)): its typed
//! arguments (parsed once, straight from the request's raw JSON), `State`, `Context`, `Meta`.
//! The tool's input schema comes from the arguments' type and its output schema from a
//! [`Json<T>`] result, unless set by hand.

use std::future::Future;
use std::pin::Pin;
use std::sync::LazyLock;

use mcp_proto::json_text::{self, KeySearch, RawMembers};
use mcp_proto::jsonrpc::RawJson;
use mcp_proto::schema::{self, CallToolResult, Content, Icon, JsonObject, ToolAnnotations};
use mcp_proto::ProtocolVersion;
use serde::Serialize;
use serde_json::Value;

use crate::error::{HandlerError, ServerError};
use crate::handler::Erased;
use crate::modern::ResultHead;

/// A boxed, sendable future: what type-erased handlers return.
pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A tool's definition, built fluently: name, title, description, schemas, annotations, icons.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub(crate) def: schema::Tool,
    /// The input schema was set by hand: the handler's derived one does not replace it.
    input_schema_set: bool,
    /// Likewise for the output schema.
    output_schema_set: bool,
}

impl Tool {
    /// A tool with a name and a description. Its input schema is derived from the handler's
    /// arguments type (`{"type":"object"}` when that type has none) unless set by hand.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Tool {
            def: schema::Tool::new(name, description),
            input_schema_set: false,
            output_schema_set: false,
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// A human-readable title (2025-06-18+).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.def.title = Some(title.into());
        self
    }

    /// The description the model reads.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.def.description = Some(description.into());
        self
    }

    /// The JSON Schema of the arguments, kept verbatim (`$schema`, `$defs`, `$ref` survive).
    /// A schema that is not a JSON object is replaced by `{"type":"object"}`.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.def = self.def.with_input_schema(schema);
        self.input_schema_set = true;
        self
    }

    /// The JSON Schema of the structured result (2025-06-18+), kept verbatim.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.def = self.def.with_output_schema(schema);
        self.output_schema_set = true;
        self
    }

    /// Behaviour hints for clients (read-only, destructive, idempotent, open-world).
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.def.annotations = Some(annotations);
        self
    }

    /// Marks the tool read-only (an annotation hint).
    pub fn read_only(mut self) -> Self {
        self.def
            .annotations
            .get_or_insert_with(Default::default)
            .read_only_hint = Some(true);
        self
    }

    /// Icons a client may show (2025-11-25+).
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.def.icons = Some(icons);
        self
    }

    /// Whether the tool runs as a task (`execution.taskSupport`): `Forbidden` (the default),
    /// `Optional` or `Required`. The handler stays the same; see [`tasks`](crate::tasks).
    pub fn task_support(mut self, support: schema::TaskSupport) -> Self {
        self.def.execution = Some(schema::ToolExecution {
            task_support: Some(support),
            ..Default::default()
        });
        self
    }

    /// The tool's `_meta`.
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.def.meta = Some(meta);
        self
    }

    /// Sets the input schema from a Rust type (feature `schemars`), as a handler taking `T`
    /// would derive it.
    #[cfg(feature = "schemars")]
    pub fn input_schema_for<T: schemars::JsonSchema>(self) -> Self {
        let schema = crate::derived_schema::object_schema::<T>().unwrap_or_default();
        self.input_schema(Value::Object(schema))
    }

    /// Sets the output schema from a Rust type (feature `schemars`), as a handler returning
    /// `Json<T>` would derive it.
    #[cfg(feature = "schemars")]
    pub fn output_schema_for<T: schemars::JsonSchema>(self) -> Self {
        match crate::derived_schema::object_schema::<T>() {
            Some(schema) => self.output_schema(Value::Object(schema)),
            None => self,
        }
    }

    /// The wire definition.
    pub fn definition(&self) -> &schema::Tool {
        &self.def
    }

    /// Fills the schemas not set by hand with those derived from the handler's types.
    pub(crate) fn with_derived_schemas(
        mut self,
        input: Option<JsonObject>,
        output: Option<JsonObject>,
    ) -> schema::Tool {
        if let (false, Some(input)) = (self.input_schema_set, input) {
            self.def = self.def.with_input_schema(Value::Object(input));
        }
        if let (false, Some(output)) = (self.output_schema_set, output) {
            self.def = self.def.with_output_schema(Value::Object(output));
        }
        self.def
    }
}

impl From<schema::Tool> for Tool {
    /// A wire definition, kept as it is: its schemas count as set by hand.
    fn from(tool: schema::Tool) -> Self {
        Tool {
            output_schema_set: tool.output_schema.is_some(),
            input_schema_set: true,
            def: tool,
        }
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
    /// A whole `CallToolResult` already written as a JSON object (one forwarded from another
    /// server), answered as it is.
    Raw(RawJson),
    /// Not a result: the call is answered with this JSON-RPC error.
    Refused(ServerError),
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

    /// A result passed on as another server wrote it (what a proxy got from its upstream, see
    /// [`PassThroughResult`](schema::PassThroughResult)), answered as it is, without being read
    /// into types and written again. The server only adds what the protocol version needs: the
    /// 2026-07-28 head, and the removal of `structuredContent` before 2025-06-18.
    pub fn pass_through(result: schema::PassThroughResult) -> Self {
        ToolOutput(Repr::Raw(result.into_raw()))
    }

    /// A failure of the handler: an `isError` result with the error's chain, or the JSON-RPC
    /// error a [`HandlerError::protocol`] asks for.
    fn failed(error: impl Into<HandlerError>) -> Self {
        match error.into().into_outcome() {
            Ok(text) => ToolOutput::error(text),
            Err(refusal) => ToolOutput(Repr::Refused(refusal)),
        }
    }

    /// Whether this is an error result or a refusal.
    pub fn is_error(&self) -> bool {
        match &self.0 {
            Repr::Result(r) => r.is_error(),
            Repr::Json(_) | Repr::TextAndJson { .. } => false,
            Repr::Raw(raw) => raw_is_error(raw.get()),
            Repr::Refused(_) => true,
        }
    }

    /// The result as the wire type (a refusal becomes an `isError` result with its message).
    pub fn into_call_tool_result(self) -> CallToolResult {
        match self.0 {
            Repr::Result(r) => *r,
            Repr::Refused(e) => CallToolResult::error(e.to_string()),
            Repr::Raw(raw) => mcp_proto::jsonrpc::from_object(raw.get()).unwrap_or_else(|e| {
                CallToolResult::error(format!("the tool's result is not a CallToolResult: {e}"))
            }),
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
    /// going through `serde_json::Value`; a refusal is the JSON-RPC error to answer with. With a
    /// `head` (a 2026-07-28 request), the result is complete: `resultType` and `serverInfo` are
    /// written in the same pass when the result has no `_meta` or unknown fields of its own.
    pub(crate) fn into_raw(
        self,
        version: ProtocolVersion,
        head: Option<&ResultHead<'_>>,
    ) -> Result<RawJson, ServerError> {
        let encoded = match self.0 {
            Repr::Result(mut r) => {
                if !version.has_structured_output() {
                    r.structured_content = None;
                }
                match head {
                    None => mcp_proto::jsonrpc::to_raw(&r),
                    // Fields of its own to merge with the head's: spliced in afterwards.
                    Some(head) if r.meta.is_some() || !r.extra.is_empty() => {
                        let raw = mcp_proto::jsonrpc::to_raw(&r).map_err(encode_error)?;
                        return head.complete(&raw);
                    }
                    Some(head) => mcp_proto::jsonrpc::to_raw(&Headed { head, body: &r }),
                }
            }
            Repr::Json(text) => Ok(text_and_structured(None, &text, version, head)),
            Repr::TextAndJson { text, json } => {
                Ok(text_and_structured(Some(&text), &json, version, head))
            }
            Repr::Raw(raw) => {
                let raw = if version.has_structured_output() {
                    raw
                } else {
                    without_structured_content(raw)
                };
                match head {
                    None => Ok(raw),
                    Some(head) => return head.complete(&raw),
                }
            }
            Repr::Refused(e) => return Err(e),
        };
        encoded.map_err(encode_error)
    }
}

/// A raw result for a client before 2025-06-18, which has no structured content: the
/// top-level `structuredContent` taken off, every other member passed on as its text (a text
/// that is no object has none to take off). A fast path: a result that certainly has no such key
/// (see [`KeySearch`]) is passed on unread; the others have their members skimmed. Its slow twin
/// is [`without_structured_content_parsed`], and fuzz-checks compares the two as text.
pub(crate) fn without_structured_content(raw: RawJson) -> RawJson {
    // Built once: building a searcher costs more than a search of a small result.
    static KEY: LazyLock<KeySearch> = LazyLock::new(|| KeySearch::new(STRUCTURED_CONTENT));
    if KEY.certainly_absent(raw.get()) {
        return raw;
    }
    without_member(raw, |text| RawMembers::of(text))
}

/// [`without_structured_content`] from the members as serde_json reads them, always.
pub(crate) fn without_structured_content_parsed(raw: RawJson) -> RawJson {
    without_member(raw, |text| RawMembers::of_parsed(text))
}

const STRUCTURED_CONTENT: &str = "structuredContent";

/// `raw` without its `structuredContent` members, read by `members`.
fn without_member(raw: RawJson, members: fn(&str) -> Option<RawMembers<'_>>) -> RawJson {
    let kept = match members(raw.get()) {
        Some(members)
            if members
                .as_slice()
                .iter()
                .any(|(key, _)| key == STRUCTURED_CONTENT) =>
        {
            members.without(STRUCTURED_CONTENT)
        }
        _ => return raw,
    };
    kept
}

/// Whether a raw result says `isError: true`.
fn raw_is_error(raw: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Flag {
        #[serde(rename = "isError", default)]
        is_error: Option<bool>,
    }
    serde_json::from_str::<Flag>(raw).is_ok_and(|f| f.is_error == Some(true))
}

fn encode_error(e: serde_json::Error) -> ServerError {
    ServerError::handler(format!("could not encode the tool result: {e}"))
}

/// A result with the 2026-07-28 head (when there is one) in front of its own fields.
#[derive(Serialize)]
struct Headed<'a, T> {
    #[serde(flatten)]
    head: &'a ResultHead<'a>,
    #[serde(flatten)]
    body: &'a T,
}

/// `{"content":[{"type":"text","text":TEXT},{"type":"text","text":JSON}],"structuredContent":JSON}`
/// written by hand in one pass: the text for people (if any), the JSON as text for clients that
/// ignore `structuredContent` (as the specification recommends), and the structured content
/// itself (not before 2025-06-18). Written by hand because the JSON text block is the longest
/// string of the answer, and serde_json escapes a byte at a time (see `json_text`).
fn text_and_structured(
    text: Option<&str>,
    json: &RawJson,
    version: ProtocolVersion,
    head: Option<&ResultHead<'_>>,
) -> RawJson {
    const BLOCK: &str = r#"{"type":"text","text":"#;
    let json = json.get();
    let room = 2 * json.len() + text.map_or(0, str::len) + 96;
    let mut out = String::with_capacity(room + head.map_or(0, ResultHead::len_hint));
    out.push('{');
    if let Some(head) = head {
        head.push_fields(&mut out);
        out.push(',');
    }
    out.push_str(r#""content":["#);
    if let Some(text) = text {
        out.push_str(BLOCK);
        json_text::push_string(&mut out, text);
        out.push_str("},");
    }
    out.push_str(BLOCK);
    json_text::push_string(&mut out, json);
    out.push_str("}]");
    if version.has_structured_output() {
        out.push_str(r#","structuredContent":"#);
        out.push_str(json);
    }
    out.push('}');
    // Valid by construction: literals, escaped strings and a JSON object.
    json_text::written(out)
}

/// Anything a tool handler may return.
pub trait IntoToolResult {
    /// Converts the handler's return value into a tool result.
    fn into_tool_result(self) -> ToolOutput;

    /// The tool's output schema, when the type describes its structured content.
    fn output_schema() -> Option<JsonObject> {
        None
    }
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

/// A value returned as `structuredContent` and as a text block with the same JSON. With the
/// `schemars` feature, `T`'s schema becomes the tool's output schema when `T` is an object.
#[derive(Clone, Debug, PartialEq)]
pub struct Json<T>(pub T);

/// The bound on `Json<T>`'s content: serializable, and with the `schemars` feature (on by
/// default) able to describe itself.
#[cfg(feature = "schemars")]
pub trait StructuredContent: Serialize + schemars::JsonSchema {}
#[cfg(feature = "schemars")]
impl<T: Serialize + schemars::JsonSchema> StructuredContent for T {}

/// The bound on `Json<T>`'s content: serializable.
#[cfg(not(feature = "schemars"))]
pub trait StructuredContent: Serialize {}
#[cfg(not(feature = "schemars"))]
impl<T: Serialize> StructuredContent for T {}

impl<T: StructuredContent> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> ToolOutput {
        ToolOutput::json(&self.0)
    }

    fn output_schema() -> Option<JsonObject> {
        #[cfg(feature = "schemars")]
        {
            crate::derived_schema::object_schema::<T>()
        }
        #[cfg(not(feature = "schemars"))]
        {
            None
        }
    }
}

/// A text block written for people (a one-line summary, say), then `T` as structured content
/// and as a JSON text block. With the `schemars` feature, `T`'s schema becomes the tool's
/// output schema when `T` is an object.
#[derive(Clone, Debug, PartialEq)]
pub struct Structured<T>(pub String, pub T);

impl<T: StructuredContent> IntoToolResult for Structured<T> {
    fn into_tool_result(self) -> ToolOutput {
        ToolOutput::structured(self.0, &self.1)
    }

    fn output_schema() -> Option<JsonObject> {
        Json::<T>::output_schema()
    }
}

/// `Ok` is the result; `Err` is a [`HandlerError`]: an `isError` result carrying the error's
/// source chain, or a JSON-RPC error when the handler asked for one.
impl<T: IntoToolResult, E: Into<HandlerError>> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> ToolOutput {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(e) => ToolOutput::failed(e),
        }
    }

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }
}

/// A registered tool: its definition, its pre-serialized listing entry and its handler.
pub(crate) struct ToolEntry {
    pub(crate) tool: schema::Tool,
    pub(crate) listing: RawJson,
    pub(crate) handler: Erased<str, ToolOutput>,
    pub(crate) seq: u64,
}

impl ToolEntry {
    /// Whether the tool runs as a task (absent means forbidden).
    pub(crate) fn task_support(&self) -> schema::TaskSupport {
        self.tool
            .execution
            .as_ref()
            .and_then(|e| e.task_support)
            .unwrap_or(schema::TaskSupport::Forbidden)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    #[test]
    fn json_output_is_structured_and_text() {
        #[derive(Serialize, schemars::JsonSchema)]
        struct W {
            temp: f64,
            city: &'static str,
        }
        let raw = Json(W {
            temp: 21.5,
            city: "Oslo",
        })
        .into_tool_result()
        .into_raw(ProtocolVersion::V2025_11_25, None)
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
            .into_raw(ProtocolVersion::V2025_03_26, None)
            .unwrap();
        assert!(!raw.get().contains("structuredContent"));
    }

    #[test]
    fn structured_results_written_by_hand_are_the_typed_ones() {
        use serde_json::json;
        let value = json!({"city": "Zürich \"ZH\"", "lines": "a\nb\t\u{1}", "n": 1.5});
        let info = RawValue::from_string(r#"{"name":"s","version":"1"}"#.into()).unwrap();
        let hint = crate::modern::CacheHint::new(5, mcp_proto::schema::CacheScope::Public);
        let heads = [
            None,
            Some(ResultHead::new(&info, None)),
            Some(ResultHead::new(&info, Some(hint))),
        ];
        for version in [ProtocolVersion::V2025_03_26, ProtocolVersion::V2025_11_25] {
            for head in &heads {
                for summary in [None, Some("It's 21 °C in \"Zürich\"\n")] {
                    let output = match summary {
                        Some(text) => ToolOutput::structured(text, &value),
                        None => ToolOutput::json(&value),
                    };
                    let written = output.into_raw(version, head.as_ref()).unwrap();
                    let got: Value = serde_json::from_str(written.get()).unwrap();
                    let mut blocks: Vec<Value> = summary
                        .map(|text| json!({"type": "text", "text": text}))
                        .into_iter()
                        .collect();
                    blocks.push(json!({"type": "text", "text": value.to_string()}));
                    let mut want = json!({"content": blocks});
                    if version.has_structured_output() {
                        want["structuredContent"] = value.clone();
                    }
                    if let Some(head) = head {
                        let head = serde_json::to_value(head).unwrap();
                        want.as_object_mut()
                            .unwrap()
                            .extend(head.as_object().unwrap().clone());
                    }
                    assert_eq!(got, want, "{version:?} {summary:?}");
                    // The head comes first, as a client that streams the result expects.
                    assert_eq!(
                        head.is_some(),
                        written.get().starts_with(r#"{"resultType""#)
                    );
                }
            }
        }
    }

    #[test]
    fn raw_results_are_written_as_they_are() {
        let text = r#"{"x":1,"structuredContent":{"a":1},"content":[],"isError":true}"#;
        let raw = |t: &str| {
            let result = schema::PassThroughResult::from_json(t.into()).expect("an object");
            ToolOutput::pass_through(result)
        };
        let out = raw(text);
        assert!(out.is_error());
        let written = out.into_raw(ProtocolVersion::V2025_11_25, None).unwrap();
        assert_eq!(written.get(), text);
        // No structured content before 2025-06-18; the rest in its order.
        let old = raw(text)
            .into_raw(ProtocolVersion::V2025_03_26, None)
            .unwrap();
        assert_eq!(old.get(), r#"{"x":1,"content":[],"isError":true}"#);
        // Only the top-level member goes, and the others are passed on as they were written;
        // the name elsewhere (it once made this loop forever) changes nothing.
        for kept in [
            r#"{"content":[],"_meta":{"structuredContent":1},"n":1.50}"#,
            r#"{"content":[{"type":"text","text":"\"structuredContent\""}]}"#,
        ] {
            let old = raw(kept)
                .into_raw(ProtocolVersion::V2025_03_26, None)
                .unwrap();
            assert_eq!(old.get(), kept);
        }
        let nested = r#"{"structuredContent":{"structuredContent":2},"n":1.50}"#;
        let old = raw(nested)
            .into_raw(ProtocolVersion::V2025_03_26, None)
            .unwrap();
        assert_eq!(old.get(), r#"{"n":1.50}"#);
        // Under 2026-07-28 the server's head goes in front.
        let info = RawValue::from_string(r#"{"name":"s","version":"1"}"#.into()).unwrap();
        let head = ResultHead::new(&info, None);
        let modern = raw(r#"{"content":[]}"#)
            .into_raw(ProtocolVersion::V2026_07_28, Some(&head))
            .unwrap();
        let v: Value = serde_json::from_str(modern.get()).unwrap();
        assert_eq!(v["resultType"], "complete");
        assert_eq!(
            v["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "s"
        );
        assert_eq!(v["content"], serde_json::json!([]));
        assert!(!raw(r#"{"content":[]}"#).is_error());
        // An escaped key is the same key.
        let escaped = raw(r#"{"content":[],"structured\u0043ontent":{"a":1}}"#)
            .into_raw(ProtocolVersion::V2025_03_26, None)
            .unwrap();
        assert_eq!(escaped.get(), r#"{"content":[]}"#);
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
