//! MCP Apps (the `io.modelcontextprotocol/ui` extension): a tool with an HTML view the host
//! renders in a sandboxed iframe. [`App`] is the tool and its view together;
//! [`ServerBuilder::app`](crate::ServerBuilder::app) registers both in one call:
//!
//! - the tool, with `_meta.ui.resourceUri` (and the deprecated flat `ui/resourceUri` older
//!   hosts read) and, when set, `visibility`;
//! - the view, a `ui://` resource of type `text/html;profile=mcp-app` whose listing and read
//!   contents carry `_meta.ui` (CSP domains, permissions, domain, border), served from memory
//!   and, under 2026-07-28, with `ttlMs`/`cacheScope: "public"` so a host fetches it once;
//! - the extension in the server's `capabilities.extensions`, in both eras.
//!
//! The tool's handler is an ordinary tool handler: what it returns is what every client gets,
//! so return a text summary with the structured data ([`ToolOutput::structured`](crate::ToolOutput::structured))
//! and a client without the extension still has a useful answer. [`Context::client_supports_apps`]
//! says whether this request's client renders views, in either era.
//!
//! More tools may use the same view (a view's own buttons calling the server through the host),
//! with [`Tool::ui`]; one the model should not see is marked `visibility: ["app"]`. It is still
//! listed: hosts keep it from the model.

use std::sync::Arc;
use std::time::Duration;

use mcp_proto::schema::apps_extension::{
    declares_apps_extension, ResourceCsp, ResourcePermissions, ToolVisibility, UiResourceMeta,
    UiToolMeta, APP_MIME_TYPE, UI_SCHEME,
};
use mcp_proto::schema::{
    CacheScope, JsonObject, ModernResultFields, ReadResourceResult, TextResourceContents,
};

use crate::context::Context;
use crate::resource::{read_fn, ReadFn, Resource, ResourceRequest};
use crate::tool::Tool;

/// How long a host may keep a view's HTML under 2026-07-28 unless told otherwise: an hour. The
/// HTML is part of the server's build, so it changes only with a new release.
pub const DEFAULT_VIEW_TTL: Duration = Duration::from_secs(3600);

/// A tool and the HTML view its results are shown in, registered together with
/// [`ServerBuilder::app`](crate::ServerBuilder::app).
///
/// ```
/// use mcp_server::{App, Server, Tool};
///
/// const VIEW: &str = "<!doctype html><html><body><script>/* ui/initialize … */</script></body></html>";
/// let server = Server::builder("clock", "1.0.0")
///     .app(
///         App::new(Tool::new("now", "The time"), "ui://clock/view.html", VIEW).prefers_border(true),
///         || async { "12:00" },
///     )
///     .build();
/// ```
#[derive(Clone, Debug)]
pub struct App {
    tool: Tool,
    ui: UiToolMeta,
    resource: Resource,
    view: UiResourceMeta,
    html: Arc<str>,
    ttl: Duration,
}

impl App {
    /// The tool `tool` with the view at `uri` (a `ui://` URI; the scheme is added when
    /// missing), whose HTML is `html`: one self-contained document, embedded at build time
    /// (`include_str!`). The view resource is named after the tool.
    pub fn new(tool: Tool, uri: impl Into<String>, html: impl Into<Arc<str>>) -> Self {
        let mut uri = uri.into();
        if !uri.starts_with(UI_SCHEME) {
            uri = format!("{UI_SCHEME}{uri}");
        }
        let resource = Resource::new(uri.clone(), format!("{} view", tool.name()))
            .mime_type(APP_MIME_TYPE)
            .description(format!("The interactive view of the {} tool", tool.name()));
        App {
            tool,
            ui: UiToolMeta::view(uri),
            resource,
            view: UiResourceMeta::default(),
            html: html.into(),
            ttl: DEFAULT_VIEW_TTL,
        }
    }

    /// The view's URI.
    pub fn uri(&self) -> &str {
        &self.resource.0.uri
    }

    /// Who may see and call the tool (default: both the model and the view).
    pub fn visibility(mut self, visibility: &[ToolVisibility]) -> Self {
        self.ui.visibility = Some(visibility.to_vec());
        self
    }

    /// The origins the view needs (default none: the host's restrictive CSP, under which
    /// inline script and style still run).
    pub fn csp(mut self, csp: ResourceCsp) -> Self {
        self.view.csp = Some(csp);
        self
    }

    /// The browser capabilities the view asks for (camera, microphone, geolocation,
    /// clipboard write).
    pub fn permissions(mut self, permissions: ResourcePermissions) -> Self {
        self.view.permissions = Some(permissions);
        self
    }

    /// A dedicated sandbox origin, in the format the host documents.
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.view.domain = Some(domain.into());
        self
    }

    /// Whether the view wants a border and background from the host.
    pub fn prefers_border(mut self, prefers: bool) -> Self {
        self.view.prefers_border = Some(prefers);
        self
    }

    /// The view resource's title and description, when the defaults named after the tool do
    /// not fit.
    pub fn view_title(mut self, title: impl Into<String>, description: impl Into<String>) -> Self {
        self.resource = self.resource.title(title).description(description);
        self
    }

    /// How long a host may cache the view's HTML under 2026-07-28 (`ttlMs`; default
    /// [`DEFAULT_VIEW_TTL`]).
    pub fn cache_for(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The tool with its `_meta.ui`, the view resource with its `_meta.ui`, and the view's read
    /// handler.
    pub(crate) fn into_parts(self) -> (Tool, Resource, ReadFn) {
        let App {
            tool,
            ui,
            resource,
            view,
            html,
            ttl,
        } = self;
        let tool = tool.ui(ui);
        let view_meta = (view != UiResourceMeta::default()).then(|| {
            let mut meta = JsonObject::new();
            view.write_into(&mut meta);
            meta
        });
        let resource = match &view_meta {
            Some(meta) => resource.meta(meta.clone()),
            None => resource,
        };
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        let read = move |request: ResourceRequest, ctx: Context| {
            let result = view_contents(&request.uri, &html, view_meta.as_ref(), &ctx, ttl_ms);
            async move { result }
        };
        (tool, resource, read_fn(read))
    }
}

/// The read result of a view: its HTML with the MIME type and `_meta.ui`, cacheable by anyone
/// for `ttl_ms` under 2026-07-28 (the 2025 era has no cache fields).
fn view_contents(
    uri: &str,
    html: &str,
    meta: Option<&JsonObject>,
    ctx: &Context,
    ttl_ms: u64,
) -> ReadResourceResult {
    let mut contents = TextResourceContents::new(uri, html).with_mime_type(APP_MIME_TYPE);
    contents.meta = meta.cloned();
    let result = ReadResourceResult::new(vec![contents.into()]);
    if ctx.protocol_version().is_stateless_era() {
        result.with_cache(ttl_ms, CacheScope::Public)
    } else {
        result
    }
}

impl Tool {
    /// Links the tool to a view: sets its `_meta.ui` (`resourceUri`, `visibility`) and the
    /// deprecated flat `_meta["ui/resourceUri"]`, keeping the rest of its `_meta`. For tools
    /// that share the view of an [`App`], e.g. one only the view calls:
    /// `Tool::new("forecast", "…").ui(UiToolMeta::view(uri).with_visibility(&[ToolVisibility::App]))`.
    pub fn ui(mut self, ui: UiToolMeta) -> Self {
        let meta = self.def.meta.get_or_insert_with(JsonObject::new);
        ui.write_into(meta);
        self
    }
}

impl Context {
    /// Whether the client of this request renders MCP Apps views: it declared the
    /// `io.modelcontextprotocol/ui` extension with `text/html;profile=mcp-app`, in `initialize`
    /// (2025 era) or in this request's `clientCapabilities` (2026-07-28).
    pub fn client_supports_apps(&self) -> bool {
        let extensions = self
            .client_capabilities()
            .and_then(|caps| caps.extensions.as_ref());
        declares_apps_extension(extensions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_proto::schema::apps_extension::LEGACY_RESOURCE_URI_META_KEY;
    use serde_json::json;

    #[test]
    fn parts_carry_the_extension_metadata() {
        let app = App::new(Tool::new("w", "weather"), "weather/app.html", "<p>hi</p>")
            .visibility(&[ToolVisibility::Model, ToolVisibility::App])
            .csp(ResourceCsp {
                connect_domains: Some(vec!["https://api.example.com".into()]),
                ..Default::default()
            })
            .prefers_border(true);
        assert_eq!(app.uri(), "ui://weather/app.html");
        let (tool, resource, _) = app.into_parts();
        let meta = tool.definition().meta.clone().unwrap();
        assert_eq!(
            meta["ui"],
            json!({"resourceUri": "ui://weather/app.html", "visibility": ["model", "app"]})
        );
        assert_eq!(
            meta[LEGACY_RESOURCE_URI_META_KEY],
            json!("ui://weather/app.html")
        );
        let def = resource.definition();
        assert_eq!(def.mime_type.as_deref(), Some(APP_MIME_TYPE));
        assert_eq!(
            def.meta.as_ref().unwrap()["ui"],
            json!({"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": true})
        );
    }

    #[test]
    fn ui_keeps_other_meta() {
        let tool = Tool::new("t", "d")
            .meta(serde_json::from_value(json!({"x": 1})).unwrap())
            .ui(UiToolMeta::view("ui://a").with_visibility(&[ToolVisibility::App]));
        let meta = tool.definition().meta.clone().unwrap();
        assert_eq!(meta["x"], json!(1));
        assert!(UiToolMeta::from_meta(Some(&meta)).unwrap().app_only());
    }
}
