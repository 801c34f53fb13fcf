//! [`ServerBuilder`]: a server's identity, options and everything it offers, collected before
//! it serves.

use std::sync::Arc;
use std::time::Duration;

use mcp_proto::schema::{self, CacheScope, Icon, Implementation, LoggingLevel};

use crate::app::App;
use crate::completion::{complete_fn, CompletionRequest, CompletionTarget, IntoCompletion};
use crate::error::{HandlerError, ServerError};
use crate::handler::{Handler, StateMap, StateType};
use crate::modern::{CacheHint, SealKey};
use crate::prompt::{IntoPromptResult, Prompt, PromptArguments};
use crate::resource::{
    list_fn, read_fn, IntoReadResult, ProviderEntry, Resource, ResourceRequest, ResourceTemplate,
};
use crate::server::{Offers, RootsHook, Server, ServerOptions, SharedParts};
use crate::shared::{InProcess, StateBackend};
use crate::tasks::{TaskOptions, TaskStore};
use crate::tool::{IntoToolResult, Tool};

/// Builds a [`Server`]: its identity, options, handlers and the shared state they may extract
/// with [`State<S>`](crate::State) (see [`state`](Self::state)).
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    options: ServerOptions,
    offers: Offers,
    on_roots_list_changed: Option<RootsHook>,
    seal_key: Option<SealKey>,
    task_store: Option<Arc<dyn TaskStore>>,
    backend: Arc<dyn StateBackend>,
    errors: Vec<String>,
    states: StateMap,
    /// What each handler registered so far reads of the shared state, checked at build time:
    /// (the handler, as messages name it; the state types it reads).
    state_needs: Vec<(String, Vec<StateType>)>,
}

impl ServerBuilder {
    /// An empty builder for the server `info` names.
    pub(crate) fn new(info: Implementation) -> Self {
        ServerBuilder {
            info,
            instructions: None,
            options: ServerOptions::default(),
            offers: Offers::default(),
            on_roots_list_changed: None,
            seal_key: None,
            task_store: None,
            backend: Arc::new(InProcess),
            errors: Vec::new(),
            states: StateMap::default(),
            state_needs: Vec::new(),
        }
    }

    /// Shares `state` with every handler: a handler takes it as a [`State<S>`](crate::State)
    /// parameter, whether it was registered before or after this call, or added while the
    /// server runs. One value per type (a second `state` of the same type replaces the
    /// first); several types may be given. Keep it cheap to clone (an `Arc`, a pool).
    pub fn state<S: Clone + Send + Sync + 'static>(mut self, state: S) -> Self {
        self.states.insert(state);
        self
    }

    /// Notes what `handler` reads of the shared state, for [`try_build`](Self::try_build).
    fn needs(&mut self, handler: impl FnOnce() -> String, types: Vec<StateType>) {
        if !types.is_empty() {
            self.state_needs.push((handler(), types));
        }
    }

    /// A human-readable title of the server (2025-06-18+).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// A description of the server (2025-11-25+).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }

    /// Icons of the server (2025-11-25+).
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.info.icons = Some(icons);
        self
    }

    /// The server's website (2025-11-25+).
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.info.website_url = Some(url.into());
        self
    }

    /// Instructions for the model, returned in `InitializeResult.instructions`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Replaces all options at once.
    pub fn options(mut self, options: ServerOptions) -> Self {
        self.options = options;
        self
    }

    /// Lists longer than `size` are paged (0: never page).
    pub fn page_size(mut self, size: usize) -> Self {
        self.options.page_size = size;
        self
    }

    /// The least severe log level sent before the client sets one.
    pub fn default_log_level(mut self, level: LoggingLevel) -> Self {
        self.options.default_log_level = level;
        self
    }

    /// At end of input, how long in-flight handlers may still run before they are cancelled
    /// (default 1 s; see [`ServerOptions::shutdown_grace`](crate::ServerOptions::shutdown_grace)).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.options.shutdown_grace = grace;
        self
    }

    /// Registers a tool and its handler: an async function of any of its typed arguments,
    /// [`State`](crate::State), [`Context`](crate::Context) and [`Meta`](crate::Meta). The
    /// input schema is derived from the arguments' type and the output schema from a
    /// [`Json<T>`](crate::Json) result, unless `tool` sets them.
    ///
    /// An arguments type that is not a JSON object (`String`, `i64`, `Vec<_>`: its schema says
    /// so) can never fit a call: [`try_build`](Self::try_build) reports it, naming the tool, and
    /// [`build`](Self::build) panics with that message.
    pub fn tool<H, T>(mut self, tool: impl Into<Tool>, handler: H) -> Self
    where
        H: Handler<T, str>,
        H::Output: IntoToolResult,
        T: 'static,
    {
        let tool = tool.into();
        self.needs(|| format!("tool {:?}", tool.name()), H::state_types());
        let added = self.offers.tools.add(tool, handler);
        if let Err(e) = added {
            self.errors.push(e.to_string());
        }
        self
    }

    /// Registers an MCP App: the tool and its handler as [`tool`](Self::tool) does, the tool
    /// linked to its view by `_meta.ui`, the view as a `ui://` resource, and the
    /// `io.modelcontextprotocol/ui` extension among the server's capabilities. See [`App`].
    pub fn app<H, T>(mut self, app: App, handler: H) -> Self
    where
        H: Handler<T, str>,
        H::Output: IntoToolResult,
        T: 'static,
    {
        let (tool, resource, read) = app.into_parts();
        self.offers.apps = true;
        self.offers.resources.add_resource(resource, read);
        self.tool(tool, handler)
    }

    /// Declares the `io.modelcontextprotocol/ui` extension without registering an [`App`]: for
    /// a server that forwards another's apps (a proxy), whose tools and views carry their
    /// `_meta.ui` already.
    pub fn apps_extension(mut self) -> Self {
        self.offers.apps = true;
        self
    }

    /// Registers a static resource and its read handler (extractors: [`ResourceRequest`],
    /// `State`, `Context`, `Meta`).
    pub fn resource<H, T>(mut self, resource: impl Into<Resource>, read: H) -> Self
    where
        H: Handler<T, ResourceRequest>,
        H::Output: IntoReadResult,
        T: 'static,
    {
        let resource = resource.into();
        let uri = &resource.definition().uri;
        self.needs(|| format!("resource {uri:?}"), H::state_types());
        self.offers.resources.add_resource(resource, read_fn(read));
        self
    }

    /// Registers a resource template and the handler that reads URIs matching it.
    /// An invalid template is reported by [`try_build`](Self::try_build).
    pub fn resource_template<H, T>(mut self, template: impl Into<ResourceTemplate>, read: H) -> Self
    where
        H: Handler<T, ResourceRequest>,
        H::Output: IntoReadResult,
        T: 'static,
    {
        let template = template.into();
        let text = &template.definition().uri_template;
        self.needs(|| format!("resource template {text:?}"), H::state_types());
        if let Err(e) = self.offers.resources.add_template(template, read_fn(read)) {
            self.errors.push(e.to_string());
        }
        self
    }

    /// Registers a dynamic set of resources: `list` is asked on every `resources/list`, `read`
    /// on reads no static resource answered (return `ServerError::ResourceNotFound` to pass).
    /// `list` returns `Result<Vec<Resource>, E>` with any error `E` a [`HandlerError`] is made
    /// from.
    pub fn resource_provider<L, LT, E, H, T>(mut self, list: L, read: H) -> Self
    where
        L: Handler<LT, (), Output = Result<Vec<schema::Resource>, E>>,
        E: Into<HandlerError> + Send + 'static,
        LT: 'static,
        H: Handler<T, ResourceRequest>,
        H::Output: IntoReadResult,
        T: 'static,
    {
        let mut types = L::state_types();
        types.extend(H::state_types());
        self.needs(|| "a resource provider".to_owned(), types);
        self.offers.resources.add_provider(ProviderEntry {
            list: list_fn(list),
            read: read_fn(read),
        });
        self
    }

    /// Registers a prompt and its handler: an async function of the arguments (a
    /// [`PromptArguments`](crate::PromptArguments) map or any type deserializable from it),
    /// `State`, `Context` and `Meta`.
    pub fn prompt<H, T>(mut self, prompt: impl Into<Prompt>, handler: H) -> Self
    where
        H: Handler<T, PromptArguments>,
        H::Output: IntoPromptResult,
        T: 'static,
    {
        let prompt = prompt.into();
        let name = &prompt.definition().name;
        self.needs(|| format!("prompt {name:?}"), H::state_types());
        self.offers.prompts.add(prompt, handler);
        self
    }

    /// Completes the values of a prompt's argument (extractors: [`CompletionRequest`],
    /// `State`, `Context`, `Meta`).
    pub fn prompt_completion<H, T>(mut self, prompt: &str, argument: &str, complete: H) -> Self
    where
        H: Handler<T, CompletionRequest>,
        H::Output: IntoCompletion,
        T: 'static,
    {
        let what = || format!("the completion of prompt {prompt:?}'s {argument:?}");
        self.needs(what, H::state_types());
        let target = CompletionTarget::Prompt(prompt.to_owned(), argument.to_owned());
        let complete = complete_fn(complete);
        self.offers.completions.add(target, complete);
        self
    }

    /// Completes the values of a resource template's variable; `uri_template` is the template
    /// text as registered.
    pub fn template_completion<H, T>(
        mut self,
        uri_template: &str,
        variable: &str,
        complete: H,
    ) -> Self
    where
        H: Handler<T, CompletionRequest>,
        H::Output: IntoCompletion,
        T: 'static,
    {
        let what = || format!("the completion of template {uri_template:?}'s {variable:?}");
        self.needs(what, H::state_types());
        let target = CompletionTarget::Template(uri_template.to_owned(), variable.to_owned());
        let complete = complete_fn(complete);
        self.offers.completions.add(target, complete);
        self
    }

    /// The key that seals 2026-07-28 `requestState`s (HMAC-SHA-256). Give every replica of a
    /// deployment the same key so a retry resumes on any of them; without one, a random key per
    /// process is used. Use at least 32 random bytes.
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.seal_key = Some(SealKey::new(key));
        self
    }

    /// Where task records are kept (default: the [`shared_state`](Self::shared_state) backend's
    /// store, else a [`MemoryTaskStore`](crate::tasks::MemoryTaskStore) of 10 000 records).
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.task_store = Some(Arc::new(store));
        self
    }

    /// Where the state replicas share lives (default [`InProcess`]: in this process): task
    /// records, 2025-era HTTP sessions with their resumable events, the change bus between
    /// replicas, and what `/readyz` reports. One call gives every store: e.g.
    /// `mcp_server_redis::RedisBackend` keeps them all in one Redis. See
    /// [`shared`](crate::shared).
    pub fn shared_state(mut self, backend: impl StateBackend) -> Self {
        self.backend = Arc::new(backend);
        self
    }

    /// How long tasks are kept and how often clients should poll them.
    pub fn task_options(mut self, options: TaskOptions) -> Self {
        self.options.tasks = options;
        self
    }

    /// `ttlMs`/`cacheScope` of 2026-07-28 list, read and discover results (default: 0 ms,
    /// private).
    pub fn cache_hint(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.options.cache_hint = CacheHint::new(ttl_ms, scope);
        self
    }

    /// Called when a client sends `notifications/roots/list_changed`.
    pub fn on_roots_list_changed(mut self, hook: impl Fn() + Send + Sync + 'static) -> Self {
        self.on_roots_list_changed = Some(Arc::new(hook));
        self
    }

    /// Builds the server, or says which registration was invalid (a bad URI template, a tool
    /// whose arguments type is not an object, a handler taking a `State` never given).
    pub fn try_build(mut self) -> Result<Server, ServerError> {
        for (handler, types) in &self.state_needs {
            for ty in types.iter().filter(|ty| !self.states.has(**ty)) {
                self.errors.push(format!(
                    "{handler} takes State<{}>, which the server was not given: add it with ServerBuilder::state",
                    ty.name()
                ));
            }
        }
        if !self.errors.is_empty() {
            return Err(ServerError::InvalidParams(self.errors.join("; ")));
        }
        Ok(Server::assemble(
            self.info,
            self.instructions,
            self.options,
            self.offers,
            self.on_roots_list_changed,
            SharedParts {
                seal_key: self.seal_key,
                task_store: self.task_store,
                backend: self.backend,
                states: self.states,
            },
        ))
    }

    /// Builds the server. Panics on an invalid registration (a bad URI template, a tool whose
    /// arguments type is not an object, a handler taking a `State` never given), an error that [`try_build`](Self::try_build) reports
    /// instead.
    pub fn build(self) -> Server {
        match self.try_build() {
            Ok(server) => server,
            Err(e) => panic!("invalid server definition: {e}"),
        }
    }
}
