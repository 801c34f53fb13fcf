//! The one way every request goes: typed or raw, in either era (`_meta` and `resultType` under
//! 2026-07-28, the `input_required` rounds), its answer decoded, and lists followed page by page.

use std::time::Duration;

use mcp_proto::jsonrpc;
use mcp_proto::peer::PeerError;
use mcp_proto::schema::{
    CallTool, Cursor, ModernResultFields, PaginatedParams, Prompt, RequestType, Resource,
    ResourceTemplate, Tool,
};
use mcp_proto::version::ProtocolVersion;

use crate::error::ClientError;
use crate::input::{InputRound, INPUT_METHODS, MAX_INPUT_ROUNDS};
use crate::modern;
use crate::options::CallOptions;

use super::background::modern_version;
use super::{Client, Connection};

/// Result pages with items and a cursor, so one loop serves every `list_*` call.
pub(super) trait Page {
    type Item;
    fn into_parts(self) -> (Vec<Self::Item>, Option<Cursor>);
}

macro_rules! page {
    ($result:ty, $item:ty, $field:ident) => {
        impl Page for $result {
            type Item = $item;
            fn into_parts(self) -> (Vec<$item>, Option<Cursor>) {
                (self.$field, self.next_cursor)
            }
        }
    };
}

page!(mcp_proto::schema::ListToolsResult, Tool, tools);
page!(mcp_proto::schema::ListResourcesResult, Resource, resources);
page!(
    mcp_proto::schema::ListResourceTemplatesResult,
    ResourceTemplate,
    resource_templates
);
page!(mcp_proto::schema::ListPromptsResult, Prompt, prompts);

impl Client {
    /// Sends any typed request with per-call options; the other calls are shorthands for it.
    /// Under 2026-07-28 the request carries the era's `_meta`, the answer's `resultType` is
    /// checked, and `input_required` answers are followed (see [`MAX_INPUT_ROUNDS`]).
    pub async fn send<R: RequestType>(
        &self,
        params: &R::Params,
        options: CallOptions,
    ) -> Result<R::Result, ClientError> {
        let connection = self.connection(R::METHOD).await?;
        if let Some(version) = modern_version(&connection) {
            let params =
                serde_json::to_value(params).map_err(|e| self.encode_error(R::METHOD, e))?;
            let raw = self
                .call_modern(
                    &connection,
                    version,
                    R::METHOD,
                    modern::Params::Json(Some(&params)),
                    options,
                    modern::classify,
                )
                .await?;
            return jsonrpc::from_object(raw.get()).map_err(|e| {
                ClientError::from_peer(
                    &self.inner.name,
                    PeerError::Decode {
                        method: R::METHOD.to_owned(),
                        detail: e.to_string(),
                    },
                )
            });
        }
        let request = options.to_request_options(self.inner.options.request_timeout);
        connection
            .peer
            .request_with::<R>(params, request)
            .await
            .map_err(|e| ClientError::from_peer(&self.inner.name, e))
    }

    pub(super) fn encode_error(&self, method: &str, e: impl std::fmt::Display) -> ClientError {
        ClientError::from_peer(
            &self.inner.name,
            PeerError::Encode {
                method: method.to_owned(),
                detail: e.to_string(),
            },
        )
    }

    /// One 2026-07-28 call: `_meta` added, `resultType` checked, and `input_required` answered
    /// with the client's handlers and retried (new id, `inputResponses`, `requestState` echoed),
    /// at most [`MAX_INPUT_ROUNDS`] times. `read` tells the answers apart (and reads a complete
    /// one or a task handle into what the caller wants).
    pub(super) async fn call_modern<R>(
        &self,
        connection: &Connection,
        version: ProtocolVersion,
        method: &str,
        params: modern::Params<'_>,
        options: CallOptions,
        read: impl Fn(jsonrpc::RawJson) -> Result<modern::Answer<R>, String>,
    ) -> Result<R, ClientError> {
        let name = &self.inner.name;
        let meta = self
            .modern_meta(version)
            .map_err(|e| self.encode_error(method, e))?;
        // The first round sends the params as given; later ones add the answers to them.
        let mut retry = None;
        for round in 0..=MAX_INPUT_ROUNDS {
            let raw = match &retry {
                None => meta.encode_params(params),
                Some(retry) => meta.encode(retry),
            }
            .map_err(|e| self.encode_error(method, e))?;
            let request = options.to_request_options(self.inner.options.request_timeout);
            let answer = connection
                .peer
                .request_raw(method, Some(raw), request)
                .await
                .map_err(|e| ClientError::from_peer(name, e))?;
            let invalid = |reason: String| ClientError::InvalidResult {
                server: name.clone(),
                method: method.to_owned(),
                reason,
            };
            let input_error = |reason: String| ClientError::InputRequired {
                server: name.clone(),
                method: method.to_owned(),
                reason,
            };
            let asked = match read(answer).map_err(invalid)? {
                modern::Answer::Complete(answer) => return Ok(answer),
                // A task handle goes back to the caller, which polls it (only `tools/call`
                // may create one).
                modern::Answer::Task(answer) if method == CallTool::METHOD => return Ok(answer),
                modern::Answer::Task(_) => {
                    return Err(invalid(format!(
                        "a task handle (resultType \"task\"), which only {} may answer",
                        CallTool::METHOD
                    )))
                }
                modern::Answer::InputRequired(asked) => asked,
            };
            if !INPUT_METHODS.contains(&method) {
                return Err(invalid(format!(
                    "input_required, which only {} may answer",
                    INPUT_METHODS.join(", ")
                )));
            }
            if round == MAX_INPUT_ROUNDS {
                return Err(input_error(format!(
                    "the server still asked for input after {MAX_INPUT_ROUNDS} rounds; gave up"
                )));
            }
            let input = InputRound::parse(asked).map_err(invalid)?;
            // Boxed: answering is rare and its future large, and every call's future would
            // carry it.
            let responses = Box::pin(input.answer(&self.inner.options.callbacks))
                .await
                .map_err(input_error)?;
            let original = params.object().map_err(|e| self.encode_error(method, e))?;
            retry = Some(
                input
                    .retry_params(&original, &responses)
                    .map_err(|e| self.encode_error(method, e))?,
            );
        }
        unreachable!("the loop returns on its last round")
    }

    /// Sends any request by method name with JSON params, for methods we have no type for.
    pub async fn request(
        &self,
        method: &str,
        params: Option<serde_json::Value>,
        options: CallOptions,
    ) -> Result<serde_json::Value, ClientError> {
        let raw = self
            .request_json(
                method,
                modern::Params::Json(params.as_ref()),
                options,
                modern::classify,
                std::convert::identity,
            )
            .await?;
        self.decode_result(method, &raw)
    }

    /// Like [`request`](Self::request), the result left as the JSON text it came in.
    /// `read` tells a 2026-07-28 answer apart as [`call_modern`](Self::call_modern) does;
    /// `legacy` reads a 2025 one.
    pub(super) async fn request_json<R>(
        &self,
        method: &str,
        params: modern::Params<'_>,
        options: CallOptions,
        read: impl Fn(jsonrpc::RawJson) -> Result<modern::Answer<R>, String>,
        legacy: impl FnOnce(jsonrpc::RawJson) -> R,
    ) -> Result<R, ClientError> {
        let encode = |e: serde_json::Error| {
            ClientError::from_peer(
                &self.inner.name,
                PeerError::Encode {
                    method: method.to_owned(),
                    detail: e.to_string(),
                },
            )
        };
        let connection = self.connection(method).await?;
        if let Some(version) = modern_version(&connection) {
            return self
                .call_modern(&connection, version, method, params, options, read)
                .await;
        }
        let params = params.to_raw().map_err(encode)?;
        let request = options.to_request_options(self.inner.options.request_timeout);
        connection
            .peer
            .request_raw(method, params, request)
            .await
            .map(legacy)
            .map_err(|e| ClientError::from_peer(&self.inner.name, e))
    }

    /// A result's JSON text as `T` (an object), or why it is not one.
    pub(super) fn decode_result<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        raw: &jsonrpc::RawJson,
    ) -> Result<T, ClientError> {
        jsonrpc::from_object(raw.get()).map_err(|e| {
            ClientError::from_peer(
                &self.inner.name,
                PeerError::Decode {
                    method: method.to_owned(),
                    detail: e.to_string(),
                },
            )
        })
    }

    /// Follows `nextCursor` through every page, up to `max_list_pages`. A list the server
    /// marked cacheable (`ttlMs`, the least over its pages) is answered from the list cache
    /// until it expires or the server says it changed.
    pub(super) async fn list_all<R>(&self) -> Result<Vec<<R::Result as Page>::Item>, ClientError>
    where
        R: RequestType<Params = PaginatedParams>,
        R::Result: Page + ModernResultFields,
        <R::Result as Page>::Item: Clone + Send + Sync + 'static,
    {
        let cache = &self.inner.handler.lists;
        if let Some(items) = cache.get(R::METHOD) {
            return Ok(items);
        }
        let mut ttl: Option<u64> = None;
        let mut items = Vec::new();
        let mut cursor: Option<Cursor> = None;
        let max = self.inner.options.max_list_pages.max(1);
        for _ in 0..max {
            let params = PaginatedParams {
                cursor: cursor.take(),
                ..Default::default()
            };
            let result = self.send::<R>(&params, CallOptions::default()).await?;
            let page_ttl = result.cache().map_or(0, |(ttl, _)| ttl);
            ttl = Some(ttl.map_or(page_ttl, |t| t.min(page_ttl)));
            let (page, next) = result.into_parts();
            items.extend(page);
            match next {
                Some(next) => cursor = Some(next),
                None => {
                    let ttl = Duration::from_millis(ttl.unwrap_or(0));
                    if !ttl.is_zero() {
                        cache.put(R::METHOD, items.clone(), ttl);
                    }
                    return Ok(items);
                }
            }
        }
        Err(ClientError::TooManyPages {
            server: self.inner.name.clone(),
            method: R::METHOD.to_owned(),
            pages: max,
        })
    }
}
