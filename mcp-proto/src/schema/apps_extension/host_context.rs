//! What a host tells a view about itself: the host context (theme, display mode, platform,
//! styles, container, the tool being shown) and the host's and the view's capabilities.

use serde::{Deserialize, Serialize};

use crate::jsonrpc::RequestId;
use crate::schema::tools::Tool;
use crate::schema::JsonObject;

use super::*;

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
