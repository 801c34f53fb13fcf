//! Human in the loop: who approves tool calls (after the servers' `autoApprove` lists, which
//! the hub checks first, as Cline does), who answers the servers' elicitation requests (form
//! and URL mode), and who allows a server's `sampling/createMessage` to be served by the
//! agent's own model. Each is a callback; the turn's event stream says when one is asked.

use std::future::Future;
use std::sync::{Arc, Mutex};

use mcp_hub::{ApprovalRequest, Approver, Decision, HubOptions};
use mcp_proto::jsonrpc::ErrorObject;
use mcp_proto::schema::{
    Content, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, SamplingContent,
};
use tokio::sync::mpsc;

use crate::event::AgentEvent;
use crate::message::{Message, Part, Role};
use crate::model::{BoxFuture, FinishReason, Model, ModelRequest};

/// Answers a server's elicitation request: `(server, params) -> result`.
pub type ElicitationCallback =
    Arc<dyn Fn(String, ElicitParams) -> BoxFuture<'static, ElicitResult> + Send + Sync>;
/// Decides whether a server's sampling request goes to the model: `(server, params) -> yes`.
pub type SamplingApproval =
    Arc<dyn Fn(String, CreateMessageParams) -> BoxFuture<'static, bool> + Send + Sync>;

/// The user's side of a session. Without callbacks every call is allowed, and servers are not
/// told the agent can elicit or sample.
#[derive(Clone, Default)]
pub struct Human {
    approver: Option<Approver>,
    elicitation: Option<ElicitationCallback>,
    sampling: Option<SamplingApproval>,
}

impl std::fmt::Debug for Human {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Human")
            .field("approver", &self.approver.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .finish()
    }
}

impl Human {
    /// Nobody asked: every call allowed, no elicitation, no sampling.
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls not in their server's `autoApprove` go to `f`.
    pub fn approve_with<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Decision> + Send + 'static,
    {
        self.approver = Some(mcp_hub::approver(f));
        self
    }

    /// Elicitation requests go to `f(server, params)`.
    pub fn elicit_with<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(String, ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.elicitation = Some(Arc::new(move |server, params| Box::pin(f(server, params))));
        self
    }

    /// Sampling requests are served by the model when `f(server, params)` says yes.
    pub fn sample_with<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(String, CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = bool> + Send + 'static,
    {
        self.sampling = Some(Arc::new(move |server, params| Box::pin(f(server, params))));
        self
    }

    /// `options` with this human's approval and the servers' requests for input routed to
    /// these callbacks (and, for sampling, to `model`), each announced on the running turn's
    /// event stream through `link`.
    pub(crate) fn wire(
        &self,
        mut options: HubOptions,
        model: Arc<dyn Model>,
        link: TurnLink,
    ) -> HubOptions {
        if let Some(approver) = self.approver.clone() {
            let link = link.clone();
            options.approver = Some(mcp_hub::approver(move |request: ApprovalRequest| {
                let approver = approver.clone();
                let link = link.clone();
                async move {
                    link.emit(AgentEvent::ApprovalNeeded {
                        server: request.server.clone(),
                        tool: request.tool.clone(),
                        exposed: request.exposed.clone(),
                        arguments: request.arguments.clone(),
                    })
                    .await;
                    approver(request).await
                }
            }));
        }
        let mut input = options.input.clone();
        if let Some(elicit) = self.elicitation.clone() {
            let link = link.clone();
            input = input
                .with_elicitation(move |server: &str, params: ElicitParams| {
                    let (elicit, link, server) = (elicit.clone(), link.clone(), server.to_owned());
                    async move {
                        let (message, mode) = match &params {
                            ElicitParams::Form(f) => (f.message.clone(), "form"),
                            ElicitParams::Url(u) => (u.message.clone(), "url"),
                        };
                        link.emit(AgentEvent::ElicitationRequested {
                            server: server.clone(),
                            message,
                            mode: mode.into(),
                        })
                        .await;
                        Ok(elicit(server, params).await)
                    }
                })
                .with_url_elicitation();
        }
        if let Some(allow) = self.sampling.clone() {
            input = input.with_sampling(move |server: &str, params: CreateMessageParams| {
                let (allow, link, model) = (allow.clone(), link.clone(), model.clone());
                let server = server.to_owned();
                async move {
                    link.emit(AgentEvent::SamplingRequested {
                        server: server.clone(),
                    })
                    .await;
                    if !allow(server, params.clone()).await {
                        return Err(ErrorObject::new(
                            -1,
                            "the user declined the sampling request",
                        ));
                    }
                    serve_sampling(model.as_ref(), &params)
                        .await
                        .map_err(|e| ErrorObject::new(-32603, e.to_string()))
                }
            });
        }
        options.input = input;
        options
    }
}

/// Where events of the input callbacks go: the running turn's stream, if a turn runs.
#[derive(Clone, Default)]
pub(crate) struct TurnLink(Arc<Mutex<Option<mpsc::Sender<AgentEvent>>>>);

impl TurnLink {
    /// Points at a turn's stream (or at none).
    pub(crate) fn attach(&self, sender: Option<mpsc::Sender<AgentEvent>>) {
        *mcp_proto::sync::lock(&self.0) = sender;
    }

    /// Sends to the running turn's stream, if any.
    pub(crate) async fn emit(&self, event: AgentEvent) {
        let sender = mcp_proto::sync::lock(&self.0).clone();
        if let Some(sender) = sender {
            let _ = sender.send(event).await;
        }
    }
}

/// Answers `sampling/createMessage` with `model`: the server's system prompt and messages
/// (text and images), its token limit, no tools.
pub async fn serve_sampling(
    model: &dyn Model,
    params: &CreateMessageParams,
) -> Result<CreateMessageResult, crate::ModelError> {
    let messages: Vec<Message> = params
        .messages
        .iter()
        .map(|m| {
            let blocks: Vec<&Content> = match &m.content {
                SamplingContent::Single(c) => vec![c],
                SamplingContent::Multiple(cs) => cs.iter().collect(),
            };
            let parts = blocks
                .into_iter()
                .map(|c| match c {
                    Content::Text(t) => Part::Text {
                        text: t.text.clone(),
                    },
                    Content::Image(i) => Part::Image {
                        mime_type: i.mime_type.clone(),
                        data: i.data.clone(),
                    },
                    other => Part::Text {
                        text: serde_json::to_string(other).unwrap_or_default(),
                    },
                })
                .collect();
            Message {
                role: match m.role {
                    mcp_proto::schema::Role::User => Role::User,
                    mcp_proto::schema::Role::Assistant => Role::Assistant,
                },
                parts,
            }
        })
        .collect();
    let system = params.system_prompt.clone().unwrap_or_default();
    let request = ModelRequest {
        system: &system,
        messages: &messages,
        tools: &serde_json::Value::Null,
        max_tokens: u32::try_from(params.max_tokens).ok(),
    };
    let reply = model.stream(request).await?.collect().await?;
    let mut result = CreateMessageResult::text(model.name(), reply.text);
    result.stop_reason = Some(
        match reply.finish {
            Some(FinishReason::Length) => "maxTokens",
            _ => "endTurn",
        }
        .into(),
    );
    Ok(result)
}
