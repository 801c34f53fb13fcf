//! MCP over HTTP on hyper 1.x: Streamable HTTP (2025-03-26 … 2025-11-25 with sessions, and
//! 2026-07-28 POSTs served statelessly beside them, see `modern`) at one endpoint (default
//! `/mcp`), and the HTTP+SSE transport (2024-11-05) at `/sse` + `/messages`, all on one
//! port.
//!
//! The HTTP layer knows nothing of what the server does: for every new session it calls a
//! [`SessionFactory`] with an [`HttpSessionTransport`], and whatever runs on that transport
//! (a `Peer` with a handler, a `Server`) answers the messages.
//!
//! All of it is one tower [`HttpService`] ([`service`], or `Server::http_service`) that a host
//! app mounts beside its own routes: axum's `Router::nest_service("/mcp", …)` with
//! [`HttpConfig::nested`], or any tower/hyper stack. [`bind`] and [`serve`] run that same
//! service on a listener of their own. Mounted or not, the service checks `Host` and `Origin`,
//! bounds request bodies (size and read time), verifies bearer tokens (or takes the
//! [`AuthIdentity`] the host's middleware put in the request's
//! extensions), expires idle sessions and shuts down gracefully ([`HttpService::shutdown`]).
//! What a listener does is the host's when mounted: TCP or TLS, the header read timeout,
//! connection limits, and starting the service's shutdown with its own.
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcp_server::http::HttpError> {
//! use std::sync::Arc;
//! use mcp_proto::peer::{Peer, PeerOptions};
//! # struct MyHandler;
//! # impl mcp_proto::peer::Handler for MyHandler {
//! #     async fn handle_request(&self, _: mcp_proto::jsonrpc::Request, _: mcp_proto::peer::RequestContext)
//! #         -> Result<mcp_proto::jsonrpc::RawJson, mcp_proto::jsonrpc::ErrorObject> { Ok(mcp_proto::jsonrpc::empty_object()) }
//! # }
//! let handler = Arc::new(MyHandler);
//! let server = mcp_server::http::bind(
//!     "127.0.0.1:8080",
//!     mcp_server::http::HttpConfig::default(),
//!     move |transport| Peer::start(transport, handler.clone(), PeerOptions::default()),
//! )
//! .await?;
//! println!("listening on {}", server.local_addr());
//! server.shutdown().await;
//! # Ok(()) }
//! ```

mod bearer;
mod body;
mod health;
mod http_sse;
mod listener;
mod mirrored_headers;
mod modern;
mod modern_pool;
mod request_body;
mod security;
mod service;
mod session;
mod streamable;

use std::any::Any;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::{HeaderValue, ALLOW};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

pub use bearer::{AuthConfig, PROTECTED_RESOURCE_PATH};
pub use body::ResponseBody;
pub use health::{HEALTH_PATH, READY_PATH};
pub use listener::{listen, LISTEN_BACKLOG};
pub(crate) use mirrored_headers::tool_header_params;
pub use mirrored_headers::ToolHeaderParam;
pub use service::{service, HttpService};
/// 128 random bits from the OS's CSPRNG, hex (session and task ids).
pub use session::{HttpSessionTransport, HttpSink, HttpSource};

use crate::auth::AuthIdentity;
use crate::event_store::{EventLimits, EventStore};
use crate::session_store::{SessionRelay, SessionStore};
use modern::ConnectionSession;
use modern_pool::ModernPool;
use request_body::RequestBody;
use security::HostGuard;
use service::Lifecycle;
use session::{Session, SessionTable};

/// Why the HTTP server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// Binding the listening socket failed.
    #[error("cannot bind {addr}: {source}")]
    Bind {
        /// The address as given.
        addr: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The listener's local address could not be read.
    #[error("cannot read the listening address: {0}")]
    LocalAddr(std::io::Error),
    /// The configuration is inconsistent.
    #[error("invalid HTTP configuration: {0}")]
    Config(String),
}

/// Legacy HTTP+SSE (2024-11-05) endpoint paths.
#[derive(Clone, Debug)]
pub struct HttpSseConfig {
    /// Where GET opens the SSE stream (default `/sse`).
    pub sse_path: String,
    /// Where the client POSTs its messages (default `/messages`); the `endpoint` event names it
    /// with `?sessionId=…`.
    pub messages_path: String,
}

impl Default for HttpSseConfig {
    fn default() -> Self {
        HttpSseConfig {
            sse_path: "/sse".into(),
            messages_path: "/messages".into(),
        }
    }
}

/// How the HTTP server behaves. `HttpConfig::default()` is a stateful Streamable HTTP server at
/// `/mcp` plus HTTP+SSE, with DNS-rebinding protection on loopback binds.
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// The Streamable HTTP endpoint path (default `/mcp`).
    pub endpoint: String,
    /// The path a host app mounts the [`HttpService`] at and strips from each request before
    /// the service sees it (axum's `Router::nest_service("/mcp", …)`). The URLs the server
    /// announces start with it: the HTTP+SSE `endpoint` event, the protected-resource metadata.
    /// Empty (the default) when the service sees whole paths, as under [`bind`].
    pub mount_path: String,
    /// Stateless mode: no session ids, no GET stream; every POST is served on its own.
    pub stateless: bool,
    /// The HTTP+SSE endpoints, or `None` to serve only Streamable HTTP.
    pub http_sse: Option<HttpSseConfig>,
    /// Largest accepted request body (default 4 MiB); larger ones get 413.
    pub max_body_size: usize,
    /// Time allowed for a client to send its request headers (default 10 s); [`bind`]/[`serve`]
    /// only: a mounted [`HttpService`] gets requests whose headers its host has read.
    pub header_read_timeout: Duration,
    /// Time allowed for a client to send its request body (default 30 s).
    pub body_read_timeout: Duration,
    /// Sessions idle (no request, no open stream) this long expire (default 30 min).
    pub session_idle_timeout: Duration,
    /// At most this many sessions at once (default 10 000); more `initialize`s get 503.
    pub max_sessions: usize,
    /// Whether DELETE may end a session (default true; else 405).
    pub allow_delete: bool,
    /// Whether GET opens a standalone SSE stream (default true; else 405).
    pub standalone_stream: bool,
    /// Events kept per SSE stream for replay after `Last-Event-ID` (default 64).
    pub replay_buffer: usize,
    /// The `retry` the server asks clients to wait before reconnecting (default 1 s);
    /// sent with the priming event to 2025-11-25 clients.
    pub sse_retry: Option<Duration>,
    /// Answer a request with SSE (priming event first) when the handler has sent nothing for
    /// this long, so a long call becomes resumable (2025-11-25 clients; default: never, the
    /// answer waits and goes out as JSON).
    pub sse_after: Option<Duration>,
    /// Close a POST's SSE connection after this long without ending its stream; the client
    /// resumes with GET and `Last-Event-ID`, and that GET stays open until the stream ends
    /// (2025-11-25 sessions only; default: never).
    pub sse_close_after: Option<Duration>,
    /// Send an SSE comment on a quiet stream this often (default 15 s), so dead clients are
    /// noticed and their streams released.
    pub sse_keep_alive: Option<Duration>,
    /// DNS-rebinding protection: `None` (default) turns it on for loopback binds under
    /// [`bind`]/[`serve`], and always for a mounted [`HttpService`] (which cannot see the
    /// address its host listens on).
    pub dns_rebinding_protection: Option<bool>,
    /// Allowed `Host` values (`name` for any port, or `name:port`); empty: the loopback names.
    pub allowed_hosts: Vec<String>,
    /// Allowed `Origin` values (`scheme://name` for any port, or with the port); empty: the
    /// loopback names over http and https.
    pub allowed_origins: Vec<String>,
    /// Bearer-token authorization, off by default.
    pub auth: Option<AuthConfig>,
    /// On shutdown, how long in-flight requests may still finish (default 5 s).
    pub shutdown_grace: Duration,
    /// Where 2025-era sessions are kept so that every replica serves every session (default:
    /// none, sessions live in this process only). With a store, `max_sessions` and
    /// `session_idle_timeout` hold across every replica sharing it.
    pub session_store: Option<Arc<dyn SessionStore>>,
    /// Where the standalone (GET) streams of shared sessions are kept, so `Last-Event-ID`
    /// resumes them through any replica (used with `session_store`; default: none, each
    /// replica keeps its streams).
    pub event_store: Option<Arc<dyn EventStore>>,
    /// Carries a client's answer to a server-to-client request (and a cancellation) to the
    /// replica that waits for it, when it was POSTed to another (used with `session_store`;
    /// default: none).
    pub session_relay: Option<Arc<dyn SessionRelay>>,
    /// Serve `GET /healthz` (the process is up) and `GET /readyz` (and what it needs is
    /// reachable: 503 with a JSON `reason` otherwise), without authorization (default true).
    pub health_endpoints: bool,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            endpoint: "/mcp".into(),
            mount_path: String::new(),
            stateless: false,
            http_sse: Some(HttpSseConfig::default()),
            max_body_size: 4 * 1024 * 1024,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            allow_delete: true,
            standalone_stream: true,
            replay_buffer: 64,
            sse_retry: Some(Duration::from_secs(1)),
            sse_after: None,
            sse_close_after: None,
            sse_keep_alive: Some(Duration::from_secs(15)),
            dns_rebinding_protection: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            auth: None,
            shutdown_grace: Duration::from_secs(5),
            session_store: None,
            event_store: None,
            session_relay: None,
            health_endpoints: true,
        }
    }
}

impl HttpConfig {
    /// The defaults for an [`HttpService`] a host app mounts at `mount_path` and strips from
    /// requests (axum's `Router::nest_service`): Streamable HTTP at the mount point itself,
    /// HTTP+SSE at `{mount_path}/sse` and `{mount_path}/messages`, no `/healthz` or `/readyz`
    /// (the host has its own).
    pub fn nested(mount_path: impl Into<String>) -> Self {
        HttpConfig {
            endpoint: "/".into(),
            mount_path: mount_path.into(),
            health_endpoints: false,
            ..HttpConfig::default()
        }
    }

    /// The endpoint as clients see it: the mount path, then the endpoint.
    fn public_endpoint(&self) -> String {
        let mount = self.mount_path.trim_end_matches('/');
        match (mount, self.endpoint.as_str()) {
            ("", endpoint) => endpoint.to_owned(),
            (mount, "/") => mount.to_owned(),
            (mount, endpoint) => format!("{mount}{endpoint}"),
        }
    }

    /// Refuses paths that cannot be matched.
    fn check(&self) -> Result<(), HttpError> {
        if !self.endpoint.starts_with('/') {
            return Err(HttpError::Config(format!(
                "the endpoint path must start with '/': {:?}",
                self.endpoint
            )));
        }
        if !self.mount_path.is_empty() && !self.mount_path.starts_with('/') {
            return Err(HttpError::Config(format!(
                "the mount path must be empty or start with '/': {:?}",
                self.mount_path
            )));
        }
        Ok(())
    }
}

/// Starts whatever serves one session (a peer with a handler, a `Server`) on its transport.
/// Called once per session; what it returns lives as long as the session.
pub trait SessionFactory: Send + Sync + 'static {
    /// Starts serving `transport`; must not block.
    fn start(&self, transport: HttpSessionTransport) -> Box<dyn Any + Send + Sync>;

    /// The `x-mcp-header` parameters of tool `tool`, whose `Mcp-Param-*` headers a 2026-07-28
    /// `tools/call` must send matching its arguments; none by default.
    fn tool_header_params(&self, _tool: &str) -> Vec<ToolHeaderParam> {
        Vec::new()
    }

    /// Whether sessions can be served now (`/readyz`): `Err` names what is unreachable.
    /// Always ready by default.
    fn ready(&self) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send + '_>> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// The session factory of a [`Server`](crate::Server): each session served by
/// [`serve_session`], and tools' header parameters read from the server's tools.
pub(crate) struct ServerSessions(pub(crate) crate::Server);

impl SessionFactory for ServerSessions {
    fn start(&self, transport: HttpSessionTransport) -> Box<dyn Any + Send + Sync> {
        Box::new(serve_session(&self.0, transport))
    }

    fn tool_header_params(&self, tool: &str) -> Vec<ToolHeaderParam> {
        self.0.offers().tools.header_params(tool)
    }

    fn ready(&self) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send + '_>> {
        Box::pin(async move { self.0.ready().await.map_err(|e| e.to_string()) })
    }
}

impl<F, R> SessionFactory for F
where
    F: Fn(HttpSessionTransport) -> R + Send + Sync + 'static,
    R: Send + Sync + 'static,
{
    fn start(&self, transport: HttpSessionTransport) -> Box<dyn Any + Send + Sync> {
        Box::new(self(transport))
    }
}

/// A running HTTP server: its address and a graceful shutdown.
pub struct HttpServer {
    local_addr: SocketAddr,
    service: HttpService,
    task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("local_addr", &self.local_addr)
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// How many sessions are open now (Streamable HTTP and HTTP+SSE).
    pub fn session_count(&self) -> usize {
        self.service.session_count()
    }

    /// The address the server listens on (useful after binding port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops accepting, lets in-flight requests finish within the grace period, closes every
    /// stream and session, and waits until all of that is done.
    pub async fn shutdown(self) {
        self.service.shutdown_token().cancel();
        let _ = self.task.await;
    }

    /// Waits until the server has stopped (after [`shutdown`](Self::shutdown) from elsewhere
    /// via a clone of [`shutdown_token`](Self::shutdown_token)).
    pub async fn stopped(self) {
        let _ = self.task.await;
    }

    /// A token that shuts the server down when cancelled (e.g. from a signal handler).
    pub fn shutdown_token(&self) -> CancellationToken {
        self.service.shutdown_token()
    }
}

/// Serves one HTTP session of `server` (the factory [`bind`] takes for a
/// [`Server`](crate::Server)): like [`Server::serve`](crate::Server::serve), but a stateless
/// session starts out initialized with the version of its request's `MCP-Protocol-Version`
/// header, since no `initialize` reaches it.
pub fn serve_session(
    server: &crate::Server,
    transport: HttpSessionTransport,
) -> crate::RunningConnection {
    let version = transport.stateless_version();
    let identity = transport.identity_cell();
    let link = transport.store_link();
    let running = server.serve_session(transport, version);
    running.state.set_identity_source(identity);
    if let Some(link) = link {
        server.link_session(&running, link);
    }
    running
}

/// Binds `addr` (with [`listen`]'s deep accept queue) and serves MCP over HTTP, one session per
/// client via `factory`.
pub async fn bind<A: ToSocketAddrs + std::fmt::Debug>(
    addr: A,
    config: HttpConfig,
    factory: impl SessionFactory,
) -> Result<HttpServer, HttpError> {
    let shown = format!("{addr:?}");
    let listener = listen(addr).await.map_err(|source| HttpError::Bind {
        addr: shown,
        source,
    })?;
    serve(listener, config, factory)
}

/// Serves MCP over HTTP on an already bound listener (bind it with [`listen`] to take bursts of
/// connections): the [`HttpService`] of `config` and `factory` on a connection loop of its own.
/// DNS-rebinding protection defaults to on for a loopback listener. Spawns on the current tokio
/// runtime.
pub fn serve(
    listener: TcpListener,
    config: HttpConfig,
    factory: impl SessionFactory,
) -> Result<HttpServer, HttpError> {
    let local_addr = listener.local_addr().map_err(HttpError::LocalAddr)?;
    let service = HttpService::for_listener(config, factory, local_addr.ip().is_loopback())?;
    let task = tokio::spawn(accept_loop(listener, service.clone()));
    Ok(HttpServer {
        local_addr,
        service,
        task,
    })
}

/// Shared by every connection of one server.
pub(crate) struct App {
    pub(crate) config: HttpConfig,
    pub(crate) factory: Arc<dyn SessionFactory>,
    pub(crate) sessions: SessionTable,
    pub(crate) guard: HostGuard,
    /// The endpoint as clients see it (the mount path, then the endpoint).
    pub(crate) public_endpoint: String,
    pub(crate) lifecycle: Lifecycle,
    /// The idle 2026-07-28 sessions mounted requests borrow.
    pub(crate) modern_pool: Arc<ModernPool>,
}

impl App {
    /// The state of one service, with its sweeper (and relay reader) spawned. DNS-rebinding
    /// protection follows the config, else `protect_by_default`.
    fn start(
        config: HttpConfig,
        factory: Arc<dyn SessionFactory>,
        protect_by_default: bool,
    ) -> Result<Arc<App>, HttpError> {
        config.check()?;
        let protect = config
            .dns_rebinding_protection
            .unwrap_or(protect_by_default);
        let app = Arc::new(App {
            guard: HostGuard::new(protect, &config.allowed_hosts, &config.allowed_origins),
            sessions: SessionTable::new(
                config.max_sessions,
                config.session_idle_timeout,
                config.replay_buffer,
            ),
            factory,
            public_endpoint: config.public_endpoint(),
            lifecycle: Lifecycle::default(),
            modern_pool: Arc::default(),
            config,
        });
        if let Some(relay) = &app.config.session_relay {
            tokio::spawn(take_relayed(relay.listen(), Arc::downgrade(&app)));
        }
        let sweep_every = (app.config.session_idle_timeout / 2)
            .clamp(Duration::from_millis(10), Duration::from_secs(60));
        tokio::spawn(service::keep(Arc::downgrade(&app), sweep_every));
        Ok(app)
    }

    /// Starts the session's server via the factory.
    pub(crate) fn start_session(&self, session: &Arc<Session>) {
        let keep = self.factory.start(session.transport());
        session.keep(keep);
    }

    /// Keeps `session`'s standalone stream in the shared event store, if there is one.
    pub(crate) fn share_events(&self, session: &Session) {
        if let Some(store) = &self.config.event_store {
            let limits = EventLimits {
                retained: self.config.replay_buffer,
                ttl: self.config.session_idle_timeout,
            };
            session.share_events(store.clone(), limits);
        }
    }

    /// Closes expired sessions; with a shared store, keeps the sessions with open streams here
    /// alive in it and closes those removed through another replica.
    fn sweep(self: &Arc<Self>) {
        self.sessions.sweep();
        let Some(store) = self.config.session_store.clone() else {
            return;
        };
        let ids = self.sessions.attached_ids();
        if ids.is_empty() {
            return;
        }
        let app = self.clone();
        tokio::spawn(async move {
            let idle = app.config.session_idle_timeout;
            match store.keep_alive(&ids, idle).await {
                Ok(alive) => {
                    for (id, alive) in ids.iter().zip(alive) {
                        if !alive {
                            app.sessions.remove(id);
                        }
                    }
                }
                Err(e) => tracing::warn!("cannot keep sessions with open streams alive: {e}"),
            }
        });
    }

    async fn handle(
        self: Arc<Self>,
        req: Request<RequestBody>,
        connection: &ConnectionSession,
    ) -> Response<ResponseBody> {
        if let Err(refusal) = security::check_host_count(req.version(), req.headers()) {
            return refusal.into();
        }
        if self.lifecycle.stopping() {
            return body::rpc_error(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                "Service Unavailable: the server is shutting down",
            );
        }
        let path = req.uri().path();
        if let Some(response) = health::answer(&self, req.method(), path).await {
            return response;
        }
        if let Some(auth) = &self.config.auth {
            if auth.metadata.is_some()
                && (path == PROTECTED_RESOURCE_PATH
                    || path
                        .strip_prefix(PROTECTED_RESOURCE_PATH)
                        .is_some_and(|rest| rest == self.public_endpoint))
            {
                return protected_resource_metadata(auth, &req, &self.public_endpoint);
            }
        }
        let route = if path == self.config.endpoint {
            Route::Streamable
        } else {
            match &self.config.http_sse {
                Some(l) if path == l.sse_path => Route::LegacyStream,
                Some(l) if path == l.messages_path => Route::LegacyMessages,
                _ => return body::status(StatusCode::NOT_FOUND),
            }
        };
        if let Err(refusal) = self.guard.check(req.uri(), req.headers()) {
            return refusal.into();
        }
        let identity = match &self.config.auth {
            Some(auth) => match auth
                .authenticate(req.headers(), &self.public_endpoint)
                .await
            {
                Ok(identity) => Some(identity),
                Err(refusal) => return refusal.into(),
            },
            // Whom the host app's own middleware authenticated, if it says.
            None => req
                .extensions()
                .get::<AuthIdentity>()
                .map(|identity| Arc::new(identity.clone())),
        };
        match route {
            Route::Streamable => streamable::handle(&self, req, connection, identity).await,
            Route::LegacyStream => http_sse::open(&self, req, identity),
            Route::LegacyMessages => http_sse::post(&self, req, identity).await,
        }
    }
}

/// The protected-resource metadata (RFC 9728), to anyone, from any origin (browser-based
/// clients read it before they have a token).
fn protected_resource_metadata(
    auth: &AuthConfig,
    req: &Request<RequestBody>,
    endpoint: &str,
) -> Response<ResponseBody> {
    if req.method() != Method::GET {
        return method_not_allowed("GET");
    }
    let Some(document) = auth.metadata_for(req.headers(), endpoint) else {
        return body::status(StatusCode::NOT_FOUND);
    };
    let mut response = body::json(StatusCode::OK, document);
    response.headers_mut().insert(
        hyper::header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

enum Route {
    Streamable,
    LegacyStream,
    LegacyMessages,
}

/// 405 with the `Allow` header.
pub(crate) fn method_not_allowed(allow: &'static str) -> Response<ResponseBody> {
    let mut response =
        body::rpc_error(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method not allowed");
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    response
}

/// Hands each message another replica relayed to the session here that waits for it.
async fn take_relayed(mut relayed: crate::session_store::Relayed, app: std::sync::Weak<App>) {
    while let Some((session, json)) = relayed.recv().await {
        let Some(app) = app.upgrade() else { return };
        if let Some(session) = app.sessions.peek(&session) {
            session.accept_relayed(&json);
        }
    }
}

/// Serves each connection `listener` accepts with a clone of `service`, until the service's
/// shutdown starts; then stops accepting, lets connections finish while the service shuts down,
/// and drops those still open after it.
async fn accept_loop(listener: TcpListener, service: HttpService) {
    let stop = service.shutdown_token();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(service.config().header_read_timeout)
        .keep_alive(true);
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => {
                let (tcp, _) = match accepted {
                    Ok(pair) => pair,
                    Err(e) => {
                        tracing::warn!("accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    }
                };
                if let Err(e) = tcp.set_nodelay(true) {
                    tracing::debug!("TCP_NODELAY: {e}");
                }
                // Ends with the connection (the service owns it), closing its modern session.
                let connection = service.for_connection();
                let svc = service_fn(move |req: Request<Incoming>| {
                    let connection = connection.clone();
                    async move {
                        Ok::<_, Infallible>(connection.answer(req.map(RequestBody::Incoming)).await)
                    }
                });
                let conn = builder.serve_connection(TokioIo::new(tcp), svc);
                let stop = stop.clone();
                connections.spawn(async move {
                    tokio::pin!(conn);
                    tokio::select! {
                        result = conn.as_mut() => {
                            if let Err(e) = result {
                                tracing::debug!("connection ended: {e}");
                            }
                        }
                        _ = stop.cancelled() => {
                            conn.as_mut().graceful_shutdown();
                            let _ = conn.await;
                        }
                    }
                });
            }
        }
    }
    drop(listener);
    // Standalone streams end, in-flight requests get the grace period, then sessions close.
    service.shutdown().await;
    let _ = tokio::time::timeout(Duration::from_millis(500), async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    connections.abort_all();
    service.close_sessions();
}
