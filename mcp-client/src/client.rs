//! The `Client`: connects to one MCP server over any transport, performs the handshake, and
//! offers typed calls. Over a stdio child it also supervises the process: a bounded close,
//! no process left behind, and (optionally) restarts with a fresh handshake.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use mcp_proto::jsonrpc;
use mcp_proto::peer::{Peer, PeerError, PeerHandle, PeerOptions, RequestOptions, Transport};
use mcp_proto::schema::{
    CallTool, CallToolParams, CallToolResult, Complete, CompleteParams, CompleteResult, Cursor,
    Discover, DiscoverResult, EmptyParams, GetPrompt, GetPromptParams, GetPromptResult,
    Implementation, Initialize, InitializeParams, InitializeResult, Initialized, ListPrompts,
    ListResourceTemplates, ListResources, ListTools, LoggingLevel, ModernResultFields,
    PaginatedParams, Ping, Prompt, ReadResource, ReadResourceParams, ReadResourceResult,
    RequestType, Resource, ResourceTemplate, ResourceUriParams, ServerCapabilities, SetLevel,
    SetLevelParams, Subscribe, Tool, Unsubscribe,
};
use mcp_proto::version::{self, ProtocolVersion};
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::era::{classify_probe, Era, Negotiation, ProbeVerdict};
use crate::error::ClientError;
use crate::handler::{ClientHandler, ServerEvent};
use crate::input::{InputRound, INPUT_METHODS, MAX_INPUT_ROUNDS};
use crate::listen::{backoff, ListenState, MAX_LISTEN_FAILURES};
use crate::modern::{self, ModernMeta};
use crate::options::{clamp_timeout, CallOptions, ClientOptions};
use crate::stderr_ring::StderrRing;
use crate::stdio::{self, StdioServerConfig};
use crate::supervisor::{ChildProcess, RestartPolicy};
use mcp_proto::schema::PassThroughResult;

/// A connection to one MCP server. Cheap to clone; every clone talks to the same server.
///
/// Dropping the last clone kills a stdio server's whole process group at once; call
/// [`close`](Client::close) for the graceful, bounded close sequence instead.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.inner.name)
            .finish()
    }
}

struct Inner {
    name: String,
    options: ClientOptions,
    handler: Arc<ClientHandler>,
    state: watch::Sender<State>,
    /// What the last handshake said.
    handshake: Mutex<Arc<Handshake>>,
    /// How to start the server again, for stdio servers.
    stdio: Option<(StdioServerConfig, StderrRing)>,
    closing: AtomicBool,
    /// The session [`Client::close`] is closing, so [`Client::kill`] can still reach its child
    /// and a second `close` can wait for the first.
    closing_session: watch::Sender<Option<Arc<Session>>>,
    /// The log level a 2026-07-28 request asks for in its `_meta` (set by
    /// [`Client::set_logging_level`]; none means no log messages).
    log_level: Mutex<Option<LoggingLevel>>,
    /// The capabilities and info a 2026-07-28 request's `_meta` carries, written at its first use.
    identity: std::sync::OnceLock<Arc<modern::Identity>>,
    /// What a 2026-07-28 `subscriptions/listen` listens for, and the task that holds it open.
    listen: Mutex<ListenState>,
    /// The tools whose `execution.taskSupport` is `required`, as of the last `tools/list`.
    task_only_tools: Mutex<Option<std::collections::BTreeSet<String>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The listen task holds the session, not the client: end it with the client.
        let listen = self.listen.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(running) = listen.running.take() {
            running.cancel();
        }
    }
}

#[derive(Clone)]
enum State {
    /// Connected and initialized.
    Ready(Arc<Session>),
    /// The server died and is being started again.
    Restarting,
    /// The restart policy gave up.
    Failed(ClientError),
    /// [`Client::close`] was called.
    Closed,
}

/// One connection: a peer, and the child process behind it if there is one.
struct Session {
    peer: PeerHandle,
    child: Option<ChildProcess>,
}

impl Session {
    /// Closes the peer (which closes a child's stdin), then runs the child's close sequence.
    async fn shutdown(&self) {
        self.peer.close();
        match &self.child {
            Some(child) => child.shutdown().await,
            None => {
                let _ = tokio::time::timeout(Duration::from_secs(5), self.peer.closed()).await;
            }
        }
    }

    /// Stops the engine and kills a child's process group at once, without grace.
    fn kill(&self) {
        self.peer.close();
        if let Some(child) = &self.child {
            child.kill();
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Stop the engine with the session; a child's process group is killed by its own drop.
        self.peer.close();
    }
}

/// Forgets the session being closed when its close ends, or is dropped half-way.
struct ClearOnDrop<'a>(&'a watch::Sender<Option<Arc<Session>>>);

impl Drop for ClearOnDrop<'_> {
    fn drop(&mut self) {
        self.0.send_replace(None);
    }
}

/// What the server said in the handshake, and the version both sides agreed on.
#[derive(Clone, Debug)]
pub struct Handshake {
    /// The negotiated protocol version.
    pub protocol_version: ProtocolVersion,
    /// The server's answer to `initialize`; under 2026-07-28, the same facts taken from its
    /// answer to `server/discover` (version, capabilities, server info, instructions).
    pub result: InitializeResult,
    /// The server's answer to `server/discover` (2026-07-28 only).
    pub discover: Option<DiscoverResult>,
}

impl Handshake {
    /// The era the server speaks with us.
    pub fn era(&self) -> Era {
        Era::of(self.protocol_version)
    }
}

/// Result pages with items and a cursor, so one loop serves every `list_*` call.
trait Page {
    type Item;
    fn into_parts(self) -> (Vec<Self::Item>, Option<Cursor>);
}

macro_rules! page {
    ($result:ty, $item:ty, $field:ident) => {
        impl Page for $result {
            type Item = $item;
            fn into_parts(self) -> (Vec<$item>, Option<Cursor>) {
                (self.$field, self.next_cursor)
            }
        }
    };
}

page!(mcp_proto::schema::ListToolsResult, Tool, tools);
page!(mcp_proto::schema::ListResourcesResult, Resource, resources);
page!(
    mcp_proto::schema::ListResourceTemplatesResult,
    ResourceTemplate,
    resource_templates
);
page!(mcp_proto::schema::ListPromptsResult, Prompt, prompts);

fn peer_options(name: &str) -> PeerOptions {
    PeerOptions {
        name: name.to_owned(),
        reply_to_invalid: false,
        shutdown_grace: Duration::from_secs(1),
        ..Default::default()
    }
}

/// Chooses the era and version as `options.negotiation` says: a `server/discover` probe for
/// auto (falling back to `initialize` unless the answer is a recognised modern error) and for a
/// 2026-07-28 pin, `initialize` for legacy and older pins. The version found is remembered in
/// the options' era cache.
async fn negotiate(
    peer: &PeerHandle,
    name: &str,
    options: &ClientOptions,
    handler: &ClientHandler,
) -> Result<Handshake, ClientError> {
    let remembered = options
        .era_cache
        .as_ref()
        .and_then(|(cache, key)| cache.get(key));
    let handshake = match options.negotiation {
        Negotiation::Legacy => {
            handshake(
                peer,
                name,
                options,
                handler,
                options.protocol_version,
                false,
            )
            .await?
        }
        Negotiation::Pin(version) if version.is_stateless_era() => {
            pinned(peer, name, options, handler, version).await?
        }
        Negotiation::Pin(version) => handshake(peer, name, options, handler, version, true).await?,
        Negotiation::Auto => auto(peer, name, options, handler, remembered).await?,
    };
    if let Some((cache, key)) = &options.era_cache {
        cache.set(key, handshake.protocol_version);
    }
    Ok(handshake)
}

/// A 2026-07-28 pin: `server/discover` under that version, tried once more when a -32022 lists
/// the pinned version among those the server supports (the spec's "retry with a supported
/// version"); any other failure is final, and a -32022 names the versions offered.
async fn pinned(
    peer: &PeerHandle,
    name: &str,
    options: &ClientOptions,
    handler: &ClientHandler,
    version: ProtocolVersion,
) -> Result<Handshake, ClientError> {
    let timeout = clamp_timeout(options.initialize_timeout);
    let mut retried = false;
    loop {
        let error = match discover(peer, name, options, handler, version, timeout).await {
            Ok(handshake) => return Ok(handshake),
            Err(error) => error,
        };
        return Err(match classify_probe(&error, version) {
            ProbeVerdict::RetryWith(v) if v == version && !retried => {
                tracing::debug!(server = %name, "server/discover refused {version} but lists it; retrying once");
                retried = true;
                continue;
            }
            ProbeVerdict::RetryWith(v) => ClientError::ModernRefused {
                server: name.to_owned(),
                reason: format!("pinned to {version}, but the server asks for {v}"),
            },
            ProbeVerdict::ModernRefused(reason) => ClientError::ModernRefused {
                server: name.to_owned(),
                reason,
            },
            ProbeVerdict::Legacy => ClientError::from_peer(name, error),
        });
    }
}

/// The auto mode: probe with `server/discover` (retrying once with a mutual modern version on
/// -32022), else `initialize`. A server remembered as 2025-era is not probed.
async fn auto(
    peer: &PeerHandle,
    name: &str,
    options: &ClientOptions,
    handler: &ClientHandler,
    remembered: Option<ProtocolVersion>,
) -> Result<Handshake, ClientError> {
    let offered = options.protocol_version;
    if remembered.is_some_and(|v| !v.is_stateless_era()) {
        return handshake(peer, name, options, handler, offered, false).await;
    }
    let mut asked = remembered.unwrap_or(ProtocolVersion::V2026_07_28);
    // The probe is part of connecting: it never waits longer than the handshake would.
    let timeout = clamp_timeout(options.discover_timeout.min(options.initialize_timeout));
    for _ in 0..2 {
        let error = match discover(peer, name, options, handler, asked, timeout).await {
            Ok(handshake) => return Ok(handshake),
            Err(error) => error,
        };
        if let PeerError::Closed(_) = error {
            return Err(ClientError::from_peer(name, error));
        }
        match classify_probe(&error, asked) {
            ProbeVerdict::RetryWith(version) => asked = version,
            ProbeVerdict::ModernRefused(reason) => {
                return Err(ClientError::ModernRefused {
                    server: name.to_owned(),
                    reason,
                })
            }
            ProbeVerdict::Legacy => {
                tracing::debug!(server = %name, "server/discover failed ({error}); using initialize");
                break;
            }
        }
    }
    handshake(peer, name, options, handler, offered, false).await
}

/// The capabilities (every callback's, and the tasks extension) and the info a client's
/// 2026-07-28 requests declare in their `_meta`.
fn declared_identity(
    handler: &ClientHandler,
    options: &ClientOptions,
) -> Result<modern::Identity, String> {
    modern::Identity::new(
        &crate::tasks::with_tasks_extension(handler.capabilities()),
        &options.client_info,
    )
}

/// A modern `server/discover` under `version`, bounded by `timeout`; on success the peer is set
/// to that version and the answer is kept as the handshake.
async fn discover(
    peer: &PeerHandle,
    name: &str,
    options: &ClientOptions,
    handler: &ClientHandler,
    version: ProtocolVersion,
    timeout: Duration,
) -> Result<Handshake, PeerError> {
    let encode = |detail: String| PeerError::Encode {
        method: Discover::METHOD.into(),
        detail,
    };
    let meta = ModernMeta {
        version,
        identity: Arc::new(declared_identity(handler, options).map_err(encode)?),
        log_level: None,
    };
    let params = meta.apply(None).map_err(encode)?;
    let params = jsonrpc::to_raw(&params).map_err(|e| encode(e.to_string()))?;
    let request = RequestOptions {
        timeout: Some(timeout),
        ..Default::default()
    };
    let raw = peer
        .request_raw(Discover::METHOD, Some(params), request)
        .await?;
    let decode = |detail: String| PeerError::Decode {
        method: Discover::METHOD.into(),
        detail,
    };
    let raw = match modern::classify(raw).map_err(decode)? {
        modern::Answer::Complete(raw) => raw,
        modern::Answer::InputRequired(_) | modern::Answer::Task(_) => {
            return Err(decode(
                "server/discover may only answer with a complete result".into(),
            ))
        }
    };
    let result: DiscoverResult =
        jsonrpc::from_object(raw.get()).map_err(|e| decode(e.to_string()))?;
    let server_info = result
        .meta
        .as_ref()
        .and_then(|m| m.get(mcp_proto::schema::modern::meta_keys::SERVER_INFO))
        .and_then(|v| serde_json::from_value::<Implementation>(v.clone()).ok())
        .unwrap_or_else(|| Implementation::new(name, ""));
    let mut init =
        InitializeResult::new(version.as_str(), result.capabilities.clone(), server_info);
    init.instructions = result.instructions.clone();
    peer.set_protocol_version(version);
    tracing::debug!(server = %name, version = %version, "discovered a 2026-07-28 server");
    Ok(Handshake {
        protocol_version: version,
        result: init,
        discover: Some(result),
    })
}

/// `initialize` then `notifications/initialized`; refuses a version we do not speak, and with
/// `exact` any version but the one offered.
async fn handshake(
    peer: &PeerHandle,
    name: &str,
    options: &ClientOptions,
    handler: &ClientHandler,
    offered: ProtocolVersion,
    exact: bool,
) -> Result<Handshake, ClientError> {
    let params = InitializeParams::new(
        offered.as_str(),
        handler.capabilities(),
        options.client_info.clone(),
    );
    // The spec forbids cancelling `initialize`, so its timeout is kept here rather than in the
    // engine (which would send `notifications/cancelled`): on expiry the connection is closed
    // first, so the dropped call has nothing left to cancel.
    let timeout = clamp_timeout(options.initialize_timeout);
    let call = peer.request_with::<Initialize>(&params, RequestOptions::default());
    tokio::pin!(call);
    let result = match tokio::time::timeout(timeout, &mut call).await {
        Ok(result) => result.map_err(|e| ClientError::from_peer(name, e))?,
        Err(_) => {
            peer.close();
            return Err(ClientError::from_peer(
                name,
                PeerError::Timeout {
                    method: Initialize::METHOD.to_owned(),
                    timeout,
                },
            ));
        }
    };
    let accepted: &[ProtocolVersion] = if exact {
        std::slice::from_ref(&offered)
    } else {
        &ProtocolVersion::HANDSHAKE
    };
    let version = version::accept(&result.protocol_version, accepted).map_err(|e| {
        ClientError::UnsupportedVersion {
            server: name.to_owned(),
            offered: offered.as_str().to_owned(),
            answered: e.requested,
            supported: e.supported,
        }
    })?;
    peer.set_protocol_version(version);
    peer.notify::<Initialized>(&EmptyParams::default())
        .await
        .map_err(|e| ClientError::from_peer(name, e))?;
    tracing::debug!(server = %name, version = %version, "initialized");
    Ok(Handshake {
        protocol_version: version,
        result,
        discover: None,
    })
}

/// Starts a peer on `transport` and initializes; on failure the peer (and child) are closed.
async fn open<T: Transport>(
    transport: T,
    child: Option<ChildProcess>,
    name: &str,
    options: &ClientOptions,
    handler: &Arc<ClientHandler>,
) -> Result<(Session, Handshake), ClientError> {
    let peer = Peer::start(transport, handler.clone(), peer_options(name));
    let session = Session { peer, child };
    match negotiate(&session.peer, name, options, handler).await {
        Ok(handshake) => Ok((session, handshake)),
        Err(e) => {
            session.shutdown().await;
            Err(e)
        }
    }
}

async fn open_stdio(
    config: &StdioServerConfig,
    ring: &StderrRing,
    name: &str,
    options: &ClientOptions,
    handler: &Arc<ClientHandler>,
) -> Result<(Session, Handshake), ClientError> {
    let (transport, child) = stdio::spawn(config, name, ring)?;
    let opened = open(transport, Some(child), name, options, handler).await;
    // A 2025-era server that hangs up on the `server/discover` probe is started again and
    // spoken to with `initialize` only.
    let probe_closed = matches!(
        &opened,
        Err(ClientError::Peer {
            error: PeerError::Closed(_),
            ..
        })
    );
    if probe_closed && options.negotiation == Negotiation::Auto {
        tracing::info!(server = %name, "the server closed on server/discover; starting it again for initialize");
        let legacy = options.clone().with_negotiation(Negotiation::Legacy);
        let (transport, child) = stdio::spawn(config, name, ring)?;
        let opened = open(transport, Some(child), name, &legacy, handler).await?;
        if let Some((cache, key)) = &options.era_cache {
            cache.set(key, opened.1.protocol_version);
        }
        return Ok(opened);
    }
    opened
}

impl Client {
    /// Connects over any transport: offers our version (or the pinned one), accepts any version
    /// we speak, refuses others, and sends `notifications/initialized`.
    pub async fn connect<T: Transport>(
        transport: T,
        options: ClientOptions,
    ) -> Result<Client, ClientError> {
        let name = options.name.clone().unwrap_or_else(|| "server".into());
        let handler = Self::handler(&name, &options);
        let (session, handshake) = open(transport, None, &name, &options, &handler).await?;
        Ok(Self::build(
            name, options, handler, session, handshake, None,
        ))
    }

    /// Starts `config` as a supervised child process and connects to it over its stdio. The
    /// server's name (for errors) is `options.name`, else the command's file name.
    pub async fn spawn_stdio(
        config: StdioServerConfig,
        options: ClientOptions,
    ) -> Result<Client, ClientError> {
        let name = options
            .name
            .clone()
            .unwrap_or_else(|| config.default_name());
        let handler = Self::handler(&name, &options);
        let ring = StderrRing::new(config.stderr_capacity);
        let (session, handshake) = open_stdio(&config, &ring, &name, &options, &handler).await?;
        let restart = config.restart;
        let peer = session.peer.clone();
        let client = Self::build(
            name,
            options,
            handler,
            session,
            handshake,
            Some((config, ring)),
        );
        if let Some(policy) = restart {
            tokio::spawn(supervise(Arc::downgrade(&client.inner), peer, policy));
        }
        Ok(client)
    }

    fn handler(name: &str, options: &ClientOptions) -> Arc<ClientHandler> {
        Arc::new(ClientHandler::new(
            name.to_owned(),
            options.callbacks.clone(),
            options.notification_capacity,
        ))
    }

    fn build(
        name: String,
        options: ClientOptions,
        handler: Arc<ClientHandler>,
        session: Session,
        handshake: Handshake,
        stdio: Option<(StdioServerConfig, StderrRing)>,
    ) -> Client {
        let (state, _) = watch::channel(State::Ready(Arc::new(session)));
        Client {
            inner: Arc::new(Inner {
                name,
                options,
                handler,
                state,
                handshake: Mutex::new(Arc::new(handshake)),
                stdio,
                closing: AtomicBool::new(false),
                closing_session: watch::Sender::new(None),
                log_level: Mutex::new(None),
                identity: std::sync::OnceLock::new(),
                listen: Mutex::new(ListenState::default()),
                task_only_tools: Mutex::new(None),
            }),
        }
    }

    /// The server's name, as errors show it.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// What the last handshake said (it changes when a restarted server is re-initialized).
    pub fn handshake(&self) -> Arc<Handshake> {
        self.inner
            .handshake
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.handshake().protocol_version
    }

    /// The era the server speaks with us: 2025 (`initialize`) or 2026-07-28 (stateless).
    pub fn era(&self) -> Era {
        self.handshake().era()
    }

    /// The server's name and version.
    pub fn server_info(&self) -> Implementation {
        self.handshake().result.server_info.clone()
    }

    /// What the server offers.
    pub fn server_capabilities(&self) -> ServerCapabilities {
        self.handshake().result.capabilities.clone()
    }

    /// The server's instructions for the model, if it gave any.
    pub fn instructions(&self) -> Option<String> {
        self.handshake().result.instructions.clone()
    }

    /// Receives the server's notifications (logging, list changes, resource updates, progress)
    /// and restarts. A receiver that falls more than `notification_capacity` behind loses the
    /// oldest events (it sees `RecvError::Lagged`).
    /// Under 2026-07-28 this opens a `subscriptions/listen` for the list changes the server
    /// advertises, so the same events arrive in both eras.
    pub fn notifications(&self) -> broadcast::Receiver<ServerEvent> {
        let receiver = self.inner.handler.subscribe();
        if self.era() == Era::Modern {
            self.relisten(false);
        }
        receiver
    }

    /// Starts the listen task (or, with `restart`, replaces the running one so a changed set of
    /// subscriptions takes effect).
    fn relisten(&self, restart: bool) {
        let mut listen = self.inner.listen.lock().unwrap_or_else(|p| p.into_inner());
        if listen.running.is_some() && !restart {
            return;
        }
        if let Some(old) = listen.running.take() {
            old.cancel();
        }
        let Some(filter) = listen.filter(&self.server_capabilities()) else {
            return;
        };
        let stop = CancellationToken::new();
        listen.running = Some(stop.clone());
        let params = serde_json::json!({ "notifications": filter });
        tokio::spawn(listen_loop(Arc::downgrade(&self.inner), stop, params));
    }

    /// Changes the subscribed URIs with `change` and, when it changed something, opens a new
    /// listen with them.
    fn change_subscription(
        &self,
        change: impl FnOnce(&mut std::collections::BTreeSet<String>) -> bool,
    ) {
        let changed = change(
            &mut self
                .inner
                .listen
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .uris,
        );
        if changed {
            self.relisten(true);
        }
    }

    /// The `_meta` of this client's 2026-07-28 requests under `version`.
    fn modern_meta(&self, version: ProtocolVersion) -> Result<ModernMeta, String> {
        let identity = match self.inner.identity.get() {
            Some(identity) => identity.clone(),
            None => {
                let identity =
                    Arc::new(declared_identity(&self.inner.handler, &self.inner.options)?);
                self.inner.identity.get_or_init(|| identity).clone()
            }
        };
        Ok(ModernMeta {
            version,
            identity,
            log_level: *self
                .inner
                .log_level
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        })
    }

    /// The recent stderr of a stdio server (up to 16 KiB by default); `None` for other transports.
    pub fn stderr(&self) -> Option<String> {
        self.inner.stdio.as_ref().map(|(_, ring)| ring.contents())
    }

    /// The process id of a stdio server's current process.
    pub fn pid(&self) -> Option<u32> {
        match &*self.inner.state.borrow() {
            State::Ready(session) => session.child.as_ref().map(ChildProcess::pid),
            _ => None,
        }
    }

    /// Closes the connection: closes the server's stdin, waits, SIGTERMs its process group,
    /// waits, SIGKILLs it. Bounded by the config's [`ShutdownTimeouts`](crate::ShutdownTimeouts).
    /// Calls still waiting fail with "closed locally".
    /// A second `close` while one is under way waits for it.
    pub async fn close(&self) {
        self.inner.closing.store(true, Ordering::Release);
        if let State::Ready(session) = self.inner.state.send_replace(State::Closed) {
            self.inner
                .closing_session
                .send_replace(Some(session.clone()));
            let _clear = ClearOnDrop(&self.inner.closing_session);
            session.shutdown().await;
        } else {
            let mut closing = self.inner.closing_session.subscribe();
            let _ = closing.wait_for(Option::is_none).await;
        }
    }

    /// Ends the connection now: calls still waiting fail (the server is told with
    /// `notifications/cancelled`) and a stdio server's whole process group is killed with
    /// SIGKILL, without the close sequence, even while a [`close`](Self::close) is under way.
    /// For when a graceful close took too long or the user insists (a second Ctrl-C).
    pub fn kill(&self) {
        self.inner.closing.store(true, Ordering::Release);
        if let State::Ready(session) = self.inner.state.send_replace(State::Closed) {
            session.kill();
        }
        let closing = self.inner.closing_session.borrow().clone();
        if let Some(session) = closing {
            session.kill();
        }
    }

    /// Waits until the connection is gone: the server or the network closed it (a legacy SSE
    /// stream dropped, a child exited), the restart policy gave up, or the client was closed.
    /// A stdio server with a restart policy is usually started again right after. A
    /// Streamable HTTP connection has no stream to lose: its calls fail instead.
    pub async fn disconnected(&self) {
        let mut rx = self.inner.state.subscribe();
        loop {
            let state = rx.borrow_and_update().clone();
            match state {
                State::Ready(session) => {
                    tokio::select! {
                        _ = session.peer.closed() => return,
                        changed = rx.changed() => if changed.is_err() { return },
                    }
                }
                State::Restarting => {
                    if rx.changed().await.is_err() {
                        return;
                    }
                }
                State::Failed(_) | State::Closed => return,
            }
        }
    }

    /// The current session, waiting (up to the request timeout) while a restart is under way.
    async fn session(&self, method: &str) -> Result<Arc<Session>, ClientError> {
        let closed = || {
            ClientError::from_peer(
                &self.inner.name,
                PeerError::Closed("the client was closed".into()),
            )
        };
        let mut rx = self.inner.state.subscribe();
        let wait = clamp_timeout(self.inner.options.request_timeout);
        let deadline = Instant::now() + wait;
        loop {
            let state = rx.borrow_and_update().clone();
            match state {
                State::Ready(session) => return Ok(session),
                State::Failed(e) => return Err(e),
                State::Closed => return Err(closed()),
                State::Restarting => {}
            }
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(closed()),
                Err(_) => {
                    return Err(ClientError::from_peer(
                        &self.inner.name,
                        PeerError::Timeout {
                            method: method.to_owned(),
                            timeout: wait,
                        },
                    ))
                }
            }
        }
    }

    /// Sends any typed request with per-call options; the other calls are shorthands for it.
    /// Under 2026-07-28 the request carries the era's `_meta`, the answer's `resultType` is
    /// checked, and `input_required` answers are followed (see [`MAX_INPUT_ROUNDS`]).
    pub async fn send<R: RequestType>(
        &self,
        params: &R::Params,
        options: CallOptions,
    ) -> Result<R::Result, ClientError> {
        let session = self.session(R::METHOD).await?;
        if let Some(version) = modern_version(&session) {
            let params =
                serde_json::to_value(params).map_err(|e| self.encode_error(R::METHOD, e))?;
            let raw = self
                .call_modern(
                    &session,
                    version,
                    R::METHOD,
                    modern::Params::Json(Some(&params)),
                    options,
                    modern::classify,
                )
                .await?;
            return jsonrpc::from_object(raw.get()).map_err(|e| {
                ClientError::from_peer(
                    &self.inner.name,
                    PeerError::Decode {
                        method: R::METHOD.to_owned(),
                        detail: e.to_string(),
                    },
                )
            });
        }
        let request = options.to_request_options(self.inner.options.request_timeout);
        session
            .peer
            .request_with::<R>(params, request)
            .await
            .map_err(|e| ClientError::from_peer(&self.inner.name, e))
    }

    fn encode_error(&self, method: &str, e: impl std::fmt::Display) -> ClientError {
        ClientError::from_peer(
            &self.inner.name,
            PeerError::Encode {
                method: method.to_owned(),
                detail: e.to_string(),
            },
        )
    }

    /// One 2026-07-28 call: `_meta` added, `resultType` checked, and `input_required` answered
    /// with the client's handlers and retried (new id, `inputResponses`, `requestState` echoed),
    /// at most [`MAX_INPUT_ROUNDS`] times. `read` tells the answers apart (and reads a complete
    /// one or a task handle into what the caller wants).
    async fn call_modern<R>(
        &self,
        session: &Session,
        version: ProtocolVersion,
        method: &str,
        params: modern::Params<'_>,
        options: CallOptions,
        read: impl Fn(jsonrpc::RawJson) -> Result<modern::Answer<R>, String>,
    ) -> Result<R, ClientError> {
        let name = &self.inner.name;
        let meta = self
            .modern_meta(version)
            .map_err(|e| self.encode_error(method, e))?;
        // The first round sends the params as given; later ones add the answers to them.
        let mut retry = None;
        for round in 0..=MAX_INPUT_ROUNDS {
            let raw = match &retry {
                None => meta.encode_params(params),
                Some(retry) => meta.encode(retry),
            }
            .map_err(|e| self.encode_error(method, e))?;
            let request = options.to_request_options(self.inner.options.request_timeout);
            let answer = session
                .peer
                .request_raw(method, Some(raw), request)
                .await
                .map_err(|e| ClientError::from_peer(name, e))?;
            let invalid = |reason: String| ClientError::InvalidResult {
                server: name.clone(),
                method: method.to_owned(),
                reason,
            };
            let input_error = |reason: String| ClientError::InputRequired {
                server: name.clone(),
                method: method.to_owned(),
                reason,
            };
            let asked = match read(answer).map_err(invalid)? {
                modern::Answer::Complete(answer) => return Ok(answer),
                // A task handle goes back to the caller, which polls it (only `tools/call`
                // may create one).
                modern::Answer::Task(answer) if method == CallTool::METHOD => return Ok(answer),
                modern::Answer::Task(_) => {
                    return Err(invalid(format!(
                        "a task handle (resultType \"task\"), which only {} may answer",
                        CallTool::METHOD
                    )))
                }
                modern::Answer::InputRequired(asked) => asked,
            };
            if !INPUT_METHODS.contains(&method) {
                return Err(invalid(format!(
                    "input_required, which only {} may answer",
                    INPUT_METHODS.join(", ")
                )));
            }
            if round == MAX_INPUT_ROUNDS {
                return Err(input_error(format!(
                    "the server still asked for input after {MAX_INPUT_ROUNDS} rounds; gave up"
                )));
            }
            let input = InputRound::parse(asked).map_err(invalid)?;
            // Boxed: answering is rare and its future large, and every call's future would
            // carry it.
            let responses = Box::pin(input.answer(&self.inner.options.callbacks))
                .await
                .map_err(input_error)?;
            let original = params.object().map_err(|e| self.encode_error(method, e))?;
            retry = Some(
                input
                    .retry_params(&original, &responses)
                    .map_err(|e| self.encode_error(method, e))?,
            );
        }
        unreachable!("the loop returns on its last round")
    }

    /// Sends any request by method name with JSON params, for methods we have no type for.
    pub async fn request(
        &self,
        method: &str,
        params: Option<serde_json::Value>,
        options: CallOptions,
    ) -> Result<serde_json::Value, ClientError> {
        let raw = self
            .request_json(
                method,
                modern::Params::Json(params.as_ref()),
                options,
                modern::classify,
                std::convert::identity,
            )
            .await?;
        self.decode_result(method, &raw)
    }

    /// Like [`request`](Self::request), the result left as the JSON text it came in.
    /// `read` tells a 2026-07-28 answer apart as [`call_modern`](Self::call_modern) does;
    /// `legacy` reads a 2025 one.
    async fn request_json<R>(
        &self,
        method: &str,
        params: modern::Params<'_>,
        options: CallOptions,
        read: impl Fn(jsonrpc::RawJson) -> Result<modern::Answer<R>, String>,
        legacy: impl FnOnce(jsonrpc::RawJson) -> R,
    ) -> Result<R, ClientError> {
        let encode = |e: serde_json::Error| {
            ClientError::from_peer(
                &self.inner.name,
                PeerError::Encode {
                    method: method.to_owned(),
                    detail: e.to_string(),
                },
            )
        };
        let session = self.session(method).await?;
        if let Some(version) = modern_version(&session) {
            return self
                .call_modern(&session, version, method, params, options, read)
                .await;
        }
        let params = params.to_raw().map_err(encode)?;
        let request = options.to_request_options(self.inner.options.request_timeout);
        session
            .peer
            .request_raw(method, params, request)
            .await
            .map(legacy)
            .map_err(|e| ClientError::from_peer(&self.inner.name, e))
    }

    /// A result's JSON text as `T` (an object), or why it is not one.
    fn decode_result<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        raw: &jsonrpc::RawJson,
    ) -> Result<T, ClientError> {
        jsonrpc::from_object(raw.get()).map_err(|e| {
            ClientError::from_peer(
                &self.inner.name,
                PeerError::Decode {
                    method: method.to_owned(),
                    detail: e.to_string(),
                },
            )
        })
    }

    /// Follows `nextCursor` through every page, up to `max_list_pages`. A list the server
    /// marked cacheable (`ttlMs`, the least over its pages) is answered from the list cache
    /// until it expires or the server says it changed.
    async fn list_all<R>(&self) -> Result<Vec<<R::Result as Page>::Item>, ClientError>
    where
        R: RequestType<Params = PaginatedParams>,
        R::Result: Page + ModernResultFields,
        <R::Result as Page>::Item: Clone + Send + Sync + 'static,
    {
        let cache = &self.inner.handler.lists;
        if let Some(items) = cache.get(R::METHOD) {
            return Ok(items);
        }
        let mut ttl: Option<u64> = None;
        let mut items = Vec::new();
        let mut cursor: Option<Cursor> = None;
        let max = self.inner.options.max_list_pages.max(1);
        for _ in 0..max {
            let params = PaginatedParams {
                cursor: cursor.take(),
                ..Default::default()
            };
            let result = self.send::<R>(&params, CallOptions::default()).await?;
            let page_ttl = result.cache().map_or(0, |(ttl, _)| ttl);
            ttl = Some(ttl.map_or(page_ttl, |t| t.min(page_ttl)));
            let (page, next) = result.into_parts();
            items.extend(page);
            match next {
                Some(next) => cursor = Some(next),
                None => {
                    let ttl = Duration::from_millis(ttl.unwrap_or(0));
                    if !ttl.is_zero() {
                        cache.put(R::METHOD, items.clone(), ttl);
                    }
                    return Ok(items);
                }
            }
        }
        Err(ClientError::TooManyPages {
            server: self.inner.name.clone(),
            method: R::METHOD.to_owned(),
            pages: max,
        })
    }

    /// Every tool of the server (`tools/list`, all pages). Under 2026-07-28, tools whose
    /// `x-mcp-header` annotations are invalid are dropped, as the spec requires.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let mut tools = self.list_all::<ListTools>().await?;
        let required = tools
            .iter()
            .filter(|t| {
                t.execution.as_ref().and_then(|e| e.task_support)
                    == Some(mcp_proto::schema::TaskSupport::Required)
            })
            .map(|t| t.name.clone())
            .collect();
        *self
            .inner
            .task_only_tools
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(required);
        if self.era() == Era::Modern {
            tools.retain(|tool| {
                let schema = serde_json::to_value(&tool.input_schema).unwrap_or_default();
                match crate::param_headers::header_params(&schema) {
                    Ok(_) => true,
                    Err(reason) => {
                        tracing::warn!(server = %self.inner.name, tool = %tool.name, "dropped a tool with an invalid x-mcp-header: {reason}");
                        false
                    }
                }
            });
        }
        Ok(tools)
    }

    /// Calls tool `name` with `arguments` (a JSON object, or `null` for none).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: serde_json::Value,
    ) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, CallOptions::default())
            .await
    }

    /// Calls tool `name` with per-call options (timeout, progress, cancellation).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: serde_json::Value,
        options: CallOptions,
    ) -> Result<CallToolResult, ClientError> {
        let params = CallToolParams::new(name).with_arguments(arguments);
        // A server speaking the tasks extension may answer any call with a task: it is
        // polled to its end here, so a plain call gets the tool's result either way.
        let task_options = crate::tasks::TaskOptions::from_call(&options);
        // A 2025-11-25 tool that only runs as a task refuses a plain call: call it as the task
        // it asks for.
        // The task paths are boxed: their state is large and rare, and a future is as big as
        // its largest path, so inline they would be copied with every plain call.
        if self.requires_task(name).await {
            let arguments = serde_json::Value::Object(params.arguments.unwrap_or_default());
            return Box::pin(self.call_tool_as_task(name, arguments, task_options)).await;
        }
        match self.call_tool_raw(&params, options).await? {
            crate::tasks::TaskStart::Done(result) => Ok(*result),
            crate::tasks::TaskStart::Task(task) => {
                Box::pin(self.await_task_result(&task.task_id, &task_options)).await
            }
        }
    }

    /// The tools the last `tools/list` said require a task; `None` before the first list.
    pub(crate) fn task_only_tools(&self) -> Option<std::collections::BTreeSet<String>> {
        self.inner
            .task_only_tools
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Like [`call_tool_with`](Self::call_tool_with), the result left as the JSON text the
    /// server wrote, without the 2026-07-28 head ([`PassThroughResult`]): for a caller that
    /// hands it on unread (a proxy), so that fields this toolkit does not know reach its own
    /// client as they came, and the result is not read into types and written again. A task
    /// the server makes instead is followed to its result as usual.
    pub async fn call_tool_pass_through(
        &self,
        name: &str,
        arguments: serde_json::Value,
        options: CallOptions,
    ) -> Result<PassThroughResult, ClientError> {
        let task_options = crate::tasks::TaskOptions::from_call(&options);
        // As in `call_tool_with`: the task paths are boxed, being large and rare.
        if self.requires_task(name).await {
            // As `CallToolParams::with_arguments` does: arguments that are no object are dropped.
            let arguments = if arguments.is_object() {
                arguments
            } else {
                serde_json::Value::Object(serde_json::Map::new())
            };
            let result = Box::pin(self.call_tool_as_task(name, arguments, task_options)).await?;
            return self.to_raw_result(&result);
        }
        let params = modern::Params::ToolCall {
            name,
            arguments: &arguments,
        };
        // One pass over the answer tells a result from a task and takes the head off.
        let modern = || self.era() == Era::Modern;
        let read = |raw| crate::raw_result::classify(raw, modern());
        let legacy = |raw| crate::raw_result::read(raw, modern());
        let raw = match self.send_call(params, options, read, legacy).await? {
            Ok(result) => return Ok(result),
            Err(raw) => raw,
        };
        let result = match self.task_start(raw)? {
            crate::tasks::TaskStart::Done(result) => *result,
            crate::tasks::TaskStart::Task(task) => {
                Box::pin(self.await_task_result(&task.task_id, &task_options)).await?
            }
        };
        self.to_raw_result(&result)
    }

    /// A result that had to be read, written back as text for [`call_tool_pass_through`](Self::call_tool_pass_through).
    fn to_raw_result(&self, result: &CallToolResult) -> Result<PassThroughResult, ClientError> {
        PassThroughResult::from_typed(result).map_err(|e| self.encode_error(CallTool::METHOD, e))
    }

    /// One `tools/call` with `params` as it is (a `task` field included): the result, or
    /// the task the server created instead.
    pub(crate) async fn call_tool_raw(
        &self,
        params: &CallToolParams,
        options: CallOptions,
    ) -> Result<crate::tasks::TaskStart, ClientError> {
        let params = self.encode_params(params)?;
        let params = modern::Params::Json(Some(&params));
        let raw = self
            .send_call(params, options, modern::classify, std::convert::identity)
            .await?;
        self.task_start(raw)
    }

    /// Sends one `tools/call` with `params` and returns the answer, read by `read` (2026-07-28)
    /// or `legacy` (2025).
    async fn send_call<R>(
        &self,
        params: modern::Params<'_>,
        options: CallOptions,
        read: impl Fn(jsonrpc::RawJson) -> Result<modern::Answer<R>, String> + Copy,
        legacy: impl FnOnce(jsonrpc::RawJson) -> R + Copy,
    ) -> Result<R, ClientError> {
        match self
            .request_json(CallTool::METHOD, params, options.clone(), read, legacy)
            .await
        {
            // A 2026-07-28 HTTP transport mirrors `x-mcp-header` arguments only for tools it
            // has seen listed: on a header mismatch, list the tools and try once more.
            Err(e)
                if self.era() == Era::Modern
                    && e.rpc_error().is_some_and(|r| {
                        r.code == mcp_proto::jsonrpc::error_codes::HEADER_MISMATCH
                    }) =>
            {
                Box::pin(async {
                    self.list_tools().await?;
                    self.request_json(CallTool::METHOD, params, options, read, legacy)
                        .await
                })
                .await
            }
            other => other,
        }
    }

    /// A `tools/call` answer read: the tool's result, or the task the server created instead.
    fn task_start(&self, raw: jsonrpc::RawJson) -> Result<crate::tasks::TaskStart, ClientError> {
        // Most answers are the tool's result: read it straight from the text. One that names a
        // task (either flavour) is read again in full.
        if let Ok(result) = jsonrpc::from_object::<CallToolResult>(raw.get()) {
            let names_task = result
                .extra
                .get("task")
                .is_some_and(serde_json::Value::is_object)
                || result
                    .extra
                    .get("resultType")
                    .and_then(serde_json::Value::as_str)
                    == Some("task");
            if !names_task {
                return Ok(self.done(result));
            }
        }
        let value = self.decode_result(CallTool::METHOD, &raw)?;
        match crate::tasks::TaskStart::read(&self.inner.name, value)? {
            crate::tasks::TaskStart::Done(result) => Ok(self.done(*result)),
            task => Ok(task),
        }
    }

    /// A tool's result as the caller gets it: under 2026-07-28 without the head.
    fn done(&self, mut result: CallToolResult) -> crate::tasks::TaskStart {
        if self.era() == Era::Modern {
            modern::drop_head(&mut result.meta, &mut result.extra);
        }
        crate::tasks::TaskStart::Done(Box::new(result))
    }

    fn encode_params<P: serde::Serialize>(
        &self,
        params: &P,
    ) -> Result<serde_json::Value, ClientError> {
        serde_json::to_value(params).map_err(|e| self.encode_error(CallTool::METHOD, e))
    }

    /// The user's handlers for server requests (they also answer a task's input requests).
    pub(crate) fn callbacks(&self) -> &crate::handler::Callbacks {
        &self.inner.options.callbacks
    }

    /// A receiver of the server's events that does not open a 2026-07-28 listen.
    pub(crate) fn events(&self) -> broadcast::Receiver<ServerEvent> {
        self.inner.handler.subscribe()
    }

    /// Every resource of the server (`resources/list`, all pages).
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.list_all::<ListResources>().await
    }

    /// Every resource template of the server (`resources/templates/list`, all pages).
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.list_all::<ListResourceTemplates>().await
    }

    /// Reads the resource at `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let mut result = self
            .send::<ReadResource>(&ReadResourceParams::new(uri), CallOptions::default())
            .await?;
        if self.era() == Era::Modern {
            modern::drop_head(&mut result.meta, &mut result.extra);
        }
        Ok(result)
    }

    /// Asks for `notifications/resources/updated` about `uri`; they arrive through
    /// [`notifications`](Self::notifications) as [`ServerEvent::ResourceUpdated`]. Under
    /// 2026-07-28 the URI joins the client's `subscriptions/listen`.
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        if self.era() == Era::Modern {
            self.change_subscription(|uris| uris.insert(uri.to_owned()));
            return Ok(());
        }
        self.send::<Subscribe>(&ResourceUriParams::new(uri), CallOptions::default())
            .await
            .map(drop)
    }

    /// Stops updates about `uri`.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
        if self.era() == Era::Modern {
            self.change_subscription(|uris| uris.remove(uri));
            return Ok(());
        }
        self.send::<Unsubscribe>(&ResourceUriParams::new(uri), CallOptions::default())
            .await
            .map(drop)
    }

    /// Every prompt of the server (`prompts/list`, all pages).
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.list_all::<ListPrompts>().await
    }

    /// Gets prompt `name` filled with `arguments`.
    pub async fn get_prompt<K, V>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult, ClientError>
    where
        K: Into<String>,
        V: Into<String>,
    {
        let arguments: BTreeMap<String, String> = arguments
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        let mut params = GetPromptParams::new(name);
        if !arguments.is_empty() {
            params.arguments = Some(arguments);
        }
        let mut result = self
            .send::<GetPrompt>(&params, CallOptions::default())
            .await?;
        if self.era() == Era::Modern {
            modern::drop_head(&mut result.meta, &mut result.extra);
        }
        Ok(result)
    }

    /// Asks the server to complete an argument (`completion/complete`).
    pub async fn complete(&self, params: CompleteParams) -> Result<CompleteResult, ClientError> {
        self.send::<Complete>(&params, CallOptions::default()).await
    }

    /// Sets the least severe level of log messages the server sends: `logging/setLevel` under
    /// 2025; under 2026-07-28 every later request asks for it in its `_meta`.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        let session = self.session(SetLevel::METHOD).await?;
        if modern_version(&session).is_some() {
            *self
                .inner
                .log_level
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = Some(level);
            return Ok(());
        }
        self.send::<SetLevel>(&SetLevelParams::new(level), CallOptions::default())
            .await
            .map(drop)
    }

    /// Checks that the server answers: `ping` under 2025, `server/discover` under 2026-07-28
    /// (which has no `ping`).
    pub async fn ping(&self) -> Result<(), ClientError> {
        let session = self.session(Ping::METHOD).await?;
        if modern_version(&session).is_some() {
            return self
                .send::<Discover>(&EmptyParams::default(), CallOptions::default())
                .await
                .map(drop);
        }
        self.send::<Ping>(&EmptyParams::default(), CallOptions::default())
            .await
            .map(drop)
    }

    /// Tells the server our roots changed (`notifications/roots/list_changed`). Under
    /// 2026-07-28 this does nothing: the server asks for roots with each request that needs them.
    pub async fn notify_roots_changed(&self) -> Result<(), ClientError> {
        let session = self.session("notifications/roots/list_changed").await?;
        if modern_version(&session).is_some() {
            return Ok(());
        }
        session
            .peer
            .notify::<mcp_proto::schema::RootsListChanged>(&EmptyParams::default())
            .await
            .map_err(|e| ClientError::from_peer(&self.inner.name, e))
    }
}

/// Holds a `subscriptions/listen` open until `stop`: opens it again when the server ends it,
/// backs off on failures and gives up after [`MAX_LISTEN_FAILURES`] in a row or when the server
/// has no such method. Holds the client weakly and its session only while a request is open.
async fn listen_loop(inner: Weak<Inner>, stop: CancellationToken, params: serde_json::Value) {
    const METHOD: &str = "subscriptions/listen";
    let mut failures = 0u32;
    while !stop.is_cancelled() {
        let prepared = async {
            let client = Client {
                inner: inner.upgrade()?,
            };
            let session = client.session(METHOD).await.ok()?;
            let version = modern_version(&session)?;
            let params = client
                .modern_meta(version)
                .ok()?
                .apply(Some(params.clone()))
                .ok()?;
            let raw = jsonrpc::to_raw(&params).ok()?;
            Some((session, raw, client.inner.name.clone()))
        };
        let Some((session, raw, name)) = prepared.await else {
            return;
        };
        let options = RequestOptions {
            timeout: Some(crate::options::MAX_TIMEOUT),
            cancel: Some(stop.clone()),
            ..Default::default()
        };
        let result = session.peer.request_raw(METHOD, Some(raw), options).await;
        drop(session);
        match result {
            Ok(_) => failures = 0,
            Err(_) if stop.is_cancelled() => return,
            Err(PeerError::Timeout { .. }) => failures = 0,
            Err(e)
                if e.rpc_error().is_some_and(|r| {
                    r.code == mcp_proto::jsonrpc::error_codes::METHOD_NOT_FOUND
                }) =>
            {
                tracing::info!(server = %name, "the server has no subscriptions/listen; no change notifications");
                return;
            }
            Err(e) => {
                failures += 1;
                if failures >= MAX_LISTEN_FAILURES {
                    tracing::warn!(server = %name, "subscriptions/listen failed {failures} times in a row; stopped listening: {e}");
                    return;
                }
                tracing::debug!(server = %name, "subscriptions/listen failed: {e}");
            }
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(backoff(failures)) => {}
        }
    }
}

/// The session's version when it speaks 2026-07-28.
fn modern_version(session: &Session) -> Option<ProtocolVersion> {
    session
        .peer
        .protocol_version()
        .filter(|v| v.is_stateless_era())
}

/// Watches a stdio server; when it dies (and the client was not closed), starts it again with
/// exponential backoff and a new handshake, up to the crash-loop limit. Holds the client only
/// weakly, so dropping the client ends the supervision.
async fn supervise(inner: Weak<Inner>, mut peer: PeerHandle, policy: RestartPolicy) {
    let mut attempt = 0u32;
    let mut started = Instant::now();
    loop {
        peer.closed().await;
        let Some(strong) = inner.upgrade() else {
            return;
        };
        // Only a live session is replaced: once `close` has set `Closed`, that state stays.
        let mut old = None;
        strong.state.send_if_modified(|state| match state {
            State::Ready(_) => {
                old = Some(std::mem::replace(state, State::Restarting));
                true
            }
            _ => false,
        });
        let Some(State::Ready(session)) = old else {
            return;
        };
        let mut last = format!("{} stopped", strong.name);
        if let Some(child) = &session.child {
            last = child.describe_end(Duration::from_secs(1)).await;
            child.shutdown().await;
        }
        drop(session);
        tracing::warn!(server = %strong.name, "server died: {last}");
        drop(strong);
        if started.elapsed() >= policy.stable_after {
            attempt = 0;
        }
        loop {
            attempt += 1;
            if attempt > policy.max_restarts {
                if let Some(strong) = inner.upgrade() {
                    let error = ClientError::CrashLoop {
                        server: strong.name.clone(),
                        restarts: policy.max_restarts,
                        last,
                    };
                    tracing::error!("{error}");
                    strong.state.send_replace(State::Failed(error));
                }
                return;
            }
            tokio::time::sleep(policy.backoff(attempt)).await;
            let Some(strong) = inner.upgrade() else {
                return;
            };
            if strong.closing.load(Ordering::Acquire) {
                return;
            }
            let Some((config, ring)) = &strong.stdio else {
                return;
            };
            // The era is known from the last start: no probe, and no second start for it.
            let options = match strong.options.negotiation {
                Negotiation::Auto => {
                    let known = strong
                        .handshake
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .protocol_version;
                    let negotiation = match Era::of(known) {
                        Era::Modern => Negotiation::Pin(known),
                        Era::Legacy => Negotiation::Legacy,
                    };
                    strong.options.clone().with_negotiation(negotiation)
                }
                _ => strong.options.clone(),
            };
            let opened = open_stdio(config, ring, &strong.name, &options, &strong.handler).await;
            match opened {
                Ok((session, handshake)) => {
                    peer = session.peer.clone();
                    let session = Arc::new(session);
                    *strong.handshake.lock().unwrap_or_else(|p| p.into_inner()) =
                        Arc::new(handshake);
                    let installed = strong.state.send_if_modified(|state| {
                        if matches!(state, State::Restarting) {
                            *state = State::Ready(session.clone());
                            true
                        } else {
                            false
                        }
                    });
                    if !installed {
                        // Closed while we were starting it.
                        session.shutdown().await;
                        return;
                    }
                    tracing::info!(server = %strong.name, attempt, "server restarted");
                    strong.handler.publish(ServerEvent::Restarted { attempt });
                    started = Instant::now();
                    break;
                }
                Err(e) => {
                    tracing::warn!(server = %strong.name, attempt, "restart failed: {e}");
                    last = e.to_string();
                }
            }
        }
    }
}
