//! One server of the hub: its config, its client (when connected), its status, and its tool,
//! resource, template and prompt lists, refreshed (debounced) when the server says they
//! changed.

use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use mcp_proto::schema::{Implementation, Prompt, Resource, ResourceTemplate, Tool};
use tokio::sync::broadcast::error::RecvError;
use tokio::task::AbortHandle;

use super::config::{ServerConfig, TransportConfig};
use super::HubOptions;
use crate::http::{HttpClientConfig, LegacySseTransport, StreamableHttpTransport};
use crate::{Client, ClientError, ClientOptions, ServerEvent, StdioServerConfig};

/// Tells whoever follows the hub (the proxy) that some server's lists changed: a counter
/// bumped after every refresh and reload.
#[derive(Debug, Clone)]
pub(crate) struct Changes(Arc<tokio::sync::watch::Sender<u64>>);

impl Changes {
    /// A new counter at 0.
    pub(crate) fn new() -> Self {
        Changes(Arc::new(tokio::sync::watch::Sender::new(0)))
    }

    /// Counts one change and wakes the followers.
    pub(crate) fn bump(&self) {
        self.0.send_modify(|n| *n = n.wrapping_add(1));
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
}

impl ServerStatus {
    /// Whether the server failed only because it needs an OAuth login (`mcp login`).
    pub fn needs_login(&self) -> bool {
        matches!(self, ServerStatus::Failed(reason) if reason.contains(crate::auth::NEEDS_LOGIN))
    }

    /// `connected`, `disabled` or `failed: REASON`.
    pub fn describe(&self) -> String {
        match self {
            ServerStatus::Connected => "connected".into(),
            ServerStatus::Disabled => "disabled".into(),
            ServerStatus::Failed(reason) => format!("failed: {reason}"),
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
    pub era: Option<crate::era::Era>,
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
    config: RwLock<ServerConfig>,
    client: Option<Client>,
    status: ServerStatus,
    lists: RwLock<ServerLists>,
    watcher: Mutex<Option<AbortHandle>>,
}

impl Drop for HubServer {
    fn drop(&mut self) {
        self.stop_watching();
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
        let connected = tokio::time::timeout(options.connect_timeout, connect(&config, options))
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "no answer within {}s while connecting",
                    options.connect_timeout.as_secs()
                ))
            });
        let client = match connected {
            Ok(client) => client,
            Err(reason) => return Arc::new(Self::idle(config, ServerStatus::Failed(reason))),
        };
        let lists = fetch(&client, Dirty::ALL, ServerLists::default()).await;
        let server = Arc::new(HubServer {
            config: RwLock::new(config),
            client: Some(client.clone()),
            status: ServerStatus::Connected,
            lists: RwLock::new(lists),
            watcher: Mutex::new(None),
        });
        let task = tokio::spawn(watch(
            Arc::downgrade(&server),
            client,
            options.list_changed_debounce,
            changes,
        ));
        *mcp_proto::sync::lock(&server.watcher) = Some(task.abort_handle());
        server
    }

    /// A server that could not be started, with the reason.
    pub(crate) fn failed(config: ServerConfig, reason: String) -> HubServer {
        Self::idle(config, ServerStatus::Failed(reason))
    }

    fn idle(config: ServerConfig, status: ServerStatus) -> HubServer {
        HubServer {
            config: RwLock::new(config),
            client: None,
            status,
            lists: RwLock::new(ServerLists::default()),
            watcher: Mutex::new(None),
        }
    }

    /// The server's config now.
    pub(crate) fn config(&self) -> ServerConfig {
        self.config
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Replaces fields that need no reconnect (the auto-approve list).
    pub(crate) fn update_config(&self, config: ServerConfig) {
        *self.config.write().unwrap_or_else(|p| p.into_inner()) = config;
    }

    /// The server's name.
    pub(crate) fn name(&self) -> String {
        self.config
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .name
            .clone()
    }

    /// Its client, when connected.
    pub(crate) fn client(&self) -> Option<&Client> {
        self.client.as_ref()
    }

    /// Its status.
    pub(crate) fn status(&self) -> &ServerStatus {
        &self.status
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
        ServerSnapshot {
            config: self.config(),
            status: self.status.clone(),
            protocol_version: self
                .client
                .as_ref()
                .map(|c| c.protocol_version().to_string()),
            era: self.client.as_ref().map(Client::era),
            server_info: self.client.as_ref().map(Client::server_info),
            instructions: self.client.as_ref().and_then(Client::instructions),
            lists: self.lists(),
        }
    }

    /// Fetches every list again now.
    pub(crate) async fn refresh(&self) {
        if let Some(client) = &self.client {
            self.refresh_some(client, Dirty::ALL).await;
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
        if let Some(client) = &self.client {
            client.kill();
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
        if let Some(client) = &self.client {
            client.close().await;
        }
    }
}

/// Opens the connection the config describes; the error is the reason shown to the user.
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
            let transport = LegacySseTransport::connect(http)
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
