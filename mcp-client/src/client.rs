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
    EmptyParams, GetPrompt, GetPromptParams, GetPromptResult, Implementation, Initialize,
    InitializeParams, InitializeResult, Initialized, ListPrompts, ListResourceTemplates,
    ListResources, ListTools, LoggingLevel, PaginatedParams, Ping, Prompt, ReadResource,
    ReadResourceParams, ReadResourceResult, RequestType, Resource, ResourceTemplate,
    ResourceUriParams, ServerCapabilities, SetLevel, SetLevelParams, Subscribe, Tool, Unsubscribe,
};
use mcp_proto::version::{self, ProtocolVersion};
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;

use crate::error::ClientError;
use crate::handler::{ClientHandler, ServerEvent};
use crate::options::{clamp_timeout, CallOptions, ClientOptions};
use crate::stderr_ring::StderrRing;
use crate::stdio::{self, StdioServerConfig};
use crate::supervisor::{ChildProcess, RestartPolicy};

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
    /// The server's answer to `initialize`.
    pub result: InitializeResult,
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

/// `initialize` then `notifications/initialized`; refuses a version we do not speak.
async fn handshake(
    peer: &PeerHandle,
    name: &str,
    options: &ClientOptions,
    handler: &ClientHandler,
) -> Result<Handshake, ClientError> {
    let offered = options.protocol_version;
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
    let version =
        version::accept(&result.protocol_version, &ProtocolVersion::HANDSHAKE).map_err(|e| {
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
    match handshake(&session.peer, name, options, handler).await {
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
    open(transport, Some(child), name, options, handler).await
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
    pub fn notifications(&self) -> broadcast::Receiver<ServerEvent> {
        self.inner.handler.subscribe()
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
    pub async fn send<R: RequestType>(
        &self,
        params: &R::Params,
        options: CallOptions,
    ) -> Result<R::Result, ClientError> {
        let session = self.session(R::METHOD).await?;
        let request = options.to_request_options(self.inner.options.request_timeout);
        session
            .peer
            .request_with::<R>(params, request)
            .await
            .map_err(|e| ClientError::from_peer(&self.inner.name, e))
    }

    /// Sends any request by method name with JSON params, for methods we have no type for.
    pub async fn request(
        &self,
        method: &str,
        params: Option<serde_json::Value>,
        options: CallOptions,
    ) -> Result<serde_json::Value, ClientError> {
        let encode = |e: serde_json::Error| {
            ClientError::from_peer(
                &self.inner.name,
                PeerError::Encode {
                    method: method.to_owned(),
                    detail: e.to_string(),
                },
            )
        };
        let params = params
            .map(|p| jsonrpc::to_raw(&p))
            .transpose()
            .map_err(encode)?;
        let session = self.session(method).await?;
        let request = options.to_request_options(self.inner.options.request_timeout);
        let raw = session
            .peer
            .request_raw(method, params, request)
            .await
            .map_err(|e| ClientError::from_peer(&self.inner.name, e))?;
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

    /// Follows `nextCursor` through every page, up to `max_list_pages`.
    async fn list_all<R>(&self) -> Result<Vec<<R::Result as Page>::Item>, ClientError>
    where
        R: RequestType<Params = PaginatedParams>,
        R::Result: Page,
    {
        let mut items = Vec::new();
        let mut cursor: Option<Cursor> = None;
        let max = self.inner.options.max_list_pages.max(1);
        for _ in 0..max {
            let params = PaginatedParams {
                cursor: cursor.take(),
                ..Default::default()
            };
            let (page, next) = self
                .send::<R>(&params, CallOptions::default())
                .await?
                .into_parts();
            items.extend(page);
            match next {
                Some(next) => cursor = Some(next),
                None => return Ok(items),
            }
        }
        Err(ClientError::TooManyPages {
            server: self.inner.name.clone(),
            method: R::METHOD.to_owned(),
            pages: max,
        })
    }

    /// Every tool of the server (`tools/list`, all pages).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        self.list_all::<ListTools>().await
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
        self.send::<CallTool>(&params, options).await
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
        self.send::<ReadResource>(&ReadResourceParams::new(uri), CallOptions::default())
            .await
    }

    /// Asks for `notifications/resources/updated` about `uri`; they arrive through
    /// [`notifications`](Self::notifications) as [`ServerEvent::ResourceUpdated`].
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        self.send::<Subscribe>(&ResourceUriParams::new(uri), CallOptions::default())
            .await
            .map(drop)
    }

    /// Stops updates about `uri`.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
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
        self.send::<GetPrompt>(&params, CallOptions::default())
            .await
    }

    /// Asks the server to complete an argument (`completion/complete`).
    pub async fn complete(&self, params: CompleteParams) -> Result<CompleteResult, ClientError> {
        self.send::<Complete>(&params, CallOptions::default()).await
    }

    /// Sets the least severe level of log messages the server sends.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        self.send::<SetLevel>(&SetLevelParams::new(level), CallOptions::default())
            .await
            .map(drop)
    }

    /// Checks that the server answers.
    pub async fn ping(&self) -> Result<(), ClientError> {
        self.send::<Ping>(&EmptyParams::default(), CallOptions::default())
            .await
            .map(drop)
    }

    /// Tells the server our roots changed (`notifications/roots/list_changed`).
    pub async fn notify_roots_changed(&self) -> Result<(), ClientError> {
        let session = self.session("notifications/roots/list_changed").await?;
        session
            .peer
            .notify::<mcp_proto::schema::RootsListChanged>(&EmptyParams::default())
            .await
            .map_err(|e| ClientError::from_peer(&self.inner.name, e))
    }
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
            let opened =
                open_stdio(config, ring, &strong.name, &strong.options, &strong.handler).await;
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
