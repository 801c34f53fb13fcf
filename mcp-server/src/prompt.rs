//! Prompts: definitions with arguments, and handlers that turn arguments into messages.

use std::collections::BTreeMap;

use crate::error::{HandlerError, ServerError};
use crate::handler::Erased;
use mcp_proto::jsonrpc::RawJson;
use mcp_proto::schema::{
    self, Content, GetPromptResult, Icon, JsonObject, PromptArgument, PromptMessage,
};

/// A prompt's definition, built fluently.
#[derive(Clone, Debug, PartialEq)]
pub struct Prompt(pub(crate) schema::Prompt);

impl Prompt {
    /// A prompt with a name and a description.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Prompt(schema::Prompt::new(name).with_description(description))
    }
    /// A human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.0.title = Some(title.into());
        self
    }
    /// Adds an argument; a required one must be given or the request fails with -32602.
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        let mut argument = PromptArgument::new(name, required);
        argument.description = Some(description.into());
        self.0 = self.0.with_argument(argument);
        self
    }
    /// Icons a client may show.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.0.icons = Some(icons);
        self
    }
    /// The prompt's `_meta`.
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.0.meta = Some(meta);
        self
    }
    /// The wire definition.
    pub fn definition(&self) -> &schema::Prompt {
        &self.0
    }
}

impl From<schema::Prompt> for Prompt {
    fn from(p: schema::Prompt) -> Self {
        Prompt(p)
    }
}

/// Anything a prompt handler may return.
pub trait IntoPromptResult {
    /// Converts the handler's return value into the result of `prompts/get`.
    fn into_prompt_result(self) -> Result<GetPromptResult, ServerError>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, ServerError> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, ServerError> {
        Ok(GetPromptResult::new(self))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, ServerError> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

impl IntoPromptResult for Content {
    fn into_prompt_result(self) -> Result<GetPromptResult, ServerError> {
        Ok(GetPromptResult::new(vec![PromptMessage::new(
            schema::Role::User,
            self,
        )]))
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, ServerError> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]))
    }
}

impl IntoPromptResult for &'static str {
    fn into_prompt_result(self) -> Result<GetPromptResult, ServerError> {
        self.to_owned().into_prompt_result()
    }
}

/// `Err` is a [`HandlerError`]: a JSON-RPC error (a returned [`ServerError`] keeps its code;
/// any other error is -32603).
impl<T: IntoPromptResult, E: Into<HandlerError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, ServerError> {
        self.map_err(|e| e.into().into_server_error())?
            .into_prompt_result()
    }
}

/// A prompt handler with its argument type erased.
/// A registered prompt.
pub(crate) struct PromptEntry {
    pub(crate) prompt: schema::Prompt,
    pub(crate) listing: RawJson,
    pub(crate) handler: Erased<PromptArguments, Result<GetPromptResult, ServerError>>,
    pub(crate) seq: u64,
}

impl PromptEntry {
    /// The first required argument missing from `arguments`.
    pub(crate) fn missing_argument(&self, arguments: &BTreeMap<String, String>) -> Option<&str> {
        self.prompt
            .arguments
            .iter()
            .flatten()
            .find(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
    }
}

/// Prompt arguments as given: a map of names to strings, for handlers that want them raw.
pub type PromptArguments = BTreeMap<String, String>;
