//! What a server puts on what it lists: a tool's `_meta.ui` (which view, who may see and call
//! it) and a view resource's `_meta.ui` (CSP domains, permissions, dedicated origin, border).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::schema::tools::Tool;
use crate::schema::{JsonObject, Meta};

use super::*;

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
