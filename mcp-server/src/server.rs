//! The [`Server`]: what it offers (tools, resources, templates, prompts, completions) in a
//! registry shared by every connection, the methods that read the registry, and changes at run
//! time with their list-changed notifications. [`ServerBuilder`] (in `builder`) makes one.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::Duration;

use mcp_proto::jsonrpc::{self, RawJson};
use mcp_proto::peer::{Peer, PeerHandle, PeerOptions, Transport};
use mcp_proto::schema::{
    CompleteParams, CompleteResult, CompletionReference, GetPromptParams, Implementation,
    InitializeResult, LoggingLevel, LoggingMessage, LoggingMessageParams, PaginatedParams,
    ServerCapabilities,
};
use mcp_proto::sync::lock;
use mcp_proto::ProtocolVersion;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

pub use crate::builder::ServerBuilder;
use crate::completion::{CompletionRequest, CompletionTarget};
use crate::context::Context;
use crate::error::ServerError;
use crate::handler::{Call, Handler, MetaSource};
use crate::pagination::page;
use crate::prompt::{IntoPromptResult, Prompt, PromptArguments, PromptEntry};
use crate::registry::{template_entry, Registry};
use crate::resource::{
    read_fn, IntoReadResult, Resource, ResourceEntry, ResourceRequest, ResourceTemplate,
};
use crate::session::{capabilities_from, Advertised, ListKind, Session, SessionState};
use crate::stdio::StdioTransport;
use crate::tool::{IntoToolResult, Tool, ToolEntry, ToolOutput};

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
    /// The protocol versions offered in `initialize`.
    pub protocol_versions: Vec<ProtocolVersion>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            page_size: 100,
            max_message_size: 16 * 1024 * 1024,
            max_concurrent_requests: 1024,
            shutdown_grace: Duration::from_secs(1),
            default_log_level: LoggingLevel::Info,
            protocol_versions: ProtocolVersion::HANDSHAKE.to_vec(),
        }
    }
}

/// Called when a client's roots change.
pub(crate) type RootsHook = Arc<dyn Fn() + Send + Sync>;

struct ServerInner {
    info: Implementation,
    instructions: Option<String>,
    options: ServerOptions,
    registry: RwLock<Registry>,
    sessions: Mutex<Vec<Weak<SessionState>>>,
    on_roots_list_changed: Option<RootsHook>,
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

/// `tools/call` params, borrowed from the request: the arguments stay raw until the handler's
/// own type reads them.
#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<&'a RawValue>,
}

/// `{}`: the arguments of a call that sent none.
fn no_arguments() -> &'static RawValue {
    static EMPTY: OnceLock<RawJson> = OnceLock::new();
    EMPTY.get_or_init(jsonrpc::empty_object)
}

/// Where a request's parsed `_meta` is, for handlers that ask for it.
fn parsed_meta(meta: Option<&mcp_proto::schema::Meta>) -> MetaSource<'_> {
    meta.map_or(MetaSource::Absent, MetaSource::Parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_positions() {
        assert_eq!(
            without_position("missing field `b` at line 1 column 7".into()),
            "missing field `b`"
        );
        assert_eq!(without_position("plain".into()), "plain");
    }
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
    #[serde(default, rename = "_meta")]
    meta: Option<mcp_proto::schema::Meta>,
}

fn write_list<'a>(
    key: &str,
    items: impl Iterator<Item = &'a RawJson>,
    next_cursor: Option<String>,
) -> Result<RawJson, ServerError> {
    let mut out = String::with_capacity(256);
    out.push_str("{\"");
    out.push_str(key);
    out.push_str("\":[");
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item.get());
    }
    out.push(']');
    if let Some(cursor) = next_cursor {
        out.push_str(",\"nextCursor\":");
        out.push_str(&serde_json::to_string(&cursor).map_err(ServerError::handler)?);
    }
    out.push('}');
    RawValue::from_string(out).map_err(ServerError::handler)
}

/// Drops serde_json's " at line 1 column 17" suffix: positions in a one-line JSON text help
/// nobody, least of all a model fixing its arguments.
fn without_position(mut detail: String) -> String {
    if let Some(at) = detail.rfind(" at line ") {
        if detail[at..].contains(" column ") {
            detail.truncate(at);
        }
    }
    detail
}

/// A handler's parameters could not be made from the request: bad params.
fn rejected(rejection: crate::handler::Rejection) -> ServerError {
    ServerError::InvalidParams(format!("Invalid params: {rejection}"))
}

fn encode<T: Serialize>(value: &T) -> Result<RawJson, ServerError> {
    jsonrpc::to_raw(value)
        .map_err(|e| ServerError::handler(format!("could not encode the result: {e}")))
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
        registry: Registry,
        on_roots_list_changed: Option<RootsHook>,
    ) -> Server {
        Server {
            inner: Arc::new(ServerInner {
                info,
                instructions,
                options,
                registry: RwLock::new(registry),
                sessions: Mutex::new(Vec::new()),
                on_roots_list_changed,
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

    pub(crate) fn versions(&self) -> &[ProtocolVersion] {
        if self.inner.options.protocol_versions.is_empty() {
            &ProtocolVersion::HANDSHAKE
        } else {
            &self.inner.options.protocol_versions
        }
    }

    /// Serves one connection over any transport; returns at once with a handle to it.
    /// Must be called inside a tokio runtime.
    pub fn serve<T: Transport>(&self, transport: T) -> RunningSession {
        self.serve_session(transport, None)
    }

    /// Serves one HTTP session (the factory of [`http::bind`](crate::http::bind)): like
    /// [`serve`](Self::serve), but a stateless session starts out initialized with the version
    /// of its request's `MCP-Protocol-Version` header, since no `initialize` reaches it.
    pub fn serve_http_session(
        &self,
        transport: crate::http::HttpSessionTransport,
    ) -> RunningSession {
        let version = transport.stateless_version();
        self.serve_session(transport, version)
    }

    /// Binds `addr` and serves this server over Streamable HTTP (and legacy SSE, as `config`
    /// says), one session per client.
    pub async fn serve_http<A: tokio::net::ToSocketAddrs + std::fmt::Debug>(
        &self,
        addr: A,
        config: crate::http::HttpConfig,
    ) -> Result<crate::http::HttpServer, crate::http::HttpError> {
        let server = self.clone();
        crate::http::bind(addr, config, move |t| server.serve_http_session(t)).await
    }

    fn serve_session<T: Transport>(
        &self,
        transport: T,
        preinitialized: Option<ProtocolVersion>,
    ) -> RunningSession {
        let state = Arc::new(SessionState::new(self.inner.options.default_log_level));
        if let Some(version) = preinitialized {
            let (capabilities, advertised) = self.capabilities(version);
            state.preinitialize(version, capabilities, advertised);
        }
        let session = Arc::new(Session {
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
        RunningSession { peer, state }
    }

    /// Serves the process's stdin and stdout until input ends, in-flight requests are answered
    /// (within the grace period, then cancelled) and every response is flushed.
    pub async fn serve_stdio(&self) {
        let transport = StdioTransport::new(self.inner.options.max_message_size);
        self.serve(transport).closed().await;
    }

    fn registry(&self) -> std::sync::RwLockReadGuard<'_, Registry> {
        self.inner
            .registry
            .read()
            .unwrap_or_else(|p| p.into_inner())
    }

    fn registry_mut(&self) -> std::sync::RwLockWriteGuard<'_, Registry> {
        self.inner
            .registry
            .write()
            .unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn capabilities(
        &self,
        version: ProtocolVersion,
    ) -> (ServerCapabilities, Advertised) {
        let r = self.registry();
        capabilities_from(
            !r.tools.is_empty(),
            !r.resources.is_empty() || !r.templates.is_empty() || !r.providers.is_empty(),
            !r.prompts.is_empty(),
            !r.completions.is_empty(),
            version,
        )
    }

    pub(crate) fn initialize_result(
        &self,
        version: ProtocolVersion,
        capabilities: ServerCapabilities,
    ) -> Result<RawJson, serde_json::Error> {
        let mut result =
            InitializeResult::new(version.as_str(), capabilities, self.inner.info.clone());
        result.instructions = self.inner.instructions.clone();
        jsonrpc::to_raw(&result)
    }

    pub(crate) fn on_roots_list_changed(&self) {
        if let Some(hook) = &self.inner.on_roots_list_changed {
            hook();
        }
    }

    // ---- tools ----

    pub(crate) fn list_tools(&self, params: Option<&RawJson>) -> Result<RawJson, ServerError> {
        let p: PaginatedParams = crate::session::parse_params(params)?;
        let mut entries: Vec<Arc<ToolEntry>> = self.registry().tools.values().cloned().collect();
        entries.sort_by_key(|e| e.seq);
        let pg = page(
            entries.len(),
            p.cursor.as_deref(),
            self.inner.options.page_size,
        )?;
        write_list(
            "tools",
            entries[pg.start..pg.end].iter().map(|e| &e.listing),
            pg.next_cursor,
        )
    }

    pub(crate) async fn call_tool(
        &self,
        params: Option<&RawJson>,
        ctx: Context,
        version: ProtocolVersion,
    ) -> Result<RawJson, ServerError> {
        let raw = params.map_or("{}", |p| p.get());
        let p: CallParams<'_> = jsonrpc::from_object(raw).map_err(|e| {
            ServerError::InvalidParams(format!("Invalid params for tools/call: {e}"))
        })?;
        let entry = self
            .registry()
            .tools
            .get(p.name.as_ref())
            .cloned()
            .ok_or_else(|| ServerError::ToolNotFound(p.name.clone().into_owned()))?;
        // A panic here or in the handler is caught once, by the peer: -32603 for this request.
        let arguments: &RawValue = match p.arguments {
            Some(arguments) => arguments,
            None => no_arguments(),
        };
        let meta = p.meta.map_or(MetaSource::Absent, MetaSource::Raw);
        let output = match (entry.handler)(&Call::new(arguments, meta, &ctx)) {
            Ok(future) => future.await,
            Err(rejection) => {
                let error = ServerError::InvalidArguments {
                    tool: entry.tool.name.clone(),
                    detail: without_position(rejection.0),
                };
                if version.tool_input_errors_as_results() {
                    ToolOutput::error(error.to_string())
                } else {
                    return Err(error);
                }
            }
        };
        output.into_raw(version)
    }

    /// Adds (or replaces) a tool while the server runs; clients told `listChanged` hear of it.
    /// The handler gets no [`State`](crate::State): capture what it needs.
    pub fn add_tool<H, T>(&self, tool: impl Into<Tool>, handler: H)
    where
        H: Handler<T, (), RawValue>,
        H::Output: IntoToolResult,
        T: 'static,
    {
        self.registry_mut().add_tool(tool.into(), handler, ());
        self.list_changed(ListKind::Tools);
    }

    /// Removes a tool while the server runs; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = self.registry_mut().tools.remove(name).is_some();
        if removed {
            self.list_changed(ListKind::Tools);
        }
        removed
    }

    // ---- resources ----

    pub(crate) async fn list_resources(
        &self,
        params: Option<&RawJson>,
        ctx: Context,
    ) -> Result<RawJson, ServerError> {
        let p: PaginatedParams = crate::session::parse_params(params)?;
        let (mut entries, providers) = {
            let r = self.registry();
            let entries: Vec<Arc<ResourceEntry>> = r.resources.values().cloned().collect();
            (entries, r.providers.clone())
        };
        entries.sort_by_key(|e| e.seq);
        let mut items: Vec<RawJson> = entries.iter().map(|e| e.listing.clone()).collect();
        for provider in providers {
            let list =
                (provider.list)(&Call::new(&(), MetaSource::Absent, &ctx)).map_err(rejected)?;
            for resource in list.await? {
                items.push(encode(&resource)?);
            }
        }
        let pg = page(
            items.len(),
            p.cursor.as_deref(),
            self.inner.options.page_size,
        )?;
        write_list("resources", items[pg.start..pg.end].iter(), pg.next_cursor)
    }

    pub(crate) fn list_resource_templates(
        &self,
        params: Option<&RawJson>,
    ) -> Result<RawJson, ServerError> {
        let p: PaginatedParams = crate::session::parse_params(params)?;
        let mut entries = self.registry().templates.clone();
        entries.sort_by_key(|e| e.seq);
        let pg = page(
            entries.len(),
            p.cursor.as_deref(),
            self.inner.options.page_size,
        )?;
        write_list(
            "resourceTemplates",
            entries[pg.start..pg.end].iter().map(|e| &e.listing),
            pg.next_cursor,
        )
    }

    pub(crate) async fn read_resource(
        &self,
        params: Option<&RawJson>,
        ctx: Context,
    ) -> Result<RawJson, ServerError> {
        let UriParams { uri, meta } = crate::session::parse_params(params)?;
        let meta = parsed_meta(meta.as_ref());
        let (exact, providers, templates) = {
            let r = self.registry();
            (
                r.resources.get(&uri).cloned(),
                r.providers.clone(),
                r.templates.clone(),
            )
        };
        if let Some(entry) = exact {
            let request = ResourceRequest {
                uri,
                vars: BTreeMap::new(),
                mime_type: entry.resource.mime_type.clone(),
            };
            let read = (entry.read)(&Call::new(&request, meta, &ctx)).map_err(rejected)?;
            return encode(&read.await?);
        }
        for provider in providers {
            let request = ResourceRequest {
                uri: uri.clone(),
                vars: BTreeMap::new(),
                mime_type: None,
            };
            let read = (provider.read)(&Call::new(&request, meta, &ctx)).map_err(rejected)?;
            match read.await {
                Err(ServerError::ResourceNotFound(_)) => continue,
                result => return encode(&result?),
            }
        }
        for template in templates {
            if let Some(vars) = template.parsed.matches(&uri) {
                let request = ResourceRequest {
                    uri,
                    vars,
                    mime_type: template.template.mime_type.clone(),
                };
                let read = (template.read)(&Call::new(&request, meta, &ctx)).map_err(rejected)?;
                return encode(&read.await?);
            }
        }
        Err(ServerError::ResourceNotFound(uri))
    }

    /// Adds (or replaces) a static resource while the server runs.
    pub fn add_resource<H, T>(&self, resource: impl Into<Resource>, read: H)
    where
        H: Handler<T, (), ResourceRequest>,
        H::Output: IntoReadResult,
        T: 'static,
    {
        self.registry_mut()
            .add_resource(resource.into(), read_fn(read, ()));
        self.list_changed(ListKind::Resources);
    }

    /// Removes a static resource while the server runs; returns whether it existed.
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = self.registry_mut().resources.remove(uri).is_some();
        if removed {
            self.list_changed(ListKind::Resources);
        }
        removed
    }

    /// Adds a resource template while the server runs.
    pub fn add_resource_template<H, T>(
        &self,
        template: impl Into<ResourceTemplate>,
        read: H,
    ) -> Result<(), ServerError>
    where
        H: Handler<T, (), ResourceRequest>,
        H::Output: IntoReadResult,
        T: 'static,
    {
        {
            let mut r = self.registry_mut();
            let seq = r.next_seq();
            let entry = template_entry(template.into(), read_fn(read, ()), seq)?;
            r.templates
                .retain(|t| t.template.uri_template != entry.template.uri_template);
            r.templates.push(Arc::new(entry));
        }
        self.list_changed(ListKind::Resources);
        Ok(())
    }

    /// Removes a resource template (by its template text); returns whether it existed.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        let removed = {
            let mut r = self.registry_mut();
            let before = r.templates.len();
            r.templates
                .retain(|t| t.template.uri_template != uri_template);
            r.templates.len() != before
        };
        if removed {
            self.list_changed(ListKind::Resources);
        }
        removed
    }

    /// Tells every client subscribed to `uri` that it changed (`notifications/resources/updated`).
    pub fn notify_resource_updated(&self, uri: &str) {
        let targets: Vec<PeerHandle> = self
            .live_sessions()
            .iter()
            .filter(|s| s.is_subscribed(uri))
            .filter_map(|s| s.peer().cloned())
            .collect();
        let params = jsonrpc::to_raw(&serde_json::json!({ "uri": uri })).ok();
        spawn_notify(targets, "notifications/resources/updated", params);
    }

    // ---- prompts ----

    pub(crate) fn list_prompts(&self, params: Option<&RawJson>) -> Result<RawJson, ServerError> {
        let p: PaginatedParams = crate::session::parse_params(params)?;
        let mut entries: Vec<Arc<PromptEntry>> =
            self.registry().prompts.values().cloned().collect();
        entries.sort_by_key(|e| e.seq);
        let pg = page(
            entries.len(),
            p.cursor.as_deref(),
            self.inner.options.page_size,
        )?;
        write_list(
            "prompts",
            entries[pg.start..pg.end].iter().map(|e| &e.listing),
            pg.next_cursor,
        )
    }

    pub(crate) async fn get_prompt(
        &self,
        params: Option<&RawJson>,
        ctx: Context,
    ) -> Result<RawJson, ServerError> {
        let p: GetPromptParams = crate::session::parse_params(params)?;
        let entry = self
            .registry()
            .prompts
            .get(&p.name)
            .cloned()
            .ok_or_else(|| ServerError::PromptNotFound(p.name.clone()))?;
        let arguments: PromptArguments = p.arguments.unwrap_or_default();
        if let Some(missing) = entry.missing_argument(&arguments) {
            return Err(ServerError::MissingArgument {
                prompt: p.name,
                argument: missing.to_owned(),
            });
        }
        let call = Call::new(&arguments, parsed_meta(p.meta.as_ref()), &ctx);
        let future = (entry.handler)(&call).map_err(|rejection| {
            ServerError::InvalidParams(format!(
                "Invalid arguments for prompt {}: {rejection}",
                p.name
            ))
        })?;
        encode(&future.await?)
    }

    /// Adds (or replaces) a prompt while the server runs.
    pub fn add_prompt<H, T>(&self, prompt: impl Into<Prompt>, handler: H)
    where
        H: Handler<T, (), PromptArguments>,
        H::Output: IntoPromptResult,
        T: 'static,
    {
        self.registry_mut().add_prompt(prompt.into(), handler, ());
        self.list_changed(ListKind::Prompts);
    }

    /// Removes a prompt while the server runs; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = self.registry_mut().prompts.remove(name).is_some();
        if removed {
            self.list_changed(ListKind::Prompts);
        }
        removed
    }

    // ---- completion ----

    pub(crate) async fn complete(
        &self,
        params: Option<&RawJson>,
        ctx: Context,
    ) -> Result<RawJson, ServerError> {
        let p: CompleteParams = crate::session::parse_params(params)?;
        let target = match &p.reference {
            CompletionReference::Prompt(r) => {
                if !self.registry().prompts.contains_key(&r.name) {
                    return Err(ServerError::PromptNotFound(r.name.clone()));
                }
                CompletionTarget::Prompt(r.name.clone(), p.argument.name.clone())
            }
            CompletionReference::Resource(r) => {
                let known = {
                    let registry = self.registry();
                    registry
                        .templates
                        .iter()
                        .any(|t| t.template.uri_template == r.uri)
                        || registry.resources.contains_key(&r.uri)
                };
                if !known {
                    return Err(ServerError::InvalidParams(format!(
                        "Unknown resource template: {}",
                        r.uri
                    )));
                }
                CompletionTarget::Template(r.uri.clone(), p.argument.name.clone())
            }
        };
        let completer = self.registry().completions.get(&target).cloned();
        let result = match completer {
            Some(complete) => {
                let request = CompletionRequest {
                    argument: p.argument.name,
                    value: p.argument.value,
                    context: p.context.and_then(|c| c.arguments).unwrap_or_default(),
                };
                let call = Call::new(&request, parsed_meta(p.meta.as_ref()), &ctx);
                complete(&call).map_err(rejected)?.await
            }
            None => CompleteResult::new(Vec::new()),
        };
        encode(&result)
    }

    // ---- sessions ----

    fn live_sessions(&self) -> Vec<Arc<SessionState>> {
        let mut sessions = lock(&self.inner.sessions);
        sessions.retain(|s| {
            s.upgrade()
                .is_some_and(|s| !s.peer().is_some_and(|p| p.is_closed()))
        });
        sessions.iter().filter_map(Weak::upgrade).collect()
    }

    fn list_changed(&self, kind: ListKind) {
        let targets: Vec<PeerHandle> = self
            .live_sessions()
            .iter()
            .filter(|s| s.wants_list_changed(kind))
            .filter_map(|s| s.peer().cloned())
            .collect();
        spawn_notify(targets, kind.method(), None);
    }

    /// How many connections are being served.
    pub fn session_count(&self) -> usize {
        self.live_sessions().len()
    }
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
pub struct RunningSession {
    peer: PeerHandle,
    state: Arc<SessionState>,
}

impl std::fmt::Debug for RunningSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningSession")
            .field("peer", &self.peer)
            .field("version", &self.state.version())
            .finish()
    }
}

impl RunningSession {
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

    /// Sends a log message not tied to a request, subject to the client's log level.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) -> bool {
        if !self.state.logs(level) {
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
