//! The completions service: which completer answers which prompt argument or template
//! variable, and `completion/complete`.

use std::collections::HashMap;
use std::sync::RwLock;

use mcp_proto::jsonrpc::RawJson;
use mcp_proto::schema::{Complete, CompleteResult, CompletionReference, RequestType};

use super::{
    encode, parsed_meta, read_table, rejected, write_table, PromptService, ResourceService,
};
use crate::completion::{CompleteFn, CompletionRequest, CompletionTarget};
use crate::context::Context;
use crate::error::ServerError;
use crate::handler::Call;
use crate::router::parse_params;

/// Every completer a server has, by what it completes.
#[derive(Default)]
pub(crate) struct CompletionService {
    entries: RwLock<HashMap<CompletionTarget, CompleteFn>>,
}

impl CompletionService {
    /// Adds a completer, or replaces the one for the same target.
    pub(crate) fn add(&self, target: CompletionTarget, complete: CompleteFn) {
        write_table(&self.entries).insert(target, complete);
    }

    pub(crate) fn is_empty(&self) -> bool {
        read_table(&self.entries).is_empty()
    }

    /// `completion/complete`: an unknown prompt or template is refused; a known one without a
    /// completer gets no values.
    pub(crate) async fn complete(
        &self,
        params: Option<&RawJson>,
        ctx: Context,
        prompts: &PromptService,
        resources: &ResourceService,
    ) -> Result<RawJson, ServerError> {
        let p: <Complete as RequestType>::Params = parse_params(params)?;
        let target = match &p.reference {
            CompletionReference::Prompt(r) => {
                if !prompts.contains(&r.name) {
                    return Err(ServerError::PromptNotFound(r.name.clone()));
                }
                CompletionTarget::Prompt(r.name.clone(), p.argument.name.clone())
            }
            CompletionReference::Resource(r) => {
                if !resources.knows(&r.uri) {
                    return Err(ServerError::InvalidParams(format!(
                        "Unknown resource template: {}",
                        r.uri
                    )));
                }
                CompletionTarget::Template(r.uri.clone(), p.argument.name.clone())
            }
        };
        let completer = read_table(&self.entries).get(&target).cloned();
        let result = match completer {
            Some(complete) => {
                let request = CompletionRequest {
                    argument: p.argument.name,
                    value: p.argument.value,
                    context: p.context.and_then(|c| c.arguments).unwrap_or_default(),
                };
                let call = Call::new(&request, parsed_meta(p.meta.as_ref()), &ctx);
                complete(&call).map_err(rejected)?.await?
            }
            None => CompleteResult::new(Vec::new()),
        };
        encode(&result)
    }
}
