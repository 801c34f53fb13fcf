//! The page origin of `mcp ui`: the guard first, then the page (`/?token=…`), its embedded
//! files, and the API under `/api/`. Every answer says `Referrer-Policy: no-referrer` (the
//! token is in the page's URL) and the page carries its own Content Security Policy.

use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Method, Request, Response, StatusCode};
use mcp_hub::Hub;

use super::assets::{page_policy, ASSETS, INDEX};
use super::body::{self, UiBody};
use super::guard::Guard;
use super::views::Views;

/// What the page origin serves with.
#[derive(Clone)]
pub struct Page {
    /// The hub the page shows.
    pub hub: Hub,
    /// The access guard.
    pub guard: Guard,
    /// The views and the app origin.
    pub views: Views,
}

impl Page {
    /// Answers one request to the page origin.
    pub async fn handle(&self, req: Request<Incoming>) -> Response<UiBody> {
        let mut response = self.route(req).await;
        let h = response.headers_mut();
        h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
        h.insert(
            "x-content-type-options",
            HeaderValue::from_static("nosniff"),
        );
        h.insert("x-frame-options", HeaderValue::from_static("DENY"));
        response
    }

    async fn route(&self, req: Request<Incoming>) -> Response<UiBody> {
        let path = req.uri().path().to_owned();
        if path.starts_with("/api/") {
            if let Err(refusal) = self.guard.check_api(req.headers()) {
                return body::error(refusal.status(), refusal.message());
            }
            return super::api::handle(&self.hub, &self.views, req).await;
        }
        if req.method() != Method::GET {
            return body::error(StatusCode::METHOD_NOT_ALLOWED, "GET only");
        }
        if path == "/" {
            if let Err(refusal) = self.guard.check_page(req.headers(), req.uri().query()) {
                return body::full(
                    refusal.status(),
                    "text/plain; charset=utf-8",
                    refusal.message(),
                );
            }
            let mut response = body::full(StatusCode::OK, "text/html; charset=utf-8", INDEX);
            if let Ok(policy) = HeaderValue::from_str(&page_policy(&self.views.origin())) {
                response
                    .headers_mut()
                    .insert("content-security-policy", policy);
            }
            return response;
        }
        if let Err(refusal) = self.guard.check_site(req.headers()) {
            return body::error(refusal.status(), refusal.message());
        }
        match ASSETS.iter().find(|a| a.path == path) {
            Some(asset) => body::full(StatusCode::OK, asset.content_type, asset.text),
            None => body::error(StatusCode::NOT_FOUND, "not found"),
        }
    }
}
