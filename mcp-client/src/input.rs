//! The `input_required` loop of the 2026-07-28 era (MRTR): a `tools/call`, `prompts/get` or
//! `resources/read` may answer that it needs input first; the client answers each of its
//! `inputRequests` with the same handlers that serve 2025-era server-to-client requests
//! (elicitation, sampling, roots) and retries under a new id with `inputResponses` and the
//! `requestState` echoed exactly. The loop is bounded by [`MAX_INPUT_ROUNDS`].

use mcp_proto::jsonrpc::ErrorObject;
use mcp_proto::schema::{InputRequest, InputRequests, InputResponse, InputResponses};
use serde_json::{Map, Value};

use crate::handler::Callbacks;

/// How many `input_required` answers one call follows before it fails.
pub const MAX_INPUT_ROUNDS: usize = 16;

/// The methods that may answer `input_required`.
pub(crate) const INPUT_METHODS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

/// What the server asked for in one `input_required` answer.
pub(crate) struct InputRound {
    /// The requests to fulfil, by the server's keys.
    pub(crate) requests: InputRequests,
    /// The opaque state to echo, exactly as received.
    pub(crate) state: Option<Value>,
}

impl InputRound {
    /// Reads an `input_required` result; it must carry `inputRequests` or `requestState`.
    pub(crate) fn parse(mut result: Value) -> Result<Self, String> {
        let state = result
            .get_mut("requestState")
            .map(Value::take)
            .filter(|s| !s.is_null());
        let requests = match result.get_mut("inputRequests").map(Value::take) {
            None | Some(Value::Null) => InputRequests::new(),
            Some(value) => serde_json::from_value(value)
                .map_err(|e| format!("inputRequests could not be read: {e}"))?,
        };
        if requests.is_empty() && state.is_none() {
            return Err(
                "an input_required result with neither inputRequests nor requestState".into(),
            );
        }
        Ok(InputRound { requests, state })
    }

    /// Answers every request with the client's handlers, one after another (a user answers one
    /// question at a time). A request with no handler fails the call: the server asked for a
    /// capability the client never declared.
    pub(crate) async fn answer(&self, callbacks: &Callbacks) -> Result<InputResponses, String> {
        let mut responses = InputResponses::new();
        for (key, request) in &self.requests {
            let refused = |e: ErrorObject| {
                format!(
                    "the client's {} handler refused input request {key:?}: {}",
                    request.method(),
                    e.message
                )
            };
            let missing = || {
                format!(
                    "the server asked for {} (input request {key:?}), and this client has no \
                     handler for it (and did not declare the capability)",
                    request.method()
                )
            };
            let response = match request {
                InputRequest::Elicit(params) => {
                    let f = callbacks.elicitation.as_ref().ok_or_else(missing)?;
                    InputResponse::Elicitation(f(params.clone()).await.map_err(refused)?)
                }
                InputRequest::CreateMessage(params) => {
                    let f = callbacks.sampling.as_ref().ok_or_else(missing)?;
                    InputResponse::Sampling(f(params.clone()).await.map_err(refused)?)
                }
                InputRequest::ListRoots(_) => {
                    let f = callbacks.roots.as_ref().ok_or_else(missing)?;
                    InputResponse::Roots(f().await.map_err(refused)?)
                }
                InputRequest::Other { .. } => return Err(missing()),
            };
            responses.insert(key.clone(), response);
        }
        Ok(responses)
    }

    /// The params of the retry: the original params (without a previous round's answers), plus
    /// `inputResponses` and the `requestState` echoed exactly.
    pub(crate) fn retry_params(
        &self,
        original: &Map<String, Value>,
        responses: &InputResponses,
    ) -> Result<Map<String, Value>, String> {
        let mut params = original.clone();
        params.remove("inputResponses");
        params.remove("requestState");
        if !responses.is_empty() {
            let value = serde_json::to_value(responses).map_err(|e| e.to_string())?;
            params.insert("inputResponses".into(), value);
        }
        if let Some(state) = &self.state {
            params.insert("requestState".into(), state.clone());
        }
        Ok(params)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use mcp_proto::schema::ElicitResult;
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn a_round_is_answered_and_the_state_echoed() {
        let round = InputRound::parse(json!({
            "resultType": "input_required",
            "inputRequests": {"who": {"method": "elicitation/create", "params": {
                "message": "name?", "requestedSchema": {"type": "object", "properties": {}}}}},
            "requestState": "opaque-123"
        }))
        .expect("parses");
        let callbacks = Callbacks {
            elicitation: Some(Arc::new(|_| {
                Box::pin(async {
                    let mut content = Map::new();
                    content.insert("name".into(), json!("octocat"));
                    Ok(ElicitResult::accept(Some(content)))
                })
            })),
            ..Default::default()
        };
        let responses = round.answer(&callbacks).await.expect("answered");
        let mut original = Map::new();
        original.insert("name".into(), json!("tool"));
        original.insert("requestState".into(), json!("old"));
        let retry = round.retry_params(&original, &responses).expect("params");
        assert_eq!(retry["name"], "tool");
        assert_eq!(retry["requestState"], "opaque-123");
        assert_eq!(retry["inputResponses"]["who"]["action"], "accept");
        assert_eq!(retry["inputResponses"]["who"]["content"]["name"], "octocat");
    }

    #[tokio::test]
    async fn a_missing_handler_and_an_empty_round_fail() {
        assert!(InputRound::parse(json!({"resultType": "input_required"})).is_err());
        let round = InputRound::parse(json!({
            "inputRequests": {"r": {"method": "roots/list"}}
        }))
        .expect("parses");
        let err = round
            .answer(&Callbacks::default())
            .await
            .expect_err("no handler");
        assert!(err.contains("roots/list"), "{err}");
    }
}
