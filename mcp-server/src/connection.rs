//! One connection to one client: its state in one place (negotiated version, client
//! capabilities and info, log level, subscriptions, what it was told) and the server's
//! [`Handler`] for the peer engine, which enforces the lifecycle and routes each method.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use mcp_proto::jsonrpc::{self, ErrorObject, Notification, RawJson, Request};
use mcp_proto::peer::{Handler, PeerHandle, RequestContext};
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::{
    ClientCapabilities, Implementation, InitializeParams, LoggingLevel, RequestType,
    ServerCapabilities, SetLevel, Subscribe, Unsubscribe,
};
use mcp_proto::sync::lock;
use mcp_proto::telemetry::{CallSpan, SpanKind};
use mcp_proto::trace_context::TraceContext;
use mcp_proto::version::negotiate;
use mcp_proto::ProtocolVersion;
use tracing::Instrument;

use crate::auth::{AuthIdentity, IdentityCell};

use crate::context::Context;
use crate::error::ServerError;
use crate::modern;
use crate::request_scope::{LogLevel, Negotiated, RequestScope};
use crate::router::{self, parse_params, Advertised, CallExtras, Method};
use crate::server::Server;
use crate::session_store::{SessionChange, SessionMirror, StoreLink};
use crate::tasks;

/// At most this many resource subscriptions per connection (everything that grows is bounded).
const MAX_SUBSCRIPTIONS: usize = 10_000;

/// The kinds of lists that can change at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools,
    Resources,
    Prompts,
}

impl ListKind {
    pub(crate) fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "notifications/tools/list_changed",
            ListKind::Resources => "notifications/resources/list_changed",
            ListKind::Prompts => "notifications/prompts/list_changed",
        }
    }
}

/// Per-connection state: what was negotiated (the request state every request of the
/// connection is served under), the log level, subscriptions and the peer.
pub(crate) struct ConnectionState {
    negotiated: OnceLock<Arc<Negotiated>>,
    initialized_notified: AtomicBool,
    /// Preinitialized for one stateless HTTP request: `initialize` is answered, not refused.
    stateless: AtomicBool,
    log_level: Arc<LogLevel>,
    subscriptions: Mutex<HashSet<String>>,
    peer: OnceLock<PeerHandle>,
    /// Woken once `initialize` has been answered.
    ready: tokio::sync::Notify,
    /// Where the verified identity of the client is (HTTP with authorization), read at each
    /// request.
    identity: OnceLock<Arc<IdentityCell>>,
    /// A key unique to this connection (task listings are scoped to it).
    key: Arc<str>,
    /// The session's record in a shared session store, when replicas share sessions.
    link: OnceLock<Arc<StoreLink>>,
}

impl ConnectionState {
    pub(crate) fn new(log_level: LoggingLevel) -> Self {
        ConnectionState {
            negotiated: OnceLock::new(),
            initialized_notified: AtomicBool::new(false),
            stateless: AtomicBool::new(false),
            log_level: Arc::new(LogLevel::new(log_level)),
            subscriptions: Mutex::new(HashSet::new()),
            peer: OnceLock::new(),
            ready: tokio::sync::Notify::new(),
            identity: OnceLock::new(),
            key: connection_key(),
            link: OnceLock::new(),
        }
    }

    /// Writes the client's changes through to the shared session store from now on.
    #[cfg(feature = "http")]
    pub(crate) fn set_link(&self, link: Arc<StoreLink>) {
        let _ = self.link.set(link);
    }

    /// Takes over a session another replica negotiated: as if `initialize` and
    /// `notifications/initialized` had been seen here.
    #[cfg(feature = "http")]
    pub(crate) fn restore(
        &self,
        negotiated: Negotiated,
        log_level: Option<LoggingLevel>,
        subscriptions: Vec<String>,
    ) {
        let _ = self.negotiated.set(Arc::new(negotiated));
        self.initialized_notified.store(true, Ordering::Release);
        if let Some(level) = log_level {
            self.log_level.set(level);
        }
        self.set_subscriptions(subscriptions);
        self.ready.notify_waiters();
    }

    /// Writes a change of the client's to the shared session store, if there is one.
    async fn persist(&self, change: SessionChange) -> Result<(), ServerError> {
        let Some(link) = self.link.get() else {
            return Ok(());
        };
        link.persist(change).await.map_err(ServerError::handler)
    }

    /// Reads the client's identity from `cell` from now on.
    #[cfg(feature = "http")]
    pub(crate) fn set_identity_source(&self, cell: Arc<IdentityCell>) {
        let _ = self.identity.set(cell);
    }

    /// The client's verified identity now, if authorization is on.
    pub(crate) fn identity(&self) -> Option<Arc<AuthIdentity>> {
        self.identity.get().and_then(|cell| cell.get())
    }

    /// Marks the session initialized without an `initialize` (stateless HTTP): `version` as
    /// negotiated, no client capabilities, an anonymous client.
    pub(crate) fn preinitialize(
        &self,
        version: ProtocolVersion,
        server_capabilities: Arc<ServerCapabilities>,
        advertised: Advertised,
    ) {
        let _ = self.negotiated.set(Arc::new(Negotiated {
            version,
            client_capabilities: ClientCapabilities::default(),
            client_info: Implementation::new("stateless-client", "0"),
            server_capabilities,
            advertised,
        }));
        self.initialized_notified.store(true, Ordering::Release);
        self.stateless.store(true, Ordering::Release);
    }

    /// What was negotiated, once `initialize` was answered.
    pub(crate) fn negotiated(&self) -> Option<&Arc<Negotiated>> {
        self.negotiated.get()
    }

    pub(crate) fn version(&self) -> Option<ProtocolVersion> {
        self.negotiated.get().map(|n| n.version)
    }

    /// What was negotiated, waiting briefly for a concurrent `initialize` when the client
    /// already sent `notifications/initialized` (requests run concurrently, so a pipelining
    /// client's first call may start before its `initialize` has been handled).
    async fn negotiated_when_ready(&self) -> Option<Arc<Negotiated>> {
        if let Some(negotiated) = self.negotiated() {
            return Some(negotiated.clone());
        }
        if !self.initialized_notified.load(Ordering::Acquire) {
            return None;
        }
        let notified = self.ready.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if let Some(negotiated) = self.negotiated() {
            return Some(negotiated.clone());
        }
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), notified).await;
        self.negotiated().cloned()
    }

    pub(crate) fn logs(&self, level: LoggingLevel) -> bool {
        self.log_level.allows(level)
    }

    pub(crate) fn set_peer(&self, peer: PeerHandle) {
        let _ = self.peer.set(peer);
    }

    pub(crate) fn peer(&self) -> Option<&PeerHandle> {
        self.peer.get()
    }

    /// Whether the session is shared with other replicas through a session store.
    pub(crate) fn is_shared(&self) -> bool {
        self.link.get().is_some()
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// Whether this client should hear that `kind` changed.
    pub(crate) fn wants_list_changed(&self, kind: ListKind) -> bool {
        let Some(negotiated) = self.negotiated.get() else {
            return false;
        };
        let advertised = negotiated.advertised;
        match kind {
            ListKind::Tools => advertised.tools,
            ListKind::Resources => advertised.resources,
            ListKind::Prompts => advertised.prompts,
        }
    }
}

impl SessionMirror for ConnectionState {
    fn set_log_level(&self, level: LoggingLevel) {
        self.log_level.set(level);
    }

    fn set_subscriptions(&self, uris: Vec<String>) {
        let mut subscriptions = lock(&self.subscriptions);
        subscriptions.clear();
        subscriptions.extend(uris.into_iter().take(MAX_SUBSCRIPTIONS));
    }
}

/// A key unique to a connection: random, else a process-wide counter.
fn connection_key() -> Arc<str> {
    use std::sync::atomic::AtomicU64;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    match crate::random_id::new_random_id() {
        Ok(id) => Arc::from(id),
        Err(_) => Arc::from(format!("c{}", NEXT.fetch_add(1, Ordering::Relaxed))),
    }
}

/// The server's handler for one connection.
pub(crate) struct Connection {
    pub(crate) server: Server,
    pub(crate) state: Arc<ConnectionState>,
}

impl Connection {
    pub(crate) async fn route(
        &self,
        request: Request,
        rc: RequestContext,
    ) -> Result<RawJson, ServerError> {
        let method = Method::of(&request.method);
        match method {
            Some(Method::Ping) => return Ok(jsonrpc::empty_object()),
            Some(Method::Initialize) => return self.initialize(&request, rc.peer()),
            Some(m) if m.is_modern_only() => {
                return Err(ServerError::InvalidParams(format!(
                    "{} is a 2026-07-28 request: params._meta must carry {} and {}",
                    request.method,
                    meta_keys::PROTOCOL_VERSION,
                    meta_keys::CLIENT_CAPABILITIES
                )))
            }
            _ => {}
        }
        let Some(negotiated) = self.state.negotiated_when_ready().await else {
            return Err(ServerError::NotInitialized(request.method));
        };
        let Some(method) = method.filter(|m| m.offered(negotiated.advertised)) else {
            return Err(ServerError::MethodNotFound(request.method));
        };
        let version = negotiated.version;
        let server = &self.server;
        let page_size = server.page_size();
        let params = request.params.as_ref();
        if let Method::Task(task_method) = method {
            // Tasks exist from 2025-11-25 (advertised only then); tasks/update is 2026-07-28's.
            let rc = &rc;
            let requester = tasks::requester(self.state.identity().as_deref(), &self.state.key);
            let tasks = server.tasks();
            // Boxed, as is completion in the router: kept inline, these rare branches' futures
            // would set the size of every request's future.
            return Box::pin(tasks::serve_legacy(
                tasks,
                task_method,
                params,
                &requester,
                page_size,
                rc,
            ))
            .await;
        }
        let state = RequestScope::new(negotiated, self.state.log_level.clone())
            .with_identity(self.state.identity())
            .on_connection(self.state.key.clone());
        let ctx = move || Context::new(rc, state, server.clone());
        match method {
            Method::Subscribe => {
                let p: <Subscribe as RequestType>::Params = parse_params(params)?;
                {
                    let mut subscriptions = lock(&self.state.subscriptions);
                    if subscriptions.len() >= MAX_SUBSCRIPTIONS && !subscriptions.contains(&p.uri) {
                        return Err(ServerError::InvalidParams(format!(
                            "Too many subscriptions: at most {MAX_SUBSCRIPTIONS} per connection; unsubscribe first"
                        )));
                    }
                    subscriptions.insert(p.uri.clone());
                }
                self.state.persist(SessionChange::Subscribe(p.uri)).await?;
                Ok(jsonrpc::empty_object())
            }
            Method::Unsubscribe => {
                let p: <Unsubscribe as RequestType>::Params = parse_params(params)?;
                lock(&self.state.subscriptions).remove(&p.uri);
                self.state
                    .persist(SessionChange::Unsubscribe(p.uri))
                    .await?;
                Ok(jsonrpc::empty_object())
            }
            Method::SetLevel => {
                let p: <SetLevel as RequestType>::Params = parse_params(params)?;
                self.state.log_level.set(p.level);
                self.state.persist(SessionChange::LogLevel(p.level)).await?;
                Ok(jsonrpc::empty_object())
            }
            feature => {
                let call = CallExtras::default();
                router::dispatch(feature, &request, ctx, server, version, call).await
            }
        }
    }

    fn initialize(&self, request: &Request, peer: &PeerHandle) -> Result<RawJson, ServerError> {
        let stateless = self.state.stateless.load(Ordering::Acquire);
        if self.state.negotiated.get().is_some() && !stateless {
            return Err(ServerError::AlreadyInitialized);
        }
        let params: InitializeParams = parse_params(request.params.as_ref())?;
        let version = negotiate(&params.protocol_version, self.server.versions());
        let (capabilities, advertised) = self.server.capabilities(version);
        if stateless {
            // Nothing to remember: the next request arrives on a session of its own.
            return self
                .server
                .initialize_result(version, &capabilities)
                .map_err(|e| {
                    ServerError::handler(format!("could not encode the initialize result: {e}"))
                });
        }
        let negotiated = Negotiated {
            version,
            client_capabilities: params.capabilities,
            client_info: params.client_info,
            server_capabilities: capabilities.clone(),
            advertised,
        };
        if self.state.negotiated.set(Arc::new(negotiated)).is_err() {
            return Err(ServerError::AlreadyInitialized);
        }
        peer.set_protocol_version(version);
        self.state.ready.notify_waiters();
        tracing::debug!(server = %self.server.name(), "initialized with protocol version {version}");
        self.server
            .initialize_result(version, &capabilities)
            .map_err(|e| {
                ServerError::handler(format!("could not encode the initialize result: {e}"))
            })
    }
}

impl Handler for Connection {
    /// Serves one request, as a server span when traced (see `mcp_proto::telemetry`): its
    /// caller's `_meta.traceparent` is the parent, and the handler runs with the span's context
    /// current, so its own calls (a proxy's upstream calls) continue the trace.
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<RawJson, ErrorObject> {
        let params = request.params.as_ref();
        let parent = TraceContext::from_params(params);
        let Some(call) = CallSpan::start(SpanKind::Server, &request.method, params, parent) else {
            return self.serve(request, ctx).await;
        };
        if call.is_recorded() {
            call.record("jsonrpc.request.id", &request.id.to_string());
            call.record("mcp.server.name", self.server.name());
            let version = match modern::request_meta(&request) {
                Some(_) => Some(ProtocolVersion::V2026_07_28),
                None => self.state.version(),
            };
            if let Some(version) = version {
                call.record("mcp.protocol.version", version.as_str());
            }
        }
        // Boxed: traced, the serving future is wrapped twice over; kept inline, its size would
        // be carried by every request's future, traced or not.
        let result = Box::pin(
            call.context
                .clone()
                .scope(self.serve(request, ctx))
                .instrument(call.span.clone()),
        )
        .await;
        call.finish(result.as_ref());
        result
    }

    fn handle_notification(&self, notification: Notification, _peer: &PeerHandle) {
        self.notified(notification)
    }
}

impl Connection {
    /// Serves one request in the era its `_meta` selects.
    pub(crate) async fn serve(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<RawJson, ErrorObject> {
        // A panic in routing or a handler is caught by the peer, which still answers.
        let modern_error = |e: ServerError| e.to_error_object(Some(ProtocolVersion::V2026_07_28));
        // Matched apart from the awaits below, so that the request's read is not held in the
        // future beside them.
        let meta = modern::request_meta(&request)
            .transpose()
            .map_err(modern_error)?;
        let Some(meta) = meta.as_ref() else {
            return self
                .route(request, ctx)
                .await
                .map_err(|e| e.to_error_object(self.state.version()));
        };
        // Lent, not moved: moved, it would be held twice more in `modern::serve`'s future,
        // which every request's future contains.
        let identity = self.state.identity();
        modern::serve(&self.server, &request, ctx, meta, identity)
            .await
            .map_err(modern_error)
    }

    fn notified(&self, notification: Notification) {
        match notification.method.as_str() {
            "notifications/initialized" => {
                self.state
                    .initialized_notified
                    .store(true, Ordering::Relaxed);
            }
            "notifications/roots/list_changed" => {
                self.server.on_roots_list_changed();
            }
            _ => {}
        }
    }
}

/// Builds the capabilities for a session from what is registered.
pub(crate) fn capabilities_from(
    has_tools: bool,
    has_task_tools: bool,
    has_resources: bool,
    has_prompts: bool,
    has_completions: bool,
    version: ProtocolVersion,
) -> (ServerCapabilities, Advertised) {
    use mcp_proto::schema::{
        PromptsCapability, ResourcesCapability, ServerTaskRequests, ServerTasksCapability,
        ToolsCapability, ToolsTaskRequests,
    };
    let mut caps = ServerCapabilities {
        logging: Some(Default::default()),
        ..Default::default()
    };
    if has_tools {
        caps.tools = Some(ToolsCapability {
            list_changed: Some(true),
            ..Default::default()
        });
    }
    if has_resources {
        caps.resources = Some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
            ..Default::default()
        });
    }
    if has_prompts {
        caps.prompts = Some(PromptsCapability {
            list_changed: Some(true),
            ..Default::default()
        });
    }
    // Tasks: the experimental core capability of 2025-11-25, the extension from 2026-07-28.
    let tasks = has_tools && has_task_tools && version >= ProtocolVersion::V2025_11_25;
    if tasks && version.is_stateless_era() {
        caps.extensions = Some(mcp_proto::schema::tasks_extension_map());
    } else if tasks {
        caps.tasks = Some(ServerTasksCapability {
            list: Some(Default::default()),
            cancel: Some(Default::default()),
            requests: Some(ServerTaskRequests {
                tools: Some(ToolsTaskRequests {
                    call: Some(Default::default()),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        });
    }
    // `completions` exists as a capability from 2025-03-26; 2024-11-05 served it without one.
    if has_completions && version >= ProtocolVersion::V2025_03_26 {
        caps.completions = Some(Default::default());
    }
    let advertised = Advertised {
        tools: has_tools,
        tasks,
        resources: has_resources,
        prompts: has_prompts,
        completions: has_completions,
    };
    (caps, advertised)
}
