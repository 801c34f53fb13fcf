//! The `Client`: connects to one MCP server over any transport, performs the handshake, and
//! offers typed calls. Over a stdio child it also supervises the process: a bounded close,
//! no process left behind, and (optionally) restarts with a fresh handshake.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_proto::peer::{PeerError, PeerHandle, Transport};
use mcp_proto::schema::{
    DiscoverResult, Implementation, InitializeResult, LoggingLevel, ServerCapabilities,
};
use mcp_proto::version::ProtocolVersion;
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::era::Era;
use crate::error::ClientError;
use crate::handler::{ClientHandler, ServerEvent};
use crate::listen::ListenState;
use crate::modern::{self, ModernMeta};
use crate::options::{clamp_timeout, ClientOptions};
use crate::stderr_ring::StderrRing;
use crate::stdio::StdioServerConfig;
use crate::supervisor::ChildProcess;

mod background;
mod calls;
mod connect;
mod requests;

use background::{listen_loop, supervise};
use connect::{declared_identity, open, open_stdio};
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
    /// The connection [`Client::close`] is closing, so [`Client::kill`] can still reach its child
    /// and a second `close` can wait for the first.
    closing_connection: watch::Sender<Option<Arc<Connection>>>,
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
        // The listen task holds the connection, not the client: end it with the client.
        let listen = self.listen.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(running) = listen.running.take() {
            running.cancel();
        }
    }
}

#[derive(Clone)]
enum State {
    /// Connected and initialized.
    Ready(Arc<Connection>),
    /// The server died and is being started again.
    Restarting,
    /// The restart policy gave up.
    Failed(ClientError),
    /// [`Client::close`] was called.
    Closed,
}

/// One connection: a peer, and the child process behind it if there is one.
struct Connection {
    peer: PeerHandle,
    child: Option<ChildProcess>,
}

impl Connection {
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

impl Drop for Connection {
    fn drop(&mut self) {
        // Stop the engine with the connection; a child's process group is killed by its own drop.
        self.peer.close();
    }
}

/// Forgets the connection being closed when its close ends, or is dropped half-way.
struct ClearOnDrop<'a>(&'a watch::Sender<Option<Arc<Connection>>>);

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

impl Client {
    /// Connects over any transport: offers our version (or the pinned one), accepts any version
    /// we speak, refuses others, and sends `notifications/initialized`.
    pub async fn connect<T: Transport>(
        transport: T,
        options: ClientOptions,
    ) -> Result<Client, ClientError> {
        let name = options.name.clone().unwrap_or_else(|| "server".into());
        let handler = Self::handler(&name, &options);
        let (connection, handshake) = open(transport, None, &name, &options, &handler).await?;
        Ok(Self::build(
            name, options, handler, connection, handshake, None,
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
        let (connection, handshake) = open_stdio(&config, &ring, &name, &options, &handler).await?;
        let restart = config.restart;
        let peer = connection.peer.clone();
        let client = Self::build(
            name,
            options,
            handler,
            connection,
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
        connection: Connection,
        handshake: Handshake,
        stdio: Option<(StdioServerConfig, StderrRing)>,
    ) -> Client {
        let (state, _) = watch::channel(State::Ready(Arc::new(connection)));
        Client {
            inner: Arc::new(Inner {
                name,
                options,
                handler,
                state,
                handshake: Mutex::new(Arc::new(handshake)),
                stdio,
                closing: AtomicBool::new(false),
                closing_connection: watch::Sender::new(None),
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
            State::Ready(connection) => connection.child.as_ref().map(ChildProcess::pid),
            _ => None,
        }
    }

    /// Closes the connection: closes the server's stdin, waits, SIGTERMs its process group,
    /// waits, SIGKILLs it. Bounded by the config's [`ShutdownTimeouts`](crate::ShutdownTimeouts).
    /// Calls still waiting fail with "closed locally".
    /// A second `close` while one is under way waits for it.
    pub async fn close(&self) {
        self.inner.closing.store(true, Ordering::Release);
        if let State::Ready(connection) = self.inner.state.send_replace(State::Closed) {
            self.inner
                .closing_connection
                .send_replace(Some(connection.clone()));
            let _clear = ClearOnDrop(&self.inner.closing_connection);
            connection.shutdown().await;
        } else {
            let mut closing = self.inner.closing_connection.subscribe();
            let _ = closing.wait_for(Option::is_none).await;
        }
    }

    /// Ends the connection now: calls still waiting fail (the server is told with
    /// `notifications/cancelled`) and a stdio server's whole process group is killed with
    /// SIGKILL, without the close sequence, even while a [`close`](Self::close) is under way.
    /// For when a graceful close took too long or the user insists (a second Ctrl-C).
    pub fn kill(&self) {
        self.inner.closing.store(true, Ordering::Release);
        if let State::Ready(connection) = self.inner.state.send_replace(State::Closed) {
            connection.kill();
        }
        let closing = self.inner.closing_connection.borrow().clone();
        if let Some(connection) = closing {
            connection.kill();
        }
    }

    /// Waits until the connection is gone: the server or the network closed it (a HTTP+SSE
    /// stream dropped, a child exited), the restart policy gave up, or the client was closed.
    /// A stdio server with a restart policy is usually started again right after. A
    /// Streamable HTTP connection has no stream to lose: its calls fail instead.
    pub async fn disconnected(&self) {
        let mut rx = self.inner.state.subscribe();
        loop {
            let state = rx.borrow_and_update().clone();
            match state {
                State::Ready(connection) => {
                    tokio::select! {
                        _ = connection.peer.closed() => return,
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

    /// The current connection, waiting (up to the request timeout) while a restart is under way.
    async fn connection(&self, method: &str) -> Result<Arc<Connection>, ClientError> {
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
                State::Ready(connection) => return Ok(connection),
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
}
