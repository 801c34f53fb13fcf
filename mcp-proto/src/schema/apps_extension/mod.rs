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

use super::JsonObject;

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

mod host_context;
mod metadata;
mod view_protocol;

pub use host_context::*;
pub use metadata::*;
pub use view_protocol::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Meta;
    use serde_json::{json, Value};

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
