//! The hub served as one MCP server: every tool under its exposed name, every resource and
//! template of every server (reads routed to the server that has the URI), and every prompt as
//! `server__prompt`. The instructions of all servers become the proxy's instructions.
//!
//! The proxy is built from the hub's lists at the time of the call; it does not follow later
//! `list_changed` notifications of the servers behind it.

use mcp_server::schema::{self, ReadResourceResult};
use mcp_server::{Context, PromptArguments, ResourceRequest, Server, ServerError};
use serde_json::Value;

use super::{Hub, HubError};

/// The name the proxy announces in `initialize`.
pub const PROXY_NAME: &str = "mcp-hub";

/// Builds an MCP server that forwards to the hub.
pub fn proxy_server(hub: &Hub) -> Server {
    let mut builder = Server::builder(PROXY_NAME, env!("CARGO_PKG_VERSION"));
    let instructions = hub.instructions_block();
    if !instructions.is_empty() {
        builder = builder.instructions(instructions);
    }
    for tool in hub.tools() {
        let mut definition = tool.tool.clone();
        definition.name = tool.exposed.clone();
        definition.description = Some(tool.description.clone());
        let hub = hub.clone();
        let exposed = tool.exposed.clone();
        builder = builder.tool(definition, move |args: Value, _ctx: Context| {
            let hub = hub.clone();
            let exposed = exposed.clone();
            async move { hub.call_tool_for_model(&exposed, args).await }
        });
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
                            .map(|r| r.resource)
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
        let mut definition = prompt.prompt.clone();
        definition.name = prompt.exposed.clone();
        let hub = hub.clone();
        let server = prompt.server.clone();
        let raw = prompt.prompt.name.clone();
        builder = builder.prompt(definition, move |args: PromptArguments, _ctx: Context| {
            let hub = hub.clone();
            let server = server.clone();
            let raw = raw.clone();
            async move {
                hub.get_prompt(&server, &raw, args)
                    .await
                    .map_err(ServerError::handler)
            }
        });
    }
    builder.build()
}

/// Reads `uri` from the server that lists it, else from `fallback` (a template's server).
async fn read_routed(
    hub: &Hub,
    fallback: Option<&str>,
    uri: &str,
) -> Result<ReadResourceResult, ServerError> {
    let server = hub
        .resource_owner(uri)
        .or_else(|| fallback.map(str::to_owned))
        .ok_or_else(|| ServerError::ResourceNotFound(uri.to_owned()))?;
    hub.read_resource(&server, uri).await.map_err(|e| match e {
        HubError::UnknownServer { .. } => ServerError::ResourceNotFound(uri.to_owned()),
        HubError::Client(ref c) if c.rpc_error().is_some() => ServerError::handler(
            c.rpc_error()
                .map_or_else(String::new, |o| o.message.clone()),
        ),
        other => ServerError::handler(other),
    })
}
