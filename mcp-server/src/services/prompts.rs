//! The prompts service: the table of prompts, `prompts/list` and `prompts/get`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use mcp_proto::jsonrpc::RawJson;
use mcp_proto::schema::{GetPrompt, RequestType};

use super::{encode, list_page, listing, parsed_meta, read_table, write_table};
use crate::context::Context;
use crate::error::ServerError;
use crate::handler::{erase, Call, Handler};
use crate::prompt::{IntoPromptResult, Prompt, PromptArguments, PromptEntry};
use crate::router::parse_params;

/// Every prompt a server offers, by name.
#[derive(Default)]
pub(crate) struct PromptService {
    entries: RwLock<HashMap<String, Arc<PromptEntry>>>,
    /// Registration order, which `prompts/list` keeps.
    seq: AtomicU64,
}

impl PromptService {
    /// Adds a prompt, or replaces the one of the same name.
    pub(crate) fn add<H, T>(&self, prompt: Prompt, handler: H)
    where
        H: Handler<T, PromptArguments>,
        H::Output: IntoPromptResult,
        T: 'static,
    {
        let entry = PromptEntry {
            listing: listing(&prompt.0),
            prompt: prompt.0,
            handler: erase(handler, IntoPromptResult::into_prompt_result),
            seq: self.seq.fetch_add(1, Ordering::Relaxed),
        };
        write_table(&self.entries).insert(entry.prompt.name.clone(), Arc::new(entry));
    }

    /// Removes a prompt; returns whether it existed.
    pub(crate) fn remove(&self, name: &str) -> bool {
        write_table(&self.entries).remove(name).is_some()
    }

    pub(crate) fn is_empty(&self) -> bool {
        read_table(&self.entries).is_empty()
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        read_table(&self.entries).contains_key(name)
    }

    /// `prompts/list`, in registration order.
    pub(crate) fn list(
        &self,
        params: Option<&RawJson>,
        page_size: usize,
    ) -> Result<RawJson, ServerError> {
        let mut entries: Vec<Arc<PromptEntry>> =
            read_table(&self.entries).values().cloned().collect();
        entries.sort_by_key(|e| e.seq);
        list_page("prompts", params, page_size, &entries, |e| &e.listing)
    }

    /// `prompts/get`: checks the required arguments, then runs the handler.
    pub(crate) async fn get(
        &self,
        params: Option<&RawJson>,
        ctx: Context,
    ) -> Result<RawJson, ServerError> {
        let p: <GetPrompt as RequestType>::Params = parse_params(params)?;
        let entry = read_table(&self.entries)
            .get(&p.name)
            .cloned()
            .ok_or_else(|| ServerError::PromptNotFound(p.name.clone()))?;
        let arguments: PromptArguments = p.arguments.unwrap_or_default();
        if let Some(missing) = entry.missing_argument(&arguments) {
            return Err(ServerError::MissingArgument {
                prompt: p.name,
                argument: missing.to_owned(),
            });
        }
        let call = Call::new(&arguments, parsed_meta(p.meta.as_ref()), &ctx);
        let future = (entry.handler)(&call).map_err(|rejection| {
            ServerError::InvalidParams(format!(
                "Invalid arguments for prompt {}: {rejection}",
                p.name
            ))
        })?;
        encode(&future.await?)
    }
}
