//! MCP Apps (`io.modelcontextprotocol/ui`) through the proxy, both ways and in both eras.
//!
//! - **Views**: each server's `ui://` resources are offered as `ui://{server}/{rest}` (the
//!   server's name, then the URI after the scheme), so two servers' views never collide; a
//!   read of that URI goes to the server as its own URI, and the contents come back under the
//!   proxy's. A tool's `_meta.ui.resourceUri` (and the deprecated flat key) names the proxy's URI.
//! - **Visibility** passes as the server set it: an app-only tool is offered, still marked
//!   app-only, so the proxy's host keeps it from its model as the server intended.
//! - **Calls from a view**: a view calls its own server's tools by their own names
//!   (`get_forecast`), not the proxy's (`weather__get_forecast`). So for every tool a view may
//!   call (visibility with `"app"`, the default) of a server that has views, the proxy also
//!   offers an app-only alias under the raw name, forwarded to that server. A raw name two such
//!   servers share gets no alias (a view's call of it fails as an unknown tool): the proxy cannot
//!   tell which view called. Aliases are made when the proxy starts. In tool search mode
//!   (`--tool-search`), where only `search_tools` and `call_tool` are listed, there are none.
//! - **Negotiation**: the proxy declares the extension to its clients when a server has views,
//!   and declares it to every server ([`HubOptions::apps`](mcp_hub::HubOptions)).

use std::collections::{BTreeMap, BTreeSet};

use mcp_hub::{Hub, HubTool};
use mcp_server::schema::apps_extension::{ToolVisibility, UiToolMeta, APP_MIME_TYPE, UI_SCHEME};
use mcp_server::schema::{self, ReadResourceResult, ResourceContents};

/// The name of `server` as the first segment of its views' URIs: characters outside
/// `[A-Za-z0-9._-]` become `_`.
fn segment(server: &str) -> String {
    server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The proxy's URI of `server`'s resource `uri`, when it is a `ui://` one.
pub(super) fn exposed_view_uri(server: &str, uri: &str) -> Option<String> {
    let rest = uri.strip_prefix(UI_SCHEME)?;
    Some(format!("{UI_SCHEME}{}/{rest}", segment(server)))
}

/// The server and its own URI that the proxy's view URI `exposed` stands for.
pub(super) fn upstream_view(hub: &Hub, exposed: &str) -> Option<(String, String)> {
    let (first, rest) = exposed.strip_prefix(UI_SCHEME)?.split_once('/')?;
    let server = hub
        .servers()
        .into_iter()
        .map(|s| s.config.name)
        .find(|name| segment(name) == first)?;
    Some((server, format!("{UI_SCHEME}{rest}")))
}

/// `definition` of one of `server`'s tools with its view named by the proxy's URI.
pub(super) fn expose_tool_view(server: &str, definition: &mut schema::Tool) {
    let Some(mut ui) = UiToolMeta::of(definition) else {
        return;
    };
    let Some(uri) = ui
        .resource_uri
        .as_deref()
        .and_then(|uri| exposed_view_uri(server, uri))
    else {
        return;
    };
    ui.resource_uri = Some(uri);
    ui.write_into(definition.meta.get_or_insert_with(Default::default));
}

/// One of `server`'s resources as the proxy lists it (a `ui://` one under the proxy's URI).
pub(super) fn expose_resource(server: &str, mut resource: schema::Resource) -> schema::Resource {
    if let Some(uri) = exposed_view_uri(server, &resource.uri) {
        resource.uri = uri;
    }
    resource
}

/// `result`, read from a server as `upstream`, with those contents named `exposed`.
pub(super) fn expose_contents(
    mut result: ReadResourceResult,
    upstream: &str,
    exposed: &str,
) -> ReadResourceResult {
    for contents in &mut result.contents {
        let uri = match contents {
            ResourceContents::Text(t) => &mut t.uri,
            ResourceContents::Blob(b) => &mut b.uri,
        };
        if uri == upstream {
            *uri = exposed.to_owned();
        }
    }
    result
}

/// Whether any server has a view: a tool with `_meta.ui.resourceUri`, or an app resource.
pub(super) fn has_views(hub: &Hub) -> bool {
    hub.tools().iter().any(|t| t.view_uri().is_some())
        || hub
            .resources()
            .iter()
            .any(|r| r.resource.mime_type.as_deref() == Some(APP_MIME_TYPE))
}

/// The app-only aliases under raw names (see the module's notes): each alias's definition and
/// the exposed name it forwards to.
pub(super) fn app_aliases(hub: &Hub) -> Vec<(schema::Tool, String)> {
    let tools = hub.tools();
    let with_views: BTreeSet<&str> = tools
        .iter()
        .filter(|t| t.view_uri().is_some())
        .map(|t| t.server.as_str())
        .collect();
    let exposed: BTreeSet<&str> = tools.iter().map(|t| t.exposed.as_str()).collect();
    let callable: Vec<&HubTool> = tools
        .iter()
        .filter(|t| with_views.contains(t.server.as_str()))
        .filter(|t| t.ui().is_none_or(|ui| ui.callable_by_app()))
        .collect();
    let mut by_name: BTreeMap<&str, Vec<&HubTool>> = BTreeMap::new();
    for tool in &callable {
        by_name
            .entry(tool.tool.name.as_str())
            .or_default()
            .push(tool);
    }
    by_name
        .into_iter()
        .filter(|(name, owners)| owners.len() == 1 && !exposed.contains(name))
        .map(|(name, owners)| {
            let tool = owners[0];
            let mut definition = tool.tool.clone();
            definition.name = name.to_owned();
            let mut ui = tool.ui().unwrap_or_default();
            ui.visibility = Some(vec![ToolVisibility::App]);
            ui.write_into(definition.meta.get_or_insert_with(Default::default));
            expose_tool_view(&tool.server, &mut definition);
            (definition, tool.exposed.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_uris_carry_the_server() {
        assert_eq!(
            exposed_view_uri("weather", "ui://weather/app.html").as_deref(),
            Some("ui://weather/weather/app.html")
        );
        assert_eq!(
            exposed_view_uri("my server", "ui://x").as_deref(),
            Some("ui://my_server/x")
        );
        assert_eq!(exposed_view_uri("s", "weather://cities"), None);
    }

    #[test]
    fn tool_views_are_renamed_and_other_meta_kept() {
        let mut tool = schema::Tool::new("t", "d");
        let mut meta = schema::JsonObject::new();
        meta.insert("x".into(), 1.into());
        UiToolMeta::view("ui://w/app.html")
            .with_visibility(&[ToolVisibility::App])
            .write_into(&mut meta);
        tool.meta = Some(meta);
        expose_tool_view("s", &mut tool);
        let ui = UiToolMeta::of(&tool).unwrap();
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://s/w/app.html"));
        assert!(ui.app_only(), "visibility passes as the server set it");
        assert_eq!(tool.meta.unwrap()["ui/resourceUri"], "ui://s/w/app.html");
    }
}
