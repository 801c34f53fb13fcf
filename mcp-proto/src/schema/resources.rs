//! Resources: listing, templates, reading, subscriptions and their notifications.

use serde::{Deserialize, Serialize};

use super::content::{Annotations, Icon};
use super::empty::{EmptyParams, EmptyResult};
use super::modern::InputResponses;
use super::pagination::{Cursor, PaginatedParams};
use super::{JsonObject, Meta, NotificationType, RequestType};

/// A resource a server offers to read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource's URI.
    pub uri: String,
    /// Its programmatic name.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
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

impl Resource {
    /// A resource at `uri` named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
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

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// A family of resources described by an RFC 6570 URI template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The URI template, e.g. `file:///{path}`.
    pub uri_template: String,
    /// Its programmatic name.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type every matching resource has, if they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
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

impl ResourceTemplate {
    /// A template `uri_template` named `name`.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            icons: None,
            annotations: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The contents of a text resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl TextResourceContents {
    /// Text `text` of the resource at `uri`.
    pub fn new(uri: impl Into<String>, text: impl Into<String>) -> Self {
        TextResourceContents {
            uri: uri.into(),
            mime_type: None,
            text: text.into(),
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// The contents of a binary resource, base64-encoded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The bytes, base64-encoded.
    pub blob: String,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl BlobResourceContents {
    /// Base64 bytes `blob` of the resource at `uri`.
    pub fn new(uri: impl Into<String>, blob: impl Into<String>) -> Self {
        BlobResourceContents {
            uri: uri.into(),
            mime_type: None,
            blob: blob.into(),
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// Resource contents: text or blob, told apart by which field is present.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Has a `text` field.
    Text(TextResourceContents),
    /// Has a `blob` field.
    Blob(BlobResourceContents),
}

impl ResourceContents {
    /// The URI of the resource these contents belong to.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text(t) => &t.uri,
            ResourceContents::Blob(b) => &b.uri,
        }
    }
}

impl From<TextResourceContents> for ResourceContents {
    fn from(c: TextResourceContents) -> Self {
        ResourceContents::Text(c)
    }
}

impl From<BlobResourceContents> for ResourceContents {
    fn from(c: BlobResourceContents) -> Self {
        ResourceContents::Blob(c)
    }
}

/// The result of `resources/list`: a page of resources.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// The resources on this page.
    #[serde(default)]
    pub resources: Vec<Resource>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know (e.g. 2026-07-28 `ttlMs`), kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `resources/list`: list the resources a server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListResources;

impl RequestType for ListResources {
    const METHOD: &'static str = "resources/list";
    type Params = PaginatedParams;
    type Result = ListResourcesResult;
}

/// The result of `resources/templates/list`: a page of resource templates.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// The templates on this page.
    #[serde(default)]
    pub resource_templates: Vec<ResourceTemplate>,
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

/// `resources/templates/list`: list the resource templates a server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListResourceTemplates;

impl RequestType for ListResourceTemplates {
    const METHOD: &'static str = "resources/templates/list";
    type Params = PaginatedParams;
    type Result = ListResourceTemplatesResult;
}

/// Params of `resources/read`: which resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceParams {
    /// The URI to read.
    pub uri: String,
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

impl ReadResourceParams {
    /// Read `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ReadResourceParams {
            uri: uri.into(),
            input_responses: None,
            request_state: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The result of `resources/read`: the contents (one resource may yield several).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// The contents read.
    #[serde(default)]
    pub contents: Vec<ResourceContents>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ReadResourceResult {
    /// A result with these contents.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        ReadResourceResult {
            contents,
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// A result with one text contents.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self::new(vec![TextResourceContents::new(uri, text).into()])
    }
}

/// `resources/read`: read a resource's contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadResource;

impl RequestType for ReadResource {
    const METHOD: &'static str = "resources/read";
    type Params = ReadResourceParams;
    type Result = ReadResourceResult;
}

/// Params naming one resource: `resources/subscribe`, `resources/unsubscribe`,
/// `notifications/resources/updated`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceUriParams {
    /// The resource's URI.
    pub uri: String,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ResourceUriParams {
    /// Params naming `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceUriParams {
            uri: uri.into(),
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// Params of `resources/subscribe`.
pub type SubscribeParams = ResourceUriParams;
/// Params of `resources/unsubscribe`.
pub type UnsubscribeParams = ResourceUriParams;
/// Params of `notifications/resources/updated`.
pub type ResourceUpdatedParams = ResourceUriParams;

/// `resources/subscribe`: ask for `notifications/resources/updated` about one resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subscribe;

impl RequestType for Subscribe {
    const METHOD: &'static str = "resources/subscribe";
    type Params = SubscribeParams;
    type Result = EmptyResult;
}

/// `resources/unsubscribe`: stop updates about one resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsubscribe;

impl RequestType for Unsubscribe {
    const METHOD: &'static str = "resources/unsubscribe";
    type Params = UnsubscribeParams;
    type Result = EmptyResult;
}

/// `notifications/resources/updated`: a subscribed resource changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceUpdated;

impl NotificationType for ResourceUpdated {
    const METHOD: &'static str = "notifications/resources/updated";
    type Params = ResourceUpdatedParams;
}

/// `notifications/resources/list_changed`: the list of resources changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceListChanged;

impl NotificationType for ResourceListChanged {
    const METHOD: &'static str = "notifications/resources/list_changed";
    type Params = EmptyParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resource_round_trip_keeps_unknown_fields() {
        let v = json!({"uri": "file:///a", "name": "a", "size": 3, "x-vendor": {"deep": [1]},
                       "annotations": {"lastModified": "2025-01-01T00:00:00Z"}});
        let r: Resource = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(r.size, Some(3));
        assert_eq!(r.title, None);
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
    }

    #[test]
    fn contents_are_text_or_blob() {
        let t: ResourceContents =
            serde_json::from_value(json!({"uri": "a:", "text": "x"})).unwrap();
        assert!(matches!(t, ResourceContents::Text(_)));
        let b: ResourceContents =
            serde_json::from_value(json!({"uri": "a:", "blob": "AA=="})).unwrap();
        assert!(matches!(b, ResourceContents::Blob(_)));
        assert_eq!(b.uri(), "a:");
        assert!(serde_json::from_value::<ResourceContents>(json!({"uri": "a:"})).is_err());
    }

    #[test]
    fn list_result_defaults() {
        let r: ListResourcesResult = serde_json::from_value(json!({"resources": []})).unwrap();
        assert_eq!(r, ListResourcesResult::default());
        assert_eq!(
            serde_json::to_value(ReadResourceResult::text("a:", "x")).unwrap(),
            json!({"contents": [{"uri": "a:", "text": "x"}]})
        );
    }
}
