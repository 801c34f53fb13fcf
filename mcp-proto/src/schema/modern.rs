//! The 2026-07-28 ("modern", stateless) era: per-request `_meta` keys instead of `initialize`,
//! `resultType` on every result, `input_required` results answered by retrying with
//! `inputResponses`, `server/discover`, `subscriptions/listen`, and cacheable results.

use std::collections::BTreeMap;

use serde::de::{self, DeserializeOwned, Deserializer};
use serde::ser::{self, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::completion::CompleteResult;
use super::elicitation::{ElicitParams, ElicitResult};
use super::empty::{EmptyParams, EmptyResult};
use super::lifecycle::{ClientCapabilities, Implementation, InitializeResult, ServerCapabilities};
use super::logging::LoggingLevel;
use super::progress::ProgressToken;
use super::prompts::{GetPromptResult, ListPromptsResult};
use super::resources::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult};
use super::roots::ListRootsResult;
use super::sampling::{CreateMessageParams, CreateMessageResult};
use super::tasks::ListTasksResult;
use super::tools::{CallToolResult, ListToolsResult};
use super::{JsonObject, Meta, NotificationType, RequestType};
use crate::jsonrpc::RequestId;

/// The reserved `_meta` keys of the 2026-07-28 era (and the older `progressToken`).
pub mod meta_keys {
    /// Request `_meta`: the protocol version of this request (required).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// Request `_meta`: the client's capabilities for this request (required).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Request `_meta`: who the client is (should be sent).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// Request `_meta`: the least severe log level wanted; without it, no log messages.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// Result `_meta`: who the server is (should be sent).
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Notification and listen-result `_meta`: the id of the `subscriptions/listen` request.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// `_meta` tying a message to a task (2025-11-25 tasks).
    pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
    /// Request `_meta`: ask for progress notifications under this token.
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// OpenTelemetry trace context `_meta` key.
    pub const TRACEPARENT: &str = "traceparent";
    /// OpenTelemetry trace state `_meta` key.
    pub const TRACESTATE: &str = "tracestate";
    /// OpenTelemetry baggage `_meta` key.
    pub const BAGGAGE: &str = "baggage";
}

/// What kind of result this is; a missing `resultType` means `complete`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// The request finished; the result is final.
    #[default]
    Complete,
    /// The server needs input first; see [`InputRequiredResult`].
    InputRequired,
    /// The server runs the request as a task (the `io.modelcontextprotocol/tasks` extension);
    /// see [`super::tasks_extension::ModernCreateTaskResult`].
    Task,
}

/// Who may cache a cacheable result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Only this client, for this user.
    Private,
    /// Any client or shared cache.
    Public,
}

/// The typed view of a 2026-07-28 request's `_meta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestMeta {
    /// The protocol version this request is made under.
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    pub protocol_version: String,
    /// The client's capabilities for this request.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
    pub client_capabilities: ClientCapabilities,
    /// Who the client is.
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Implementation>,
    /// The least severe log level wanted for this request.
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<LoggingLevel>,
    /// The progress token for this request.
    #[serde(
        rename = "progressToken",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub progress_token: Option<ProgressToken>,
    /// Other keys (trace context, extensions), kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Turns a serializable value into a JSON object, or reports what it was instead.
fn to_object<T: Serialize>(value: &T) -> Result<JsonObject, serde_json::Error> {
    match serde_json::to_value(value)? {
        Value::Object(map) => Ok(map),
        other => Err(ser::Error::custom(format!(
            "expected a JSON object, got {other}"
        ))),
    }
}

impl RequestMeta {
    /// Metadata for a request under `protocol_version` from a client with `client_capabilities`.
    pub fn new(
        protocol_version: impl Into<String>,
        client_capabilities: ClientCapabilities,
    ) -> Self {
        RequestMeta {
            protocol_version: protocol_version.into(),
            client_capabilities,
            client_info: None,
            log_level: None,
            progress_token: None,
            extra: JsonObject::new(),
        }
    }

    /// Reads the typed view out of a `_meta` map; fails if the required keys are missing.
    pub fn from_meta(meta: &Meta) -> Result<Self, serde_json::Error> {
        serde_json::from_value(Value::Object(meta.clone()))
    }

    /// Writes the typed view as a `_meta` map.
    pub fn to_meta(&self) -> Meta {
        to_object(self).unwrap_or_default()
    }
}

/// The typed view of a 2026-07-28 result's `_meta`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ResultMeta {
    /// Who the server is.
    #[serde(
        rename = "io.modelcontextprotocol/serverInfo",
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<Implementation>,
    /// The listen request this belongs to (`subscriptions/listen` results).
    #[serde(
        rename = "io.modelcontextprotocol/subscriptionId",
        skip_serializing_if = "Option::is_none"
    )]
    pub subscription_id: Option<RequestId>,
    /// Other keys, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The typed view of a 2026-07-28 notification's `_meta`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NotificationMeta {
    /// The `subscriptions/listen` request this notification is delivered under.
    #[serde(
        rename = "io.modelcontextprotocol/subscriptionId",
        skip_serializing_if = "Option::is_none"
    )]
    pub subscription_id: Option<RequestId>,
    /// Other keys, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A request the server needs the client to fulfil before it can answer (2026-07-28).
// Short-lived wire values: boxing the big variant would only complicate matching.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageParams),
    /// `roots/list`, with optional params.
    ListRoots(Option<EmptyParams>),
    /// `elicitation/create`.
    Elicit(ElicitParams),
    /// A method we do not know, kept raw.
    Other {
        /// Its method name.
        method: String,
        /// Its params, if any.
        params: Option<Value>,
    },
}

impl InputRequest {
    /// The method name of this input request.
    pub fn method(&self) -> &str {
        match self {
            InputRequest::CreateMessage(_) => "sampling/createMessage",
            InputRequest::ListRoots(_) => "roots/list",
            InputRequest::Elicit(_) => "elicitation/create",
            InputRequest::Other { method, .. } => method,
        }
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let has_params = !matches!(
            self,
            InputRequest::ListRoots(None) | InputRequest::Other { params: None, .. }
        );
        let mut st = s.serialize_struct("InputRequest", if has_params { 2 } else { 1 })?;
        st.serialize_field("method", self.method())?;
        match self {
            InputRequest::CreateMessage(p) => st.serialize_field("params", p)?,
            InputRequest::ListRoots(Some(p)) => st.serialize_field("params", p)?,
            InputRequest::Elicit(p) => st.serialize_field("params", p)?,
            InputRequest::Other {
                params: Some(p), ..
            } => st.serialize_field("params", p)?,
            InputRequest::ListRoots(None) | InputRequest::Other { params: None, .. } => {}
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }
        let raw = Raw::deserialize(d)?;
        let typed = |params: Option<Value>| params.unwrap_or(Value::Object(JsonObject::new()));
        match raw.method.as_str() {
            "sampling/createMessage" => serde_json::from_value(typed(raw.params))
                .map(InputRequest::CreateMessage)
                .map_err(de::Error::custom),
            "roots/list" => match raw.params {
                None => Ok(InputRequest::ListRoots(None)),
                Some(p) => serde_json::from_value(p)
                    .map(|p| InputRequest::ListRoots(Some(p)))
                    .map_err(de::Error::custom),
            },
            "elicitation/create" => serde_json::from_value(typed(raw.params))
                .map(InputRequest::Elicit)
                .map_err(de::Error::custom),
            _ => Ok(InputRequest::Other {
                method: raw.method,
                params: raw.params,
            }),
        }
    }
}

/// Input requests by a key the server chooses; the client answers under the same keys.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's answer to one [`InputRequest`], told apart by its required fields.
// Short-lived wire values: boxing the big variant would only complicate matching.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InputResponse {
    /// Answer to `sampling/createMessage` (has `role`, `content`, `model`).
    Sampling(CreateMessageResult),
    /// Answer to `elicitation/create` (has `action`).
    Elicitation(ElicitResult),
    /// Answer to `roots/list` (has `roots`; tried last, as its fields all default).
    Roots(ListRootsResult),
}

/// Answers by the keys of the [`InputRequests`] they answer, sent when retrying a request.
pub type InputResponses = BTreeMap<String, InputResponse>;

/// A result saying the server needs input before it can answer: retry the request with
/// `inputResponses` (and `requestState` echoed back).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// Always `input_required`.
    pub result_type: ResultType,
    /// What the client must fulfil.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state to echo back on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl InputRequiredResult {
    /// An `input_required` result asking for `input_requests`, carrying `request_state`.
    pub fn new(input_requests: InputRequests, request_state: Option<String>) -> Self {
        InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: if input_requests.is_empty() {
                None
            } else {
                Some(input_requests)
            },
            request_state,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// A 2026-07-28 result: either the final result `T` or an [`InputRequiredResult`].
///
/// Encoding a `Complete` adds `resultType: "complete"` when `T` does not carry it already.
#[derive(Debug, Clone, PartialEq)]
pub enum ModernResult<T> {
    /// The request finished.
    Complete(T),
    /// The server needs input first.
    InputRequired(Box<InputRequiredResult>),
}

impl<T: Serialize> Serialize for ModernResult<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ModernResult::InputRequired(r) => r.serialize(s),
            ModernResult::Complete(t) => {
                let mut map = to_object(t).map_err(ser::Error::custom)?;
                map.entry("resultType")
                    .or_insert_with(|| Value::String("complete".into()));
                map.serialize(s)
            }
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for ModernResult<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let input_required =
            value.get("resultType").and_then(Value::as_str) == Some("input_required");
        if input_required {
            serde_json::from_value(value)
                .map(|r| ModernResult::InputRequired(Box::new(r)))
                .map_err(de::Error::custom)
        } else {
            serde_json::from_value(value)
                .map(ModernResult::Complete)
                .map_err(de::Error::custom)
        }
    }
}

/// The 2026-07-28 fields every result may carry (`resultType`, `ttlMs`, `cacheScope`, server
/// info), read and written through the result's `_meta` and unknown-field map so that the legacy
/// shapes stay unchanged.
pub trait ModernResultFields: Sized {
    /// The result's unknown-field map, where the modern fields live.
    fn extra_fields(&self) -> &JsonObject;
    /// The same, mutably.
    fn extra_fields_mut(&mut self) -> &mut JsonObject;
    /// The result's `_meta`, mutably.
    fn meta_mut(&mut self) -> &mut Option<Meta>;

    /// The `resultType`; absent or unreadable means `complete`.
    fn result_type(&self) -> ResultType {
        self.extra_fields()
            .get("resultType")
            .and_then(|v| ResultType::deserialize(v).ok())
            .unwrap_or_default()
    }

    /// Sets `resultType`.
    fn with_result_type(mut self, result_type: ResultType) -> Self {
        let value = serde_json::to_value(result_type).unwrap_or(Value::Null);
        self.extra_fields_mut().insert("resultType".into(), value);
        self
    }

    /// Sets `ttlMs` and `cacheScope` (cacheable results: lists, reads, discover).
    fn with_cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        let scope = serde_json::to_value(scope).unwrap_or(Value::Null);
        let extra = self.extra_fields_mut();
        extra.insert("ttlMs".into(), Value::from(ttl_ms));
        extra.insert("cacheScope".into(), scope);
        self
    }

    /// The `ttlMs` and `cacheScope`, when both are present and well-formed.
    fn cache(&self) -> Option<(u64, CacheScope)> {
        let extra = self.extra_fields();
        let ttl = extra.get("ttlMs")?.as_u64()?;
        let scope = CacheScope::deserialize(extra.get("cacheScope")?).ok()?;
        Some((ttl, scope))
    }

    /// Puts `io.modelcontextprotocol/serverInfo` into `_meta`.
    fn with_server_info(mut self, info: &Implementation) -> Self {
        if let Ok(value) = serde_json::to_value(info) {
            self.meta_mut()
                .get_or_insert_with(Meta::new)
                .insert(meta_keys::SERVER_INFO.into(), value);
        }
        self
    }
}

macro_rules! modern_result_fields {
    ($($ty:ty),* $(,)?) => {$(
        impl ModernResultFields for $ty {
            fn extra_fields(&self) -> &JsonObject {
                &self.extra
            }
            fn extra_fields_mut(&mut self) -> &mut JsonObject {
                &mut self.extra
            }
            fn meta_mut(&mut self) -> &mut Option<Meta> {
                &mut self.meta
            }
        }
    )*};
}

modern_result_fields!(
    EmptyResult,
    InitializeResult,
    CallToolResult,
    ListToolsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    ListPromptsResult,
    GetPromptResult,
    CompleteResult,
    CreateMessageResult,
    ListRootsResult,
    ElicitResult,
    ListTasksResult,
);

/// The result of `server/discover`: versions, capabilities and instructions, cacheable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Always `complete`.
    #[serde(default)]
    pub result_type: ResultType,
    /// Every protocol version the server speaks.
    pub supported_versions: Vec<String>,
    /// What the server offers.
    #[serde(default)]
    pub capabilities: ServerCapabilities,
    /// How to use the server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// How long the client may cache this, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Reserved metadata (`io.modelcontextprotocol/serverInfo`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl DiscoverResult {
    /// A discovery answer; not cacheable (`ttlMs: 0`, private) until told otherwise.
    pub fn new(supported_versions: Vec<String>, capabilities: ServerCapabilities) -> Self {
        DiscoverResult {
            result_type: ResultType::Complete,
            supported_versions,
            capabilities,
            instructions: None,
            ttl_ms: Some(0),
            cache_scope: Some(CacheScope::Private),
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// `server/discover`: ask a 2026-07-28 server for its versions and capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Discover;

impl RequestType for Discover {
    const METHOD: &'static str = "server/discover";
    type Params = EmptyParams;
    type Result = DiscoverResult;
}

/// Which notifications a `subscriptions/listen` stream should carry.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these task ids (the tasks extension).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Params of `subscriptions/listen`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SubscriptionsListenParams {
    /// What to listen for.
    #[serde(default)]
    pub notifications: SubscriptionFilter,
    /// Reserved metadata (the per-request keys).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The result of `subscriptions/listen`, sent only when the server ends the subscription.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// Always `complete`.
    #[serde(default)]
    pub result_type: ResultType,
    /// Reserved metadata (`io.modelcontextprotocol/subscriptionId`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `subscriptions/listen`: open a long-lived stream of the chosen notifications (2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubscriptionsListen;

impl RequestType for SubscriptionsListen {
    const METHOD: &'static str = "subscriptions/listen";
    type Params = SubscriptionsListenParams;
    type Result = SubscriptionsListenResult;
}

/// Params of `notifications/subscriptions/acknowledged`: what the server will actually send.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedParams {
    /// The accepted filter.
    #[serde(default)]
    pub notifications: SubscriptionFilter,
    /// Reserved metadata (`io.modelcontextprotocol/subscriptionId`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `notifications/subscriptions/acknowledged`: the first message on a listen stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubscriptionsAcknowledged;

impl NotificationType for SubscriptionsAcknowledged {
    const METHOD: &'static str = "notifications/subscriptions/acknowledged";
    type Params = SubscriptionsAcknowledgedParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_meta_round_trip() {
        let v = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
            "io.modelcontextprotocol/logLevel": "warning",
            "progressToken": "p",
            "traceparent": "00-abc"
        });
        let meta: Meta = serde_json::from_value(v.clone()).unwrap();
        let typed = RequestMeta::from_meta(&meta).unwrap();
        assert_eq!(typed.log_level, Some(LoggingLevel::Warning));
        assert!(typed.client_capabilities.sampling.is_some());
        assert_eq!(Value::Object(typed.to_meta()), v);
        assert!(RequestMeta::from_meta(&Meta::new()).is_err());
    }

    #[test]
    fn modern_result_dispatches_on_result_type() {
        let r: ModernResult<CallToolResult> =
            serde_json::from_value(json!({"resultType": "input_required", "requestState": "s"}))
                .unwrap();
        assert!(
            matches!(r, ModernResult::InputRequired(ref i) if i.request_state.as_deref() == Some("s"))
        );
        let r: ModernResult<CallToolResult> =
            serde_json::from_value(json!({"content": []})).unwrap();
        assert!(matches!(r, ModernResult::Complete(_)));
        let out = serde_json::to_value(ModernResult::Complete(CallToolResult::text("x"))).unwrap();
        assert_eq!(out["resultType"], json!("complete"));
    }

    #[test]
    fn modern_fields_live_in_extra() {
        let r = ListToolsResult::default()
            .with_result_type(ResultType::Complete)
            .with_cache(1000, CacheScope::Public)
            .with_server_info(&Implementation::new("s", "1"));
        assert_eq!(r.result_type(), ResultType::Complete);
        assert_eq!(r.cache(), Some((1000, CacheScope::Public)));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"tools": [], "resultType": "complete", "ttlMs": 1000, "cacheScope": "public",
                   "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}})
        );
        assert_eq!(
            CallToolResult::default().result_type(),
            ResultType::Complete
        );
    }

    #[test]
    fn input_requests_and_responses() {
        let v = json!({
            "a": {"method": "roots/list"},
            "b": {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://x"}},
            "c": {"method": "vendor/thing", "params": {"z": 1}}
        });
        let reqs: InputRequests = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(reqs["a"], InputRequest::ListRoots(None));
        assert!(matches!(
            reqs["b"],
            InputRequest::Elicit(ElicitParams::Url(_))
        ));
        assert_eq!(reqs["c"].method(), "vendor/thing");
        assert_eq!(serde_json::to_value(&reqs).unwrap(), v);

        let v = json!({"r": {"roots": []}, "e": {"action": "cancel"},
                       "s": {"role": "assistant", "model": "m", "content": {"type": "text", "text": "t"}}});
        let resp: InputResponses = serde_json::from_value(v.clone()).unwrap();
        assert!(matches!(resp["r"], InputResponse::Roots(_)));
        assert!(matches!(resp["e"], InputResponse::Elicitation(_)));
        assert!(matches!(resp["s"], InputResponse::Sampling(_)));
        assert_eq!(serde_json::to_value(&resp).unwrap(), v);
    }
}
