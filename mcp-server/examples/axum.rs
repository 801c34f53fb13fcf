//! An MCP endpoint inside an existing axum app: the app keeps its own routes (`/`, `/health`)
//! and middleware (tower-http's `TraceLayer`), mounts the server at `/mcp` with
//! `Router::nest_service`, and checks bearer tokens in its own axum middleware, which hands the
//! caller's identity to the tools through a request extension (`Context::auth`).
//!
//! `cargo run -p mcp-server --example axum`, then connect an MCP client to
//! `http://127.0.0.1:3000/mcp` (HTTP+SSE clients: `http://127.0.0.1:3000/mcp/sse`) with
//! `Authorization: Bearer alice-token`. Ctrl-C shuts the app down gracefully, MCP streams
//! included. `tests/axum_mount.rs` runs this same app.

use std::future::Future;

use axum::extract::Request;
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use mcp_server::auth::AuthIdentity;
use mcp_server::http::{HttpConfig, HttpService};
use mcp_server::{Context, Server, Tool};
use tokio::net::TcpListener;
use tower_http::trace::TraceLayer;

/// Who the demo's tokens speak for; a real app asks its identity provider.
const TOKENS: [(&str, &str); 2] = [("alice-token", "alice"), ("bob-token", "bob")];

/// The issuer the app's middleware names in the identities it makes.
const ISSUER: &str = "https://example-app.invalid";

/// The MCP server: one tool that greets whoever the app's middleware authenticated.
pub fn mcp_server() -> Server {
    Server::builder("axum-example", "1.0.0")
        .tool(
            Tool::new("whoami", "Says whom the request's bearer token speaks for"),
            |ctx: Context| async move {
                match ctx.auth().and_then(|identity| identity.subject.as_deref()) {
                    Some(subject) => format!("hello, {subject}"),
                    None => "hello, stranger".to_owned(),
                }
            },
        )
        .build()
}

/// The app: its own routes, the MCP service at `/mcp` behind the bearer check, tracing around
/// everything.
pub fn app(mcp: HttpService) -> Router {
    let protected = Router::new()
        .nest_service("/mcp", mcp)
        .layer(middleware::from_fn(require_bearer));
    Router::new()
        .route(
            "/",
            get(|| async { "an axum app that also speaks MCP at /mcp\n" }),
        )
        .route("/health", get(|| async { "ok\n" }))
        .merge(protected)
        .layer(TraceLayer::new_for_http())
}

/// The app's own authentication: a known bearer token becomes an [`AuthIdentity`] in the
/// request's extensions, where the MCP service picks it up; anything else is a 401.
async fn require_bearer(mut request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    let user = token.and_then(|token| TOKENS.iter().find(|(known, _)| *known == token));
    match user {
        Some((_, user)) => {
            request
                .extensions_mut()
                .insert(AuthIdentity::new(*user, ISSUER));
            next.run(request).await
        }
        None => (
            StatusCode::UNAUTHORIZED,
            [(WWW_AUTHENTICATE, "Bearer")],
            "a bearer token is required\n",
        )
            .into_response(),
    }
}

/// Serves the app on `listener` until `stop` completes, then shuts down gracefully: the MCP
/// service ends its streams and sessions, so axum's wait for open connections ends too.
pub async fn serve(
    listener: TcpListener,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // Inside `nest_service("/mcp", …)` the service sees paths without `/mcp`; the config says
    // so, so the URLs it announces (the legacy `endpoint` event) carry the prefix.
    let mcp = mcp_server()
        .http_service(HttpConfig::nested("/mcp"))
        .map_err(std::io::Error::other)?;
    let mcp_shutdown = mcp.shutdown_token();
    axum::serve(listener, app(mcp))
        .with_graceful_shutdown(async move {
            stop.await;
            mcp_shutdown.cancel();
        })
        .await
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:3000").await?;
    eprintln!(
        "listening on http://{}/ (MCP at /mcp)",
        listener.local_addr()?
    );
    serve(listener, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await
}
