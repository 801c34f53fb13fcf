//! The page's files, written by us and embedded at build time (`include_str!`): plain HTML,
//! CSS and ES modules, so `cargo build` stays the only build step. Each module is one concept
//! of the page: the API client, the generated forms, result rendering, the MCP Apps host,
//! the call history, and `main.js` wiring them to the DOM.

/// One embedded file: its path on the page origin, content type and text.
pub struct Asset {
    /// The path it is served at.
    pub path: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its text.
    pub text: &'static str,
}

/// The page itself, served at `/` with the token in its query.
pub const INDEX: &str = include_str!("web/index.html");

/// One embedded file of `web/`, served at `/NAME`.
macro_rules! asset {
    ($name:literal, $content_type:literal) => {
        Asset {
            path: concat!("/", $name),
            content_type: $content_type,
            text: include_str!(concat!("web/", $name)),
        }
    };
}

/// The page's stylesheet and modules, served to anyone on the right host (they hold no
/// secret; the token lives in the page's URL and is sent by `api.js`).
pub const ASSETS: &[Asset] = &[
    asset!("style.css", "text/css; charset=utf-8"),
    asset!("dom.js", "text/javascript; charset=utf-8"),
    asset!("main.js", "text/javascript; charset=utf-8"),
    asset!("api.js", "text/javascript; charset=utf-8"),
    asset!("form.js", "text/javascript; charset=utf-8"),
    asset!("render.js", "text/javascript; charset=utf-8"),
    asset!("app_host.js", "text/javascript; charset=utf-8"),
    asset!("history.js", "text/javascript; charset=utf-8"),
];

/// The page origin's Content Security Policy: our own files only, data: images from results,
/// the API on our own origin, and frames only from the app origin `views`.
pub fn page_policy(views: &str) -> String {
    format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         media-src 'self' data:; connect-src 'self'; frame-src {views}; base-uri 'none'; \
         form-action 'none'; frame-ancestors 'none'"
    )
}
