//! The client's side of the peer: server-to-client requests go to the user's callbacks
//! (sampling, roots, elicitation), notifications go to subscribers through a bounded broadcast
//! channel. A capability is declared only when its callback exists; a request without one
//! gets -32601.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_proto::jsonrpc::{self, ErrorObject, Notification, RawJson, Request};
use mcp_proto::peer::{Handler, PeerHandle, RequestContext};
use mcp_proto::schema::{
    ClientCapabilities, CreateMessage, CreateMessageParams, CreateMessageResult, Elicit,
    ElicitParams, ElicitResult, ElicitationCapability, EmptyResult, ListPrompts,
    ListResourceTemplates, ListResources, ListRoots, ListRootsResult, ListTools, LoggingMessage,
    LoggingMessageParams, NotificationType, Progress, ProgressParams, PromptListChanged,
    RequestType, ResourceListChanged, ResourceUpdated, ResourceUpdatedParams, RootsCapability,
    SamplingCapability, Task, TaskNotification, TaskStatusNotification, ToolListChanged,
};
use serde::Serialize;
use tokio::sync::broadcast;

use crate::list_cache::ListCache;

/// The future a server-to-client callback returns.
pub type HandlerFuture<T> = Pin<Box<dyn Future<Output = Result<T, ErrorObject>> + Send>>;
/// Answers `sampling/createMessage`.
pub type SamplingHandler =
    Arc<dyn Fn(CreateMessageParams) -> HandlerFuture<CreateMessageResult> + Send + Sync>;
/// Answers `roots/list`.
pub type RootsHandler = Arc<dyn Fn() -> HandlerFuture<ListRootsResult> + Send + Sync>;
/// Answers `elicitation/create`.
pub type ElicitationHandler =
    Arc<dyn Fn(ElicitParams) -> HandlerFuture<ElicitResult> + Send + Sync>;

/// The user's handlers for the requests a server may send us, and the extensions declared
/// beside them.
#[derive(Clone, Default)]
pub(crate) struct Callbacks {
    /// Extensions the client declares under `capabilities.extensions`, with their settings.
    pub(crate) extensions: Option<mcp_proto::schema::JsonObject>,
    pub(crate) sampling: Option<SamplingHandler>,
    pub(crate) roots: Option<RootsHandler>,
    pub(crate) elicitation: Option<ElicitationHandler>,
    /// The elicitation handler also takes URL mode (declared as `elicitation.url`).
    pub(crate) elicitation_url: bool,
}

impl fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callbacks")
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .finish()
    }
}

impl Callbacks {
    /// The capabilities these callbacks allow us to declare, and no others.
    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities {
            sampling: self
                .sampling
                .as_ref()
                .map(|_| SamplingCapability::default()),
            roots: self.roots.as_ref().map(|_| RootsCapability {
                list_changed: Some(true),
                ..Default::default()
            }),
            elicitation: self.elicitation.as_ref().map(|_| {
                if self.elicitation_url {
                    ElicitationCapability {
                        form: Some(Default::default()),
                        url: Some(Default::default()),
                        ..Default::default()
                    }
                } else {
                    ElicitationCapability::default()
                }
            }),
            extensions: self.extensions.clone(),
            ..Default::default()
        }
    }
}

/// Something the server told us, or something that happened to the connection.
#[derive(Clone, Debug)]
pub enum ServerEvent {
    /// `notifications/message`: a log entry.
    Log(LoggingMessageParams),
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/updated`: a subscribed resource changed.
    ResourceUpdated(ResourceUpdatedParams),
    /// `notifications/progress` (also delivered to the call's own progress callback).
    Progress(ProgressParams),
    /// A task's status changed: 2025-11-25 `notifications/tasks/status`, or the 2026-07-28
    /// extension's `notifications/tasks` (read as the same [`Task`]).
    TaskStatus(Task),
    /// Any other notification, raw.
    Other {
        /// Its method.
        method: String,
        /// Its params, if any.
        params: Option<serde_json::Value>,
    },
    /// The server process died and was started again and re-initialized (restart policy);
    /// its lists may have changed.
    Restarted {
        /// How many restarts in a row this was.
        attempt: u32,
    },
}

/// The peer handler of a client: callbacks for requests, a broadcast for notifications, and
/// the list cache those notifications invalidate.
pub(crate) struct ClientHandler {
    server: String,
    callbacks: Callbacks,
    events: broadcast::Sender<ServerEvent>,
    pub(crate) lists: ListCache,
}

impl ClientHandler {
    pub(crate) fn new(server: String, callbacks: Callbacks, capacity: usize) -> Self {
        let (events, _) = broadcast::channel(capacity.max(1));
        ClientHandler {
            server,
            callbacks,
            events,
            lists: ListCache::default(),
        }
    }

    /// The capabilities we declare: one per callback that exists.
    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        self.callbacks.capabilities()
    }

    /// A new receiver of server events.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.events.subscribe()
    }

    /// Publishes an event (nobody listening is fine), first dropping the cached lists it
    /// makes stale.
    pub(crate) fn publish(&self, event: ServerEvent) {
        match &event {
            ServerEvent::ToolsListChanged => self.lists.invalidate(ListTools::METHOD),
            ServerEvent::PromptsListChanged => self.lists.invalidate(ListPrompts::METHOD),
            ServerEvent::ResourcesListChanged => {
                self.lists.invalidate(ListResources::METHOD);
                self.lists.invalidate(ListResourceTemplates::METHOD);
            }
            ServerEvent::Restarted { .. } => self.lists.clear(),
            _ => {}
        }
        let _ = self.events.send(event);
    }

    async fn serve<R: RequestType>(
        request: &Request,
        f: impl FnOnce(R::Params) -> HandlerFuture<R::Result>,
    ) -> Result<RawJson, ErrorObject> {
        let params: R::Params = request
            .params_as()
            .map_err(|e| ErrorObject::invalid_params(format!("{}: {e}", R::METHOD)))?;
        // The callback runs as its own task so that a panic in user code becomes an error
        // answer instead of a request the server waits on forever; the guard aborts it when
        // the server cancels the request (this future is dropped).
        let mut task = AbortOnDrop(tokio::spawn(f(params)));
        match (&mut task.0).await {
            Ok(result) => encode(&result?),
            Err(e) => Err(ErrorObject::internal(format!(
                "the client's {} handler failed: {e}",
                R::METHOD
            ))),
        }
    }
}

/// Aborts a spawned task when dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn encode<T: Serialize>(value: &T) -> Result<RawJson, ErrorObject> {
    jsonrpc::to_raw(value).map_err(ErrorObject::internal)
}

fn decode<N: NotificationType>(n: &Notification) -> Option<N::Params> {
    n.params_as::<N::Params>().ok()
}

impl Handler for ClientHandler {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<RawJson, ErrorObject> {
        let callbacks = &self.callbacks;
        match (request.method.as_str(), callbacks) {
            ("ping", _) => encode(&EmptyResult::default()),
            (
                CreateMessage::METHOD,
                Callbacks {
                    sampling: Some(f), ..
                },
            ) => Self::serve::<CreateMessage>(&request, |p| f(p)).await,
            (ListRoots::METHOD, Callbacks { roots: Some(f), .. }) => {
                Self::serve::<ListRoots>(&request, |_| f()).await
            }
            (
                Elicit::METHOD,
                Callbacks {
                    elicitation: Some(f),
                    ..
                },
            ) => Self::serve::<Elicit>(&request, |p| f(p)).await,
            (method, _) => {
                tracing::debug!(server = %self.server, "no handler for server request {method}");
                Err(ErrorObject::method_not_found(method))
            }
        }
    }

    fn handle_notification(&self, n: Notification, _peer: &PeerHandle) {
        let event = match n.method.as_str() {
            LoggingMessage::METHOD => decode::<LoggingMessage>(&n).map(ServerEvent::Log),
            ToolListChanged::METHOD => Some(ServerEvent::ToolsListChanged),
            ResourceListChanged::METHOD => Some(ServerEvent::ResourcesListChanged),
            PromptListChanged::METHOD => Some(ServerEvent::PromptsListChanged),
            ResourceUpdated::METHOD => {
                decode::<ResourceUpdated>(&n).map(ServerEvent::ResourceUpdated)
            }
            Progress::METHOD => decode::<Progress>(&n).map(ServerEvent::Progress),
            TaskStatusNotification::METHOD => {
                decode::<TaskStatusNotification>(&n).map(|s| ServerEvent::TaskStatus(s.task))
            }
            TaskNotification::METHOD => n
                .params_as::<serde_json::Map<String, serde_json::Value>>()
                .ok()
                .and_then(|o| crate::tasks::extension_task(o).ok())
                .map(ServerEvent::TaskStatus),
            _ => None,
        };
        let event = event.unwrap_or_else(|| ServerEvent::Other {
            params: n
                .params
                .as_ref()
                .and_then(|p| serde_json::from_str(p.get()).ok()),
            method: n.method,
        });
        self.publish(event);
    }
}
