//! The servers' requests for input (elicitation, sampling, roots) as the hub passes them on:
//! [`UpstreamInput`] holds one handler per kind for every server, each told which server asks,
//! so a program in front of the hub (`mcp proxy`) can put a request to the right client of its
//! own.
//!
//! Set in [`HubOptions::input`](super::HubOptions), each handler present makes every server be
//! told the hub has that capability; a 2025 server's `elicitation/create`,
//! `sampling/createMessage` and `roots/list` requests and a 2026-07-28 server's
//! `input_required` rounds both come here.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use mcp_proto::jsonrpc::ErrorObject;
use mcp_proto::schema::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult,
};

use mcp_client::ClientOptions;
use mcp_client::HandlerFuture;

/// Answers `elicitation/create` from the named server.
pub type UpstreamElicitation =
    Arc<dyn Fn(&str, ElicitParams) -> HandlerFuture<ElicitResult> + Send + Sync>;
/// Answers `sampling/createMessage` from the named server.
pub type UpstreamSampling =
    Arc<dyn Fn(&str, CreateMessageParams) -> HandlerFuture<CreateMessageResult> + Send + Sync>;
/// Answers `roots/list` from the named server.
pub type UpstreamRoots = Arc<dyn Fn(&str) -> HandlerFuture<ListRootsResult> + Send + Sync>;

/// The hub's handlers for the servers' requests for input; a kind without one is not declared.
#[derive(Clone, Default)]
pub struct UpstreamInput {
    elicitation: Option<UpstreamElicitation>,
    sampling: Option<UpstreamSampling>,
    roots: Option<UpstreamRoots>,
}

impl fmt::Debug for UpstreamInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UpstreamInput")
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

impl UpstreamInput {
    /// No handlers: no server is told the hub can answer anything.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers elicitation: `f(server, params)`.
    pub fn with_elicitation<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(&str, ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, ErrorObject>> + Send + 'static,
    {
        self.elicitation = Some(Arc::new(move |server, params| Box::pin(f(server, params))));
        self
    }

    /// Answers sampling: `f(server, params)`.
    pub fn with_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(&str, CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, ErrorObject>> + Send + 'static,
    {
        self.sampling = Some(Arc::new(move |server, params| Box::pin(f(server, params))));
        self
    }

    /// Answers `roots/list`: `f(server)`.
    pub fn with_roots<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(&str) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ListRootsResult, ErrorObject>> + Send + 'static,
    {
        self.roots = Some(Arc::new(move |server| Box::pin(f(server))));
        self
    }

    /// The client options for `server` with its requests for input going to these handlers.
    pub(crate) fn route(&self, mut options: ClientOptions, server: &str) -> ClientOptions {
        if let Some(f) = self.elicitation.clone() {
            let server = server.to_owned();
            options = options.with_elicitation(move |params| f(&server, params));
        }
        if let Some(f) = self.sampling.clone() {
            let server = server.to_owned();
            options = options.with_sampling(move |params| f(&server, params));
        }
        if let Some(f) = self.roots.clone() {
            let server = server.to_owned();
            options = options.with_roots(move || f(&server));
        }
        options
    }
}
