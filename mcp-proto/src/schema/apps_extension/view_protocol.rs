//! The view's protocol with its host, each method tied to its params and result like the core
//! methods: the view's requests (`ui/initialize`, `ui/open-link`, `ui/message`, …), the host's
//! requests, and the notifications both ways.

use serde::{Deserialize, Serialize};

use crate::schema::content::Content;
use crate::schema::empty::{EmptyParams, EmptyResult};
use crate::schema::lifecycle::Implementation;
use crate::schema::tools::CallToolResult;
use crate::schema::{JsonObject, NotificationType, RequestType};

use super::*;

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
