//! The MCP Apps extension `io.modelcontextprotocol/ui` (SEP-1865, stable 2026-01-26): a tool
//! names an HTML view (a `ui://` resource of type `text/html;profile=mcp-app`) that the host
//! renders in a sandboxed iframe, and the view talks to the host over `postMessage` JSON-RPC.
//!
//! Three parts live here:
//! - **Negotiation**: the extension's key under `capabilities.extensions` and its settings
//!   ([`AppsSettings`]), the same in both eras (2025 `initialize`, 2026-07-28 per-request
//!   `clientCapabilities`).
//! - **Metadata** a server puts on what it lists: a tool's `_meta.ui` ([`UiToolMeta`]: which
//!   view, who may see and call it) and a view resource's `_meta.ui` ([`UiResourceMeta`]: CSP
//!   domains, permissions, dedicated origin, border).
//! - **The view's protocol** with its host (`ui/initialize`, tool input and result
//!   notifications, host context, size changes, `ui/message`, `ui/open-link`, …): the method
//!   types below, each tied to its params and result like the core methods. A view may also send
//!   the core `tools/call`, `resources/read`, `notifications/message` and `ping`, which the host
//!   forwards to the server.
//!
//! Field names and shapes follow the extension's published JSON Schema
//! (`@modelcontextprotocol/ext-apps`, `dist/src/generated/schema.json`); `tests/apps_schema.rs`
//! checks every type against it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::content::Content;
use super::empty::{EmptyParams, EmptyResult};
use super::lifecycle::Implementation;
use super::tools::{CallToolResult, Tool};
use super::{JsonObject, Meta, NotificationType, RequestType};
use crate::jsonrpc::RequestId;

/// The extension's identifier, the key under `capabilities.extensions`.
pub const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML view (the resource's `mimeType`, and the type a client lists
/// in its [`AppsSettings::mime_types`]).
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme of view resources.
pub const UI_SCHEME: &str = "ui://";

/// The key under a tool's or resource's `_meta` that holds the extension's metadata.
pub const UI_META_KEY: &str = "ui";

/// The flat `_meta` key older hosts read a tool's view URI from (deprecated by the extension
/// in favour of `_meta.ui.resourceUri`; servers still write both).
pub const LEGACY_RESOURCE_URI_META_KEY: &str = "ui/resourceUri";

/// The version of the view-host protocol (`ui/initialize`'s `protocolVersion`); it versions
/// independently of MCP.
pub const APPS_PROTOCOL_VERSION: &str = "2026-01-26";

/// The extension's settings under `capabilities.extensions["io.modelcontextprotocol/ui"]`: the
/// view types a client can render (the schema's `McpUiClientCapabilities`). A server declares
/// the types it serves the same way.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AppsSettings {
    /// The view MIME types supported; an app host lists [`APP_MIME_TYPE`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_types: Option<Vec<String>>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl AppsSettings {
    /// Settings listing [`APP_MIME_TYPE`], what both sides declare.
    pub fn html() -> Self {
        AppsSettings {
            mime_types: Some(vec![APP_MIME_TYPE.to_owned()]),
            extra: JsonObject::new(),
        }
    }

    /// The settings a capabilities `extensions` map declares, if it declares the extension.
    pub fn declared_in(extensions: Option<&JsonObject>) -> Option<AppsSettings> {
        let value = extensions?.get(APPS_EXTENSION)?;
        serde_json::from_value(value.clone()).ok()
    }

    /// Whether these settings include HTML views (`text/html;profile=mcp-app`).
    pub fn renders_html(&self) -> bool {
        self.mime_types
            .as_deref()
            .is_some_and(|types| types.iter().any(|t| t == APP_MIME_TYPE))
    }
}

/// Whether a capabilities `extensions` map declares the extension with HTML views: what a
/// server checks before it counts on a client rendering its apps.
pub fn declares_apps_extension(extensions: Option<&JsonObject>) -> bool {
    AppsSettings::declared_in(extensions).is_some_and(|s| s.renders_html())
}

/// The `extensions` map entry declaring the extension with HTML views.
pub fn apps_extension_map() -> JsonObject {
    let mut map = JsonObject::new();
    let settings = serde_json::to_value(AppsSettings::html()).unwrap_or_default();
    map.insert(APPS_EXTENSION.into(), settings);
    map
}

// ---- Metadata on tools and resources -------------------------------------------------------

/// Who may see and call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolVisibility {
    /// The model: the host lists the tool to the agent and lets it call the tool.
    Model,
    /// The app: a view of the same server may call the tool through the host.
    App,
}

/// A tool's `_meta.ui`: the view it renders its results in, and who may see and call it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UiToolMeta {
    /// The `ui://` URI of the view resource, if the tool has a view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may see and call it; absent means both (`["model", "app"]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<ToolVisibility>>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl UiToolMeta {
    /// The metadata of a tool with the view at `resource_uri`, visible to both.
    pub fn view(resource_uri: impl Into<String>) -> Self {
        UiToolMeta {
            resource_uri: Some(resource_uri.into()),
            ..Default::default()
        }
    }

    /// Sets who may see and call the tool.
    pub fn with_visibility(mut self, visibility: &[ToolVisibility]) -> Self {
        self.visibility = Some(visibility.to_vec());
        self
    }

    /// The extension's metadata in a tool's `_meta`: `_meta.ui`, else the deprecated flat
    /// `_meta["ui/resourceUri"]`; `None` when the tool has neither (a plain tool).
    pub fn from_meta(meta: Option<&Meta>) -> Option<UiToolMeta> {
        let meta = meta?;
        let mut ui = match meta.get(UI_META_KEY) {
            Some(value) => serde_json::from_value::<UiToolMeta>(value.clone()).ok(),
            None => None,
        };
        if let Some(Value::String(uri)) = meta.get(LEGACY_RESOURCE_URI_META_KEY) {
            let ui = ui.get_or_insert_with(UiToolMeta::default);
            ui.resource_uri.get_or_insert_with(|| uri.clone());
        }
        ui
    }

    /// The extension's metadata of `tool`, if any.
    pub fn of(tool: &Tool) -> Option<UiToolMeta> {
        UiToolMeta::from_meta(tool.meta.as_ref())
    }

    /// Writes this as `_meta.ui` into `meta`, and the view URI under the deprecated flat key
    /// too, for hosts that read only that one.
    pub fn write_into(&self, meta: &mut Meta) {
        if let Ok(value) = serde_json::to_value(self) {
            meta.insert(UI_META_KEY.into(), value);
        }
        match &self.resource_uri {
            Some(uri) => {
                meta.insert(LEGACY_RESOURCE_URI_META_KEY.into(), uri.clone().into());
            }
            None => {
                meta.remove(LEGACY_RESOURCE_URI_META_KEY);
            }
        }
    }

    /// Whether the host may list the tool to the model and let it call it.
    pub fn visible_to_model(&self) -> bool {
        self.allows(ToolVisibility::Model)
    }

    /// Whether a view of the same server may call the tool.
    pub fn callable_by_app(&self) -> bool {
        self.allows(ToolVisibility::App)
    }

    /// Whether the tool is for its view only (the host keeps it from the model).
    pub fn app_only(&self) -> bool {
        !self.visible_to_model()
    }

    fn allows(&self, who: ToolVisibility) -> bool {
        self.visibility.as_deref().is_none_or(|v| v.contains(&who))
    }
}

/// Whether a tool's `_meta` keeps it from the model (`visibility` without `"model"`).
pub fn tool_is_app_only(meta: Option<&Meta>) -> bool {
    UiToolMeta::from_meta(meta).is_some_and(|ui| ui.app_only())
}

/// The origins a view needs, from which the host builds the iframe's Content Security Policy.
/// Empty or absent lists allow nothing beyond the restrictive default.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceCsp {
    /// Origins for fetch, XHR and WebSocket (`connect-src`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connect_domains: Option<Vec<String>>,
    /// Origins for images, scripts, styles, fonts and media (`img-src`, `script-src`,
    /// `style-src`, `font-src`, `media-src`); `https://*.example.com` wildcards allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_domains: Option<Vec<String>>,
    /// Origins for nested iframes (`frame-src`; `'none'` when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_domains: Option<Vec<String>>,
    /// Allowed base URIs (`base-uri`; `'self'` when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_uri_domains: Option<Vec<String>>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Browser capabilities a view asks for (Permission Policy features of the iframe); a host may
/// grant them, and a view feature-detects rather than assumes. Each present member (`{}`) asks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourcePermissions {
    /// `camera`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub camera: Option<JsonObject>,
    /// `microphone`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub microphone: Option<JsonObject>,
    /// `geolocation`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<JsonObject>,
    /// `clipboard-write`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<JsonObject>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A view resource's `_meta.ui` (on its `resources/list` entry and on its `resources/read`
/// contents, the latter winning): security and rendering settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UiResourceMeta {
    /// The origins the view needs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csp: Option<ResourceCsp>,
    /// The browser capabilities it asks for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permissions: Option<ResourcePermissions>,
    /// A dedicated sandbox origin, in a format each host defines (for OAuth callbacks, CORS
    /// allowlists); absent means the host's default origin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the view wants a visible border and background from the host; absent lets the
    /// host decide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl UiResourceMeta {
    /// The extension's metadata in a resource's (or its contents') `_meta`, if any.
    pub fn from_meta(meta: Option<&Meta>) -> Option<UiResourceMeta> {
        serde_json::from_value(meta?.get(UI_META_KEY)?.clone()).ok()
    }

    /// Writes this as `_meta.ui` into `meta`.
    pub fn write_into(&self, meta: &mut Meta) {
        if let Ok(value) = serde_json::to_value(self) {
            meta.insert(UI_META_KEY.into(), value);
        }
    }
}

// ---- Host context and capabilities ---------------------------------------------------------

/// The host's colour theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    /// Light.
    Light,
    /// Dark.
    Dark,
}

/// How a view is displayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DisplayMode {
    /// Embedded in the conversation (the default).
    Inline,
    /// Taking the whole window.
    Fullscreen,
    /// Picture-in-picture: a floating overlay.
    Pip,
}

/// The kind of device the host runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// A web page.
    Web,
    /// A desktop application.
    Desktop,
    /// A mobile application.
    Mobile,
}

/// The standard names of the CSS variables a host may set in [`HostStyles::variables`] (any
/// subset; views keep fallbacks for the rest): colours, fonts, radii, borders, shadows.
pub const STYLE_VARIABLES: [&str; 76] = [
    "--color-background-primary",
    "--color-background-secondary",
    "--color-background-tertiary",
    "--color-background-inverse",
    "--color-background-ghost",
    "--color-background-info",
    "--color-background-danger",
    "--color-background-success",
    "--color-background-warning",
    "--color-background-disabled",
    "--color-text-primary",
    "--color-text-secondary",
    "--color-text-tertiary",
    "--color-text-inverse",
    "--color-text-ghost",
    "--color-text-info",
    "--color-text-danger",
    "--color-text-success",
    "--color-text-warning",
    "--color-text-disabled",
    "--color-border-primary",
    "--color-border-secondary",
    "--color-border-tertiary",
    "--color-border-inverse",
    "--color-border-ghost",
    "--color-border-info",
    "--color-border-danger",
    "--color-border-success",
    "--color-border-warning",
    "--color-border-disabled",
    "--color-ring-primary",
    "--color-ring-secondary",
    "--color-ring-inverse",
    "--color-ring-info",
    "--color-ring-danger",
    "--color-ring-success",
    "--color-ring-warning",
    "--font-sans",
    "--font-mono",
    "--font-weight-normal",
    "--font-weight-medium",
    "--font-weight-semibold",
    "--font-weight-bold",
    "--font-text-xs-size",
    "--font-text-sm-size",
    "--font-text-md-size",
    "--font-text-lg-size",
    "--font-heading-xs-size",
    "--font-heading-sm-size",
    "--font-heading-md-size",
    "--font-heading-lg-size",
    "--font-heading-xl-size",
    "--font-heading-2xl-size",
    "--font-heading-3xl-size",
    "--font-text-xs-line-height",
    "--font-text-sm-line-height",
    "--font-text-md-line-height",
    "--font-text-lg-line-height",
    "--font-heading-xs-line-height",
    "--font-heading-sm-line-height",
    "--font-heading-md-line-height",
    "--font-heading-lg-line-height",
    "--font-heading-xl-line-height",
    "--font-heading-2xl-line-height",
    "--font-heading-3xl-line-height",
    "--border-radius-xs",
    "--border-radius-sm",
    "--border-radius-md",
    "--border-radius-lg",
    "--border-radius-xl",
    "--border-radius-full",
    "--border-width-regular",
    "--shadow-hairline",
    "--shadow-sm",
    "--shadow-md",
    "--shadow-lg",
];

/// CSS a host gives its views to inject.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct HostCss {
    /// Font loading CSS (`@font-face` rules, `@import`s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fonts: Option<String>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The host's styles: CSS custom properties by their standard names (`--color-text-primary`,
/// `--font-sans`, …; any subset) and CSS blocks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct HostStyles {
    /// CSS variables by name, values as CSS text (often `light-dark(…, …)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variables: Option<JsonObject>,
    /// CSS blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub css: Option<HostCss>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The tool call a view was opened for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    /// The JSON-RPC id of the `tools/call` request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The tool's definition.
    pub tool: Tool,
}

/// The size of the view's container in pixels: a fixed `height`/`width` the view fills, or a
/// `maxHeight`/`maxWidth` up to which it sizes itself (neither: unbounded). One of each pair.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContainerDimensions {
    /// Fixed height.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    /// Largest height.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_height: Option<f64>,
    /// Fixed width.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    /// Largest width.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_width: Option<f64>,
}

/// What input the device has.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct DeviceCapabilities {
    /// Touch input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub touch: Option<bool>,
    /// Hover (a pointer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hover: Option<bool>,
}

/// Safe-area insets of a mobile screen, in pixels.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SafeAreaInsets {
    /// Top.
    pub top: f64,
    /// Right.
    pub right: f64,
    /// Bottom.
    pub bottom: f64,
    /// Left.
    pub left: f64,
}

/// What a host tells its view about where and how it shows: in `ui/initialize`'s result, and
/// changed fields only in `ui/notifications/host-context-changed` (the view merges them).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct HostContext {
    /// The tool call the view was opened for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_info: Option<ToolInfo>,
    /// The colour theme.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<Theme>,
    /// Style variables and CSS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub styles: Option<HostStyles>,
    /// How the view is displayed now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_mode: Option<DisplayMode>,
    /// The display modes the host offers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available_display_modes: Option<Vec<DisplayMode>>,
    /// The container's size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_dimensions: Option<ContainerDimensions>,
    /// The user's language and region (BCP 47).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// The user's time zone (IANA).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// The host application.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// The kind of device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    /// The device's input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_capabilities: Option<DeviceCapabilities>,
    /// Safe-area insets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub safe_area_insets: Option<SafeAreaInsets>,
    /// Fields we do not know, kept for the round trip (the context is open for extension).
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A list a host proxies for its view (`serverTools`, `serverResources`) or a view offers
/// (`tools`), and whether it announces changes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ListCapability {
    /// It sends the list-changed notification.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The sandbox a host applies to its view: what it granted of what the view asked.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct HostSandbox {
    /// Permissions granted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permissions: Option<ResourcePermissions>,
    /// CSP domains approved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csp: Option<ResourceCsp>,
}

/// The kinds of content a host accepts from its view (`ui/message`, `ui/update-model-context`).
/// Each present member (`{}`) accepts that kind.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContentModalities {
    /// Text blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<JsonObject>,
    /// Image blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<JsonObject>,
    /// Audio blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audio: Option<JsonObject>,
    /// Embedded resources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<JsonObject>,
    /// Resource links.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_link: Option<JsonObject>,
    /// Structured content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<JsonObject>,
}

/// Sampling a host lets its view ask for (`sampling/createMessage`), shaped like the core
/// client capability.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct HostSampling {
    /// Tool use in sampling (`tools`, `toolChoice`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

/// What a host does for its view, in `ui/initialize`'s result.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct HostCapabilities {
    /// Experimental features by identifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// It opens links (`ui/open-link`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_links: Option<JsonObject>,
    /// It downloads files (`ui/download-file`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download_file: Option<JsonObject>,
    /// It forwards `tools/call` to the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_tools: Option<ListCapability>,
    /// It forwards `resources/read` to the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_resources: Option<ListCapability>,
    /// It takes log messages (`notifications/message`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// The sandbox it applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<HostSandbox>,
    /// It takes model-context updates with these kinds of content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update_model_context: Option<ContentModalities>,
    /// It takes chat messages (`ui/message`) with these kinds of content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<ContentModalities>,
    /// It samples for the view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<HostSampling>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// What a view offers its host, in `ui/initialize`'s params.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AppCapabilities {
    /// Experimental features by identifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// It offers MCP-style tools the host may call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListCapability>,
    /// The display modes it handles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available_display_modes: Option<Vec<DisplayMode>>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

// ---- View → host requests ------------------------------------------------------------------

/// Params of `ui/initialize`: the view's info, capabilities and protocol version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiInitializeParams {
    /// The view's name and version.
    pub app_info: Implementation,
    /// What it offers.
    pub app_capabilities: AppCapabilities,
    /// The view-host protocol version it speaks ([`APPS_PROTOCOL_VERSION`]).
    pub protocol_version: String,
}

/// The result of `ui/initialize`: the host's version, info, capabilities and context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiInitializeResult {
    /// The negotiated view-host protocol version.
    pub protocol_version: String,
    /// The host's name and version.
    pub host_info: Implementation,
    /// What the host does for the view.
    pub host_capabilities: HostCapabilities,
    /// Where and how the view shows.
    pub host_context: HostContext,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `ui/initialize` (view → host): the handshake; the view then sends
/// `ui/notifications/initialized` and the host sends nothing before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiInitialize;

impl RequestType for UiInitialize {
    const METHOD: &'static str = "ui/initialize";
    type Params = UiInitializeParams;
    type Result = UiInitializeResult;
}

/// The result of the view's asks (`ui/open-link`, `ui/message`, `ui/download-file`): whether
/// the host refused or failed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UiActionResult {
    /// The host refused or failed (a policy, the user said no).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Params of `ui/open-link`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenLinkParams {
    /// The URL to open in the user's browser.
    pub url: String,
}

/// `ui/open-link` (view → host): open a URL outside the sandbox; a host asks the user first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiOpenLink;

impl RequestType for UiOpenLink {
    const METHOD: &'static str = "ui/open-link";
    type Params = OpenLinkParams;
    type Result = UiActionResult;
}

/// Params of `ui/download-file`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DownloadFileParams {
    /// What to download: embedded resources (the data inline) or resource links (the host
    /// fetches them).
    pub contents: Vec<Content>,
}

/// `ui/download-file` (view → host): a download the sandbox cannot start itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiDownloadFile;

impl RequestType for UiDownloadFile {
    const METHOD: &'static str = "ui/download-file";
    type Params = DownloadFileParams;
    type Result = UiActionResult;
}

/// The role of a view's chat message: the user, the only one defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UiMessageRole {
    /// The user.
    #[default]
    User,
}

/// Params of `ui/message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiMessageParams {
    /// Always `user`.
    pub role: UiMessageRole,
    /// The message's content blocks.
    pub content: Vec<Content>,
}

/// `ui/message` (view → host): add a message to the conversation, as if the user wrote it
/// (the host may ask the user); it triggers a model turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiMessage;

impl RequestType for UiMessage {
    const METHOD: &'static str = "ui/message";
    type Params = UiMessageParams;
    type Result = UiActionResult;
}

/// Params of `ui/request-display-mode`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DisplayModeParams {
    /// The mode asked for.
    pub mode: DisplayMode,
}

/// The result of `ui/request-display-mode`: the mode now in effect (maybe not the one asked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DisplayModeResult {
    /// The mode set.
    pub mode: DisplayMode,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `ui/request-display-mode` (view → host).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiRequestDisplayMode;

impl RequestType for UiRequestDisplayMode {
    const METHOD: &'static str = "ui/request-display-mode";
    type Params = DisplayModeParams;
    type Result = DisplayModeResult;
}

/// Params of `ui/update-model-context`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelContextParams {
    /// Content blocks for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<Content>>,
    /// Machine-readable context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<JsonObject>,
}

/// `ui/update-model-context` (view → host): replace what the view last told the model; sent
/// with the next turn, triggering none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiUpdateModelContext;

impl RequestType for UiUpdateModelContext {
    const METHOD: &'static str = "ui/update-model-context";
    type Params = ModelContextParams;
    type Result = EmptyResult;
}

// ---- Host → view requests ------------------------------------------------------------------

/// `ui/resource-teardown` (host → view): the view is about to go; it answers once it has
/// saved what it must.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiResourceTeardown;

impl RequestType for UiResourceTeardown {
    const METHOD: &'static str = "ui/resource-teardown";
    type Params = EmptyParams;
    type Result = EmptyResult;
}

// ---- Notifications -------------------------------------------------------------------------

/// `ui/notifications/initialized` (view → host): the handshake is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiInitialized;

impl NotificationType for UiInitialized {
    const METHOD: &'static str = "ui/notifications/initialized";
    type Params = EmptyParams;
}

/// The arguments of the tool call a view shows.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolInputParams {
    /// The arguments by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
}

/// `ui/notifications/tool-input` (host → view): the call's complete arguments, once, after
/// the handshake and before the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiToolInput;

impl NotificationType for UiToolInput {
    const METHOD: &'static str = "ui/notifications/tool-input";
    type Params = ToolInputParams;
}

/// `ui/notifications/tool-input-partial` (host → view): arguments so far while the model
/// streams them (best effort; never to act on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiToolInputPartial;

impl NotificationType for UiToolInputPartial {
    const METHOD: &'static str = "ui/notifications/tool-input-partial";
    type Params = ToolInputParams;
}

/// `ui/notifications/tool-result` (host → view): the call's `CallToolResult`, as the server
/// answered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiToolResult;

impl NotificationType for UiToolResult {
    const METHOD: &'static str = "ui/notifications/tool-result";
    type Params = CallToolResult;
}

/// Params of `ui/notifications/tool-cancelled`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolCancelledParams {
    /// Why, if known ("user action", "timeout").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `ui/notifications/tool-cancelled` (host → view): the call will have no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiToolCancelled;

impl NotificationType for UiToolCancelled {
    const METHOD: &'static str = "ui/notifications/tool-cancelled";
    type Params = ToolCancelledParams;
}

/// Params of `ui/notifications/size-changed`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SizeChangedParams {
    /// The view's width in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    /// The view's height in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
}

/// `ui/notifications/size-changed` (view → host): the view's content size changed; a host
/// with flexible dimensions resizes the iframe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiSizeChanged;

impl NotificationType for UiSizeChanged {
    const METHOD: &'static str = "ui/notifications/size-changed";
    type Params = SizeChangedParams;
}

/// `ui/notifications/host-context-changed` (host → view): the fields of the context that
/// changed (theme, display mode, size, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiHostContextChanged;

impl NotificationType for UiHostContextChanged {
    const METHOD: &'static str = "ui/notifications/host-context-changed";
    type Params = HostContext;
}

/// `ui/notifications/request-teardown` (view → host): the view asks to be closed; the host
/// decides, and sends `ui/resource-teardown` if it agrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiRequestTeardown;

impl NotificationType for UiRequestTeardown {
    const METHOD: &'static str = "ui/notifications/request-teardown";
    type Params = EmptyParams;
}

/// `ui/notifications/sandbox-proxy-ready` (sandbox proxy → web host): the outer iframe of a
/// web host's double sandbox can take the view's HTML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiSandboxProxyReady;

impl NotificationType for UiSandboxProxyReady {
    const METHOD: &'static str = "ui/notifications/sandbox-proxy-ready";
    type Params = EmptyParams;
}

/// Params of `ui/notifications/sandbox-resource-ready`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SandboxResourceParams {
    /// The view's HTML.
    pub html: String,
    /// The inner iframe's `sandbox` attribute, when not the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// The CSP from the resource's metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<ResourceCsp>,
    /// The permissions from the resource's metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<ResourcePermissions>,
}

/// `ui/notifications/sandbox-resource-ready` (web host → sandbox proxy): load this HTML in
/// the inner iframe under this CSP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiSandboxResourceReady;

impl NotificationType for UiSandboxResourceReady {
    const METHOD: &'static str = "ui/notifications/sandbox-resource-ready";
    type Params = SandboxResourceParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn negotiation_reads_the_html_mime_type() {
        let map = apps_extension_map();
        assert_eq!(
            Value::Object(map.clone()),
            json!({"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}})
        );
        assert!(declares_apps_extension(Some(&map)));
        let other: JsonObject =
            serde_json::from_value(json!({APPS_EXTENSION: {"mimeTypes": ["text/uri-list"]}}))
                .unwrap();
        assert!(!declares_apps_extension(Some(&other)));
        let bare: JsonObject = serde_json::from_value(json!({APPS_EXTENSION: {}})).unwrap();
        assert!(
            !declares_apps_extension(Some(&bare)),
            "mimeTypes is required"
        );
        assert!(!declares_apps_extension(None));
    }

    #[test]
    fn tool_meta_reads_nested_and_legacy_keys() {
        let meta: Meta = serde_json::from_value(json!({"ui": {"resourceUri": "ui://w/v.html",
            "visibility": ["app"]}}))
        .unwrap();
        let ui = UiToolMeta::from_meta(Some(&meta)).unwrap();
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://w/v.html"));
        assert!(ui.app_only() && ui.callable_by_app() && !ui.visible_to_model());

        let legacy: Meta = serde_json::from_value(json!({"ui/resourceUri": "ui://old"})).unwrap();
        let ui = UiToolMeta::from_meta(Some(&legacy)).unwrap();
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://old"));
        assert!(
            ui.visible_to_model() && ui.callable_by_app(),
            "default is both"
        );
        assert!(UiToolMeta::from_meta(Some(&Meta::new())).is_none());
        assert!(!tool_is_app_only(None));
    }

    #[test]
    fn tool_meta_writes_both_keys() {
        let mut meta = Meta::new();
        UiToolMeta::view("ui://w/v.html")
            .with_visibility(&[ToolVisibility::Model, ToolVisibility::App])
            .write_into(&mut meta);
        assert_eq!(
            Value::Object(meta),
            json!({"ui": {"resourceUri": "ui://w/v.html", "visibility": ["model", "app"]},
                   "ui/resourceUri": "ui://w/v.html"})
        );
    }

    #[test]
    fn resource_meta_round_trips() {
        let v = json!({"csp": {"connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://*.cdn.example"]},
            "permissions": {"clipboardWrite": {}}, "domain": "x.example", "prefersBorder": true});
        let ui: UiResourceMeta = serde_json::from_value(v.clone()).unwrap();
        assert!(ui.permissions.as_ref().unwrap().clipboard_write.is_some());
        assert_eq!(serde_json::to_value(&ui).unwrap(), v);
        let mut meta = Meta::new();
        ui.write_into(&mut meta);
        assert_eq!(UiResourceMeta::from_meta(Some(&meta)), Some(ui));
    }

    #[test]
    fn host_context_keeps_unknown_fields() {
        let v = json!({"theme": "dark", "displayMode": "pip", "x-host": {"a": 1},
            "containerDimensions": {"width": 400, "maxHeight": 600}});
        let ctx: HostContext = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(ctx.theme, Some(Theme::Dark));
        assert_eq!(
            ctx.container_dimensions.as_ref().unwrap().max_height,
            Some(600.0)
        );
        let back = serde_json::to_value(&ctx).unwrap();
        assert_eq!(back["x-host"], v["x-host"]);
    }
}
