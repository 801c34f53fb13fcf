//! The registry: everything a server offers (tools, resources, templates, providers, prompts,
//! completions), and the entries made from what a server registers, each serialized once for
//! its list.

use std::collections::HashMap;
use std::sync::Arc;

use mcp_proto::jsonrpc::{self, RawJson};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::completion::{CompleteFn, CompletionTarget};
use crate::error::ServerError;
use crate::handler::{erase, Handler};
use crate::prompt::{IntoPromptResult, Prompt, PromptArguments, PromptEntry};
use crate::resource::{
    ProviderEntry, ReadFn, Resource, ResourceEntry, ResourceTemplate, TemplateEntry,
};
use crate::tool::{IntoToolResult, Tool, ToolEntry};

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

    /// Adds a tool, or replaces the one of the same name; its schemas not set by hand are
    /// derived from the handler's types.
    pub(crate) fn add_tool<H, T, S>(&mut self, tool: Tool, handler: H, state: S)
    where
        H: Handler<T, S, RawValue>,
        H::Output: IntoToolResult,
        T: 'static,
        S: Send + Sync + 'static,
    {
        let tool = tool.with_derived_schemas(
            H::input_schema(),
            <H::Output as IntoToolResult>::output_schema(),
        );
        if !tool_name_is_portable(&tool.name) {
            tracing::warn!(
                "tool name {:?} does not follow the spec's guidance (1-128 characters of A-Z a-z 0-9 _ - .); some clients may refuse it",
                tool.name
            );
        }
        let entry = ToolEntry {
            listing: listing(&tool),
            tool,
            handler: erase(handler, state, IntoToolResult::into_tool_result),
            seq: self.next_seq(),
        };
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
    pub(crate) fn add_prompt<H, T, S>(&mut self, prompt: Prompt, handler: H, state: S)
    where
        H: Handler<T, S, PromptArguments>,
        H::Output: IntoPromptResult,
        T: 'static,
        S: Send + Sync + 'static,
    {
        let entry = PromptEntry {
            listing: listing(&prompt.0),
            prompt: prompt.0,
            handler: erase(handler, state, IntoPromptResult::into_prompt_result),
            seq: self.next_seq(),
        };
        self.prompts
            .insert(entry.prompt.name.clone(), Arc::new(entry));
    }
}

/// A listing entry, serialized once at registration.
pub(crate) fn listing<T: Serialize>(value: &T) -> RawJson {
    jsonrpc::to_raw(value).unwrap_or_else(|_| jsonrpc::empty_object())
}

/// The 2025-11-25 tool-name guidance: 1 to 128 characters of `[A-Za-z0-9_.-]`.
fn tool_name_is_portable(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
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
