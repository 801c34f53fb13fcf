//! Content blocks (text, image, audio, embedded resource, resource link, tool use, tool result),
//! their annotations, roles and icons.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::resources::{ResourceContents, TextResourceContents};
use super::{JsonObject, Meta};

/// Who a message or content is from or for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human side of the conversation.
    User,
    /// The model side of the conversation.
    Assistant,
}

/// Hints for the client about how to use or show an object.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Annotations {
    /// Who the data is meant for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// How important it is, from 0 (optional) to 1 (required).
    #[serde(
        serialize_with = "super::number::serialize_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub priority: Option<f64>,
    /// When it last changed, as an ISO 8601 timestamp (2025-06-18+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Whether an icon is meant for a light or a dark background.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For a light background.
    Light,
    /// For a dark background.
    Dark,
}

/// An icon a client may show for a server, tool, prompt or resource (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// The MIME type, when the URI does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The background it is drawn for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Icon {
    /// An icon at `src` with nothing else said about it.
    pub fn new(src: impl Into<String>) -> Self {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: None,
            theme: None,
            extra: JsonObject::new(),
        }
    }
}

/// Plain text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl TextContent {
    /// Text content with no annotations.
    pub fn new(text: impl Into<String>) -> Self {
        TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// A base64-encoded image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// The image bytes, base64-encoded.
    pub data: String,
    /// The image type, e.g. `image/png`.
    pub mime_type: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Base64-encoded audio (2025-03-26+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// The audio bytes, base64-encoded.
    pub data: String,
    /// The audio type, e.g. `audio/wav`.
    pub mime_type: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The contents of a resource, embedded in a message or tool result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The resource's text or blob contents.
    pub resource: ResourceContents,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A link to a resource the client may read or subscribe to (2025-06-18+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// The resource's programmatic name.
    pub name: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons a client may show (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ResourceLink {
    /// A link to `uri` named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: None,
            annotations: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// A model's request to call a tool, inside sampling (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// The id that the matching [`ToolResultContent`] refers back to.
    pub id: String,
    /// The tool to call.
    pub name: String,
    /// The tool's arguments.
    pub input: JsonObject,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The result of a tool call, given back to a model inside sampling (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The id of the [`ToolUseContent`] this answers.
    pub tool_use_id: String,
    /// The unstructured result.
    #[serde(default)]
    pub content: Vec<Content>,
    /// The structured result, if the tool has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A content block, tagged by `type`: what tool results, prompt messages and sampling carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Content {
    /// `"text"`: plain text.
    #[serde(rename = "text")]
    Text(TextContent),
    /// `"image"`: a base64 image.
    #[serde(rename = "image")]
    Image(ImageContent),
    /// `"audio"`: base64 audio (2025-03-26+).
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// `"resource"`: an embedded resource.
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
    /// `"resource_link"`: a link to a resource (2025-06-18+).
    #[serde(rename = "resource_link")]
    ResourceLink(ResourceLink),
    /// `"tool_use"`: a model asks for a tool call (sampling, 2025-11-25+).
    #[serde(rename = "tool_use")]
    ToolUse(ToolUseContent),
    /// `"tool_result"`: a tool call's result for a model (sampling, 2025-11-25+).
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultContent),
}

/// The spec's name for a content block.
pub type ContentBlock = Content;

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(TextContent::new(text))
    }

    /// An image block from base64 data and its MIME type.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image(ImageContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
            extra: JsonObject::new(),
        })
    }

    /// An audio block from base64 data and its MIME type.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Audio(AudioContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
            extra: JsonObject::new(),
        })
    }

    /// An embedded resource block from resource contents.
    pub fn resource(resource: impl Into<ResourceContents>) -> Self {
        Content::Resource(EmbeddedResource {
            resource: resource.into(),
            annotations: None,
            meta: None,
            extra: JsonObject::new(),
        })
    }

    /// An embedded text resource at `uri`.
    pub fn embedded_text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Content::resource(TextResourceContents::new(uri, text))
    }

    /// A link to the resource `uri` named `name`.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink(ResourceLink::new(uri, name))
    }

    /// A tool-use block: the model asks to call `name` with `input`, under call id `id`.
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: JsonObject) -> Self {
        Content::ToolUse(ToolUseContent {
            id: id.into(),
            name: name.into(),
            input,
            meta: None,
            extra: JsonObject::new(),
        })
    }

    /// A tool-result block answering the tool-use block `tool_use_id`.
    pub fn tool_result(tool_use_id: impl Into<String>, content: Vec<Content>) -> Self {
        Content::ToolResult(ToolResultContent {
            tool_use_id: tool_use_id.into(),
            content,
            structured_content: None,
            is_error: None,
            meta: None,
            extra: JsonObject::new(),
        })
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// The `type` tag this block is written with.
    pub fn type_name(&self) -> &'static str {
        match self {
            Content::Text(_) => "text",
            Content::Image(_) => "image",
            Content::Audio(_) => "audio",
            Content::Resource(_) => "resource",
            Content::ResourceLink(_) => "resource_link",
            Content::ToolUse(_) => "tool_use",
            Content::ToolResult(_) => "tool_result",
        }
    }

    /// Sets the annotations of a block that has them (all but tool use and tool result).
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        match &mut self {
            Content::Text(c) => c.annotations = Some(annotations),
            Content::Image(c) => c.annotations = Some(annotations),
            Content::Audio(c) => c.annotations = Some(annotations),
            Content::Resource(c) => c.annotations = Some(annotations),
            Content::ResourceLink(c) => c.annotations = Some(annotations),
            Content::ToolUse(_) | Content::ToolResult(_) => {}
        }
        self
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::text(text)
    }
}

impl From<TextContent> for Content {
    fn from(c: TextContent) -> Self {
        Content::Text(c)
    }
}

impl From<ImageContent> for Content {
    fn from(c: ImageContent) -> Self {
        Content::Image(c)
    }
}

impl From<AudioContent> for Content {
    fn from(c: AudioContent) -> Self {
        Content::Audio(c)
    }
}

impl From<EmbeddedResource> for Content {
    fn from(c: EmbeddedResource) -> Self {
        Content::Resource(c)
    }
}

impl From<ResourceLink> for Content {
    fn from(c: ResourceLink) -> Self {
        Content::ResourceLink(c)
    }
}

impl From<ToolUseContent> for Content {
    fn from(c: ToolUseContent) -> Self {
        Content::ToolUse(c)
    }
}

impl From<ToolResultContent> for Content {
    fn from(c: ToolResultContent) -> Self {
        Content::ToolResult(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_are_tagged_by_type() {
        let cases = [
            (Content::text("hi"), json!({"type": "text", "text": "hi"})),
            (
                Content::image("AAA", "image/png"),
                json!({"type": "image", "data": "AAA", "mimeType": "image/png"}),
            ),
            (
                Content::audio("AAA", "audio/wav"),
                json!({"type": "audio", "data": "AAA", "mimeType": "audio/wav"}),
            ),
            (
                Content::embedded_text("file:///a", "x"),
                json!({"type": "resource", "resource": {"uri": "file:///a", "text": "x"}}),
            ),
            (
                Content::resource_link("file:///a", "a"),
                json!({"type": "resource_link", "uri": "file:///a", "name": "a"}),
            ),
            (
                Content::tool_use("c1", "t", JsonObject::new()),
                json!({"type": "tool_use", "id": "c1", "name": "t", "input": {}}),
            ),
            (
                Content::tool_result("c1", vec![Content::text("ok")]),
                json!({"type": "tool_result", "toolUseId": "c1",
                       "content": [{"type": "text", "text": "ok"}]}),
            ),
        ];
        for (content, expected) in cases {
            let v = serde_json::to_value(&content).unwrap();
            assert_eq!(v, expected);
            assert_eq!(v["type"], content.type_name());
            let back: Content = serde_json::from_value(v).unwrap();
            assert_eq!(back, content);
        }
    }

    #[test]
    fn unknown_fields_survive_inside_a_block() {
        let v = json!({"type": "text", "text": "hi", "_meta": {"k": 1}, "vendor": true,
                       "annotations": {"audience": ["user"], "priority": 0.5, "extra": 1}});
        let c: Content = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(c.as_text(), Some("hi"));
        assert_eq!(serde_json::to_value(&c).unwrap(), v);
    }

    #[test]
    fn blob_resource_is_recognised() {
        let v = json!({"type": "resource", "resource": {"uri": "a:b", "blob": "AA==", "mimeType": "x/y"}});
        let c: Content = serde_json::from_value(v.clone()).unwrap();
        match &c {
            Content::Resource(r) => assert!(matches!(r.resource, ResourceContents::Blob(_))),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(serde_json::to_value(&c).unwrap(), v);
    }

    #[test]
    fn unknown_type_is_an_error() {
        assert!(serde_json::from_value::<Content>(json!({"type": "video"})).is_err());
        assert!(serde_json::from_value::<Content>(json!({"text": "no tag"})).is_err());
    }
}
