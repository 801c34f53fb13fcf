//! MCP Apps (`io.modelcontextprotocol/ui`) in the hub: which tools have a view, which are for
//! their view only, and keeping those from a model. A tool whose `_meta.ui.visibility` leaves
//! out `"model"` is still listed by [`Hub::tools`] (a host needs it, to let the view call it),
//! but [`Hub::model_tools`], [`Hub::export`] and tool search leave it out, and a model's call
//! of it is refused, as the extension asks of hosts.

use mcp_proto::schema::apps_extension::{AppsSettings, UiToolMeta, APPS_EXTENSION};
use mcp_proto::schema::CallToolResult;

use crate::{ErrorKind, Hub, HubTool};

impl HubTool {
    /// The tool's `_meta.ui` (its view and who may see and call it), if it has one.
    pub fn ui(&self) -> Option<UiToolMeta> {
        UiToolMeta::of(&self.tool)
    }

    /// The `ui://` URI of the tool's view, if it has one.
    pub fn view_uri(&self) -> Option<String> {
        self.ui().and_then(|ui| ui.resource_uri)
    }

    /// Whether the tool is for its view only: hosts keep it from the model.
    pub fn app_only(&self) -> bool {
        self.ui().is_some_and(|ui| ui.app_only())
    }
}

impl Hub {
    /// The tools a model may see: [`tools`](Self::tools) without the app-only ones.
    pub fn model_visible_tools(&self) -> Vec<HubTool> {
        self.tools().into_iter().filter(|t| !t.app_only()).collect()
    }

    /// The refusal of a model's call of an app-only tool, or `None` when the model may call it.
    pub fn check_model_callable(&self, exposed: &str) -> Option<CallToolResult> {
        let tool = self.resolve_tool(exposed).ok()?;
        tool.app_only().then(|| {
            CallToolResult::error(format!(
                "[{}] {exposed} is for its app's view only; it is not offered to models",
                ErrorKind::NotFound.as_str()
            ))
        })
    }
}

/// The extension's settings as the hub declares them to every server when it hosts apps
/// ([`HubOptions::apps`](crate::HubOptions::apps)): HTML views.
pub(crate) fn apps_declaration() -> (&'static str, serde_json::Value) {
    let settings = serde_json::to_value(AppsSettings::html()).unwrap_or_default();
    (APPS_EXTENSION, settings)
}
