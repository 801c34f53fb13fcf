//! The hub: many MCP servers as one tool set, with `server__tool` names, from the config files
//! users already have.
//!
//! [`Hub::connect`] starts every enabled server of a [`HubConfig`] at once; one that fails is
//! reported in its status and holds up nobody. The merged tool list ([`Hub::tools`]) names
//! each tool `server__tool`; [`Hub::call_tool`] routes a call back to its server under the raw
//! name and that server's timeout, after the approval step. Lists follow the servers'
//! `list_changed` notifications. [`Hub::reload`] applies a new config, restarting only the
//! servers whose connection changed.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_hub::{ExportFormat, Hub, HubConfig, HubOptions, Variables};
//! let config = HubConfig::load("mcp.json".as_ref(), &Variables::default())?;
//! let hub = Hub::connect(config, HubOptions::default()).await;
//! let result = hub.call_tool("weather__get_weather", serde_json::json!({"city": "Shenzhen"})).await?;
//! let functions = hub.export(ExportFormat::OpenAi);
//! # let _ = (result, functions);
//! hub.close().await;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod approval;
mod apps;
mod config;
mod error;
mod export;
mod filter;
mod input;
mod limits;
mod merged;
mod naming;
mod oauth;
mod observe;
mod reconnect;
mod reply;
mod result_limit;
pub mod schema_convert;
mod search;
mod server;
mod shaping;
mod tasks;
mod tool_search;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use mcp_proto::schema::{
    CallToolResult, GetPromptResult, Implementation, Prompt, ReadResourceResult, Resource,
    ResourceTemplate, Tool,
};
use serde_json::Value;

pub use approval::{approver, ApprovalFuture, ApprovalRequest, Approver, Decision};
pub use config::{
    clamp_timeout_secs, parse_header, validate_new_server, write_atomically, ConfigError,
    ConfigFormat, HubConfig, OAuthSettings, ServerConfig, TransportConfig, Variables,
};
pub use error::{result_error_kind, ErrorKind, HubError};
pub use export::{export_tools, ExportFormat, UnknownFormat};
pub use filter::{glob_match, ToolFilter, ToolOverride};
pub use input::{UpstreamElicitation, UpstreamInput, UpstreamRoots, UpstreamSampling};
pub use limits::{CallLimits, MAX_CONCURRENT_KEY, MAX_QUEUED_KEY};
pub use naming::{exposed_name, NameCollision, ToolNames, ToolRoute, MAX_NAME_LEN, SEPARATOR};
pub use oauth::authorizer_for;
pub use observe::{CallObserver, CallRecord};
pub use reconnect::{describe_wait, HubEvent, ReconnectPolicy};
pub use reply::ToolReply;
pub use result_limit::{truncation_marker, ResultLimit};
pub use search::{SearchHit, ToolIndex};
pub use server::{ServerLists, ServerSnapshot, ServerStatus};
pub use shaping::Shaping;
pub use tasks::{HubTask, HubTaskStart, TaskOwners};
pub use tool_search::{
    call_tool_arguments, call_tool_definition, presented_definition, search_mode_hub_tools,
    search_tools_arguments, search_tools_definition, CALL_TOOL, DEFAULT_SEARCH_LIMIT,
    MAX_SEARCH_LIMIT, SEARCH_TOOLS,
};

use mcp_client::{CallOptions, Client, RestartPolicy};
use server::{Changes, HubServer};

/// How a hub connects and treats calls.
#[derive(Clone)]
pub struct HubOptions {
    /// The longest one server may take to connect and initialize.
    pub connect_timeout: Duration,
    /// How long a server must be quiet after a `list_changed` before its lists are fetched.
    pub list_changed_debounce: Duration,
    /// Decides on calls of tools not in the server's `autoApprove`; `None` allows every call.
    pub approver: Option<Approver>,
    /// How results and descriptions are trimmed.
    pub shaping: Shaping,
    /// Restart policy of stdio servers (the supervisor starts a dead server again).
    pub restart: Option<RestartPolicy>,
    /// The client name and version the hub announces; the crate's own by default.
    pub client_info: Option<Implementation>,
    /// A hook every successful result passes through after shaping (redaction, logging,
    /// post-processing): it gets the server, the raw tool name and the result.
    pub on_result: Option<ResultHook>,
    /// Remembers the era each server (by URL or command line) was found to speak, so a
    /// reconnect or a config reload skips the probe.
    pub era_cache: mcp_client::EraCache,
    /// Answers the servers' requests for input (elicitation, sampling and roots, as 2025
    /// server-to-client requests or 2026-07-28 `input_required` rounds), told which server
    /// asks; with it every server is told the hub can elicit, sample and list roots. `mcp proxy`
    /// sets one that asks its own client.
    pub input: UpstreamInput,
    /// Where OAuth registrations and tokens are kept; with it, remote servers without an
    /// `Authorization` header use OAuth (a server that needs a login the store does not hold
    /// fails with "needs login"). `None` leaves OAuth off.
    pub token_store: Option<Arc<dyn mcp_client::auth::TokenStore>>,
    /// Tool search mode: a model is offered `search_tools` and `call_tool` instead of every
    /// tool (see [`Hub::model_tools`]); `mcp proxy --tool-search` sets it.
    pub tool_search: bool,
    /// Gets a record of every tool call (an audit log); `None` records nothing.
    pub on_call: Option<CallObserver>,
    /// How remote servers are connected again after a drop.
    pub reconnect: ReconnectPolicy,
    /// The hub hosts MCP Apps or passes them on (`mcp proxy`): every server is told the client
    /// renders `text/html;profile=mcp-app` views (the `io.modelcontextprotocol/ui` extension).
    pub apps: bool,
}

/// A hook over results: `(server, raw tool name, result) -> result`.
pub type ResultHook = Arc<dyn Fn(&str, &str, CallToolResult) -> CallToolResult + Send + Sync>;

impl Default for HubOptions {
    /// 30 s to connect, 250 ms debounce, no approver, no shaping, the default restart policy.
    fn default() -> Self {
        HubOptions {
            connect_timeout: Duration::from_secs(30),
            list_changed_debounce: Duration::from_millis(250),
            approver: None,
            shaping: Shaping::default(),
            restart: Some(RestartPolicy::default()),
            client_info: None,
            on_result: None,
            era_cache: Default::default(),
            input: UpstreamInput::default(),
            token_store: None,
            tool_search: false,
            on_call: None,
            reconnect: ReconnectPolicy::default(),
            apps: false,
        }
    }
}

impl std::fmt::Debug for HubOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HubOptions")
            .field("connect_timeout", &self.connect_timeout)
            .field("list_changed_debounce", &self.list_changed_debounce)
            .field("approver", &self.approver.is_some())
            .field("shaping", &self.shaping)
            .field("restart", &self.restart)
            .field("on_result", &self.on_result.is_some())
            .finish()
    }
}

impl HubOptions {
    /// Sets the approval callback.
    pub fn with_approver(mut self, approver: Approver) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Sets the result shaping.
    pub fn with_shaping(mut self, shaping: Shaping) -> Self {
        self.shaping = shaping;
        self
    }

    /// Sets the hook every successful result passes through.
    pub fn with_result_hook(
        mut self,
        hook: impl Fn(&str, &str, CallToolResult) -> CallToolResult + Send + Sync + 'static,
    ) -> Self {
        self.on_result = Some(Arc::new(hook));
        self
    }

    /// Turns tool search mode on or off.
    pub fn with_tool_search(mut self, on: bool) -> Self {
        self.tool_search = on;
        self
    }

    /// Sets the connect timeout.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }
}

/// One tool of the merged list.
#[derive(Debug, Clone, PartialEq)]
pub struct HubTool {
    /// The name a model calls it by: `server__tool` (`tool` may be an override's name).
    pub exposed: String,
    /// The server it belongs to.
    pub server: String,
    /// Its description (or the config's override), capped by the shaping rules.
    pub description: String,
    /// The server's definition, raw name included (title and description as overridden).
    pub tool: Tool,
}

/// One resource of one server.
#[derive(Debug, Clone, PartialEq)]
pub struct HubResource {
    /// The server it belongs to.
    pub server: String,
    /// The server's definition.
    pub resource: Resource,
}

/// One resource template of one server.
#[derive(Debug, Clone, PartialEq)]
pub struct HubResourceTemplate {
    /// The server it belongs to.
    pub server: String,
    /// The server's definition.
    pub template: ResourceTemplate,
}

/// One prompt of one server.
#[derive(Debug, Clone, PartialEq)]
pub struct HubPrompt {
    /// The name it is exposed under: `server__prompt`.
    pub exposed: String,
    /// The server it belongs to.
    pub server: String,
    /// The server's definition, raw name included.
    pub prompt: Prompt,
}

/// What [`Hub::reload`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReloadReport {
    /// Servers new in the config, started.
    pub added: Vec<String>,
    /// Servers gone from the config, closed.
    pub removed: Vec<String>,
    /// Servers whose connection fields changed, restarted.
    pub restarted: Vec<String>,
    /// Servers left running (their auto-approve list may have been updated).
    pub kept: Vec<String>,
}

/// Many MCP servers as one. Cheap to clone.
#[derive(Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

struct Inner {
    options: HubOptions,
    config: RwLock<HubConfig>,
    servers: RwLock<Vec<Arc<HubServer>>>,
    reload: tokio::sync::Mutex<()>,
    changes: Changes,
    /// Which server issued each task id the hub has seen.
    task_owners: TaskOwners,
    /// The merged tool list, rebuilt after changes.
    merged: merged::MergedCache,
    /// The tool search index, rebuilt after changes.
    search_cache: tool_search::SearchCache,
    /// Each server's concurrency gate.
    gates: limits::CallGates,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub")
            .field("servers", &self.server_names())
            .finish_non_exhaustive()
    }
}

impl Hub {
    /// Connects every enabled server of `config` concurrently and lists what each offers. A
    /// server that fails is reported in [`servers`](Self::servers) and does not hold up the
    /// others (each is bounded by `connect_timeout`).
    pub async fn connect(config: HubConfig, options: HubOptions) -> Hub {
        let changes = Changes::new();
        let servers = start_all(config.servers.clone(), &options, &changes).await;
        Hub {
            inner: Arc::new(Inner {
                options,
                config: RwLock::new(config),
                servers: RwLock::new(servers),
                reload: tokio::sync::Mutex::new(()),
                changes,
                task_owners: TaskOwners::default(),
                merged: Default::default(),
                search_cache: Default::default(),
                gates: Default::default(),
            }),
        }
    }

    fn all(&self) -> Vec<Arc<HubServer>> {
        self.inner
            .servers
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn find(&self, name: &str) -> Result<Arc<HubServer>, HubError> {
        mcp_proto::sync::read(&self.inner.servers)
            .iter()
            .find(|s| s.is_named(name))
            .cloned()
            .ok_or_else(|| HubError::UnknownServer { name: name.into() })
    }

    /// The config the hub runs now.
    pub fn config(&self) -> HubConfig {
        self.inner
            .config
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The options the hub was made with.
    pub fn options(&self) -> &HubOptions {
        &self.inner.options
    }

    /// The names of the configured servers, in config order.
    pub fn server_names(&self) -> Vec<String> {
        self.all().iter().map(|s| s.name()).collect()
    }

    /// Every configured server: config, status, version, lists.
    pub fn servers(&self) -> Vec<ServerSnapshot> {
        self.all().iter().map(|s| s.snapshot()).collect()
    }

    /// One server's picture.
    pub fn server(&self, name: &str) -> Result<ServerSnapshot, HubError> {
        Ok(self.find(name)?.snapshot())
    }

    /// The client of a connected server, for anything the hub does not wrap.
    pub fn client(&self, name: &str) -> Result<Client, HubError> {
        let server = self.find(name)?;
        server.client().ok_or_else(|| HubError::NotConnected {
            server: name.into(),
            reason: server.status().describe(),
        })
    }

    /// The merged tool list under exposed names, servers in config order. When two tools map
    /// to the same exposed name the first keeps it (see [`collisions`](Self::collisions)).
    pub fn tools(&self) -> Vec<HubTool> {
        self.merged().tools.iter().map(|t| (**t).clone()).collect()
    }

    /// Tools left out of [`tools`](Self::tools) because their exposed name was taken.
    pub fn collisions(&self) -> Vec<NameCollision> {
        self.merged().collisions.clone()
    }

    /// The merged list as of the last change, built again only after one.
    fn merged(&self) -> Arc<merged::MergedTools> {
        let version = self.inner.changes.version();
        self.inner.merged.get_or_build(version, || self.merge())
    }

    fn merge(&self) -> merged::MergedTools {
        let mut names = ToolNames::new();
        let mut tools = Vec::new();
        let mut collisions = Vec::new();
        for server in self.all() {
            let name = server.name();
            let filter = server.config().tool_filter.clone();
            server.with_lists(|lists| {
                // Filtered-out tools are not offered, so they cannot be resolved or called.
                for (tool, shown_name) in lists.tools.iter().filter_map(|t| filter.present(t)) {
                    match names.insert(&name, &shown_name) {
                        Ok(exposed) => tools.push(HubTool {
                            exposed,
                            server: name.clone(),
                            description: self
                                .inner
                                .options
                                .shaping
                                .description(tool.description.as_deref().unwrap_or_default()),
                            tool,
                        }),
                        Err(collision) => collisions.push(collision),
                    }
                }
            });
        }
        merged::MergedTools::new(tools, collisions)
    }

    /// Finds a tool by exposed name, or by raw name when exactly one server has it.
    pub fn resolve_tool(&self, name: &str) -> Result<Arc<HubTool>, HubError> {
        self.merged().resolve(name)
    }

    /// Calls a tool by exposed name (or unique raw name) under its server's timeout, after
    /// approval; the result is shaped. A tool that reports `isError` is still `Ok`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, HubError> {
        self.call_tool_with(name, arguments, CallOptions::default())
            .await
    }

    /// Like [`call_tool`](Self::call_tool) with per-call options (progress, cancellation; a
    /// timeout here overrides the server's). The call waits for a slot under its server's
    /// [`CallLimits`], is a span when traced, and is recorded for [`HubOptions::on_call`].
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<CallToolResult, HubError> {
        self.call_observed(name, arguments, options, false)
            .await
            .map(ToolReply::into_typed)
    }

    /// Like [`call_tool_with`](Self::call_tool_with) for a caller that hands the result on (a
    /// proxy): when the hub has nothing to do to the result of the tool's server (no
    /// [`ResultLimit`], [`Shaping`] that keeps results whole, no [`HubOptions::on_result`]),
    /// it is left as the server's JSON text, which saves reading and writing it again.
    pub async fn call_tool_reply(
        &self,
        name: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<ToolReply, HubError> {
        self.call_observed(name, arguments, options, true).await
    }

    /// A call as a span when traced, recorded for [`HubOptions::on_call`]; `unread` allows a
    /// raw result.
    async fn call_observed(
        &self,
        name: &str,
        arguments: Value,
        options: CallOptions,
        unread: bool,
    ) -> Result<ToolReply, HubError> {
        let observer = self.inner.options.on_call.as_ref();
        let span = observe::call_span(name);
        if observer.is_none() && span.is_none() {
            return self
                .call_routed(name, arguments, options, unread, None)
                .await;
        }
        let at = std::time::SystemTime::now();
        let started = std::time::Instant::now();
        let argument_bytes = observer.map_or(0, |_| observe::json_size(&arguments));
        let kept = observer
            .filter(|o| o.wants_contents())
            .map(|_| arguments.clone());
        let mut routed = None;
        let call = self.call_routed(name, arguments, options, unread, Some(&mut routed));
        let result = match &span {
            Some(span) => {
                use tracing::Instrument;
                let traced = span
                    .context
                    .clone()
                    .scope(call)
                    .instrument(span.span.clone());
                traced.await
            }
            None => call.await,
        };
        let outcome = match &result {
            Ok(r) if r.is_error() => "tool_error",
            Ok(_) => "ok",
            Err(e) => e.kind().as_str(),
        };
        if let Some(span) = &span {
            if let Some((server, _)) = &routed {
                span.record("mcp.server.name", server);
            }
            if outcome != "ok" {
                span.fail(outcome);
            }
        }
        if let Some(observer) = observer {
            let contents = observer.wants_contents();
            observer.observe(CallRecord {
                at,
                server: routed.as_ref().map(|(server, _)| server.clone()),
                tool: routed.map(|(_, tool)| tool),
                called: name.to_owned(),
                duration: started.elapsed(),
                outcome,
                error: result.as_ref().err().map(ToString::to_string),
                argument_bytes,
                result_bytes: result.as_ref().ok().map(ToolReply::json_size),
                arguments: kept,
                result: result
                    .as_ref()
                    .ok()
                    .filter(|_| contents)
                    .and_then(ToolReply::to_value),
            });
        }
        result
    }

    /// Resolves, approves, waits for a slot under the server's limits and calls; `routed`
    /// learns the server and raw tool name once resolved. With `unread`, a result the hub has
    /// nothing to do to stays raw.
    async fn call_routed(
        &self,
        name: &str,
        arguments: Value,
        mut options: CallOptions,
        unread: bool,
        routed: Option<&mut Option<(String, String)>>,
    ) -> Result<ToolReply, HubError> {
        let (tool, client, config) = self.approved_call(name, &arguments).await?;
        if let Some(routed) = routed {
            *routed = Some((tool.server.clone(), tool.tool.name.clone()));
        }
        let gate = self.inner.gates.gate(&tool.server, config.limits);
        let _slot = gate.enter(&tool.server).await?;
        options.timeout = options.timeout.or(Some(config.timeout));
        // A strict-mode model sends `null` for optional fields it leaves out.
        let arguments = schema_convert::restore_tool_arguments(&tool.tool, arguments);
        let failed = |e: mcp_client::ClientError| {
            let e = HubError::from(e);
            if e.kind() == ErrorKind::Connection {
                if let Ok(server) = self.find(&tool.server) {
                    server.suspect();
                }
            }
            e
        };
        let untouched = config.result_limit.is_unlimited()
            && self.inner.options.shaping.keeps_results()
            && self.inner.options.on_result.is_none();
        if unread && untouched {
            return client
                .call_tool_pass_through(&tool.tool.name, arguments, options)
                .await
                .map(ToolReply::PassThrough)
                .map_err(failed);
        }
        let result = client
            .call_tool_with(&tool.tool.name, arguments, options)
            .await
            .map_err(failed)?;
        Ok(ToolReply::Typed(Box::new(
            self.finish_result(&tool, result),
        )))
    }

    /// What happens to the servers (reconnects), as it happens.
    pub fn events(&self) -> tokio::sync::broadcast::Receiver<HubEvent> {
        self.inner.changes.events()
    }

    /// `(running, waiting)` calls of a server under its concurrency limit now.
    pub fn call_load(&self, server: &str) -> (usize, usize) {
        self.inner.gates.load(server).unwrap_or((0, 0))
    }

    /// Resolves a tool, asks the approver unless it is auto-approved, and finds its client.
    async fn approved_call(
        &self,
        name: &str,
        arguments: &Value,
    ) -> Result<(Arc<HubTool>, Client, Arc<ServerConfig>), HubError> {
        let tool = self.resolve_tool(name)?;
        let server = self.find(&tool.server)?;
        let config = server.config();
        if !approval::is_auto_approved(&config.auto_approve, &tool.tool.name) {
            if let Some(approver) = &self.inner.options.approver {
                let request = ApprovalRequest {
                    server: tool.server.clone(),
                    tool: tool.tool.name.clone(),
                    exposed: tool.exposed.clone(),
                    arguments: arguments.clone(),
                };
                if let Decision::Deny(reason) = approver(request).await {
                    return Err(HubError::Denied {
                        server: tool.server.clone(),
                        tool: tool.tool.name.clone(),
                        reason,
                    });
                }
            }
        }
        let client = server.client().ok_or_else(|| HubError::NotConnected {
            server: tool.server.clone(),
            reason: server.status().describe(),
        })?;
        Ok((tool, client, config))
    }

    /// Shapes a tool's result and runs the result hook.
    fn finish_result(&self, tool: &HubTool, result: CallToolResult) -> CallToolResult {
        let limit = self.result_limit(&tool.server);
        let result = if limit.is_unlimited() {
            result
        } else {
            limit.apply(result)
        };
        let shaped = self.inner.options.shaping.shape(result);
        match &self.inner.options.on_result {
            Some(hook) => hook(&tool.server, &tool.tool.name, shaped),
            None => shaped,
        }
    }

    /// A call for a model: every failure (unknown tool, denial, timeout, dead server) comes
    /// back as an `isError` result labelled with its kind, never as an `Err`.
    pub async fn call_tool_for_model(&self, name: &str, arguments: Value) -> CallToolResult {
        if let Some(refusal) = self.check_model_callable(name) {
            return refusal;
        }
        match self.call_tool(name, arguments).await {
            Ok(result) => result,
            Err(e) => e.to_tool_result(),
        }
    }

    /// Every resource of every connected server.
    pub fn resources(&self) -> Vec<HubResource> {
        let mut out = Vec::new();
        for server in self.all() {
            let name = server.name();
            server.with_lists(|l| {
                out.extend(l.resources.iter().map(|r| HubResource {
                    server: name.clone(),
                    resource: r.clone(),
                }))
            });
        }
        out
    }

    /// Every resource template of every connected server.
    pub fn resource_templates(&self) -> Vec<HubResourceTemplate> {
        let mut out = Vec::new();
        for server in self.all() {
            let name = server.name();
            server.with_lists(|l| {
                out.extend(l.templates.iter().map(|t| HubResourceTemplate {
                    server: name.clone(),
                    template: t.clone(),
                }))
            });
        }
        out
    }

    /// Every prompt of every connected server, exposed as `server__prompt`.
    pub fn prompts(&self) -> Vec<HubPrompt> {
        let mut out = Vec::new();
        for server in self.all() {
            let name = server.name();
            server.with_lists(|l| {
                out.extend(l.prompts.iter().map(|p| HubPrompt {
                    exposed: exposed_name(&name, &p.name),
                    server: name.clone(),
                    prompt: p.clone(),
                }))
            });
        }
        out
    }

    /// Reads a resource of one server.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<ReadResourceResult, HubError> {
        Ok(self.client(server)?.read_resource(uri).await?)
    }

    /// The server that lists `uri` as a resource (the first, in config order).
    pub fn resource_owner(&self, uri: &str) -> Option<String> {
        self.resources()
            .into_iter()
            .find(|r| r.resource.uri == uri)
            .map(|r| r.server)
    }

    /// Gets a prompt of one server by its raw name.
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, HubError> {
        Ok(self.client(server)?.get_prompt(name, arguments).await?)
    }

    /// Pings one server.
    pub async fn ping(&self, server: &str) -> Result<(), HubError> {
        Ok(self.client(server)?.ping().await?)
    }

    /// Fetches one server's lists again now (without waiting for `list_changed`).
    pub async fn refresh(&self, server: &str) -> Result<(), HubError> {
        self.find(server)?.refresh().await;
        self.inner.changes.bump();
        Ok(())
    }

    /// A receiver that changes whenever some server's lists were fetched again or the config
    /// was reloaded, so a follower (like mcp-cli's proxy) can re-read [`tools`](Self::tools).
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// Each connected server's instructions, in config order.
    pub fn instructions(&self) -> Vec<(String, String)> {
        self.all()
            .iter()
            .filter_map(|s| {
                let text = s.client()?.instructions()?;
                (!text.trim().is_empty()).then(|| (s.name(), text))
            })
            .collect()
    }

    /// The servers' instructions as one block for a system prompt, each labelled with its
    /// server; empty when no server gave any.
    pub fn instructions_block(&self) -> String {
        render_instructions(&self.instructions())
    }

    /// The merged tools as LLM function definitions (in tool search mode, the two search
    /// tools).
    pub fn export(&self, format: ExportFormat) -> Value {
        if self.inner.options.tool_search {
            return export_tools(&tool_search::search_mode_hub_tools(), format);
        }
        export_tools(&self.model_visible_tools(), format)
    }

    /// Applies a new config: servers whose connection fields are unchanged keep running
    /// (their auto-approve list is updated); changed ones are restarted, new ones started,
    /// removed ones closed, all concurrently.
    pub async fn reload(&self, new_config: HubConfig) -> ReloadReport {
        let _one_at_a_time = self.inner.reload.lock().await;
        let current: HashMap<String, Arc<HubServer>> =
            self.all().into_iter().map(|s| (s.name(), s)).collect();
        let mut report = ReloadReport::default();
        let mut to_start = Vec::new();
        let mut to_close = Vec::new();
        for server in &new_config.servers {
            match current.get(&server.name) {
                Some(old) if !old.config().needs_restart(server) => {
                    old.update_config(server.clone());
                    report.kept.push(server.name.clone());
                }
                Some(old) => {
                    to_close.push(old.clone());
                    to_start.push(server.clone());
                    report.restarted.push(server.name.clone());
                }
                None => {
                    to_start.push(server.clone());
                    report.added.push(server.name.clone());
                }
            }
        }
        for (name, old) in &current {
            if new_config.server(name).is_none() {
                to_close.push(old.clone());
                report.removed.push(name.clone());
            }
        }
        let (_, started) = tokio::join!(
            close_all(to_close),
            start_all(to_start, &self.inner.options, &self.inner.changes)
        );
        let mut started: HashMap<String, Arc<HubServer>> =
            started.into_iter().map(|s| (s.name(), s)).collect();
        let servers: Vec<Arc<HubServer>> = new_config
            .servers
            .iter()
            .filter_map(|s| {
                started
                    .remove(&s.name)
                    .or_else(|| current.get(&s.name).cloned())
            })
            .collect();
        *self
            .inner
            .servers
            .write()
            .unwrap_or_else(|p| p.into_inner()) = servers;
        *self.inner.config.write().unwrap_or_else(|p| p.into_inner()) = new_config;
        self.inner.changes.bump();
        report
    }

    /// Closes every connection (each bounded by its close sequence), concurrently.
    pub async fn close(&self) {
        close_all(self.all()).await;
    }

    /// Ends every connection now, killing stdio servers' process groups without grace (see
    /// [`Client::kill`]); also while a [`close`](Self::close) is under way.
    pub fn kill(&self) {
        for server in self.all() {
            server.kill();
        }
    }
}

/// Starts servers concurrently; the result keeps their order.
async fn start_all(
    configs: Vec<ServerConfig>,
    options: &HubOptions,
    changes: &Changes,
) -> Vec<Arc<HubServer>> {
    let tasks: Vec<_> = configs
        .into_iter()
        .map(|config| {
            let options = options.clone();
            let changes = changes.clone();
            let name = config.name.clone();
            let fallback = config.clone();
            (
                name,
                fallback,
                tokio::spawn(async move { HubServer::start(config, &options, changes).await }),
            )
        })
        .collect();
    let mut servers = Vec::with_capacity(tasks.len());
    for (name, fallback, task) in tasks {
        match task.await {
            Ok(server) => servers.push(server),
            Err(e) => servers.push(Arc::new(HubServer::failed(
                fallback,
                format!("starting server {name} failed: {e}"),
            ))),
        }
    }
    servers
}

/// Closes servers concurrently and waits for all of them.
async fn close_all(servers: Vec<Arc<HubServer>>) {
    let tasks: Vec<_> = servers
        .into_iter()
        .map(|s| tokio::spawn(async move { s.close().await }))
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

/// Renders instructions labelled per server, for a system prompt.
pub fn render_instructions(instructions: &[(String, String)]) -> String {
    let mut out = String::new();
    for (server, text) in instructions {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!(
            "<server_instructions server=\"{server}\">\n{}\n</server_instructions>\n",
            text.trim()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_are_labelled_per_server() {
        let block = render_instructions(&[
            ("weather".into(), "Use get_weather.\n".into()),
            ("fs".into(), "Paths are absolute.".into()),
        ]);
        assert!(block.contains(
            "<server_instructions server=\"weather\">\nUse get_weather.\n</server_instructions>"
        ));
        assert!(block.contains("server=\"fs\""));
        assert_eq!(render_instructions(&[]), "");
    }
}
