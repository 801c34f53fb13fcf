//! Completion of prompt arguments and resource-template variables (`completion/complete`):
//! at most 100 values per answer, with `total` and `hasMore` when there are more.

use std::collections::BTreeMap;

use mcp_proto::schema::CompleteResult;

use crate::error::{HandlerError, ServerError};
use crate::handler::{erase, Call, Erased, FromCall, Handler, Rejection};

/// What a completion handler is asked: the argument, its partial value, and the values of
/// the other arguments already chosen.
#[derive(Clone, Debug, PartialEq)]
pub struct CompletionRequest {
    /// The name of the argument or template variable being completed.
    pub argument: String,
    /// What the user has typed so far.
    pub value: String,
    /// Other arguments already resolved (2025-06-18+).
    pub context: BTreeMap<String, String>,
}

/// Anything a completion handler may return.
pub trait IntoCompletion {
    /// Converts the handler's return value into the result of `completion/complete`, or the
    /// JSON-RPC error to answer with.
    fn into_completion(self) -> Result<CompleteResult, ServerError>;
}

impl IntoCompletion for Vec<String> {
    /// Values beyond the 100th are cut; `total` and `hasMore` say so.
    fn into_completion(self) -> Result<CompleteResult, ServerError> {
        Ok(CompleteResult::new(self))
    }
}

impl IntoCompletion for Vec<&'static str> {
    fn into_completion(self) -> Result<CompleteResult, ServerError> {
        Ok(CompleteResult::new(
            self.into_iter().map(str::to_owned).collect(),
        ))
    }
}

/// `Err` is a [`HandlerError`]: a JSON-RPC error (a returned [`ServerError`] keeps its code;
/// any other error is -32603).
impl<T: IntoCompletion, E: Into<HandlerError>> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Result<CompleteResult, ServerError> {
        self.map_err(|e| e.into().into_server_error())?
            .into_completion()
    }
}

impl IntoCompletion for CompleteResult {
    /// Kept as given, except that more than 100 values are cut (setting `hasMore`).
    fn into_completion(mut self) -> Result<CompleteResult, ServerError> {
        const MAX: usize = 100;
        let c = &mut self.completion;
        if c.values.len() > MAX {
            c.total = Some(c.total.unwrap_or(c.values.len() as u64));
            c.values.truncate(MAX);
            c.has_more = Some(true);
        }
        Ok(self)
    }
}

/// The kind of thing a completion belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum CompletionTarget {
    /// A prompt's argument: (prompt name, argument name).
    Prompt(String, String),
    /// A resource template's variable: (URI template, variable name).
    Template(String, String),
}

/// The completion request, as a parameter of a completion handler.
impl FromCall<CompletionRequest> for CompletionRequest {
    fn from_call(call: &Call<'_, CompletionRequest>) -> Result<Self, Rejection> {
        Ok(call.input.clone())
    }
}

/// A type-erased completion handler.
pub(crate) type CompleteFn = Erased<CompletionRequest, Result<CompleteResult, ServerError>>;

/// Erases a completion handler.
pub(crate) fn complete_fn<H, T>(handler: H) -> CompleteFn
where
    H: Handler<T, CompletionRequest>,
    H::Output: IntoCompletion,
    T: 'static,
{
    erase(handler, IntoCompletion::into_completion)
}

/// Completes from a fixed list of candidates: those starting with the typed prefix.
pub fn complete_from(candidates: &[&str], prefix: &str) -> Vec<String> {
    candidates
        .iter()
        .filter(|c| c.starts_with(prefix))
        .map(|c| (*c).to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_one_hundred_values() {
        let values: Vec<String> = (0..250).map(|i| i.to_string()).collect();
        let r = values.into_completion().unwrap();
        assert_eq!(r.completion.values.len(), 100);
        assert_eq!(r.completion.total, Some(250));
        assert_eq!(r.completion.has_more, Some(true));
        let r = vec!["a".to_owned()].into_completion().unwrap();
        assert_eq!((r.completion.total, r.completion.has_more), (None, None));
        assert_eq!(
            complete_from(&["alpha", "beta", "alps"], "al"),
            ["alpha", "alps"]
        );
    }
}
