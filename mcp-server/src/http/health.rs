//! `/healthz` and `/readyz` for load balancers and orchestrators. `/healthz` says the process
//! serves HTTP; `/readyz` also asks the [`SessionFactory`](super::SessionFactory) whether what
//! requests need is reachable (a server's [shared state](crate::shared)), and answers 503 with a JSON
//! body naming the failure when it is not.

use hyper::header::{HeaderValue, CACHE_CONTROL};
use hyper::{Method, Response, StatusCode};

use super::body::{self, ResponseBody};
use super::App;

/// The liveness path.
pub const HEALTH_PATH: &str = "/healthz";
/// The readiness path.
pub const READY_PATH: &str = "/readyz";

/// Answers `path` if it is a health endpoint, else `None`.
pub(crate) async fn answer(
    app: &App,
    method: &Method,
    path: &str,
) -> Option<Response<ResponseBody>> {
    if !app.config.health_endpoints || (path != HEALTH_PATH && path != READY_PATH) {
        return None;
    }
    if method != Method::GET && method != Method::HEAD {
        return Some(super::method_not_allowed("GET, HEAD"));
    }
    let (status, document) = if path == HEALTH_PATH {
        (StatusCode::OK, serde_json::json!({ "status": "ok" }))
    } else {
        match app.factory.ready().await {
            Ok(()) => (StatusCode::OK, serde_json::json!({ "status": "ready" })),
            Err(reason) => (
                StatusCode::SERVICE_UNAVAILABLE,
                serde_json::json!({ "status": "unavailable", "reason": reason }),
            ),
        }
    };
    let mut response = body::json(status, document.to_string());
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Some(response)
}
