//! The loop: the model answers; while it asks for tool calls, they run (concurrently, within the
//! hub's per-server limits) and their results go back to it; a step limit, a per-call timeout
//! and a time budget bound it, and cancelling a turn cancels the calls in flight.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_client::CallOptions;
use mcp_hub::{Hub, HubConfig, HubOptions};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::error::AgentError;
use crate::event::{AgentEvent, StopReason};
use crate::human::{Human, TurnLink};
use crate::message::{Message, Part, ResultPart, Role, ToolCall, ToolResult};
use crate::model::{Delta, Model, ModelRequest, Reply, Usage};
use crate::offer::{self, OfferCache};
use crate::result_view::model_view;

/// How many events a turn may have waiting for its reader.
const EVENT_QUEUE: usize = 1024;

/// How a turn runs.
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// The user's system prompt; the servers' instructions are added after it.
    pub system_prompt: String,
    /// The most model calls per turn (default 20).
    pub max_steps: usize,
    /// The timeout of each tool call (`None`: each server's own).
    pub call_timeout: Option<Duration>,
    /// The longest a whole turn may take (`None`: no limit).
    pub budget: Option<Duration>,
    /// Past this many tools the model gets `search_tools`/`call_tool` instead (default 40).
    pub tool_search_threshold: usize,
    /// The most tokens per answer (`None`: the provider's setting).
    pub max_tokens: Option<u32>,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            system_prompt: String::new(),
            max_steps: 20,
            call_timeout: None,
            budget: None,
            tool_search_threshold: 40,
            max_tokens: None,
        }
    }
}

/// A model calling a hub's tools in a loop. Cheap to clone; clones share the conversation.
#[derive(Clone)]
pub struct Agent {
    inner: Arc<Inner>,
}

struct Inner {
    hub: Hub,
    model: Arc<dyn Model>,
    options: AgentOptions,
    link: TurnLink,
    offers: OfferCache,
    conversation: tokio::sync::Mutex<Vec<Message>>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("model", &self.inner.model.name())
            .field("hub", &self.inner.hub)
            .finish_non_exhaustive()
    }
}

/// Builds an [`Agent`]: its model, options and human, over a hub it connects or is given.
pub struct AgentBuilder {
    model: Arc<dyn Model>,
    options: AgentOptions,
    human: Human,
    link: TurnLink,
}

impl AgentBuilder {
    /// Sets the turn options.
    pub fn options(mut self, options: AgentOptions) -> Self {
        self.options = options;
        self
    }

    /// Sets the system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.options.system_prompt = prompt.into();
        self
    }

    /// Sets who approves calls and answers elicitation and sampling requests.
    pub fn human(mut self, human: Human) -> Self {
        self.human = human;
        self
    }

    /// The hub options with this agent's approval, elicitation and sampling wired in, for a
    /// hub the caller connects and hands to [`build`](Self::build).
    pub fn hub_options(&self, options: HubOptions) -> HubOptions {
        self.human
            .wire(options, self.model.clone(), self.link.clone())
    }

    /// Connects the servers of `config` and builds the agent over them.
    pub async fn connect(self, config: HubConfig, options: HubOptions) -> Agent {
        let hub = Hub::connect(config, self.hub_options(options)).await;
        self.build(hub)
    }

    /// The agent over `hub` (connected with [`hub_options`](Self::hub_options) for the
    /// human's callbacks to be asked).
    pub fn build(self, hub: Hub) -> Agent {
        Agent {
            inner: Arc::new(Inner {
                hub,
                model: self.model,
                options: self.options,
                link: self.link,
                offers: OfferCache::default(),
                conversation: tokio::sync::Mutex::new(Vec::new()),
            }),
        }
    }
}

impl Agent {
    /// A builder for an agent of `model`.
    pub fn builder(model: Arc<dyn Model>) -> AgentBuilder {
        AgentBuilder {
            model,
            options: AgentOptions::default(),
            human: Human::default(),
            link: TurnLink::default(),
        }
    }

    /// An agent of `model` over `hub` with default options (approval as the hub has it).
    pub fn new(hub: Hub, model: Arc<dyn Model>) -> Agent {
        Agent::builder(model).build(hub)
    }

    /// The hub.
    pub fn hub(&self) -> &Hub {
        &self.inner.hub
    }

    /// The model.
    pub fn model(&self) -> &Arc<dyn Model> {
        &self.inner.model
    }

    /// The options.
    pub fn options(&self) -> &AgentOptions {
        &self.inner.options
    }

    /// The conversation so far.
    pub async fn conversation(&self) -> Vec<Message> {
        self.inner.conversation.lock().await.clone()
    }

    /// Replaces the conversation (to resume a transcript, or with an empty one to clear it).
    pub async fn set_conversation(&self, messages: Vec<Message>) {
        *self.inner.conversation.lock().await = messages;
    }

    /// The system prompt: the user's, then each server's instructions labelled with its name.
    pub fn system_prompt(&self) -> String {
        let instructions = self.inner.hub.instructions_block();
        let own = self.inner.options.system_prompt.trim();
        match (own.is_empty(), instructions.is_empty()) {
            (true, _) => instructions,
            (false, true) => own.to_owned(),
            (false, false) => format!(
                "{own}\n\nThe connected MCP servers gave these instructions:\n{instructions}"
            ),
        }
    }

    /// A turn with the user's `prompt`; its events come from the returned [`Turn`], which runs
    /// it while they are read ([`Turn::next`], [`Turn::finish`]), on the reader's task like a
    /// stream (parallel tool calls get tasks of their own). Turns run one after another.
    pub fn send(&self, prompt: impl Into<String>) -> Turn {
        let (sender, events) = mpsc::channel(EVENT_QUEUE);
        let cancel = CancellationToken::new();
        let running = self
            .clone()
            .run_turn(prompt.into(), Events(Some(sender)), cancel.clone());
        Turn {
            events,
            cancel,
            running: Some(Box::pin(running)),
            summary: None,
        }
    }

    /// Runs a turn to its end and returns the answer text; a turn that did not complete is an
    /// error (the model's failure, or a cancellation), except for the step limit and budget,
    /// which return the text so far.
    pub async fn run(&self, prompt: impl Into<String>) -> Result<String, AgentError> {
        // On the caller's task, with nobody to tell: no events are made.
        let summary = self
            .clone()
            .run_turn(prompt.into(), Events(None), CancellationToken::new())
            .await;
        match summary.error {
            Some(e) => Err(e),
            None if summary.reason == StopReason::Cancelled => Err(AgentError::Cancelled),
            None => Ok(summary.text),
        }
    }

    async fn run_turn(
        self,
        prompt: String,
        events: Events,
        cancel: CancellationToken,
    ) -> TurnSummary {
        let mut conversation = self.inner.conversation.lock().await;
        self.inner.link.attach(events.0.clone());
        let budget = self.inner.options.budget.map(|b| {
            let cancel = cancel.clone();
            let timer = tokio::spawn(async move {
                tokio::time::sleep(b).await;
                cancel.cancel();
            });
            (Instant::now() + b, timer)
        });
        conversation.push(Message::user(prompt));
        let mut summary = self.turn_steps(&mut conversation, &events, &cancel).await;
        if let Some((deadline, timer)) = budget {
            timer.abort();
            if summary.reason == StopReason::Cancelled && Instant::now() >= deadline {
                summary.reason = StopReason::Budget;
            }
        }
        self.inner.link.attach(None);
        events
            .emit(|| AgentEvent::TurnFinished {
                reason: summary.reason,
                steps: summary.steps,
                usage: summary.usage,
                error: summary.error.as_ref().map(ToString::to_string),
            })
            .await;
        summary
    }

    async fn turn_steps(
        &self,
        conversation: &mut Vec<Message>,
        events: &Events,
        cancel: &CancellationToken,
    ) -> TurnSummary {
        let model = &self.inner.model;
        let options = &self.inner.options;
        let system = self.system_prompt();
        let mut summary = TurnSummary {
            text: String::new(),
            reason: StopReason::Completed,
            steps: 0,
            usage: Usage::default(),
            error: None,
        };
        while summary.steps < options.max_steps {
            let offer = self.inner.offers.offer(
                &self.inner.hub,
                model.tool_format(),
                options.tool_search_threshold,
            );
            summary.steps += 1;
            let request = ModelRequest {
                system: &system,
                messages: conversation,
                tools: &offer.tools,
                max_tokens: options.max_tokens,
            };
            let reply = tokio::select! {
                reply = stream_reply(model.as_ref(), request, events) => reply,
                _ = cancel.cancelled() => {
                    summary.reason = StopReason::Cancelled;
                    return summary;
                }
            };
            let reply = match reply {
                Ok(reply) => reply,
                Err(e) => {
                    summary.reason = StopReason::Error;
                    summary.error = Some(e.into());
                    return summary;
                }
            };
            summary.usage.add(reply.usage);
            events
                .emit(|| AgentEvent::Usage {
                    input_tokens: reply.usage.input_tokens,
                    output_tokens: reply.usage.output_tokens,
                })
                .await;
            let message = reply.to_message();
            if !message.parts.is_empty() {
                conversation.push(message);
            }
            summary.text = reply.text.clone();
            if reply.tool_calls.is_empty() {
                return summary;
            }
            let results = self
                .run_calls(&reply.tool_calls, offer.search, events, cancel)
                .await;
            conversation.push(Message {
                role: Role::User,
                parts: results.into_iter().map(Part::ToolResult).collect(),
            });
            if cancel.is_cancelled() {
                summary.reason = StopReason::Cancelled;
                return summary;
            }
        }
        summary.reason = StopReason::MaxSteps;
        summary
    }

    /// Runs the calls of one answer concurrently; results in the calls' order.
    async fn run_calls(
        &self,
        calls: &[ToolCall],
        search: bool,
        events: &Events,
        cancel: &CancellationToken,
    ) -> Vec<ToolResult> {
        if let [call] = calls {
            return vec![self.run_call(call, search, events, cancel).await];
        }
        let mut tasks = tokio::task::JoinSet::new();
        for (index, call) in calls.iter().enumerate() {
            let (agent, call, events, cancel) =
                (self.clone(), call.clone(), events.clone(), cancel.clone());
            tasks.spawn(
                async move { (index, agent.run_call(&call, search, &events, &cancel).await) },
            );
        }
        let mut results: Vec<Option<ToolResult>> = vec![None; calls.len()];
        while let Some(done) = tasks.join_next().await {
            if let Ok((index, result)) = done {
                results[index] = Some(result);
            }
        }
        results
            .into_iter()
            .zip(calls)
            .map(|(result, call)| {
                result.unwrap_or_else(|| failed(call, "the tool call's task ended abnormally"))
            })
            .collect()
    }

    /// Runs one call: parses its arguments, calls through the hub with the turn's
    /// cancellation, progress and timeout, and reports it.
    async fn run_call(
        &self,
        call: &ToolCall,
        search: bool,
        events: &Events,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let started = Instant::now();
        let parsed = offer::parse_arguments(&call.name, &call.arguments);
        events
            .emit(|| AgentEvent::ToolCallStarted {
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: match &parsed {
                    Ok(v) => v.clone(),
                    Err(_) => Value::String(call.arguments.clone()),
                },
            })
            .await;
        let result = match parsed {
            Err(refusal) => mcp_proto::schema::CallToolResult::error(refusal),
            Ok(_) if cancel.is_cancelled() => {
                mcp_proto::schema::CallToolResult::error("the user cancelled the turn")
            }
            Ok(arguments) => {
                let mut options = CallOptions::default().cancel_with(cancel.clone());
                // Progress is asked for only when someone reads the events.
                if let Some(progress_events) = events.0.clone() {
                    let id = call.id.clone();
                    options = options.on_progress(move |p| {
                        let _ = progress_events.try_send(AgentEvent::ToolProgress {
                            id: id.clone(),
                            progress: p.progress,
                            total: p.total,
                            message: p.message,
                        });
                    });
                }
                options.timeout = self.inner.options.call_timeout;
                let running = offer::call(&self.inner.hub, search, &call.name, arguments, options);
                // The call ends itself on cancellation once it is sent; this also ends one
                // still waiting for approval (the request, if any, is cancelled when dropped).
                tokio::select! {
                    biased;
                    result = running => result,
                    _ = cancel.cancelled() => {
                        mcp_proto::schema::CallToolResult::error("the user cancelled the turn")
                    }
                }
            }
        };
        let view = model_view(
            &call.id,
            &call.name,
            &result,
            self.inner.model.takes_images(),
        );
        events
            .emit(|| AgentEvent::ToolCallFinished {
                id: call.id.clone(),
                name: call.name.clone(),
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                is_error: view.is_error,
                output: view.text(),
            })
            .await;
        view
    }
}

/// Where a turn's events go: the [`Turn`]'s queue, or nowhere ([`Agent::run`], which then
/// makes none).
#[derive(Clone)]
struct Events(Option<mpsc::Sender<AgentEvent>>);

impl Events {
    /// Sends the event `make` builds, if anyone listens (it is not built otherwise).
    async fn emit(&self, make: impl FnOnce() -> AgentEvent) {
        if let Some(sender) = &self.0 {
            let _ = sender.send(make()).await;
        }
    }
}

/// A failed call's result.
fn failed(call: &ToolCall, why: &str) -> ToolResult {
    ToolResult {
        call_id: call.id.clone(),
        name: call.name.clone(),
        content: vec![ResultPart::Text { text: why.into() }],
        is_error: true,
    }
}

/// Streams one answer, passing text and reasoning on as events.
async fn stream_reply(
    model: &dyn Model,
    request: ModelRequest<'_>,
    events: &Events,
) -> Result<Reply, crate::ModelError> {
    let mut stream = model.stream(request).await?;
    let mut reply = Reply::default();
    while let Some(delta) = stream.next().await {
        let delta = delta?;
        match &delta {
            Delta::Text(text) => {
                events
                    .emit(|| AgentEvent::TextDelta { text: text.clone() })
                    .await;
            }
            Delta::Reasoning(text) => {
                events
                    .emit(|| AgentEvent::ReasoningDelta { text: text.clone() })
                    .await;
            }
            _ => {}
        }
        reply.apply(&delta);
    }
    Ok(reply)
}

/// How a turn ended.
#[derive(Debug, Clone)]
pub struct TurnSummary {
    /// The last answer's text.
    pub text: String,
    /// Why it ended.
    pub reason: StopReason,
    /// Model calls made.
    pub steps: usize,
    /// Tokens used.
    pub usage: Usage,
    /// The failure, when `reason` is `error`.
    pub error: Option<AgentError>,
}

/// A turn: its events, and the handle to cancel it. It runs while it is read; dropping it
/// abandons the turn (the calls in flight are cancelled as their requests are dropped).
pub struct Turn {
    events: mpsc::Receiver<AgentEvent>,
    cancel: CancellationToken,
    running: Option<std::pin::Pin<Box<dyn std::future::Future<Output = TurnSummary> + Send>>>,
    summary: Option<TurnSummary>,
}

impl std::fmt::Debug for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Turn").finish_non_exhaustive()
    }
}

impl Turn {
    /// The next event; `None` once the turn is over and every event was read.
    pub async fn next(&mut self) -> Option<AgentEvent> {
        loop {
            let Some(running) = self.running.as_mut() else {
                return self.events.recv().await;
            };
            tokio::select! {
                biased;
                event = self.events.recv() => return event,
                summary = running => {
                    self.summary = Some(summary);
                    self.running = None;
                }
            }
        }
    }

    /// Cancels the turn: the model stream stops and the tool calls in flight are cancelled
    /// (their servers get `notifications/cancelled`).
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// The token that cancels the turn.
    pub fn cancel_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Runs the turn to its end, dropping the events not read yet.
    pub async fn finish(mut self) -> TurnSummary {
        while self.next().await.is_some() {}
        self.summary.take().unwrap_or_else(|| TurnSummary {
            text: String::new(),
            reason: StopReason::Error,
            steps: 0,
            usage: Usage::default(),
            error: Some(AgentError::Aborted(
                "the turn ended without a summary".into(),
            )),
        })
    }
}
