//! The context a handler gets with each request: progress, logging to the client, the
//! cancellation signal, the negotiated version and client info, and calls back to the client
//! (sampling, roots, elicitation, ping), each refused locally when the client did not declare
//! the capability it needs.
//!
//! Each call that waits on the client or on a task is boxed where it is awaited. A handler's
//! future holds every future it may await, so an unboxed `elicit` made every tool that could
//! ask (and seldom does) kilobytes larger on every call, copied each time the future moved.

use mcp_proto::peer::{PeerHandle, RequestContext, RequestOptions};
use mcp_proto::schema::{
    ClientCapabilities, CreateMessage, CreateMessageParams, CreateMessageResult, Elicit,
    ElicitParams, ElicitResult, Implementation, IncludeContext, InputRequest, InputResponse,
    ListRoots, ListRootsResult, LoggingLevel, LoggingMessage, LoggingMessageParams, Ping,
    ServerCapabilities,
};
use mcp_proto::{ProtocolVersion, RequestId};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::error::ServerError;

/// The client answered an input request with the wrong kind of result.
fn wrong_answer(method: &str) -> ServerError {
    ServerError::Rpc(mcp_proto::jsonrpc::ErrorObject::new(
        mcp_proto::jsonrpc::error_codes::INVALID_PARAMS,
        format!("inputResponses: the answer to a {method} input request has the wrong shape"),
    ))
}
use crate::modern::InputRound;
use crate::request_scope::RequestScope;
use crate::server::Server;
use crate::tasks::{TaskRun, TaskSlot};
use mcp_proto::schema::RequestType;
use std::sync::Arc;

/// What a tool, resource, prompt or completion handler gets with its request.
#[derive(Clone)]
pub struct Context {
    request: RequestContext,
    state: RequestScope,
    server: Server,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("request", &self.request)
            .field("version", &self.protocol_version())
            .finish()
    }
}

impl Context {
    pub(crate) fn new(request: RequestContext, state: RequestScope, server: Server) -> Self {
        Context {
            request,
            state,
            server,
        }
    }

    /// The id of the request being handled.
    pub fn request_id(&self) -> &RequestId {
        self.request.id()
    }

    /// The progress token the client sent with the request, if any.
    pub fn progress_token(&self) -> Option<&RequestId> {
        self.request.progress_token()
    }

    /// Reports progress with `notifications/progress`. Sends only when the request carried a
    /// progress token and `progress` is greater than the last value sent; returns whether it sent.
    /// In a task it also becomes the task's status message (what `tasks/get` shows); a
    /// 2026-07-28 task sends no progress notifications (the extension has none).
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> bool {
        if let Some(run) = self.task_run() {
            Box::pin(run.note_progress(progress, total, message.as_deref())).await;
            if run.modern {
                return false;
            }
        }
        Box::pin(self.request.progress(progress, total, message)).await
    }

    /// The same context as the task side of a task-eligible `tools/call`.
    pub(crate) fn with_task(mut self, slot: Arc<TaskSlot>) -> Self {
        self.state = self.state.with_task(slot);
        self
    }

    /// The task this handler runs in, once its call became one.
    fn task_run(&self) -> Option<&Arc<TaskRun>> {
        self.state.task().and_then(|slot| slot.run.get())
    }

    /// The id of the task this handler runs in, once its call became one.
    pub fn task_id(&self) -> Option<&str> {
        self.task_run().map(|run| run.id.as_str())
    }

    /// Whether this 2026-07-28 request's handler asked for input it does not have yet (MRTR).
    pub(crate) fn asked_for_input(&self) -> bool {
        self.state.input().is_some_and(InputRound::has_asks)
    }

    /// A key unique to the connection the request came on (empty under 2026-07-28).
    pub(crate) fn connection_key(&self) -> &str {
        self.state.connection()
    }

    /// Under 2025, in a task: sends request `R` to the client through the task (see
    /// `tasks::run`); `None` when not in a task.
    async fn task_request<R: RequestType>(
        &self,
        params: &R::Params,
    ) -> Option<Result<R::Result, ServerError>> {
        let run = self.task_run()?;
        let params = match serde_json::to_value(params) {
            Ok(params) => params,
            Err(e) => return Some(Err(ServerError::handler(e))),
        };
        let answer = match Box::pin(run.ask_2025(R::METHOD, params)).await {
            Ok(answer) => answer,
            Err(e) => return Some(Err(e)),
        };
        Some(
            mcp_proto::jsonrpc::from_object(answer.get())
                .map_err(|e| ServerError::handler(format!("{}: a bad answer: {e}", R::METHOD))),
        )
    }

    /// Sends a log message (`notifications/message`) when `level` is at or above the level the
    /// client set; returns whether it was sent.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) -> bool {
        self.log_to(level, None, data).await
    }

    /// Like [`log`](Self::log), naming the logger.
    pub async fn log_to(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: impl Serialize,
    ) -> bool {
        if !self.state.logs(level) {
            return false;
        }
        let data = match serde_json::to_value(data) {
            Ok(data) => data,
            Err(e) => {
                tracing::warn!("a log message could not be serialized: {e}");
                return false;
            }
        };
        let mut params = LoggingMessageParams::new(level, data);
        params.logger = logger.map(str::to_owned);
        Box::pin(self.request.notify::<LoggingMessage>(&params))
            .await
            .is_ok()
    }

    /// Cancelled when the client cancels the request or the connection shuts down; for a call
    /// that may run as a task, when the task is cancelled (`tasks/cancel`) instead, so it
    /// outlives its connection.
    pub fn cancellation(&self) -> &CancellationToken {
        match self.state.task() {
            Some(slot) => &slot.cancel,
            None => self.request.cancellation(),
        }
    }

    /// True once the request (or its task) has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        match self.state.task() {
            Some(slot) => slot.cancel.is_cancelled(),
            None => self.request.is_cancelled(),
        }
    }

    /// Resolves when the request (or its task) is cancelled; use in `tokio::select!` beside
    /// long work.
    pub async fn cancelled(&self) {
        self.cancellation().cancelled().await
    }

    /// The protocol version this request is served under.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.state.version()
    }

    /// The client's name and version, as it sent them in `initialize`.
    pub fn client_info(&self) -> Option<&Implementation> {
        Some(self.state.client_info())
    }

    /// The capabilities the client declared in `initialize`.
    pub fn client_capabilities(&self) -> Option<&ClientCapabilities> {
        Some(self.state.client_capabilities())
    }

    /// The capabilities this server declared to the client.
    pub fn server_capabilities(&self) -> &ServerCapabilities {
        self.state.server_capabilities()
    }

    /// Whom the request's bearer token speaks for: its subject, issuer, client and scopes, as
    /// the configured token verifier read them, or as the middleware of an app that mounts the
    /// [`HttpService`](crate::http::HttpService) put it in the request's extensions. `None`
    /// without authorization (stdio, or HTTP with neither). Bind per-user state (tasks, say)
    /// to [`AuthIdentity::owner_key`](crate::auth::AuthIdentity::owner_key).
    pub fn auth(&self) -> Option<&crate::auth::AuthIdentity> {
        self.state.identity()
    }

    /// The server this request came to (to add or remove tools at run time, say).
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Whether `other` is a request of the same connection (under 2025 over HTTP, the same
    /// session): e.g. to tell which of several calls a client's later request belongs to.
    /// Requests served under 2026-07-28 belong to no connection: false.
    pub fn same_connection(&self, other: &Context) -> bool {
        !self.is_modern() && !other.is_modern() && self.peer().is_same(other.peer())
    }

    /// The peer this request came from.
    pub(crate) fn peer(&self) -> &PeerHandle {
        self.request.peer()
    }

    /// The underlying request context of the peer engine.
    pub(crate) fn request_context(&self) -> &RequestContext {
        &self.request
    }

    fn require(&self, feature: &str, capability: &str, declared: bool) -> Result<(), ServerError> {
        if declared {
            return Ok(());
        }
        let missing = ServerError::ClientCapabilityMissing {
            feature: feature.to_owned(),
            capability: capability.to_owned(),
        };
        if self.is_modern() {
            // A protocol error (-32021) under 2026-07-28, also from inside a tool handler.
            return Err(ServerError::Rpc(
                missing.to_error_object(Some(self.protocol_version())),
            ));
        }
        Err(missing)
    }

    /// Asks the client's model for a message (`sampling/createMessage`). Refused locally when
    /// the client did not declare `sampling` (or `sampling.tools` for a request with tools).
    pub async fn sample(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, ServerError> {
        self.sample_with(params, RequestOptions::default()).await
    }

    /// Like [`sample`](Self::sample), with request options (timeout, progress).
    pub async fn sample_with(
        &self,
        params: CreateMessageParams,
        options: RequestOptions,
    ) -> Result<CreateMessageResult, ServerError> {
        let caps = self.client_capabilities();
        let sampling = caps.and_then(|c| c.sampling.as_ref());
        self.require("sampling/createMessage", "sampling", sampling.is_some())?;
        if params.tools.is_some() || params.tool_choice.is_some() {
            let tools = sampling.is_some_and(|s| s.tools.is_some());
            self.require("sampling with tools", "sampling.tools", tools)?;
        }
        // From 2025-11-25, `thisServer`/`allServers` need `sampling.context`.
        let wants_context = matches!(
            params.include_context,
            Some(IncludeContext::ThisServer | IncludeContext::AllServers)
        );
        if wants_context && self.protocol_version() >= ProtocolVersion::V2025_11_25 {
            let context = sampling.is_some_and(|s| s.context.is_some());
            self.require("sampling with includeContext", "sampling.context", context)?;
        }
        if self.is_modern() {
            return match Box::pin(self.input(None, "sample", InputRequest::CreateMessage(params)))
                .await?
            {
                InputResponse::Sampling(result) => Ok(result),
                _ => Err(wrong_answer("sampling/createMessage")),
            };
        }
        if let Some(answer) = Box::pin(self.task_request::<CreateMessage>(&params)).await {
            return answer;
        }
        Ok(Box::pin(self.request.request_with::<CreateMessage>(&params, options)).await?)
    }

    /// Asks the client for its roots (`roots/list`). Refused locally without `roots`.
    pub async fn list_roots(&self) -> Result<ListRootsResult, ServerError> {
        let declared = self
            .client_capabilities()
            .is_some_and(|c| c.roots.is_some());
        self.require("roots/list", "roots", declared)?;
        if self.is_modern() {
            return match Box::pin(self.input(None, "roots", InputRequest::ListRoots(None))).await? {
                InputResponse::Roots(result) => Ok(result),
                _ => Err(wrong_answer("roots/list")),
            };
        }
        if let Some(answer) = Box::pin(self.task_request::<ListRoots>(&Default::default())).await {
            return answer;
        }
        Ok(Box::pin(self.request.request::<ListRoots>(&Default::default())).await?)
    }

    /// Asks the user for input through the client (`elicitation/create`), in form or URL mode.
    /// Refused locally when the client did not declare `elicitation` (form mode: `elicitation`
    /// or `elicitation.form`; URL mode: `elicitation.url`) or the version has no elicitation.
    pub async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, ServerError> {
        self.elicit_under(None, params).await
    }

    /// Like [`elicit`](Self::elicit), with the key the ask goes under in a 2026-07-28
    /// `input_required` result (`inputRequests[key]`, answered as `inputResponses[key]`) instead
    /// of one from its place in the run; for clients that expect a given key. Under 2025 the key
    /// is not sent.
    pub async fn elicit_as(
        &self,
        key: &str,
        params: ElicitParams,
    ) -> Result<ElicitResult, ServerError> {
        self.elicit_under(Some(key), params).await
    }

    async fn elicit_under(
        &self,
        key: Option<&str>,
        params: ElicitParams,
    ) -> Result<ElicitResult, ServerError> {
        let elicitation = self
            .client_capabilities()
            .and_then(|c| c.elicitation.as_ref());
        let version_ok = self.protocol_version().has_elicitation();
        match &params {
            ElicitParams::Form(_) => {
                // An empty `elicitation: {}` means form mode (2025-06-18 had no modes).
                let form = elicitation.is_some_and(|e| e.form.is_some() || e.url.is_none());
                self.require("form elicitation", "elicitation", form && version_ok)?;
            }
            ElicitParams::Url(_) => {
                let url = elicitation.is_some_and(|e| e.url.is_some());
                self.require(
                    "URL elicitation",
                    "elicitation.url",
                    url && self.protocol_version() >= ProtocolVersion::V2025_11_25,
                )?;
            }
        }
        if self.is_modern() {
            return match Box::pin(self.input(key, "elicit", InputRequest::Elicit(params))).await? {
                InputResponse::Elicitation(result) => Ok(result),
                _ => Err(wrong_answer("elicitation/create")),
            };
        }
        if let Some(answer) = Box::pin(self.task_request::<Elicit>(&params)).await {
            return answer;
        }
        Ok(Box::pin(self.request.request::<Elicit>(&params)).await?)
    }

    /// Whether this request is served under the 2026-07-28 era (input through MRTR, no
    /// server-to-client requests).
    fn is_modern(&self) -> bool {
        self.protocol_version().is_stateless_era()
    }

    /// Under 2026-07-28: the client's answer to this input request when the retried request
    /// carries it; otherwise the request is recorded and this never returns (the handler is
    /// dropped here and the request answered `input_required`; see the crate docs on MRTR).
    async fn input(
        &self,
        key: Option<&str>,
        kind: &str,
        request: InputRequest,
    ) -> Result<InputResponse, ServerError> {
        if let Some(run) = self.task_run() {
            return run.ask_modern(key, kind, request).await;
        }
        let Some(round) = self.state.input() else {
            return Err(ServerError::handler(format!(
                "this request cannot ask the client for {kind} input under 2026-07-28: only tools/call, prompts/get and resources/read can"
            )));
        };
        match round.answer_or_ask(key, kind, request)? {
            Some(answer) => Ok(answer),
            None => std::future::pending().await,
        }
    }

    /// Tells the client that a URL-mode elicitation finished
    /// (`notifications/elicitation/complete`, 2025-11-25).
    pub async fn notify_elicitation_complete(
        &self,
        elicitation_id: &str,
    ) -> Result<(), ServerError> {
        if self.is_modern() {
            return Err(ServerError::handler(
                "notifications/elicitation/complete does not exist under 2026-07-28",
            ));
        }
        let params =
            mcp_proto::jsonrpc::to_raw(&serde_json::json!({ "elicitationId": elicitation_id }))
                .map_err(ServerError::handler)?;
        Ok(self
            .request
            .notify_raw("notifications/elicitation/complete", Some(params))
            .await?)
    }

    /// Pings the client (2025 era; 2026-07-28 has no ping).
    pub async fn ping(&self) -> Result<(), ServerError> {
        if self.is_modern() {
            return Err(ServerError::handler(
                "ping does not exist under 2026-07-28: the server sends the client no requests",
            ));
        }
        self.request.request::<Ping>(&Default::default()).await?;
        Ok(())
    }
}
