//! The one method table both protocol eras dispatch through: every request type a server
//! answers, the capability it belongs to, the era it exists in, and the feature services that
//! serve it.
//!
//! A request's way: the era's step before dispatch (2025, `connection.rs`: `ping`, `initialize`,
//! the lifecycle gate, the negotiated state, and the session's own methods `logging/setLevel`
//! and `resources/(un)subscribe`; 2026-07-28, `modern/`: the version, the request's own
//! capabilities and info, `server/discover`, `subscriptions/listen` and the input round) ->
//! [`dispatch`] for the feature methods, the same in both eras -> the era's step after
//! (2026-07-28: the result's head and cache hints, or `input_required`).

use mcp_proto::jsonrpc::{self, RawJson, Request};
use mcp_proto::schema::{
    CallTool, Complete, Discover, GetPrompt, Initialize, ListPrompts, ListResourceTemplates,
    ListResources, ListTools, Ping, ReadResource, RequestType, SetLevel, Subscribe,
    SubscriptionsListen, Unsubscribe,
};
use mcp_proto::ProtocolVersion;
use serde::de::DeserializeOwned;

use crate::context::Context;
use crate::error::ServerError;
use crate::modern::{ParamsRead, ResultHead};
use crate::server::Server;
use crate::tasks::TaskMethod;

/// Which list-changed notifications a client was promised.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Advertised {
    pub(crate) tools: bool,
    /// Some tool runs as a task (the `tasks` capability, or the tasks extension).
    pub(crate) tasks: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
    pub(crate) completions: bool,
}

/// Parses a request's params into their typed form; absent params read as `{}`.
pub(crate) fn parse_params<T: DeserializeOwned>(
    params: Option<&RawJson>,
) -> Result<T, ServerError> {
    let text = params.map_or("{}", |p| p.get());
    jsonrpc::from_object(text)
        .map_err(|e| ServerError::InvalidParams(format!("Invalid params: {e}")))
}

/// The requests a server answers, each named by its request type's `METHOD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    Discover,
    Listen,
    Ping,
    Initialize,
    CallTool,
    ListTools,
    ListResources,
    ListResourceTemplates,
    ReadResource,
    Subscribe,
    Unsubscribe,
    ListPrompts,
    GetPrompt,
    Complete,
    SetLevel,
    Task(TaskMethod),
}

/// The method table: every request type the server answers, keyed by its `METHOD`.
const METHODS: [(&str, Method); 20] = [
    (Discover::METHOD, Method::Discover),
    (SubscriptionsListen::METHOD, Method::Listen),
    (Ping::METHOD, Method::Ping),
    (Initialize::METHOD, Method::Initialize),
    (CallTool::METHOD, Method::CallTool),
    (ListTools::METHOD, Method::ListTools),
    (ListResources::METHOD, Method::ListResources),
    (ListResourceTemplates::METHOD, Method::ListResourceTemplates),
    (ReadResource::METHOD, Method::ReadResource),
    (Subscribe::METHOD, Method::Subscribe),
    (Unsubscribe::METHOD, Method::Unsubscribe),
    (ListPrompts::METHOD, Method::ListPrompts),
    (GetPrompt::METHOD, Method::GetPrompt),
    (Complete::METHOD, Method::Complete),
    (SetLevel::METHOD, Method::SetLevel),
    ("tasks/get", Method::Task(TaskMethod::Get)),
    ("tasks/result", Method::Task(TaskMethod::Result)),
    ("tasks/list", Method::Task(TaskMethod::List)),
    ("tasks/cancel", Method::Task(TaskMethod::Cancel)),
    ("tasks/update", Method::Task(TaskMethod::Update)),
];

impl Method {
    /// The request type named `method`, if the server answers it.
    pub(crate) fn of(method: &str) -> Option<Method> {
        METHODS
            .iter()
            .find(|(name, _)| *name == method)
            .map(|(_, m)| *m)
    }

    /// Whether this connection was offered the capability the method belongs to.
    pub(crate) fn offered(self, advertised: Advertised) -> bool {
        match self {
            Method::Ping | Method::Initialize | Method::SetLevel | Method::Discover => true,
            Method::Listen => advertised.tools || advertised.resources || advertised.prompts,
            Method::CallTool | Method::ListTools => advertised.tools,
            Method::ListResources
            | Method::ListResourceTemplates
            | Method::ReadResource
            | Method::Subscribe
            | Method::Unsubscribe => advertised.resources,
            Method::ListPrompts | Method::GetPrompt => advertised.prompts,
            Method::Complete => advertised.completions,
            Method::Task(_) => advertised.tasks,
        }
    }

    /// Whether the method exists under 2026-07-28, which removed the handshake, `ping`,
    /// `logging/setLevel` and resource subscriptions (replaced by `subscriptions/listen`).
    pub(crate) fn exists_in_modern_era(self) -> bool {
        !matches!(
            self,
            Method::Ping
                | Method::Initialize
                | Method::SetLevel
                | Method::Subscribe
                | Method::Unsubscribe
        )
    }

    /// Whether the method exists only under 2026-07-28.
    pub(crate) fn is_modern_only(self) -> bool {
        matches!(
            self,
            Method::Discover | Method::Listen | Method::Task(TaskMethod::Update)
        )
    }
}

/// What a `tools/call` carries beyond its params in each era: the 2026-07-28 params as already
/// read, and the head its result is written with.
#[derive(Clone, Copy, Default)]
pub(crate) struct CallExtras<'a> {
    pub(crate) read: Option<&'a ParamsRead<'a>>,
    pub(crate) head: Option<&'a ResultHead<'a>>,
}

/// Serves a feature method (tools, resources, prompts, completions) the same in both eras;
/// `ctx` makes the handler's context for the methods that run a handler. Methods the era's step
/// answers (or refuses) never reach here; one that does is not found.
pub(crate) async fn dispatch(
    method: Method,
    request: &Request,
    ctx: impl FnOnce() -> Context,
    server: &Server,
    version: ProtocolVersion,
    call: CallExtras<'_>,
) -> Result<RawJson, ServerError> {
    let (offers, page_size) = (server.offers(), server.page_size());
    let params = request.params.as_ref();
    match method {
        Method::CallTool => {
            let (read, head) = (call.read, call.head);
            offers.tools.call(params, read, ctx(), version, head).await
        }
        Method::ListTools => offers.tools.list(params, page_size),
        Method::ListResources => offers.resources.list(params, ctx(), page_size).await,
        Method::ListResourceTemplates => offers.resources.list_templates(params, page_size),
        Method::ReadResource => offers.resources.read(params, ctx()).await,
        Method::ListPrompts => offers.prompts.list(params, page_size),
        Method::GetPrompt => offers.prompts.get(params, ctx()).await,
        Method::Complete => {
            let (prompts, resources) = (&offers.prompts, &offers.resources);
            // Boxed: kept inline, this rare branch's future would set the size of every
            // request's future.
            Box::pin(
                offers
                    .completions
                    .complete(params, ctx(), prompts, resources),
            )
            .await
        }
        Method::Discover
        | Method::Listen
        | Method::Ping
        | Method::Initialize
        | Method::Subscribe
        | Method::Unsubscribe
        | Method::SetLevel
        | Method::Task(_) => Err(ServerError::MethodNotFound(request.method.clone())),
    }
}
