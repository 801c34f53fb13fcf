//! The lifecycle: `initialize` with both sides' infos and capabilities, `notifications/initialized`
//! and `ping`.

use serde::{Deserialize, Serialize};

use super::content::Icon;
use super::empty::{EmptyParams, EmptyResult};
use super::tasks::{ClientTasksCapability, ServerTasksCapability};
use super::{JsonObject, Meta, NotificationType, RequestType};

/// The name and version of a client or server implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Its programmatic name.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its version.
    pub version: String,
    /// What it is (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons a client may show (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Its home page (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Implementation {
    /// An implementation called `name` at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            title: None,
            version: version.into(),
            description: None,
            icons: None,
            website_url: None,
            extra: JsonObject::new(),
        }
    }
}

/// The client can list roots.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RootsCapability {
    /// It sends `notifications/roots/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The client can sample its model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SamplingCapability {
    /// It honours `includeContext` (2025-11-25+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// It supports `tools` and `toolChoice` (2025-11-25+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The client can elicit input from its user (2025-06-18+). Empty means form mode only.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ElicitationCapability {
    /// Form mode (2025-11-25+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode (2025-11-25+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// What a client supports; each present member turns a feature on.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ClientCapabilities {
    /// Non-standard capabilities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Roots.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// Sampling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Elicitation (2025-06-18+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Tasks (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
    /// Extensions by name (2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The server offers prompts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PromptsCapability {
    /// It sends `notifications/prompts/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The server offers resources.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// It supports `resources/subscribe`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// It sends `notifications/resources/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The server offers tools.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolsCapability {
    /// It sends `notifications/tools/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// What a server offers; each present member turns a feature on.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerCapabilities {
    /// Non-standard capabilities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// It sends log messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// It completes arguments (2025-03-26+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Prompts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// Resources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Tasks (2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ServerTasksCapability>,
    /// Extensions by name (2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Params of `initialize`: the client's version, capabilities and info.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// The version the client wants (its latest); kept as text so unknown versions decode.
    pub protocol_version: String,
    /// What the client supports.
    #[serde(default)]
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl InitializeParams {
    /// A client `client_info` asking for `protocol_version` with `capabilities`.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        InitializeParams {
            protocol_version: protocol_version.into(),
            capabilities,
            client_info,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The result of `initialize`: the negotiated version, the server's capabilities and info.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the server chose.
    pub protocol_version: String,
    /// What the server offers.
    #[serde(default)]
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// How to use the server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl InitializeResult {
    /// The server `server_info` agreeing on `protocol_version` with `capabilities`.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        InitializeResult {
            protocol_version: protocol_version.into(),
            capabilities,
            server_info,
            instructions: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// `initialize`: the first request, negotiating version and capabilities (until 2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Initialize;

impl RequestType for Initialize {
    const METHOD: &'static str = "initialize";
    type Params = InitializeParams;
    type Result = InitializeResult;
}

/// `notifications/initialized`: the client is ready for normal operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Initialized;

impl NotificationType for Initialized {
    const METHOD: &'static str = "notifications/initialized";
    type Params = EmptyParams;
}

/// `ping`: is the other side alive? Answered with `{}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ping;

impl RequestType for Ping {
    const METHOD: &'static str = "ping";
    type Params = EmptyParams;
    type Result = EmptyResult;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn capabilities_round_trip_with_unknowns() {
        let v = json!({
            "roots": {"listChanged": true},
            "sampling": {"tools": {}},
            "elicitation": {"form": {}, "url": {}},
            "experimental": {"x": {"y": 1}},
            "tasks": {"list": {}, "requests": {"sampling": {"createMessage": {}}}},
            "futureCapability": {"a": 1}
        });
        let c: ClientCapabilities = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(c.roots.as_ref().and_then(|r| r.list_changed), Some(true));
        assert!(c.extra.contains_key("futureCapability"));
        assert_eq!(serde_json::to_value(&c).unwrap(), v);

        let s = ServerCapabilities {
            tools: Some(ToolsCapability::default()),
            ..Default::default()
        };
        assert_eq!(serde_json::to_value(&s).unwrap(), json!({"tools": {}}));
    }

    #[test]
    fn initialize_round_trip() {
        let v = json!({
            "protocolVersion": "2099-01-01",
            "capabilities": {},
            "clientInfo": {"name": "c", "version": "1", "websiteUrl": "https://x"},
            "_meta": {"progressToken": 1}
        });
        let p: InitializeParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(p.protocol_version, "2099-01-01");
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
        let r = InitializeResult::new(
            "2025-06-18",
            Default::default(),
            Implementation::new("s", "2"),
        );
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "serverInfo": {"name": "s", "version": "2"}})
        );
    }
}
