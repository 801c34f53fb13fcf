//! The views (MCP Apps) `mcp ui` shows, and the second origin that serves them. The page asks
//! for a view (`POST /api/view`); its HTML is read from the server, kept under a random id,
//! and served from another loopback port with the view's Content Security Policy, so the
//! iframe (`sandbox="allow-scripts"`, no `allow-same-origin`) is another origin than the page
//! twice over and reaches the page only through `postMessage`. The app origin has no API.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hyper::header::{HeaderValue, HOST};
use hyper::{HeaderMap, StatusCode};
use mcp_proto::schema::apps_extension::{UiResourceMeta, APP_MIME_TYPE};
use mcp_proto::schema::{ReadResourceResult, ResourceContents};

use super::body::{self, UiBody};
use super::csp;
use super::token::random_id;

/// How many views are kept; the oldest goes first (an iframe still showing it keeps its DOM).
const KEPT_VIEWS: usize = 64;

/// The most HTML a view may have.
pub const MAX_VIEW_BYTES: usize = 8 << 20;

/// One view ready to be served.
#[derive(Debug)]
struct View {
    id: String,
    html: bytes::Bytes,
    policy: String,
}

/// What the page needs to frame a view.
#[derive(Debug, Clone, PartialEq)]
pub struct Framed {
    /// The view's URL on the app origin.
    pub url: String,
    /// The `Content-Security-Policy` it is served with.
    pub policy: String,
    /// The iframe's `allow` attribute.
    pub allow: String,
    /// The view's `_meta.ui` (contents' over listing's), as JSON.
    pub meta: serde_json::Value,
}

/// The views and the app origin's address.
#[derive(Debug, Clone)]
pub struct Views {
    port: u16,
    kept: Arc<Mutex<VecDeque<View>>>,
}

impl Views {
    /// The views of the app origin listening on 127.0.0.1:`port`.
    pub fn new(port: u16) -> Views {
        Views {
            port,
            kept: Arc::default(),
        }
    }

    /// The app origin, for the page's `frame-src`.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Keeps the view read from `read` (the resource at `uri`), with `listed` the `_meta.ui` of
    /// its `resources/list` entry if any.
    pub fn keep(
        &self,
        uri: &str,
        read: &ReadResourceResult,
        listed: Option<UiResourceMeta>,
    ) -> Result<Framed, String> {
        let contents = read
            .contents
            .iter()
            .find(|c| c.uri() == uri)
            .or(read.contents.first())
            .ok_or_else(|| format!("{uri} has no contents"))?;
        let (mime, meta, size) = match contents {
            ResourceContents::Text(t) => (&t.mime_type, &t.meta, t.text.len()),
            ResourceContents::Blob(b) => (&b.mime_type, &b.meta, b.blob.len() / 4 * 3),
        };
        let mime = mime.as_deref().unwrap_or_default();
        if !mime.eq_ignore_ascii_case(APP_MIME_TYPE) {
            return Err(format!(
                "{uri} is {mime:?}, not an MCP App view ({APP_MIME_TYPE})"
            ));
        }
        if size > MAX_VIEW_BYTES {
            return Err(format!("{uri} is larger than {MAX_VIEW_BYTES} bytes"));
        }
        let html = match contents {
            ResourceContents::Text(t) => bytes::Bytes::from(t.text.clone()),
            ResourceContents::Blob(b) => STANDARD
                .decode(b.blob.as_bytes())
                .map(bytes::Bytes::from)
                .map_err(|e| format!("{uri}'s blob is not valid base64: {e}"))?,
        };
        let ui = UiResourceMeta::from_meta(meta.as_ref())
            .or(listed)
            .unwrap_or_default();
        let policy = csp::view_policy(ui.csp.as_ref());
        let allow = csp::allow_attribute(ui.permissions.as_ref());
        eprintln!("mcp ui: view {uri}: Content-Security-Policy: {policy}");
        let id = random_id();
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() == KEPT_VIEWS {
            kept.pop_front();
        }
        kept.push_back(View {
            id: id.clone(),
            html,
            policy: policy.clone(),
        });
        Ok(Framed {
            url: format!("{}/view/{id}", self.origin()),
            policy,
            allow,
            meta: serde_json::to_value(&ui).unwrap_or_default(),
        })
    }

    /// The app origin's answer to a GET of `path`: a kept view with its policy, else 404.
    pub fn serve(&self, headers: &HeaderMap, path: &str) -> hyper::Response<UiBody> {
        let host = headers.get(HOST).and_then(|h| h.to_str().ok());
        let ours = [
            format!("127.0.0.1:{}", self.port),
            format!("localhost:{}", self.port),
        ];
        if !host.is_some_and(|h| ours.iter().any(|o| o == h)) {
            return body::error(StatusCode::FORBIDDEN, "wrong host");
        }
        let Some(id) = path.strip_prefix("/view/") else {
            return body::error(StatusCode::NOT_FOUND, "no such view");
        };
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let Some(view) = kept.iter().find(|v| v.id == id) else {
            return body::error(StatusCode::NOT_FOUND, "no such view");
        };
        let mut response = body::full(
            StatusCode::OK,
            "text/html; charset=utf-8",
            view.html.clone(),
        );
        let h = response.headers_mut();
        if let Ok(policy) = HeaderValue::from_str(&view.policy) {
            h.insert("content-security-policy", policy);
        }
        h.insert(
            "x-content-type-options",
            HeaderValue::from_static("nosniff"),
        );
        h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(mime: &str, html: &str) -> ReadResourceResult {
        serde_json::from_value(serde_json::json!({
            "contents": [{ "uri": "ui://x/app.html", "mimeType": mime, "text": html,
                "_meta": { "ui": { "csp": { "connectDomains": ["https://api.example.com"] } } } }]
        }))
        .expect("result")
    }

    fn host(port: u16) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            HOST,
            HeaderValue::from_str(&format!("127.0.0.1:{port}")).expect("host"),
        );
        h
    }

    #[test]
    fn a_kept_view_is_served_with_its_policy_and_nothing_else_is() {
        let views = Views::new(5000);
        let framed = views
            .keep("ui://x/app.html", &read(APP_MIME_TYPE, "<p>hi</p>"), None)
            .expect("kept");
        assert!(framed.url.starts_with("http://127.0.0.1:5000/view/"));
        assert!(framed
            .policy
            .contains("connect-src https://api.example.com"));
        let path = framed.url.trim_start_matches("http://127.0.0.1:5000");
        let served = views.serve(&host(5000), path);
        assert_eq!(served.status(), StatusCode::OK);
        assert_eq!(
            served.headers()["content-security-policy"].to_str().ok(),
            Some(framed.policy.as_str())
        );
        assert_eq!(
            views.serve(&host(5000), "/view/nope").status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            views.serve(&host(5000), "/api/hub").status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            views.serve(&host(5001), path).status(),
            StatusCode::FORBIDDEN
        );
    }

    #[test]
    fn a_view_given_as_a_blob_is_decoded() {
        let views = Views::new(5000);
        let read: ReadResourceResult = serde_json::from_value(serde_json::json!({
            "contents": [{ "uri": "ui://x/app.html", "mimeType": APP_MIME_TYPE,
                "blob": STANDARD.encode("<p>blob</p>") }]
        }))
        .expect("result");
        let framed = views.keep("ui://x/app.html", &read, None).expect("kept");
        assert!(framed.policy.contains("connect-src 'none'"));
        let path = framed.url.trim_start_matches("http://127.0.0.1:5000");
        let served = views.serve(&host(5000), path);
        let body = match served.into_body() {
            UiBody::Full(Some(b)) => b,
            other => panic!("{other:?}"),
        };
        assert_eq!(&body[..], b"<p>blob</p>");
    }

    #[test]
    fn only_app_views_are_kept() {
        let views = Views::new(5000);
        let err = views
            .keep("ui://x/app.html", &read("text/plain", "hi"), None)
            .expect_err("not a view");
        assert!(err.contains("not an MCP App view"), "{err}");
    }
}
