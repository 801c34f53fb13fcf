//! The registry: everything a server offers (tools, resources, templates, providers, prompts,
//! completions), and the entries made from what a server registers, each serialized once for
//! its list.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use mcp_proto::jsonrpc::{self, RawJson};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::completion::{CompleteFn, CompletionTarget};
use crate::context::Context;
use crate::error::ServerError;
use crate::prompt::{FnPrompt, IntoPromptResult, Prompt, PromptEntry};
use crate::resource::{
    ProviderEntry, ReadFn, Resource, ResourceEntry, ResourceTemplate, TemplateEntry,
};
use crate::tool::{FnTool, IntoToolResult, Tool, ToolEntry};

/// Everything the server offers, shared by all its connections.
#[derive(Default)]
pub(crate) struct Registry {
    pub(crate) tools: HashMap<String, Arc<ToolEntry>>,
    pub(crate) resources: HashMap<String, Arc<ResourceEntry>>,
    pub(crate) templates: Vec<Arc<TemplateEntry>>,
    pub(crate) providers: Vec<Arc<ProviderEntry>>,
    pub(crate) prompts: HashMap<String, Arc<PromptEntry>>,
    pub(crate) completions: HashMap<CompletionTarget, CompleteFn>,
    seq: u64,
}

impl Registry {
    /// The next registration number (lists keep registration order).
    pub(crate) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Adds a tool, or replaces the one of the same name.
    pub(crate) fn add_tool<F, A, Fut, R>(&mut self, tool: Tool, handler: F)
    where
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        A: DeserializeOwned + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult + 'static,
    {
        let seq = self.next_seq();
        let entry = tool_entry(tool, handler, seq);
        self.tools.insert(entry.tool.name.clone(), Arc::new(entry));
    }

    /// Adds a static resource, or replaces the one with the same URI.
    pub(crate) fn add_resource(&mut self, resource: Resource, read: ReadFn) {
        let resource = resource.0;
        let entry = ResourceEntry {
            listing: listing(&resource),
            resource,
            read,
            seq: self.next_seq(),
        };
        self.resources
            .insert(entry.resource.uri.clone(), Arc::new(entry));
    }

    /// Adds a prompt, or replaces the one of the same name.
    pub(crate) fn add_prompt<F, A, Fut, R>(&mut self, prompt: Prompt, handler: F)
    where
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        A: DeserializeOwned + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult + 'static,
    {
        let seq = self.next_seq();
        let entry = prompt_entry(prompt, handler, seq);
        self.prompts
            .insert(entry.prompt.name.clone(), Arc::new(entry));
    }
}

/// A listing entry, serialized once at registration.
pub(crate) fn listing<T: Serialize>(value: &T) -> RawJson {
    jsonrpc::to_raw(value).unwrap_or_else(|_| jsonrpc::empty_object())
}

fn tool_entry<F, A, Fut, R>(tool: Tool, handler: F, seq: u64) -> ToolEntry
where
    F: Fn(A, Context) -> Fut + Send + Sync + 'static,
    A: DeserializeOwned + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoToolResult + 'static,
{
    if !tool_name_is_portable(&tool.0.name) {
        tracing::warn!(
            "tool name {:?} does not follow the spec's guidance (1-128 characters of A-Z a-z 0-9 _ - .); some clients may refuse it",
            tool.0.name
        );
    }
    ToolEntry {
        listing: listing(&tool.0),
        tool: tool.0,
        handler: Box::new(FnTool::new(handler)),
        seq,
    }
}

/// The 2025-11-25 tool-name guidance: 1 to 128 characters of `[A-Za-z0-9_.-]`.
fn tool_name_is_portable(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn prompt_entry<F, A, Fut, R>(prompt: Prompt, handler: F, seq: u64) -> PromptEntry
where
    F: Fn(A, Context) -> Fut + Send + Sync + 'static,
    A: DeserializeOwned + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoPromptResult + 'static,
{
    PromptEntry {
        listing: listing(&prompt.0),
        prompt: prompt.0,
        handler: Box::new(FnPrompt::new(handler)),
        seq,
    }
}

pub(crate) fn template_entry(
    template: ResourceTemplate,
    read: ReadFn,
    seq: u64,
) -> Result<TemplateEntry, ServerError> {
    let parsed =
        TemplateEntry::parse(&template.0).map_err(|e| ServerError::InvalidParams(e.to_string()))?;
    Ok(TemplateEntry {
        listing: listing(&template.0),
        template: template.0,
        parsed,
        read,
        seq,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names() {
        assert!(tool_name_is_portable("get_weather.v2-beta"));
        assert!(!tool_name_is_portable("has space"));
        assert!(!tool_name_is_portable(""));
        assert!(!tool_name_is_portable(&"x".repeat(129)));
    }
}
