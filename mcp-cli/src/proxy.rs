//! The hub served as one MCP server: every tool under its exposed name, every resource and
//! template of every server (reads routed to the server that has the URI), and every prompt as
//! `server__prompt`. The instructions of all servers become the proxy's instructions.
//!
//! [`proxy_server`] registers what the hub offers now; [`follow_changes`] keeps the proxy's
//! tools and prompts in step with the hub afterwards (a server's `list_changed`, a reload), so
//! the proxy's own clients hear `list_changed` in turn. Resources are listed live on every
//! `resources/list`.
//!
//! Eras are bridged both ways: the hub speaks to each server in its own era and the proxy
//! serves both. A server's request for input (elicitation, sampling, roots) made while the
//! proxy forwards one of its calls is put to the proxy's own client whose call it is, in that
//! client's era, by the [`InputForwarder`] the hub was given.
//!
//! In tool search mode ([`HubOptions::tool_search`](mcp_hub::HubOptions), `mcp proxy
//! --tool-search`) the proxy offers only `search_tools` and `call_tool` (see
//! [`mcp_hub::search_tools_definition`]); `call_tool` forwards like a direct call.
//!
//! Tasks pass through: a proxied tool keeps its server's `execution.taskSupport` (a tool of a
//! server speaking the 2026-07-28 tasks extension, which declares none, is offered as
//! `optional`), so the proxy's own task machinery runs the forwarded call as a task when its
//! client asks for one (or, under 2026-07-28, when the call waits). Inside such a task the call
//! goes upstream as a task too when the upstream tool allows it: its progress becomes the
//! proxy task's progress, and `tasks/cancel` on the proxy cancels the upstream task.

mod apps;

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;

use mcp_hub::{
    call_tool_arguments, call_tool_definition, search_tools_arguments, search_tools_definition,
    Hub, HubError, HubPrompt, HubTool, ToolReply,
};

use crate::input_forwarding::{forwarding, InputForwarder};
use mcp_client::{CallOptions, TaskFlavour, TaskOptions};
use mcp_server::schema::{self, CallToolResult, GetPromptResult, ReadResourceResult};
use mcp_server::{
    Context, IntoToolResult, PromptArguments, ResourceRequest, Server, ServerError, ToolOutput,
};
use serde_json::Value;

/// The name the proxy announces in `initialize`.
pub const PROXY_NAME: &str = "mcp-hub";

/// Builds an MCP server that forwards to the hub; `input` is the forwarder set as the hub's
/// [`HubOptions::input`](mcp_hub::HubOptions), which learns here whose calls are in flight.
pub fn proxy_server(hub: &Hub, input: &InputForwarder) -> Server {
    let mut builder = Server::builder(PROXY_NAME, env!("CARGO_PKG_VERSION"));
    let instructions = hub.instructions_block();
    if !instructions.is_empty() {
        builder = builder.instructions(instructions);
    }
    if hub.options().tool_search {
        builder = builder
            .tool(search_tools_definition(), search_tools_handler(hub))
            .tool(call_tool_definition(), call_tool_handler(hub, input));
    } else {
        for tool in hub.tools() {
            builder = builder.tool(
                tool_definition(hub, &tool),
                tool_handler(hub, input, &tool.exposed),
            );
        }
    }
    // In tool search mode no tool is listed with its view, so no host shows apps: none of it.
    if !hub.options().tool_search && apps::has_views(hub) {
        builder = builder.apps_extension();
        for (alias, exposed) in apps::app_aliases(hub) {
            builder = builder.tool(alias, tool_handler(hub, input, &exposed));
        }
    }
    if !hub.resources().is_empty() || !hub.resource_templates().is_empty() {
        let list_hub = hub.clone();
        let read_hub = hub.clone();
        builder = builder.resource_provider(
            move |_ctx: Context| {
                let hub = list_hub.clone();
                async move {
                    Ok::<_, ServerError>(
                        hub.resources()
                            .into_iter()
                            .map(|r| apps::expose_resource(&r.server, r.resource))
                            .collect::<Vec<schema::Resource>>(),
                    )
                }
            },
            move |request: ResourceRequest, _ctx: Context| {
                let hub = read_hub.clone();
                async move { read_routed(&hub, None, &request.uri).await }
            },
        );
    }
    for template in hub.resource_templates() {
        let hub = hub.clone();
        let server = template.server.clone();
        builder = builder.resource_template(
            template.template,
            move |request: ResourceRequest, _ctx: Context| {
                let hub = hub.clone();
                let server = server.clone();
                async move { read_routed(&hub, Some(&server), &request.uri).await }
            },
        );
    }
    for prompt in hub.prompts() {
        builder = builder.prompt(
            prompt_definition(&prompt),
            prompt_handler(hub, input, &prompt.server, &prompt.prompt.name),
        );
    }
    builder.build()
}

type ToolFuture = Pin<Box<dyn Future<Output = ToolOutput> + Send>>;
type PromptFuture = Pin<Box<dyn Future<Output = Result<GetPromptResult, ServerError>> + Send>>;

/// The flavour of tasks the server behind `tool` offers.
fn upstream_flavour(hub: &Hub, tool: &HubTool) -> Option<TaskFlavour> {
    hub.client(&tool.server).ok()?.task_flavour()
}

fn tool_definition(hub: &Hub, tool: &HubTool) -> schema::Tool {
    let mut definition = tool.tool.clone();
    definition.name = tool.exposed.clone();
    definition.description = Some(tool.description.clone());
    apps::expose_tool_view(&tool.server, &mut definition);
    // Structured content over the server's cap arrives as text, so no output schema is promised.
    if hub
        .result_limit(&tool.server)
        .max_structured_bytes
        .is_some()
    {
        definition.output_schema = None;
    }
    let declared = definition
        .execution
        .as_ref()
        .and_then(|e| e.task_support)
        .is_some();
    if !declared && upstream_flavour(hub, tool) == Some(TaskFlavour::Extension) {
        definition
            .execution
            .get_or_insert_with(Default::default)
            .task_support = Some(schema::TaskSupport::Optional);
    }
    definition
}

/// Forwards a call to the hub; every failure becomes an `isError` result for the model.
fn tool_handler(
    hub: &Hub,
    input: &InputForwarder,
    exposed: &str,
) -> impl Fn(Value, Context) -> ToolFuture + Send + Sync + 'static {
    let hub = hub.clone();
    let input = input.clone();
    let exposed = exposed.to_owned();
    move |args: Value, ctx: Context| {
        let hub = hub.clone();
        let input = input.clone();
        let exposed = exposed.clone();
        Box::pin(forward_registered(hub, input, exposed, args, ctx))
    }
}

/// Forwards a call with `ctx` known as its caller, so its server's requests for input reach
/// `ctx`'s client. Not an `async fn`, which would keep its arguments beside the future that
/// holds them too.
fn forward_registered(
    hub: Hub,
    input: InputForwarder,
    exposed: String,
    args: Value,
    ctx: Context,
) -> impl Future<Output = ToolOutput> {
    forwarding(ctx.clone(), async move {
        let _in_flight = hub
            .resolve_tool(&exposed)
            .ok()
            .map(|tool| input.register(&tool.server, &ctx));
        forward_call(&hub, &exposed, args, &ctx).await
    })
}

/// `search_tools` of tool search mode: ranks the tools the filters allow.
fn search_tools_handler(
    hub: &Hub,
) -> impl Fn(Value, Context) -> ToolFuture + Send + Sync + 'static {
    let hub = hub.clone();
    move |args: Value, _ctx: Context| {
        let hub = hub.clone();
        Box::pin(async move {
            match search_tools_arguments(&args) {
                Ok((query, limit)) => hub.search_tools_result(&query, limit),
                Err(message) => CallToolResult::error(message),
            }
            .into_tool_result()
        })
    }
}

/// `call_tool` of tool search mode: forwards like a call of the named tool itself.
fn call_tool_handler(
    hub: &Hub,
    input: &InputForwarder,
) -> impl Fn(Value, Context) -> ToolFuture + Send + Sync + 'static {
    let hub = hub.clone();
    let input = input.clone();
    move |args: Value, ctx: Context| {
        let hub = hub.clone();
        let input = input.clone();
        Box::pin(async move {
            match call_tool_arguments(&args) {
                Ok((name, inner)) => match hub
                    .check_searchable(&name)
                    .or_else(|| hub.check_model_callable(&name))
                {
                    Some(refusal) => refusal.into_tool_result(),
                    None => forward_registered(hub, input, name, inner, ctx).await,
                },
                Err(message) => ToolOutput::error(message),
            }
        })
    }
}

/// How many upstream progress updates wait for the proxy's client before more are dropped.
const PROGRESS_QUEUE: usize = 16;

/// One forwarded call. In a task of the proxy, a tool whose server offers 2025-11-25 tasks and
/// allows one runs upstream as a task (progress relayed, cancellation sent as `tasks/cancel`);
/// otherwise it is a plain call, cancelled with the proxy's request or task, whose result goes
/// back as the upstream wrote it when the hub has nothing to do to it.
async fn forward_call(hub: &Hub, exposed: &str, args: Value, ctx: &Context) -> ToolOutput {
    let cancel = ctx.cancellation().clone();
    let upstream_task = ctx.task_id().is_some()
        && hub.resolve_tool(exposed).is_ok_and(|tool| {
            let allowed = tool
                .tool
                .execution
                .as_ref()
                .and_then(|e| e.task_support)
                .is_some_and(|s| s != schema::TaskSupport::Forbidden);
            allowed && upstream_flavour(hub, &tool) == Some(TaskFlavour::Core)
        });
    if !upstream_task {
        let options = CallOptions::default().cancel_with(cancel);
        return match hub.call_tool_reply(exposed, args, options).await {
            Ok(ToolReply::PassThrough(result)) => ToolOutput::pass_through(result),
            Ok(ToolReply::Typed(result)) => (*result).into_tool_result(),
            Err(e) => e.to_tool_result().into_tool_result(),
        };
    }
    // Boxed: the task path's state is large and rare, and a future is as big as its largest
    // path, so inline it would be copied with every plain call.
    Box::pin(forward_as_task(hub, exposed, args, ctx, cancel))
        .await
        .into_tool_result()
}

/// A forwarded call run upstream as a task, with its progress relayed to `ctx`.
async fn forward_as_task(
    hub: &Hub,
    exposed: &str,
    args: Value,
    ctx: &Context,
    cancel: mcp_client::CancellationToken,
) -> CallToolResult {
    let (progress_tx, mut progress_rx) = tokio::sync::mpsc::channel(PROGRESS_QUEUE);
    let mut guard = UpstreamTask {
        hub: hub.clone(),
        id: Default::default(),
        running: true,
    };
    let id = guard.id.clone();
    let options = TaskOptions::new()
        .cancel_with(cancel)
        .on_progress(move |p| {
            let _ = progress_tx.try_send(p);
        })
        .on_status(move |task| {
            *id.lock().unwrap_or_else(|p| p.into_inner()) = Some(task.task_id.clone());
        });
    let call = hub.call_tool_as_task(exposed, args, options);
    tokio::pin!(call);
    loop {
        tokio::select! {
            result = &mut call => {
                guard.running = false;
                return result.unwrap_or_else(|e| e.to_tool_result());
            }
            Some(p) = progress_rx.recv() => {
                ctx.progress(p.progress, p.total, p.message).await;
            }
        }
    }
}

/// An upstream task a forwarded call waits for: when the wait is dropped before the task
/// ended (the proxy's own task was cancelled and its handler stopped), the upstream task is
/// cancelled too.
struct UpstreamTask {
    hub: Hub,
    id: std::sync::Arc<std::sync::Mutex<Option<String>>>,
    running: bool,
}

impl Drop for UpstreamTask {
    fn drop(&mut self) {
        let id = self.id.lock().unwrap_or_else(|p| p.into_inner()).take();
        let (true, Some(id)) = (self.running, id) else {
            return;
        };
        let hub = self.hub.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            // Best effort: an upstream task that already ended cannot be cancelled.
            runtime.spawn(async move {
                let _ = hub.cancel_task(&id).await;
            });
        }
    }
}

fn prompt_definition(prompt: &HubPrompt) -> schema::Prompt {
    let mut definition = prompt.prompt.clone();
    definition.name = prompt.exposed.clone();
    definition
}

fn prompt_handler(
    hub: &Hub,
    input: &InputForwarder,
    server: &str,
    raw: &str,
) -> impl Fn(PromptArguments, Context) -> PromptFuture + Send + Sync + 'static {
    let hub = hub.clone();
    let input = input.clone();
    let server = server.to_owned();
    let raw = raw.to_owned();
    move |args: PromptArguments, ctx: Context| {
        let hub = hub.clone();
        let server = server.clone();
        let raw = raw.clone();
        let in_flight = input.register(&server, &ctx);
        Box::pin(forwarding(ctx, async move {
            let _in_flight = in_flight;
            hub.get_prompt(&server, &raw, args)
                .await
                .map_err(ServerError::handler)
        }))
    }
}

/// Keeps the proxy's tools and prompts in step with the hub: tools and prompts that appeared
/// are added, gone ones removed, changed ones replaced. Call it once, right after
/// [`proxy_server`], inside a Tokio runtime; abort the returned task when the proxy stops.
pub fn follow_changes(
    hub: &Hub,
    server: &Server,
    input: &InputForwarder,
) -> tokio::task::JoinHandle<()> {
    let mut changes = hub.changes();
    let hub = hub.clone();
    let input = input.clone();
    let server = server.clone();
    tokio::spawn(async move {
        let mut tools: Vec<schema::Tool> = if hub.options().tool_search {
            Vec::new()
        } else {
            hub.tools()
        }
        .iter()
        .map(|t| tool_definition(&hub, t))
        .collect();
        let mut prompts: Vec<schema::Prompt> =
            hub.prompts().iter().map(prompt_definition).collect();
        let search_mode = hub.options().tool_search;
        while changes.changed().await.is_ok() {
            // In tool search mode the two search tools stay; searches read the hub live.
            let new_tools = if search_mode { Vec::new() } else { hub.tools() };
            let keep: BTreeSet<&str> = new_tools.iter().map(|t| t.exposed.as_str()).collect();
            for old in &tools {
                if !keep.contains(old.name.as_str()) {
                    server.remove_tool(&old.name);
                }
            }
            for tool in &new_tools {
                let definition = tool_definition(&hub, tool);
                if !tools.contains(&definition) {
                    // Never refused: the handler's arguments are any JSON `Value`, and only
                    // an arguments type that cannot be an object is.
                    let _ = server.add_tool(definition, tool_handler(&hub, &input, &tool.exposed));
                }
            }
            tools = new_tools.iter().map(|t| tool_definition(&hub, t)).collect();

            let new_prompts = hub.prompts();
            let keep: BTreeSet<&str> = new_prompts.iter().map(|p| p.exposed.as_str()).collect();
            for old in &prompts {
                if !keep.contains(old.name.as_str()) {
                    server.remove_prompt(&old.name);
                }
            }
            for prompt in &new_prompts {
                let definition = prompt_definition(prompt);
                if !prompts.contains(&definition) {
                    // The handler takes no State, so it is never refused.
                    let _ = server.add_prompt(
                        definition,
                        prompt_handler(&hub, &input, &prompt.server, &prompt.prompt.name),
                    );
                }
            }
            prompts = new_prompts.iter().map(prompt_definition).collect();
        }
    })
}

/// Reads `uri` from the server that lists it, else from `fallback` (a template's server); a
/// view's URI from the server it names, as that server's own URI.
async fn read_routed(
    hub: &Hub,
    fallback: Option<&str>,
    uri: &str,
) -> Result<ReadResourceResult, ServerError> {
    if let Some((server, upstream)) = apps::upstream_view(hub, uri) {
        let read = hub.read_resource(&server, &upstream).await;
        return read
            .map(|result| apps::expose_contents(result, &upstream, uri))
            .map_err(|e| read_error(e, uri));
    }
    let server = hub
        .resource_owner(uri)
        .or_else(|| fallback.map(str::to_owned))
        .ok_or_else(|| ServerError::ResourceNotFound(uri.to_owned()))?;
    hub.read_resource(&server, uri)
        .await
        .map_err(|e| read_error(e, uri))
}

/// A failed read of `uri` as the proxy answers it.
fn read_error(e: HubError, uri: &str) -> ServerError {
    match e {
        HubError::UnknownServer { .. } => ServerError::ResourceNotFound(uri.to_owned()),
        HubError::Client(ref c) if c.rpc_error().is_some() => ServerError::handler(
            c.rpc_error()
                .map_or_else(String::new, |o| o.message.clone()),
        ),
        other => ServerError::handler(other),
    }
}
