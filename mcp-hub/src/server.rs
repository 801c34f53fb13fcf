//! One server of the hub: its config, its client (when connected), its status, and its tool,
//! resource, template and prompt lists, refreshed (debounced) when the server says they
//! changed.

use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use mcp_proto::schema::{Implementation, Prompt, Resource, ResourceTemplate, Tool};
use tokio::sync::broadcast::error::RecvError;
use tokio::task::AbortHandle;

use super::config::{ServerConfig, TransportConfig};
use super::reconnect::{describe_wait, HubEvent, ReconnectPolicy};
use super::HubOptions;
use mcp_client::http::{HttpClientConfig, HttpSseTransport, StreamableHttpTransport};
use mcp_client::{Client, ClientError, ClientOptions, ServerEvent, StdioServerConfig};

/// Tells whoever follows the hub (the proxy) that some server's lists changed: a counter
/// bumped after every refresh and reload; and what happened to servers ([`HubEvent`]s).
#[derive(Debug, Clone)]
pub(crate) struct Changes(
    Arc<tokio::sync::watch::Sender<u64>>,
    tokio::sync::broadcast::Sender<HubEvent>,
);

/// How many hub events a slow follower may miss before it is told it lagged.
const EVENTS: usize = 64;

impl Changes {
    /// A new counter at 0.
    pub(crate) fn new() -> Self {
        Changes(
            Arc::new(tokio::sync::watch::Sender::new(0)),
            tokio::sync::broadcast::channel(EVENTS).0,
        )
    }

    /// Tells the followers of [`HubEvent`]s (and the log).
    pub(crate) fn publish(&self, event: HubEvent) {
        tracing::warn!("{event}");
        let _ = self.1.send(event);
    }

    /// A follower of [`HubEvent`]s.
    pub(crate) fn events(&self) -> tokio::sync::broadcast::Receiver<HubEvent> {
        self.1.subscribe()
    }

    /// Counts one change and wakes the followers.
    pub(crate) fn bump(&self) {
        self.0.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// The count now.
    pub(crate) fn version(&self) -> u64 {
        *self.0.borrow()
    }

    /// A follower.
    pub(crate) fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.0.subscribe()
    }
}

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerStatus {
    /// Connected and initialized.
    Connected,
    /// `disabled: true` in the config; not started.
    Disabled,
    /// Could not connect; the reason says why.
    Failed(String),
    /// Lost its connection; the hub connects it again (see `hub::reconnect`).
    Reconnecting {
        /// The next attempt (1-based).
        attempt: u32,
        /// When it starts.
        next_at: std::time::Instant,
        /// Why the connection was lost, or why the last attempt failed.
        reason: String,
    },
}

impl ServerStatus {
    /// Whether the server failed only because it needs an OAuth login (`mcp login`).
    pub fn needs_login(&self) -> bool {
        matches!(self, ServerStatus::Failed(reason) if reason.contains(mcp_client::auth::NEEDS_LOGIN))
    }

    /// `connected`, `disabled` or `failed: REASON`.
    pub fn describe(&self) -> String {
        match self {
            ServerStatus::Connected => "connected".into(),
            ServerStatus::Disabled => "disabled".into(),
            ServerStatus::Failed(reason) => format!("failed: {reason}"),
            ServerStatus::Reconnecting {
                attempt,
                next_at,
                reason,
            } => format!(
                "{}: {reason}",
                describe_wait(
                    *attempt,
                    next_at.saturating_duration_since(std::time::Instant::now())
                )
            ),
        }
    }
}

/// What a server offers, as last listed.
#[derive(Debug, Clone, Default)]
pub struct ServerLists {
    /// Its tools (raw names).
    pub tools: Vec<Tool>,
    /// Its resources.
    pub resources: Vec<Resource>,
    /// Its resource templates.
    pub templates: Vec<ResourceTemplate>,
    /// Its prompts.
    pub prompts: Vec<Prompt>,
    /// Lists that could not be fetched, with the reason (the server stays connected).
    pub errors: Vec<String>,
}

/// A picture of one server at one moment, for display and decisions.
#[derive(Debug, Clone)]
pub struct ServerSnapshot {
    /// Its config.
    pub config: ServerConfig,
    /// Its status.
    pub status: ServerStatus,
    /// The negotiated protocol version, when connected.
    pub protocol_version: Option<String>,
    /// The era the server speaks with the hub, when connected.
    pub era: Option<mcp_client::Era>,
    /// The server's name and version, when connected.
    pub server_info: Option<Implementation>,
    /// Its instructions for the model, if any.
    pub instructions: Option<String>,
    /// Its lists.
    pub lists: ServerLists,
}

/// Which lists to fetch again.
#[derive(Debug, Clone, Copy, Default)]
struct Dirty {
    tools: bool,
    resources: bool,
    prompts: bool,
}

impl Dirty {
    const ALL: Dirty = Dirty {
        tools: true,
        resources: true,
        prompts: true,
    };

    fn any(self) -> bool {
        self.tools || self.resources || self.prompts
    }

    fn merge(&mut self, other: Dirty) {
        self.tools |= other.tools;
        self.resources |= other.resources;
        self.prompts |= other.prompts;
    }

    fn of(event: &ServerEvent) -> Dirty {
        match event {
            ServerEvent::ToolsListChanged => Dirty {
                tools: true,
                ..Dirty::default()
            },
            ServerEvent::ResourcesListChanged => Dirty {
                resources: true,
                ..Dirty::default()
            },
            ServerEvent::PromptsListChanged => Dirty {
                prompts: true,
                ..Dirty::default()
            },
            ServerEvent::Restarted { .. } => Dirty::ALL,
            _ => Dirty::default(),
        }
    }
}

/// One configured server and, when connected, its client and lists.
#[derive(Debug)]
pub(crate) struct HubServer {
    /// Shared, so a call takes it without copying it.
    config: RwLock<Arc<ServerConfig>>,
    link: RwLock<Link>,
    lists: RwLock<ServerLists>,
    watcher: Mutex<Option<AbortHandle>>,
    /// The reconnect supervisor of a remote server.
    supervisor: Mutex<Option<AbortHandle>>,
    /// Woken when a call suggests the connection is gone (the supervisor pings to be sure).
    suspect: Arc<tokio::sync::Notify>,
}

/// The connection as it stands: the client when connected, and the status.
#[derive(Debug)]
struct Link {
    client: Option<Client>,
    status: ServerStatus,
}

impl Drop for HubServer {
    fn drop(&mut self) {
        self.stop_watching();
        self.stop_supervising();
    }
}

impl HubServer {
    /// Connects (unless disabled), lists everything, and starts watching for list changes.
    /// Never fails: a failure becomes the status.
    pub(crate) async fn start(
        config: ServerConfig,
        options: &HubOptions,
        changes: Changes,
    ) -> Arc<HubServer> {
        if config.disabled {
            return Arc::new(Self::idle(config, ServerStatus::Disabled));
        }
        let connected = connect_within(&config, options).await;
        let client = match connected {
            Ok(client) => client,
            Err(reason) => return Arc::new(Self::idle(config, ServerStatus::Failed(reason))),
        };
        let lists = fetch(&client, Dirty::ALL, ServerLists::default()).await;
        let remote = !matches!(config.transport, TransportConfig::Stdio { .. });
        let server = Arc::new(HubServer {
            config: RwLock::new(Arc::new(config)),
            link: RwLock::new(Link {
                client: Some(client.clone()),
                status: ServerStatus::Connected,
            }),
            lists: RwLock::new(lists),
            watcher: Mutex::new(None),
            supervisor: Mutex::new(None),
            suspect: Arc::new(tokio::sync::Notify::new()),
        });
        server.start_watching(client, options.list_changed_debounce, changes.clone());
        if remote {
            let task = tokio::spawn(supervise(
                Arc::downgrade(&server),
                server.suspect.clone(),
                options.clone(),
                changes,
            ));
            *mcp_proto::sync::lock(&server.supervisor) = Some(task.abort_handle());
        }
        server
    }

    fn start_watching(self: &Arc<Self>, client: Client, debounce: Duration, changes: Changes) {
        let task = tokio::spawn(watch(Arc::downgrade(self), client, debounce, changes));
        if let Some(old) = mcp_proto::sync::lock(&self.watcher).replace(task.abort_handle()) {
            old.abort();
        }
    }

    /// Tells the supervisor a call failed for want of a connection.
    pub(crate) fn suspect(&self) {
        self.suspect.notify_one();
    }

    /// Takes the client out (closing it in the background) and shows the wait.
    fn lose(&self, status: ServerStatus) {
        self.stop_watching();
        let old = {
            let mut link = self.link.write().unwrap_or_else(|p| p.into_inner());
            link.status = status;
            link.client.take()
        };
        if let Some(old) = old {
            tokio::spawn(async move { old.close().await });
        }
    }

    fn set_status(&self, status: ServerStatus) {
        self.link.write().unwrap_or_else(|p| p.into_inner()).status = status;
    }

    /// Puts a new connection and its lists in place.
    fn install(
        self: &Arc<Self>,
        client: Client,
        lists: ServerLists,
        options: &HubOptions,
        changes: &Changes,
    ) {
        *self.lists.write().unwrap_or_else(|p| p.into_inner()) = lists;
        let old = {
            let mut link = self.link.write().unwrap_or_else(|p| p.into_inner());
            link.status = ServerStatus::Connected;
            link.client.replace(client.clone())
        };
        if let Some(old) = old {
            tokio::spawn(async move { old.close().await });
        }
        self.start_watching(client, options.list_changed_debounce, changes.clone());
    }

    /// A server that could not be started, with the reason.
    pub(crate) fn failed(config: ServerConfig, reason: String) -> HubServer {
        Self::idle(config, ServerStatus::Failed(reason))
    }

    fn idle(config: ServerConfig, status: ServerStatus) -> HubServer {
        HubServer {
            config: RwLock::new(Arc::new(config)),
            link: RwLock::new(Link {
                client: None,
                status,
            }),
            lists: RwLock::new(ServerLists::default()),
            watcher: Mutex::new(None),
            supervisor: Mutex::new(None),
            suspect: Arc::new(tokio::sync::Notify::new()),
        }
    }

    /// The server's config now.
    pub(crate) fn config(&self) -> Arc<ServerConfig> {
        self.config
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Replaces fields that need no reconnect (the auto-approve list).
    pub(crate) fn update_config(&self, config: ServerConfig) {
        *self.config.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(config);
    }

    /// The server's name.
    pub(crate) fn name(&self) -> String {
        self.config
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .name
            .clone()
    }

    /// Whether the server is called `name` (without copying its name).
    pub(crate) fn is_named(&self, name: &str) -> bool {
        mcp_proto::sync::read(&self.config).name == name
    }

    /// Its client, when connected.
    pub(crate) fn client(&self) -> Option<Client> {
        self.link
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .client
            .clone()
    }

    /// Its status.
    pub(crate) fn status(&self) -> ServerStatus {
        self.link
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .status
            .clone()
    }

    /// Its lists now.
    pub(crate) fn lists(&self) -> ServerLists {
        self.lists.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Reads the lists under a closure, without cloning them.
    pub(crate) fn with_lists<T>(&self, f: impl FnOnce(&ServerLists) -> T) -> T {
        f(&self.lists.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// A picture of the server.
    pub(crate) fn snapshot(&self) -> ServerSnapshot {
        let client = self.client();
        ServerSnapshot {
            config: ServerConfig::clone(&self.config()),
            status: self.status(),
            protocol_version: client.as_ref().map(|c| c.protocol_version().to_string()),
            era: client.as_ref().map(Client::era),
            server_info: client.as_ref().map(Client::server_info),
            instructions: client.as_ref().and_then(Client::instructions),
            lists: self.lists(),
        }
    }

    /// Fetches every list again now.
    pub(crate) async fn refresh(&self) {
        if let Some(client) = self.client() {
            self.refresh_some(&client, Dirty::ALL).await;
        }
    }

    async fn refresh_some(&self, client: &Client, dirty: Dirty) {
        let old = self.lists();
        let new = fetch(client, dirty, old).await;
        *self.lists.write().unwrap_or_else(|p| p.into_inner()) = new;
    }

    /// Ends the connection now (stdio servers are killed) and stops the watcher.
    pub(crate) fn kill(&self) {
        self.stop_watching();
        self.stop_supervising();
        if let Some(client) = self.client() {
            client.kill();
        }
    }

    fn stop_supervising(&self) {
        if let Some(task) = mcp_proto::sync::lock(&self.supervisor).take() {
            task.abort();
        }
    }

    fn stop_watching(&self) {
        if let Some(watcher) = self
            .watcher
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            watcher.abort();
        }
    }

    /// Closes the connection (bounded) and stops the watcher.
    pub(crate) async fn close(&self) {
        self.stop_watching();
        self.stop_supervising();
        if let Some(client) = self.client() {
            client.close().await;
        }
    }
}

/// Opens the connection the config describes; the error is the reason shown to the user.
/// [`connect`] bounded by the options' connect timeout.
async fn connect_within(config: &ServerConfig, options: &HubOptions) -> Result<Client, String> {
    tokio::time::timeout(options.connect_timeout, connect(config, options))
        .await
        .unwrap_or_else(|_| {
            Err(format!(
                "no answer within {}s while connecting",
                options.connect_timeout.as_secs()
            ))
        })
}

async fn connect(config: &ServerConfig, options: &HubOptions) -> Result<Client, String> {
    let mut client_options = ClientOptions::new()
        .with_name(config.name.clone())
        .with_request_timeout(config.timeout)
        .with_negotiation(config.protocol)
        .with_era_cache(options.era_cache.clone(), config.transport.identity());
    if let Some(info) = &options.client_info {
        client_options = client_options.with_client_info(info.clone());
    }
    client_options = options.input.route(client_options, &config.name);
    if options.apps {
        let (name, settings) = crate::apps::apps_declaration();
        client_options = client_options.with_extension(name, settings);
    }
    let show = |e: ClientError| e.to_string();
    match &config.transport {
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut stdio = StdioServerConfig::new(command.clone(), args.clone());
            stdio.env = env.clone();
            stdio.cwd = cwd.clone();
            stdio.restart = options.restart;
            Client::spawn_stdio(stdio, client_options)
                .await
                .map_err(show)
        }
        TransportConfig::Sse { url, headers } => {
            let http = with_oauth(http_config(url, headers), config, options)?;
            let transport = HttpSseTransport::connect(http)
                .await
                .map_err(|e| format!("{url}: {e}"))?;
            Client::connect(transport, client_options)
                .await
                .map_err(show)
        }
        TransportConfig::StreamableHttp { url, headers } => {
            let http = with_oauth(http_config(url, headers), config, options)?;
            let transport =
                StreamableHttpTransport::new(http).map_err(|e| format!("{url}: {e}"))?;
            Client::connect(transport, client_options)
                .await
                .map_err(show)
        }
    }
}

/// Adds OAuth to a remote server's connection when the hub has a token store.
fn with_oauth(
    http: HttpClientConfig,
    config: &ServerConfig,
    options: &HubOptions,
) -> Result<HttpClientConfig, String> {
    let Some(store) = &options.token_store else {
        return Ok(http);
    };
    match super::oauth::authorizer_for(config, store.clone(), None) {
        Some(Ok(authorizer)) => Ok(http.oauth(authorizer)),
        Some(Err(e)) => Err(e.to_string()),
        None => Ok(http),
    }
}

fn http_config(
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> HttpClientConfig {
    let mut config = HttpClientConfig::new(url);
    for (name, value) in headers {
        config = config.header(name.clone(), value.clone());
    }
    config
}

/// Fetches the dirty lists concurrently (only those the server declares), keeping the others.
async fn fetch(client: &Client, dirty: Dirty, mut lists: ServerLists) -> ServerLists {
    let caps = client.server_capabilities();
    let want_tools = dirty.tools && caps.tools.is_some();
    let want_resources = dirty.resources && caps.resources.is_some();
    let want_prompts = dirty.prompts && caps.prompts.is_some();
    let (tools, resources, templates, prompts) = tokio::join!(
        async { want_tools.then_some(client.list_tools().await) },
        async { want_resources.then_some(client.list_resources().await) },
        async { want_resources.then_some(client.list_resource_templates().await) },
        async { want_prompts.then_some(client.list_prompts().await) },
    );
    lists.errors.clear();
    let mut errors = Vec::new();
    match tools {
        Some(Ok(t)) => lists.tools = t,
        Some(Err(e)) => errors.push(lists_error("tools", e)),
        None => {}
    }
    match resources {
        Some(Ok(r)) => lists.resources = r,
        Some(Err(e)) => errors.push(lists_error("resources", e)),
        None => {}
    }
    match templates {
        Some(Ok(t)) => lists.templates = t,
        // Servers with resources but no templates may answer -32601; that is an empty list.
        Some(Err(e)) if e.rpc_error().is_some() => lists.templates.clear(),
        Some(Err(e)) => errors.push(lists_error("resource templates", e)),
        None => {}
    }
    match prompts {
        Some(Ok(p)) => lists.prompts = p,
        Some(Err(e)) => errors.push(lists_error("prompts", e)),
        None => {}
    }
    lists.errors = errors;
    lists
}

fn lists_error(list: &str, e: ClientError) -> String {
    format!("could not list {list}: {e}")
}

/// Refreshes the lists the server says changed, after a quiet `debounce` so a burst of
/// notifications costs one round of lists.
async fn watch(server: Weak<HubServer>, client: Client, debounce: Duration, changes: Changes) {
    let mut events = client.notifications();
    loop {
        let mut dirty = match events.recv().await {
            Ok(event) => Dirty::of(&event),
            Err(RecvError::Lagged(_)) => Dirty::ALL,
            Err(RecvError::Closed) => return,
        };
        if !dirty.any() {
            continue;
        }
        // Debounce: gather everything that arrives until the server is quiet for `debounce`
        // (but no longer than 20 debounce periods, so a chatty server still gets refreshed).
        let give_up = tokio::time::Instant::now() + debounce * 20;
        while tokio::time::Instant::now() < give_up {
            match tokio::time::timeout(debounce, events.recv()).await {
                Ok(Ok(event)) => dirty.merge(Dirty::of(&event)),
                Ok(Err(RecvError::Lagged(_))) => dirty = Dirty::ALL,
                Ok(Err(RecvError::Closed)) => return,
                Err(_) => break,
            }
        }
        let Some(server) = server.upgrade() else {
            return;
        };
        server.refresh_some(&client, dirty).await;
        changes.bump();
    }
}

/// How long a ping that checks a suspect connection may take.
const PING_TIMEOUT: Duration = Duration::from_secs(5);

/// Watches a remote server's connection and connects it anew after a drop (see
/// `hub::reconnect`). Holds the server only weakly: it ends when the server is dropped.
async fn supervise(
    server: Weak<HubServer>,
    suspect: Arc<tokio::sync::Notify>,
    options: HubOptions,
    changes: Changes,
) {
    let policy = options.reconnect;
    loop {
        let Some(client) = server.upgrade().and_then(|s| s.client()) else {
            return;
        };
        let lost = tokio::select! {
            _ = client.disconnected() => "the connection closed".to_owned(),
            _ = suspect.notified() => {
                match tokio::time::timeout(PING_TIMEOUT, client.ping()).await {
                    Ok(Ok(())) => continue,
                    Ok(Err(e)) => e.to_string(),
                    Err(_) => format!("no answer to ping within {}s", PING_TIMEOUT.as_secs()),
                }
            }
        };
        drop(client);
        if !reconnect(&server, &policy, &options, &changes, lost).await {
            return;
        }
    }
}

/// Attempts to connect until one succeeds (true) or the policy gives up or the server is gone
/// (false).
async fn reconnect(
    server: &Weak<HubServer>,
    policy: &ReconnectPolicy,
    options: &HubOptions,
    changes: &Changes,
    mut reason: String,
) -> bool {
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        let Some(strong) = server.upgrade() else {
            return false;
        };
        let name = strong.name();
        if policy.max_attempts.is_some_and(|max| attempt > max) {
            strong.set_status(ServerStatus::Failed(format!(
                "gave up reconnecting after {} attempts: {reason}",
                attempt - 1
            )));
            changes.bump();
            changes.publish(HubEvent::GaveUp {
                server: name,
                attempts: attempt - 1,
                reason,
            });
            return false;
        }
        let next_in = policy.delay(attempt);
        let status = ServerStatus::Reconnecting {
            attempt,
            next_at: std::time::Instant::now() + next_in,
            reason: reason.clone(),
        };
        if attempt == 1 {
            strong.lose(status);
        } else {
            strong.set_status(status);
        }
        let config = strong.config();
        drop(strong);
        changes.publish(HubEvent::Reconnecting {
            server: name.clone(),
            attempt,
            next_in,
            reason: reason.clone(),
        });
        tokio::time::sleep(next_in).await;
        let connected = connect_within(&config, options).await;
        match connected {
            Ok(client) => {
                let lists = fetch(&client, Dirty::ALL, ServerLists::default()).await;
                let Some(strong) = server.upgrade() else {
                    client.close().await;
                    return false;
                };
                strong.install(client, lists, options, changes);
                drop(strong);
                changes.bump();
                changes.publish(HubEvent::Reconnected {
                    server: name,
                    attempts: attempt,
                });
                return true;
            }
            Err(e) => reason = e,
        }
    }
}
