//! [`ServerBuilder`]: a server's identity, options and everything it offers, collected before
//! it serves.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use mcp_proto::schema::{self, Icon, Implementation, LoggingLevel};
use serde::de::DeserializeOwned;

use crate::completion::{complete_fn, CompletionRequest, CompletionTarget, IntoCompletion};
use crate::context::Context;
use crate::error::ServerError;
use crate::prompt::{IntoPromptResult, Prompt};
use crate::registry::{template_entry, Registry};
use crate::resource::{
    read_fn, IntoReadResult, ProviderEntry, Resource, ResourceRequest, ResourceTemplate,
};
use crate::server::{RootsHook, Server, ServerOptions};
use crate::tool::{IntoToolResult, Tool};

/// Builds a [`Server`].
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    options: ServerOptions,
    registry: Registry,
    on_roots_list_changed: Option<RootsHook>,
    errors: Vec<String>,
}

impl ServerBuilder {
    /// An empty builder for the server `info` names.
    pub(crate) fn new(info: Implementation) -> Self {
        ServerBuilder {
            info,
            instructions: None,
            options: ServerOptions::default(),
            registry: Registry::default(),
            on_roots_list_changed: None,
            errors: Vec::new(),
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

    /// Registers a tool and its handler: an async function of typed arguments and a context.
    pub fn tool<F, A, Fut, R>(mut self, tool: impl Into<Tool>, handler: F) -> Self
    where
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        A: DeserializeOwned + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult + 'static,
    {
        self.registry.add_tool(tool.into(), handler);
        self
    }

    /// Registers a static resource and its read handler.
    pub fn resource<F, Fut, R>(mut self, resource: impl Into<Resource>, read: F) -> Self
    where
        F: Fn(ResourceRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult + 'static,
    {
        self.registry.add_resource(resource.into(), read_fn(read));
        self
    }

    /// Registers a resource template and the handler that reads URIs matching it.
    /// An invalid template is reported by [`try_build`](Self::try_build).
    pub fn resource_template<F, Fut, R>(
        mut self,
        template: impl Into<ResourceTemplate>,
        read: F,
    ) -> Self
    where
        F: Fn(ResourceRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult + 'static,
    {
        let seq = self.registry.next_seq();
        match template_entry(template.into(), read_fn(read), seq) {
            Ok(entry) => self.registry.templates.push(Arc::new(entry)),
            Err(e) => self.errors.push(e.to_string()),
        }
        self
    }

    /// Registers a dynamic set of resources: `list` is asked on every `resources/list`, `read`
    /// on reads no static resource answered (return `ServerError::ResourceNotFound` to pass).
    pub fn resource_provider<L, LFut, F, Fut, R>(mut self, list: L, read: F) -> Self
    where
        L: Fn(Context) -> LFut + Send + Sync + 'static,
        LFut: Future<Output = Result<Vec<schema::Resource>, ServerError>> + Send + 'static,
        F: Fn(ResourceRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult + 'static,
    {
        let list = Arc::new(move |ctx| Box::pin(list(ctx)) as crate::tool::BoxFuture<_>);
        self.registry.providers.push(Arc::new(ProviderEntry {
            list,
            read: read_fn(read),
        }));
        self
    }

    /// Registers a prompt and its handler: an async function of the arguments (a
    /// [`PromptArguments`](crate::PromptArguments) map or any type deserializable from it).
    pub fn prompt<F, A, Fut, R>(mut self, prompt: impl Into<Prompt>, handler: F) -> Self
    where
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        A: DeserializeOwned + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult + 'static,
    {
        self.registry.add_prompt(prompt.into(), handler);
        self
    }

    /// Completes the values of a prompt's argument.
    pub fn prompt_completion<F, Fut, R>(mut self, prompt: &str, argument: &str, complete: F) -> Self
    where
        F: Fn(CompletionRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoCompletion + 'static,
    {
        let target = CompletionTarget::Prompt(prompt.to_owned(), argument.to_owned());
        self.registry
            .completions
            .insert(target, complete_fn(complete));
        self
    }

    /// Completes the values of a resource template's variable; `uri_template` is the template
    /// text as registered.
    pub fn template_completion<F, Fut, R>(
        mut self,
        uri_template: &str,
        variable: &str,
        complete: F,
    ) -> Self
    where
        F: Fn(CompletionRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoCompletion + 'static,
    {
        let target = CompletionTarget::Template(uri_template.to_owned(), variable.to_owned());
        self.registry
            .completions
            .insert(target, complete_fn(complete));
        self
    }

    /// Called when a client sends `notifications/roots/list_changed`.
    pub fn on_roots_list_changed(mut self, hook: impl Fn() + Send + Sync + 'static) -> Self {
        self.on_roots_list_changed = Some(Arc::new(hook));
        self
    }

    /// Builds the server, or says which registration was invalid (a bad URI template).
    pub fn try_build(self) -> Result<Server, ServerError> {
        if !self.errors.is_empty() {
            return Err(ServerError::InvalidParams(self.errors.join("; ")));
        }
        Ok(Server::assemble(
            self.info,
            self.instructions,
            self.options,
            self.registry,
            self.on_roots_list_changed,
        ))
    }

    /// Builds the server. Panics on an invalid URI template, a programming error that
    /// [`try_build`](Self::try_build) reports instead.
    pub fn build(self) -> Server {
        match self.try_build() {
            Ok(server) => server,
            Err(e) => panic!("invalid server definition: {e}"),
        }
    }
}
