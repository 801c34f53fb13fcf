//! The [`Server`]: its identity and options, what it offers (one service per capability, in
//! `services`), the connections it serves, and changes at run time with their list-changed
//! notifications. [`ServerBuilder`] (in `builder`) makes one.

use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use mcp_proto::jsonrpc::{self, RawJson};
use mcp_proto::peer::{Peer, PeerHandle, PeerOptions, Transport};
use mcp_proto::schema::{
    Implementation, InitializeResult, LoggingLevel, LoggingMessage, LoggingMessageParams,
    ServerCapabilities,
};
use mcp_proto::sync::lock;
use mcp_proto::ProtocolVersion;
use serde::Serialize;
use serde_json::value::RawValue;

pub use crate::builder::ServerBuilder;
use crate::connection::{capabilities_from, Connection, ConnectionState, ListKind};
use crate::error::ServerError;
use crate::event_store::EventLimits;
use crate::handler::{Handler, StateMap, StateType};
use crate::modern::{CacheHint, ListenEvent, Listeners, NegotiatedCache, SealKey};
use crate::prompt::{IntoPromptResult, Prompt, PromptArguments};
#[cfg(feature = "http")]
use crate::request_scope::Negotiated;
use crate::resource::{read_fn, IntoReadResult, Resource, ResourceRequest, ResourceTemplate};
use crate::router::Advertised;
use crate::services::{CompletionService, PromptService, ResourceService, ToolService};
#[cfg(feature = "http")]
use crate::session_store::{SessionMirror, StoreLink};
use crate::shared::{BusEvent, NoBus, NotReady, ReplicaBus, StateBackend};
use crate::stdio::StdioTransport;
use crate::tasks::{MemoryTaskStore, TaskOptions, TaskStore, Tasks};
use crate::tool::{IntoToolResult, Tool};

/// What a server offers: one service per capability.
#[derive(Default)]
pub(crate) struct Offers {
    pub(crate) tools: ToolService,
    pub(crate) resources: ResourceService,
    pub(crate) prompts: PromptService,
    pub(crate) completions: CompletionService,
    /// The server declares the MCP Apps extension (it has an app, or forwards apps).
    pub(crate) apps: bool,
}

/// How a server behaves: paging, limits, shutdown, logging and versions.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Lists longer than this are paged with cursors (0: never page).
    pub page_size: usize,
    /// The largest message accepted on stdio, in bytes.
    pub max_message_size: usize,
    /// At most this many requests are handled at once per connection.
    pub max_concurrent_requests: usize,
    /// At end of input, how long in-flight handlers may still run before they are cancelled
    /// (default 1 s). Keep it under the client's wait after closing a stdio server's stdin
    /// (2 s in the spec's shutdown sequence as our client runs it), so the server exits on its
    /// own before it is sent SIGTERM.
    pub shutdown_grace: Duration,
    /// The least severe log level sent to a client that has not called `logging/setLevel`.
    pub default_log_level: LoggingLevel,
    /// The protocol versions served: those of the 2025 era are offered in `initialize`, those
    /// of the 2026-07-28 era are served per request and listed by `server/discover`. Leave
    /// 2026-07-28 out to serve the 2025 era only.
    pub protocol_versions: Vec<ProtocolVersion>,
    /// `ttlMs`/`cacheScope` of 2026-07-28 list, read and discover results (a resource's read
    /// result may carry its own, set with `ModernResultFields::with_cache`).
    pub cache_hint: CacheHint,
    /// How long a sealed MRTR `requestState` stays valid (default 10 minutes).
    pub input_state_ttl: Duration,
    /// How long tasks are kept and how often clients should poll them.
    pub tasks: TaskOptions,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            page_size: 100,
            max_message_size: 16 * 1024 * 1024,
            max_concurrent_requests: 1024,
            shutdown_grace: Duration::from_secs(1),
            default_log_level: LoggingLevel::Info,
            protocol_versions: ProtocolVersion::ALL.to_vec(),
            cache_hint: CacheHint::default(),
            input_state_ttl: Duration::from_secs(600),
            tasks: TaskOptions::default(),
        }
    }
}

/// What replicas may share: the request-state key, the task store, the state backend.
pub(crate) struct SharedParts {
    pub(crate) seal_key: Option<SealKey>,
    pub(crate) task_store: Option<Arc<dyn TaskStore>>,
    pub(crate) backend: Arc<dyn StateBackend>,
    /// What `ServerBuilder::state` gave, by type.
    pub(crate) states: StateMap,
}

/// Called when a client's roots change.
pub(crate) type RootsHook = Arc<dyn Fn() + Send + Sync>;

/// Capabilities declared for one version and one set of offers.
struct Declared {
    version: ProtocolVersion,
    offers: Advertised,
    advertised: Advertised,
    capabilities: Arc<ServerCapabilities>,
}

struct ServerInner {
    info: Implementation,
    /// The shared state handlers extract with `State<S>`, by type.
    states: StateMap,
    /// `info` as JSON, written into every 2026-07-28 result.
    info_json: Box<RawValue>,
    /// The configured versions of the 2025 era (offered in `initialize`), oldest first.
    handshake_versions: Vec<ProtocolVersion>,
    /// The configured versions of the 2026-07-28 era (served per request), oldest first.
    modern_versions: Vec<ProtocolVersion>,
    seal_key: SealKey,
    listeners: Listeners,
    negotiated_cache: NegotiatedCache,
    /// The capabilities declared lately, by version and offers (with what they promise): one
    /// copy that every session negotiated on them shares, instead of one each.
    declared: Mutex<Vec<Declared>>,
    instructions: Option<String>,
    options: ServerOptions,
    offers: Offers,
    sessions: Mutex<Vec<Weak<ConnectionState>>>,
    on_roots_list_changed: Option<RootsHook>,
    tasks: Arc<Tasks>,
    /// Where state shared with other replicas lives ([`InProcess`](crate::shared::InProcess)
    /// when there are none).
    backend: Arc<dyn StateBackend>,
    /// What carries changes to the other replicas; started on first use inside a runtime.
    bus: OnceLock<Arc<dyn ReplicaBus>>,
    /// Where this server's HTTP sessions are shared with other replicas, once it serves HTTP
    /// with a session store and an event store.
    shared_sessions: OnceLock<SharedSessions>,
}

/// An MCP server: cheap to clone, able to serve many connections at once.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.inner.info.name)
            .field("version", &self.inner.info.version)
            .finish()
    }
}

impl Server {
    /// Starts building a server with its name and version (its `serverInfo`).
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(Implementation::new(name, version))
    }

    /// A server from what a [`ServerBuilder`] collected.
    pub(crate) fn assemble(
        info: Implementation,
        instructions: Option<String>,
        options: ServerOptions,
        offers: Offers,
        on_roots_list_changed: Option<RootsHook>,
        shared: SharedParts,
    ) -> Server {
        let SharedParts {
            seal_key,
            task_store,
            backend,
            states,
        } = shared;
        let task_store = task_store.or_else(|| backend.task_store());
        let task_store = task_store.unwrap_or_else(|| Arc::new(MemoryTaskStore::default()));
        let tasks = Tasks::new(task_store, options.tasks.clone());
        // An `Implementation` always serializes (its map keys are strings).
        let info_json = serde_json::value::to_raw_value(&info)
            .unwrap_or_else(|_| serde_json::from_str("{}").expect("{} is JSON"));
        let mut versions = options.protocol_versions.clone();
        versions.sort_unstable();
        versions.dedup();
        let (modern_versions, handshake_versions) =
            versions.into_iter().partition(|v| v.is_stateless_era());
        Server {
            inner: Arc::new(ServerInner {
                states,
                info_json,
                handshake_versions,
                modern_versions,
                seal_key: seal_key.unwrap_or_else(SealKey::random),
                listeners: Listeners::default(),
                negotiated_cache: NegotiatedCache::default(),
                declared: Mutex::default(),
                info,
                instructions,
                options,
                offers,
                sessions: Mutex::new(Vec::new()),
                on_roots_list_changed,
                tasks,
                backend,
                bus: OnceLock::new(),
                shared_sessions: OnceLock::new(),
            }),
        }
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.inner.info.name
    }

    /// The server's `serverInfo`.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// The server's options.
    pub fn options(&self) -> &ServerOptions {
        &self.inner.options
    }

    /// Whether the server can serve requests now: always, unless its shared state is
    /// unreachable (what `/readyz` reports).
    pub async fn ready(&self) -> Result<(), NotReady> {
        self.bus();
        self.inner.backend.ready().await
    }

    /// The bus to the other replicas: none in one process; with a shared backend, started on
    /// first use (a runtime is needed), its subscriber handing their events to this server.
    pub(crate) fn bus(&self) -> &dyn ReplicaBus {
        static NONE: NoBus = NoBus;
        if let Some(bus) = self.inner.bus.get() {
            return bus.as_ref();
        }
        if tokio::runtime::Handle::try_current().is_err() {
            return &NONE;
        }
        let bus = self.inner.bus.get_or_init(|| {
            let server = Arc::downgrade(&self.inner);
            let deliver = Arc::new(move |event: BusEvent| {
                if let Some(inner) = server.upgrade() {
                    Server { inner }.on_bus_event(event);
                }
            });
            match self.inner.backend.start_bus(deliver) {
                Some(bus) => {
                    self.inner.tasks.set_bus(bus.clone());
                    bus
                }
                None => Arc::new(NoBus),
            }
        });
        bus.as_ref()
    }

    /// What another replica told this one.
    fn on_bus_event(&self, event: BusEvent) {
        match event {
            BusEvent::ResourceUpdated { uri } => self.resource_updated_here(&uri),
            BusEvent::CancelTask { id } => {
                if let Some(run) = self.inner.tasks.run(&id) {
                    run.cancel.cancel();
                    run.bump();
                }
            }
            BusEvent::TaskInput { id, responses } => {
                if let Some(run) = self.inner.tasks.run(&id) {
                    let run = run.clone();
                    tokio::spawn(async move { run.deliver(responses).await });
                }
            }
        }
    }

    /// The versions offered in `initialize` (never empty).
    pub(crate) fn versions(&self) -> &[ProtocolVersion] {
        if self.inner.handshake_versions.is_empty() {
            &ProtocolVersion::HANDSHAKE
        } else {
            &self.inner.handshake_versions
        }
    }

    /// The versions served per request (2026-07-28 on); empty when only the 2025 era is served.
    pub(crate) fn modern_versions(&self) -> &[ProtocolVersion] {
        &self.inner.modern_versions
    }

    /// The server's info as JSON.
    pub(crate) fn info_json(&self) -> &RawValue {
        &self.inner.info_json
    }

    /// The server's instructions for the model.
    pub(crate) fn instructions(&self) -> Option<&str> {
        self.inner.instructions.as_deref()
    }

    /// The cache hint of 2026-07-28 list, read and discover results.
    pub(crate) fn cache_hint(&self) -> CacheHint {
        self.inner.options.cache_hint
    }

    /// The key MRTR request states are sealed with.
    pub(crate) fn seal_key(&self) -> &SealKey {
        &self.inner.seal_key
    }

    /// The server's tasks (they outlive the connections that start them).
    pub(crate) fn tasks(&self) -> &Arc<Tasks> {
        &self.inner.tasks
    }

    /// The open `subscriptions/listen` requests.
    pub(crate) fn listeners(&self) -> &Listeners {
        &self.inner.listeners
    }

    /// Serves one connection over any transport; returns at once with a handle to it.
    /// Must be called inside a tokio runtime.
    pub fn serve<T: Transport>(&self, transport: T) -> RunningConnection {
        self.serve_session(transport, None)
    }

    #[cfg(feature = "http")]
    /// Binds `addr` and serves this server over Streamable HTTP (and HTTP+SSE, as `config`
    /// says), one session per client; see [`http::bind`](crate::http::bind).
    pub async fn serve_http<A: tokio::net::ToSocketAddrs + std::fmt::Debug>(
        &self,
        addr: A,
        config: crate::http::HttpConfig,
    ) -> Result<crate::http::HttpServer, crate::http::HttpError> {
        let config = self.share_sessions(config);
        self.bus();
        crate::http::bind(addr, config, crate::http::ServerSessions(self.clone())).await
    }

    #[cfg(feature = "http")]
    /// `config`, with the stores the shared-state backend provides, and this server
    /// remembering the session and event stores it serves 2025-era sessions from.
    fn share_sessions(&self, config: crate::http::HttpConfig) -> crate::http::HttpConfig {
        let config = self.with_backend_stores(config);
        if let (Some(sessions), Some(events)) = (&config.session_store, &config.event_store) {
            let _ = self.inner.shared_sessions.set(SharedSessions {
                sessions: sessions.clone(),
                events: events.clone(),
                limits: EventLimits {
                    retained: config.replay_buffer,
                    ttl: config.session_idle_timeout,
                },
            });
        }
        config
    }

    #[cfg(feature = "http")]
    /// `config` with 2025-era sessions, their streams and relayed messages kept where the
    /// shared-state backend says (unless it names a session store of its own, or serves
    /// statelessly).
    fn with_backend_stores(&self, mut config: crate::http::HttpConfig) -> crate::http::HttpConfig {
        if config.stateless || config.session_store.is_some() {
            return config;
        }
        let backend = &self.inner.backend;
        let Some(sessions) = backend.session_store() else {
            return config;
        };
        config.session_store = Some(sessions);
        if config.event_store.is_none() {
            config.event_store = backend.event_store();
        }
        if config.session_relay.is_none() {
            config.session_relay = backend.session_relay();
        }
        config
    }

    #[cfg(feature = "http")]
    /// Like [`serve_http`](Self::serve_http), on a listener already bound (to learn the port
    /// before the server starts, say; see [`http::serve`](crate::http::serve)).
    pub fn serve_http_on(
        &self,
        listener: tokio::net::TcpListener,
        config: crate::http::HttpConfig,
    ) -> Result<crate::http::HttpServer, crate::http::HttpError> {
        let config = self.share_sessions(config);
        self.bus();
        crate::http::serve(listener, config, crate::http::ServerSessions(self.clone()))
    }

    #[cfg(feature = "http")]
    /// This server over Streamable HTTP and HTTP+SSE as a tower `Service`, for a host app to
    /// mount beside its own routes (axum's `Router::nest_service("/mcp", …)` with
    /// [`HttpConfig::nested`](crate::http::HttpConfig::nested)); see
    /// [`http::HttpService`](crate::http::HttpService). Must be called inside a tokio runtime.
    pub fn http_service(
        &self,
        config: crate::http::HttpConfig,
    ) -> Result<crate::http::HttpService, crate::http::HttpError> {
        let config = self.share_sessions(config);
        self.bus();
        crate::http::service(config, crate::http::ServerSessions(self.clone()))
    }

    /// Serves one connection that may start out initialized at `preinitialized` (a stateless
    /// HTTP request, which no `initialize` reaches).
    pub(crate) fn serve_session<T: Transport>(
        &self,
        transport: T,
        preinitialized: Option<ProtocolVersion>,
    ) -> RunningConnection {
        self.bus();
        let state = Arc::new(ConnectionState::new(self.inner.options.default_log_level));
        if let Some(version) = preinitialized {
            let (capabilities, advertised) = self.capabilities(version);
            state.preinitialize(version, capabilities, advertised);
        }
        let session = Arc::new(Connection {
            server: self.clone(),
            state: state.clone(),
        });
        let options = PeerOptions {
            name: self.inner.info.name.clone(),
            max_concurrent_requests: self.inner.options.max_concurrent_requests,
            shutdown_grace: self.inner.options.shutdown_grace,
            reply_to_invalid: true,
            ..PeerOptions::default()
        };
        let peer = Peer::start(transport, session, options);
        if let Some(version) = preinitialized {
            peer.set_protocol_version(version);
        }
        state.set_peer(peer.clone());
        let mut sessions = lock(&self.inner.sessions);
        // Sweep ended sessions only when the list is full and would grow: adding a session
        // stays O(1) amortized however many are live, and the list never outgrows its peak.
        if sessions.len() == sessions.capacity() {
            sessions.retain(|s| s.strong_count() > 0);
        }
        sessions.push(Arc::downgrade(&state));
        RunningConnection { peer, state }
    }

    /// Ties a session to its record in the shared session store: restores what it negotiated
    /// when another replica made it, and writes the client's later changes through.
    #[cfg(feature = "http")]
    pub(crate) fn link_session(&self, running: &RunningConnection, link: Arc<StoreLink>) {
        let state = &running.state;
        if let Some(restored) = link.take_restored() {
            let record = &restored.record;
            let version = record.protocol_version;
            let parsed = serde_json::from_str(&record.client_capabilities)
                .and_then(|caps| Ok((caps, serde_json::from_str(&record.client_info)?)));
            match parsed {
                Ok((client_capabilities, client_info)) => {
                    let (server_capabilities, advertised) = self.capabilities(version);
                    state.restore(
                        Negotiated {
                            version,
                            client_capabilities,
                            client_info,
                            server_capabilities,
                            advertised,
                        },
                        record.log_level,
                        restored.subscriptions,
                    );
                    running.peer.set_protocol_version(version);
                }
                Err(e) => tracing::warn!("a stored session's initialize is unreadable: {e}"),
            }
        }
        // Requests to the client are numbered from this replica's own range, so the answer
        // names the replica that waits for it, wherever it is POSTed.
        running.peer.set_next_request_id(replica_request_ids());
        let mirror: Arc<dyn SessionMirror> = state.clone();
        link.set_mirror(Arc::downgrade(&mirror));
        state.set_link(link);
    }

    /// Serves the process's stdin and stdout until input ends, in-flight requests are answered
    /// (within the grace period, then cancelled) and every response is flushed.
    pub async fn serve_stdio(&self) {
        let transport = StdioTransport::new(self.inner.options.max_message_size);
        self.serve(transport).closed().await;
    }

    /// What the server offers now, as the flags that decide its capabilities.
    pub(crate) fn advertised(&self) -> Advertised {
        let offers = &self.inner.offers;
        Advertised {
            tools: !offers.tools.is_empty(),
            tasks: offers.tools.has_task_tools(),
            resources: !offers.resources.is_empty(),
            prompts: !offers.prompts.is_empty(),
            completions: !offers.completions.is_empty(),
        }
    }

    /// The decoded `_meta`s of recent 2026-07-28 requests.
    pub(crate) fn negotiated_cache(&self) -> &NegotiatedCache {
        &self.inner.negotiated_cache
    }

    pub(crate) fn capabilities(
        &self,
        version: ProtocolVersion,
    ) -> (Arc<ServerCapabilities>, Advertised) {
        /// Versions times the promises a server's offers can make over its life: a few.
        const KEPT: usize = 8;
        let offers = self.advertised();
        let mut declared = lock(&self.inner.declared);
        if let Some(d) = declared
            .iter()
            .find(|d| d.version == version && d.offers == offers)
        {
            return (d.capabilities.clone(), d.advertised);
        }
        let (mut caps, advertised) = capabilities_from(
            offers.tools,
            offers.tasks,
            offers.resources,
            offers.prompts,
            offers.completions,
            version,
        );
        if self.inner.offers.apps {
            let extensions = caps.extensions.get_or_insert_with(Default::default);
            extensions.extend(mcp_proto::schema::apps_extension_map());
        }
        let caps = Arc::new(caps);
        if declared.len() == KEPT {
            declared.remove(0);
        }
        declared.push(Declared {
            version,
            offers,
            advertised,
            capabilities: caps.clone(),
        });
        (caps, advertised)
    }

    pub(crate) fn initialize_result(
        &self,
        version: ProtocolVersion,
        capabilities: &ServerCapabilities,
    ) -> Result<RawJson, serde_json::Error> {
        let mut result = InitializeResult::new(
            version.as_str(),
            capabilities.clone(),
            self.inner.info.clone(),
        );
        result.instructions = self.inner.instructions.clone();
        jsonrpc::to_raw(&result)
    }

    pub(crate) fn on_roots_list_changed(&self) {
        if let Some(hook) = &self.inner.on_roots_list_changed {
            hook();
        }
    }

    /// What the server offers, one service per capability.
    pub(crate) fn offers(&self) -> &Offers {
        &self.inner.offers
    }

    /// Lists longer than this are paged.
    pub(crate) fn page_size(&self) -> usize {
        self.inner.options.page_size
    }

    /// Refuses a handler added at run time that takes a `State` the server was not given.
    fn has_states(
        &self,
        handler: impl FnOnce() -> String,
        types: Vec<StateType>,
    ) -> Result<(), ServerError> {
        match types.into_iter().find(|ty| !self.inner.states.has(*ty)) {
            None => Ok(()),
            Some(missing) => Err(ServerError::InvalidParams(format!(
                "{} takes State<{}>, which the server was not given: add it with ServerBuilder::state",
                handler(),
                missing.name()
            ))),
        }
    }

    /// The shared state of type `S` the builder was given, if any.
    pub(crate) fn state<S: Clone + 'static>(&self) -> Option<S> {
        self.inner.states.get()
    }

    /// Adds (or replaces) a tool while the server runs; clients told `listChanged` hear of it.
    /// Its handler takes the builder's [`State`](crate::State) like any other. Refused, naming
    /// the tool, when the handler's arguments type is not a JSON object (`String`, `Vec<_>`,
    /// ...) or it takes a `State` the server was not given.
    pub fn add_tool<H, T>(&self, tool: impl Into<Tool>, handler: H) -> Result<(), ServerError>
    where
        H: Handler<T, str>,
        H::Output: IntoToolResult,
        T: 'static,
    {
        let tool = tool.into();
        self.has_states(|| format!("tool {:?}", tool.name()), H::state_types())?;
        self.inner.offers.tools.add(tool, handler)?;
        self.list_changed(ListKind::Tools);
        Ok(())
    }

    /// Removes a tool while the server runs; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.changed_if(ListKind::Tools, self.inner.offers.tools.remove(name))
    }

    /// Adds (or replaces) a static resource while the server runs. Refused, naming the URI,
    /// when its handler takes a `State` the server was not given (see [`add_tool`](Self::add_tool)).
    pub fn add_resource<H, T>(
        &self,
        resource: impl Into<Resource>,
        read: H,
    ) -> Result<(), ServerError>
    where
        H: Handler<T, ResourceRequest>,
        H::Output: IntoReadResult,
        T: 'static,
    {
        let resource = resource.into();
        let uri = &resource.definition().uri;
        self.has_states(|| format!("resource {uri:?}"), H::state_types())?;
        let read = read_fn(read);
        self.inner.offers.resources.add_resource(resource, read);
        self.list_changed(ListKind::Resources);
        Ok(())
    }

    /// Removes a static resource while the server runs; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.changed_if(
            ListKind::Resources,
            self.inner.offers.resources.remove_resource(uri),
        )
    }

    /// Adds a resource template while the server runs (replacing one with the same text).
    /// Refused for an invalid template, or a handler taking a `State` the server was not given.
    pub fn add_resource_template<H, T>(
        &self,
        template: impl Into<ResourceTemplate>,
        read: H,
    ) -> Result<(), ServerError>
    where
        H: Handler<T, ResourceRequest>,
        H::Output: IntoReadResult,
        T: 'static,
    {
        let template = template.into();
        let text = &template.definition().uri_template;
        self.has_states(|| format!("resource template {text:?}"), H::state_types())?;
        let read = read_fn(read);
        self.inner.offers.resources.add_template(template, read)?;
        self.list_changed(ListKind::Resources);
        Ok(())
    }

    /// Removes a resource template (by its template text); returns whether it existed.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.changed_if(
            ListKind::Resources,
            self.inner.offers.resources.remove_template(uri_template),
        )
    }

    /// Tells every client subscribed to `uri` that it changed (`notifications/resources/updated`),
    /// on every replica when state is shared ([`ServerBuilder::shared_state`]).
    pub fn notify_resource_updated(&self, uri: &str) {
        self.resource_updated_here(uri);
        self.resource_updated_shared(uri);
        self.bus()
            .publish(BusEvent::ResourceUpdated { uri: uri.into() });
    }

    /// Tells every shared session subscribed to `uri`, whichever replica holds it, that it
    /// changed: once, on its standalone stream in the event store.
    fn resource_updated_shared(&self, uri: &str) {
        let Some(shared) = self.inner.shared_sessions.get() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (sessions, events, limits) = (
            shared.sessions.clone(),
            shared.events.clone(),
            shared.limits,
        );
        let uri = uri.to_owned();
        runtime.spawn(async move {
            let json = serde_json::json!({ "jsonrpc": "2.0",
                "method": "notifications/resources/updated", "params": { "uri": uri } })
            .to_string();
            let ids = match sessions.subscribers(&uri).await {
                Ok(ids) => ids,
                Err(e) => {
                    tracing::warn!("resources/updated for {uri} not sent: {e}");
                    return;
                }
            };
            for id in ids {
                if let Err(e) = events.append(&id, 0, json.as_bytes(), limits).await {
                    tracing::warn!(session = %id, "resources/updated for {uri} not sent: {e}");
                }
            }
        });
    }

    /// Tells the clients of this process subscribed to `uri` that it changed (a shared
    /// session hears it through the event store instead, once, whichever replica changed it).
    fn resource_updated_here(&self, uri: &str) {
        let fanned_out = self.inner.shared_sessions.get().is_some();
        let targets: Vec<PeerHandle> = self
            .live_sessions()
            .iter()
            .filter(|s| s.is_subscribed(uri) && !(fanned_out && s.is_shared()))
            .filter_map(|s| s.peer().cloned())
            .collect();
        let params = jsonrpc::to_raw(&serde_json::json!({ "uri": uri })).ok();
        spawn_notify(targets, "notifications/resources/updated", params);
        self.inner
            .listeners
            .publish(ListenEvent::ResourceUpdated(uri.into()));
    }

    /// Adds (or replaces) a prompt while the server runs. Refused, naming the prompt, when its
    /// handler takes a `State` the server was not given (see [`add_tool`](Self::add_tool)).
    pub fn add_prompt<H, T>(&self, prompt: impl Into<Prompt>, handler: H) -> Result<(), ServerError>
    where
        H: Handler<T, PromptArguments>,
        H::Output: IntoPromptResult,
        T: 'static,
    {
        let prompt = prompt.into();
        let name = &prompt.definition().name;
        self.has_states(|| format!("prompt {name:?}"), H::state_types())?;
        self.inner.offers.prompts.add(prompt, handler);
        self.list_changed(ListKind::Prompts);
        Ok(())
    }

    /// Removes a prompt while the server runs; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.changed_if(ListKind::Prompts, self.inner.offers.prompts.remove(name))
    }

    // ---- sessions ----

    fn live_sessions(&self) -> Vec<Arc<ConnectionState>> {
        let mut sessions = lock(&self.inner.sessions);
        sessions.retain(|s| {
            s.upgrade()
                .is_some_and(|s| !s.peer().is_some_and(|p| p.is_closed()))
        });
        sessions.iter().filter_map(Weak::upgrade).collect()
    }

    /// Tells clients that `kind` changed when `changed`; returns `changed`.
    fn changed_if(&self, kind: ListKind, changed: bool) -> bool {
        if changed {
            self.list_changed(kind);
        }
        changed
    }

    fn list_changed(&self, kind: ListKind) {
        let targets: Vec<PeerHandle> = self
            .live_sessions()
            .iter()
            .filter(|s| s.wants_list_changed(kind))
            .filter_map(|s| s.peer().cloned())
            .collect();
        spawn_notify(targets, kind.method(), None);
        self.inner.listeners.publish(ListenEvent::ListChanged(kind));
    }

    /// How many connections are being served.
    pub fn session_count(&self) -> usize {
        self.live_sessions().len()
    }
}

/// The stores a server's HTTP sessions are shared through.
struct SharedSessions {
    sessions: Arc<dyn crate::session_store::SessionStore>,
    events: Arc<dyn crate::event_store::EventStore>,
    limits: EventLimits,
}

/// Where this process numbers requests to the clients of shared sessions from: a random
/// multiple of 2^20 below 2^50 (exact in JavaScript numbers), the same for the process's life.
#[cfg(feature = "http")]
fn replica_request_ids() -> i64 {
    static BASE: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    *BASE.get_or_init(|| {
        let random = crate::random_id::new_random_id()
            .ok()
            .and_then(|hex| u32::from_str_radix(hex.get(..8)?, 16).ok())
            .unwrap_or(1);
        (i64::from(random & 0x3FFF_FFFF).max(1) << 20) + 1
    })
}

/// Sends a notification to each peer from a task (so callers need not be async).
fn spawn_notify(targets: Vec<PeerHandle>, method: &'static str, params: Option<RawJson>) {
    if targets.is_empty() {
        return;
    }
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        tracing::warn!("{method} not sent: no tokio runtime");
        return;
    };
    runtime.spawn(async move {
        for peer in targets {
            let _ = peer.notify_raw(method, params.clone(), None).await;
        }
    });
}

/// A connection being served: its peer, its negotiated state, and a way to wait for its end.
#[derive(Clone)]
pub struct RunningConnection {
    peer: PeerHandle,
    pub(crate) state: Arc<ConnectionState>,
}

impl std::fmt::Debug for RunningConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningConnection")
            .field("peer", &self.peer)
            .field("version", &self.state.version())
            .finish()
    }
}

impl RunningConnection {
    /// The peer engine of this connection.
    pub fn peer(&self) -> &PeerHandle {
        &self.peer
    }

    /// The negotiated protocol version, once `initialize` was answered.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.state.version()
    }

    /// The client's info, once `initialize` was answered.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.state.negotiated().map(|n| &n.client_info)
    }

    /// Sends a log message not tied to a request, subject to the client's log level; only to
    /// a client that initialized (a 2026-07-28 client gets log messages only with a request
    /// that asked for them).
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) -> bool {
        if self.state.negotiated().is_none() || !self.state.logs(level) {
            return false;
        }
        let Ok(data) = serde_json::to_value(data) else {
            return false;
        };
        self.peer
            .notify::<LoggingMessage>(&LoggingMessageParams::new(level, data))
            .await
            .is_ok()
    }

    /// Stops reading and shuts the connection down (handlers get the grace period).
    pub fn close(&self) {
        self.peer.close();
    }

    /// Waits until the connection is fully shut down and flushed.
    pub async fn closed(&self) {
        self.peer.closed().await
    }
}
