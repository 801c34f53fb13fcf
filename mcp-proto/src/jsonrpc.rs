//! The JSON-RPC 2.0 message model: requests, notifications, results, errors and batches.
//!
//! Payloads (`params`, `result`, `error.data`) stay raw JSON ([`RawJson`]) while a message is
//! routed; only the handler that owns a method deserializes them, once, with [`Request::params_as`]
//! or [`Response::result_as`]. [`parse`] turns one frame (a line, an HTTP body, an SSE `data`
//! field) into a message or a batch and refuses anything else with a precise reason.

use std::fmt;
use std::sync::Arc;

use bytes::BufMut;
use serde::de::{self, DeserializeOwned, IgnoredAny};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// A JSON value kept as its text until someone asks for a type.
///
/// The text is valid JSON by construction: read off the wire (where the frame's parse checked
/// it), made by [`to_raw`] (serde_json wrote it), or checked by [`RawJson::from_string`]. It is
/// never checked again on the way out: [`Message::write_json`] copies it as it is.
#[derive(Clone, PartialEq, Eq)]
pub struct RawJson(Box<str>);

impl RawJson {
    /// The JSON text.
    pub fn get(&self) -> &str {
        &self.0
    }

    /// Checks that `text` is one JSON value and keeps it as it is (whitespace included).
    pub fn from_string(text: String) -> Result<Self, serde_json::Error> {
        Ok(RawJson(RawValue::from_string(text)?.into()))
    }

    /// Keeps `text` that the caller has just written as one JSON value, without reading it
    /// again (see `json_text::written`). Checked in debug builds only.
    pub(crate) fn from_written(text: String) -> Self {
        debug_assert!(
            serde_json::from_str::<IgnoredAny>(&text).is_ok(),
            "not one JSON value: {text}"
        );
        RawJson(text.into_boxed_str())
    }

    /// The text of a value serde_json has just read, which is one JSON value.
    fn from_raw_value(raw: &RawValue) -> Self {
        RawJson(raw.get().into())
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", self.0)
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for RawJson {
    /// serde has no way to hand a serializer text to copy but serde_json's `RawValue`, and
    /// making one reads the text again; messages are written by [`Message::write_json`] instead,
    /// which copies it.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue = serde_json::from_str(&self.0).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(|raw| RawJson(raw.into()))
    }
}

/// The JSON text of an empty object, the `result` of `ping` and friends.
pub fn empty_object() -> RawJson {
    RawJson("{}".into())
}

/// Builds a [`RawJson`] from text the caller knows to be valid JSON.
///
/// Panics on invalid JSON, so only use it with literals.
pub fn raw_json(text: &str) -> RawJson {
    RawJson::from_string(text.to_owned()).expect("raw_json called with invalid JSON")
}

/// Serializes a value into a [`RawJson`].
pub fn to_raw<T: Serialize + ?Sized>(value: &T) -> Result<RawJson, serde_json::Error> {
    // Most results fit at once; growing from empty would copy a small one about five times.
    let mut text = Vec::with_capacity(TO_RAW_START);
    serde_json::to_writer(&mut text, value)?;
    // serde_json writes valid JSON, so only the UTF-8 is checked (quick, and no `unsafe`).
    let text = String::from_utf8(text).map_err(|_| {
        <serde_json::Error as serde::ser::Error>::custom("serde_json wrote invalid UTF-8")
    })?;
    Ok(RawJson(text.into_boxed_str()))
}

/// The buffer [`to_raw`] starts with, in bytes.
const TO_RAW_START: usize = 256;

/// Deserializes a JSON object into `T`, refusing every other kind of JSON.
///
/// serde's derived `Deserialize` for a struct also accepts an array, reading the fields by
/// position; MCP's params, results and error objects are objects, so `["x", 1]` must not pass
/// for `{"name": "x", "id": 1}`. Use this (not `serde_json::from_str`) for anything off the wire.
pub fn from_object<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, serde_json::Error> {
    match text.trim_start().as_bytes().first() {
        Some(b'{') => serde_json::from_str(text),
        _ => match serde_json::from_str::<IgnoredAny>(text) {
            Err(e) => Err(e),
            Ok(_) => Err(de::Error::invalid_type(
                unexpected_kind(text),
                &"a JSON object",
            )),
        },
    }
}

/// A member that must be a JSON object, read into `T`: serde's derived `Deserialize` for a
/// struct also takes an array, by position (see [`from_object`]), so `"_meta": [0]` would read
/// as a `_meta` whose first field is 0.
pub(crate) struct Object<T>(pub(crate) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> de::Visitor<'de> for Visit<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Object)
            }
        }
        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}

/// What a JSON text that is not an object is, for an error message.
fn unexpected_kind(text: &str) -> de::Unexpected<'static> {
    match text.trim_start().as_bytes().first() {
        Some(b'[') => de::Unexpected::Seq,
        Some(b'"') => de::Unexpected::Other("a string"),
        Some(b't' | b'f') => de::Unexpected::Other("a boolean"),
        Some(b'n') => de::Unexpected::Unit,
        _ => de::Unexpected::Other("a number"),
    }
}

/// Standard JSON-RPC error codes and the codes MCP adds.
pub mod error_codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// MCP: the requested resource does not exist (2024-11-05 to 2025-11-25).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// MCP: the request needs a URL-mode elicitation first (2025-11-25).
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
    /// MCP 2026-07-28: an HTTP header disagrees with the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// MCP 2026-07-28: the request lacks a client capability the server needs.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// MCP 2026-07-28: the request's protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A request id: an integer or a string, never null.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id (JSON numbers without a fraction that fit in an `i64`).
    Number(i64),
    /// A string id.
    String(Arc<str>),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.into())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s.into())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => s.serialize_i64(*n),
            RequestId::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl<'de> de::Visitor<'de> for IdVisitor {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or a string request id")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v)
                    .map(RequestId::Number)
                    .map_err(|_| E::custom("request id is too large for a 64-bit integer"))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RequestId, E> {
                if v.fract() == 0.0 && v.abs() < 9.0e15 {
                    Ok(RequestId::Number(v as i64))
                } else {
                    Err(E::custom("request id must be an integer or a string"))
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.into()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<RequestId, E> {
                Err(E::custom("request id must not be null"))
            }
        }
        d.deserialize_any(IdVisitor)
    }
}

/// The error object of an error response.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code; see [`error_codes`].
    pub code: i64,
    /// A short description a user can act on.
    pub message: String,
    /// Extra information, kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<RawJson>,
}

impl PartialEq for ErrorObject {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
            && self.message == other.message
            && self.data.as_ref().map(|d| d.get()) == other.data.as_ref().map(|d| d.get())
    }
}

impl ErrorObject {
    /// An error with a code and a message.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }
    /// Attaches `data` (serialized now; a value that cannot be serialized is dropped).
    pub fn with_data<T: Serialize>(mut self, data: &T) -> Self {
        self.data = to_raw(data).ok();
        self
    }
    /// -32700: the frame was not JSON.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(error_codes::PARSE_ERROR, format!("Parse error: {detail}"))
    }
    /// -32600: the JSON was not a valid JSON-RPC message.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(
            error_codes::INVALID_REQUEST,
            format!("Invalid request: {detail}"),
        )
    }
    /// -32601: nobody serves this method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            error_codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }
    /// -32602: the params did not fit the method.
    pub fn invalid_params(detail: impl fmt::Display) -> Self {
        Self::new(
            error_codes::INVALID_PARAMS,
            format!("Invalid params: {detail}"),
        )
    }
    /// -32603: something failed inside the receiver.
    pub fn internal(detail: impl fmt::Display) -> Self {
        Self::new(
            error_codes::INTERNAL_ERROR,
            format!("Internal error: {detail}"),
        )
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)?;
        if let Some(data) = &self.data {
            write!(f, ", data: {}", data.get())?;
        }
        Ok(())
    }
}

impl std::error::Error for ErrorObject {}

/// A request: a method call that expects exactly one response.
#[derive(Debug)]
pub struct Request {
    /// The id the response will carry.
    pub id: RequestId,
    /// The method name, e.g. `tools/call`.
    pub method: String,
    /// The params, raw.
    pub params: Option<RawJson>,
}

/// A notification: a method call without an id and without a response.
#[derive(Debug)]
pub struct Notification {
    /// The method name, e.g. `notifications/progress`.
    pub method: String,
    /// The params, raw.
    pub params: Option<RawJson>,
}

/// A successful response.
#[derive(Debug)]
pub struct Response {
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result, raw.
    pub result: RawJson,
}

/// An error response. Its id is `None` (JSON null) when the request's id could not be read.
#[derive(Debug)]
pub struct ErrorResponse {
    /// The id of the request this answers, if it was known.
    pub id: Option<RequestId>,
    /// What went wrong.
    pub error: ErrorObject,
}

/// One JSON-RPC message of any of the four kinds.
#[derive(Debug)]
pub enum Message {
    /// A method call that expects a response.
    Request(Request),
    /// A method call without a response.
    Notification(Notification),
    /// A successful response.
    Response(Response),
    /// An error response.
    Error(ErrorResponse),
}

fn params_into<T: DeserializeOwned>(params: Option<&RawJson>) -> Result<T, serde_json::Error> {
    from_object(params.map_or("{}", |p| p.get()))
}

impl Request {
    /// A request with params serialized now.
    pub fn new<P: Serialize>(
        id: RequestId,
        method: impl Into<String>,
        params: &P,
    ) -> Result<Self, serde_json::Error> {
        Ok(Request {
            id,
            method: method.into(),
            params: Some(to_raw(params)?),
        })
    }
    /// Deserializes the params into `T`; absent params read as `{}`.
    pub fn params_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        params_into(self.params.as_ref())
    }
}

impl Notification {
    /// A notification with params serialized now.
    pub fn new<P: Serialize>(
        method: impl Into<String>,
        params: &P,
    ) -> Result<Self, serde_json::Error> {
        Ok(Notification {
            method: method.into(),
            params: Some(to_raw(params)?),
        })
    }
    /// Deserializes the params into `T`; absent params read as `{}`.
    pub fn params_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        params_into(self.params.as_ref())
    }
}

impl Response {
    /// A response with a result serialized now.
    pub fn new<R: Serialize>(id: RequestId, result: &R) -> Result<Self, serde_json::Error> {
        Ok(Response {
            id,
            result: to_raw(result)?,
        })
    }
    /// Deserializes the result into `T`.
    pub fn result_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        from_object(self.result.get())
    }
}

impl Message {
    /// The method, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            _ => None,
        }
    }
    /// The id, for requests and responses (`None` for notifications and null-id errors).
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Message::Request(r) => Some(&r.id),
            Message::Response(r) => Some(&r.id),
            Message::Error(e) => e.id.as_ref(),
            Message::Notification(_) => None,
        }
    }
    /// An error response.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        Message::Error(ErrorResponse { id, error })
    }
    /// Writes the message as compact JSON into `out`, its raw payload copied as it is.
    pub fn write_json<B: BufMut>(&self, out: &mut B) {
        // Serializing our own ids, method names and error objects cannot fail: every map key
        // is a string, and every raw value in an error's data is valid JSON.
        match self {
            Message::Request(r) => {
                out.put_slice(br#"{"jsonrpc":"2.0","id":"#);
                let _ = serde_json::to_writer((&mut *out).writer(), &r.id);
                out.put_slice(br#","method":"#);
                let _ = serde_json::to_writer((&mut *out).writer(), &r.method);
                write_params(out, r.params.as_ref());
            }
            Message::Notification(n) => {
                out.put_slice(br#"{"jsonrpc":"2.0","method":"#);
                let _ = serde_json::to_writer((&mut *out).writer(), &n.method);
                write_params(out, n.params.as_ref());
            }
            Message::Response(r) => {
                out.put_slice(br#"{"jsonrpc":"2.0","id":"#);
                let _ = serde_json::to_writer((&mut *out).writer(), &r.id);
                out.put_slice(br#","result":"#);
                out.put_slice(r.result.get().as_bytes());
                out.put_u8(b'}');
            }
            Message::Error(_) => {
                let _ = serde_json::to_writer((&mut *out).writer(), self);
            }
        }
    }
    /// The message as compact JSON text.
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(128);
        self.write_json(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

impl From<Request> for Message {
    fn from(r: Request) -> Self {
        Message::Request(r)
    }
}
impl From<Notification> for Message {
    fn from(n: Notification) -> Self {
        Message::Notification(n)
    }
}
impl From<Response> for Message {
    fn from(r: Response) -> Self {
        Message::Response(r)
    }
}
impl From<ErrorResponse> for Message {
    fn from(e: ErrorResponse) -> Self {
        Message::Error(e)
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Request(r) => {
                let mut st = s.serialize_struct("Request", 4)?;
                st.serialize_field("jsonrpc", "2.0")?;
                st.serialize_field("id", &r.id)?;
                st.serialize_field("method", &r.method)?;
                if let Some(p) = &r.params {
                    st.serialize_field("params", p)?;
                }
                st.end()
            }
            Message::Notification(n) => {
                let mut st = s.serialize_struct("Notification", 3)?;
                st.serialize_field("jsonrpc", "2.0")?;
                st.serialize_field("method", &n.method)?;
                if let Some(p) = &n.params {
                    st.serialize_field("params", p)?;
                }
                st.end()
            }
            Message::Response(r) => {
                let mut st = s.serialize_struct("Response", 3)?;
                st.serialize_field("jsonrpc", "2.0")?;
                st.serialize_field("id", &r.id)?;
                st.serialize_field("result", &r.result)?;
                st.end()
            }
            Message::Error(e) => {
                let mut st = s.serialize_struct("Error", 3)?;
                st.serialize_field("jsonrpc", "2.0")?;
                st.serialize_field("id", &e.id)?;
                st.serialize_field("error", &e.error)?;
                st.end()
            }
        }
    }
}

/// What one frame holds: a single message or a batch (a JSON array, 2025-03-26 only).
#[derive(Debug)]
pub enum Incoming {
    /// One message.
    Single(Message),
    /// A non-empty batch; each element parsed on its own, so one bad element spoils nothing else.
    Batch(Vec<Result<Message, InvalidMessage>>),
}

/// Valid JSON that is not a valid JSON-RPC message, with the reason and the id if one was read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{reason}")]
pub struct InvalidMessage {
    /// The id of the offending request, when it could be read.
    pub id: Option<RequestId>,
    /// Why the message was refused; this becomes the -32600 error message.
    pub reason: String,
}

impl InvalidMessage {
    fn new(id: Option<RequestId>, reason: impl Into<String>) -> Self {
        InvalidMessage {
            id,
            reason: reason.into(),
        }
    }
    /// The -32600 error response that answers this message.
    pub fn to_error_response(&self) -> Message {
        Message::error(self.id.clone(), ErrorObject::invalid_request(&self.reason))
    }
}

/// Why a frame could not be turned into a message.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// Not JSON at all: answered with -32700 and id null.
    #[error("invalid JSON: {0}")]
    Json(String),
    /// JSON, but not a JSON-RPC message: answered with -32600.
    #[error("invalid JSON-RPC message: {0}")]
    Invalid(InvalidMessage),
}

impl ParseError {
    /// The error response that answers the frame.
    pub fn to_error_response(&self) -> Message {
        match self {
            ParseError::Json(detail) => Message::error(None, ErrorObject::parse_error(detail)),
            ParseError::Invalid(inv) => inv.to_error_response(),
        }
    }
}

/// The fields of any JSON-RPC message, each kept raw so that presence (even as null) and type
/// can be checked with precise reasons.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// Deserializes a field that is present (even as `null`) into `Some`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

fn first_byte(raw: &RawValue) -> u8 {
    raw.get().as_bytes().first().copied().unwrap_or(b' ')
}

/// Parses one frame into a message or a batch.
pub fn parse(frame: &[u8]) -> Result<Incoming, ParseError> {
    let start = frame.iter().position(|b| !b.is_ascii_whitespace());
    if start.map(|i| frame[i]) == Some(b'[') {
        let items: Vec<&RawValue> =
            serde_json::from_slice(frame).map_err(|e| ParseError::Json(e.to_string()))?;
        if items.is_empty() {
            return Err(ParseError::Invalid(InvalidMessage::new(
                None,
                "empty batch",
            )));
        }
        let batch = items
            .into_iter()
            .map(|raw| parse_one(raw.get().as_bytes()))
            .collect();
        return Ok(Incoming::Batch(batch));
    }
    match parse_one(frame) {
        Ok(message) => Ok(Incoming::Single(message)),
        Err(invalid) if invalid.reason.starts_with(NOT_JSON) => Err(ParseError::Json(
            invalid.reason[NOT_JSON.len()..].to_owned(),
        )),
        Err(invalid) => Err(ParseError::Invalid(invalid)),
    }
}

/// Parses one frame that must hold a single message (batches refused as invalid).
pub fn parse_message(frame: &[u8]) -> Result<Message, ParseError> {
    match parse(frame)? {
        Incoming::Single(m) => Ok(m),
        Incoming::Batch(_) => Err(ParseError::Invalid(InvalidMessage::new(
            None,
            "a batch was sent where a single message is required",
        ))),
    }
}

const NOT_JSON: &str = "\u{0}json:";

fn parse_one(bytes: &[u8]) -> Result<Message, InvalidMessage> {
    // A message is an object: serde would read an array into the envelope by position.
    let is_object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let env: Envelope = match is_object.then(|| serde_json::from_slice::<Envelope>(bytes)) {
        Some(Ok(env)) => env,
        failed => {
            // Valid JSON of the wrong shape is an invalid request; anything else (including text
            // that is not UTF-8, which skipping a value does not check) is a parse error.
            let not_json = match std::str::from_utf8(bytes) {
                Err(e) => Some(e.to_string()),
                Ok(_) => serde_json::from_slice::<IgnoredAny>(bytes)
                    .err()
                    .map(|e| e.to_string()),
            };
            return Err(match (not_json, failed) {
                (Some(e), _) => InvalidMessage::new(None, format!("{NOT_JSON}{e}")),
                (None, Some(Err(e))) => {
                    InvalidMessage::new(None, format!("not a JSON-RPC message: {e}"))
                }
                (None, _) => InvalidMessage::new(None, "a message must be a JSON object"),
            });
        }
    };
    let id = match env.id {
        None => None,
        Some(raw) if raw.get() == "null" => Some(None),
        Some(raw) => match serde_json::from_str::<RequestId>(raw.get()) {
            Ok(id) => Some(Some(id)),
            Err(e) => return Err(InvalidMessage::new(None, format!("bad \"id\": {e}"))),
        },
    };
    let known_id = id.clone().flatten();
    let fail = |reason: &str| Err(InvalidMessage::new(known_id.clone(), reason));
    match env.jsonrpc {
        // The usual spelling first; an escaped one (`"2\u002e0"`) is the same string.
        Some(v)
            if v.get() == "\"2.0\""
                || serde_json::from_str::<String>(v.get()).is_ok_and(|t| t == "2.0") => {}
        Some(_) => return fail("\"jsonrpc\" must be \"2.0\""),
        None => return fail("missing \"jsonrpc\": \"2.0\""),
    }
    if let Some(method) = env.method {
        let method: String = match serde_json::from_str(method.get()) {
            Ok(m) => m,
            Err(_) => return fail("\"method\" must be a string"),
        };
        if env.result.is_some() || env.error.is_some() {
            return fail("a request or notification must not carry \"result\" or \"error\"");
        }
        let params = match env.params {
            None => None,
            Some(p) if p.get() == "null" => None,
            Some(p) if matches!(first_byte(p), b'{' | b'[') => Some(RawJson::from_raw_value(p)),
            Some(_) => return fail("\"params\" must be an object or an array"),
        };
        return match id {
            None => Ok(Message::Notification(Notification { method, params })),
            Some(None) => fail("a request id must not be null"),
            Some(Some(id)) => Ok(Message::Request(Request { id, method, params })),
        };
    }
    if env.params.is_some() {
        return fail("\"params\" without \"method\"");
    }
    match (env.result, env.error) {
        (Some(_), Some(_)) => fail("a response must not carry both \"result\" and \"error\""),
        (Some(result), None) => match id {
            Some(Some(id)) => Ok(Message::Response(Response {
                id,
                result: RawJson::from_raw_value(result),
            })),
            _ => fail("a result response needs a non-null \"id\""),
        },
        (None, Some(error)) => {
            let Some(id) = id else {
                return fail("an error response needs an \"id\" (null when unknown)");
            };
            match from_object::<ErrorObject>(error.get()) {
                Ok(error) => Ok(Message::Error(ErrorResponse { id, error })),
                Err(e) => fail(&format!("bad \"error\" object: {e}")),
            }
        }
        (None, None) => fail("a message needs \"method\", \"result\" or \"error\""),
    }
}

/// Writes `,"params":PARAMS}` (or just `}` without params) after a method.
fn write_params<B: BufMut>(out: &mut B, params: Option<&RawJson>) {
    if let Some(params) = params {
        out.put_slice(br#","params":"#);
        out.put_slice(params.get().as_bytes());
    }
    out.put_u8(b'}');
}

/// A batch of messages to send as one JSON array.
pub struct Batch<'a>(pub &'a [Message]);

impl Batch<'_> {
    /// Writes the batch as a compact JSON array into `out`.
    pub fn write_json<B: BufMut>(&self, out: &mut B) {
        out.put_u8(b'[');
        for (i, message) in self.0.iter().enumerate() {
            if i > 0 {
                out.put_u8(b',');
            }
            message.write_json(out);
        }
        out.put_u8(b']');
    }
}

impl Serialize for Batch<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn single(text: &str) -> Message {
        match parse(text.as_bytes()) {
            Ok(Incoming::Single(m)) => m,
            other => panic!("expected a single message from {text}, got {other:?}"),
        }
    }

    fn invalid(text: &str) -> InvalidMessage {
        match parse(text.as_bytes()) {
            Err(ParseError::Invalid(inv)) => inv,
            other => panic!("expected an invalid message from {text}, got {other:?}"),
        }
    }

    #[test]
    fn request_with_integer_id() {
        let m = single(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}}"#);
        let Message::Request(r) = m else {
            panic!("not a request")
        };
        assert_eq!(r.id, RequestId::Number(7));
        assert_eq!(r.method, "tools/list");
        assert_eq!(
            r.params.as_ref().map(|p| p.get()),
            Some(r#"{"cursor":"x"}"#)
        );
    }

    #[test]
    fn request_with_string_id_and_no_params() {
        let m = single(r#"{"jsonrpc":"2.0","id":"abc","method":"ping"}"#);
        let Message::Request(r) = m else {
            panic!("not a request")
        };
        assert_eq!(r.id, RequestId::from("abc"));
        assert!(r.params.is_none());
        let v: serde_json::Value = r.params_as().unwrap();
        assert_eq!(v, serde_json::json!({}));
    }

    #[test]
    fn notification_response_and_error() {
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Message::Notification(_)
        ));
        let Message::Response(r) = single(r#"{"jsonrpc":"2.0","id":1,"result":{"a":[1,2]}}"#)
        else {
            panic!("not a response")
        };
        assert_eq!(r.result.get(), r#"{"a":[1,2]}"#);
        let Message::Error(e) = single(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad","data":{"x":1}}}"#,
        ) else {
            panic!("not an error")
        };
        assert_eq!(e.id, None);
        assert_eq!(e.error.code, error_codes::PARSE_ERROR);
        assert_eq!(e.error.data.as_ref().map(|d| d.get()), Some(r#"{"x":1}"#));
    }

    #[test]
    fn null_id_refused_for_requests() {
        let inv = invalid(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
        assert!(inv.reason.contains("null"), "{}", inv.reason);
        let inv = invalid(r#"{"jsonrpc":"2.0","id":null,"result":{}}"#);
        assert!(inv.reason.contains("non-null"), "{}", inv.reason);
    }

    #[test]
    fn bad_shapes_have_precise_reasons() {
        let cases = [
            (r#"{"id":1,"method":"ping"}"#, "jsonrpc"),
            (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, "jsonrpc"),
            (r#"{"jsonrpc":"2.0","id":1,"method":5}"#, "method"),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#, "id"),
            (r#"{"jsonrpc":"2.0","id":true,"method":"x"}"#, "id"),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"x","params":3}"#,
                "params",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
                "both",
            ),
            (r#"{"jsonrpc":"2.0","id":1}"#, "method"),
            (r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#, "error"),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"x","result":1}"#,
                "result",
            ),
            (r#"42"#, "object"),
            (r#""hello""#, "object"),
        ];
        for (text, word) in cases {
            let inv = invalid(text);
            assert!(inv.reason.contains(word), "{text}: {}", inv.reason);
        }
    }

    #[test]
    fn invalid_request_keeps_the_id_it_could_read() {
        let inv = invalid(r#"{"jsonrpc":"2.0","id":9,"method":5}"#);
        assert_eq!(inv.id, Some(RequestId::Number(9)));
        let reply = inv.to_error_response().to_json();
        assert!(
            reply.contains(r#""id":9"#) && reply.contains("-32600"),
            "{reply}"
        );
    }

    #[test]
    fn malformed_json_is_a_parse_error() {
        for text in [r#"{"jsonrpc":"2.0","#, "not json", "[1,", ""] {
            match parse(text.as_bytes()) {
                Err(ParseError::Json(_)) => {}
                other => panic!("{text}: {other:?}"),
            }
        }
        let reply = ParseError::Json("x".into()).to_error_response().to_json();
        assert!(
            reply.contains(r#""id":null"#) && reply.contains("-32700"),
            "{reply}"
        );
    }

    #[test]
    fn an_array_is_never_a_message() {
        // The audit's lines: arrays inside a batch were read as messages, field by position.
        for text in [
            r#"[["2.0", 5, "ping"]]"#,
            r#"[["2.0",6,"tools/call",{"name":"get_weather","arguments":{"city":"Paris"}}]]"#,
        ] {
            let Ok(Incoming::Batch(items)) = parse(text.as_bytes()) else {
                panic!("{text}: not a batch")
            };
            assert_eq!(items.len(), 1);
            let invalid = items[0].as_ref().expect_err(text);
            assert_eq!(invalid.id, None, "{text}");
            assert!(invalid.reason.contains("JSON object"), "{invalid:?}");
            let reply = invalid.to_error_response().to_json();
            assert!(
                reply.contains("-32600") && reply.contains(r#""id":null"#),
                "{reply}"
            );
        }
        // Every other kind of JSON at the top level, or inside a batch, is an invalid request.
        for text in ["5", "\"ping\"", "true", "null", r#"[5, "x", null, [1]]"#] {
            match parse(text.as_bytes()) {
                Err(ParseError::Invalid(i)) => assert_eq!(i.id, None, "{text}"),
                Ok(Incoming::Batch(items)) => assert!(items.iter().all(|i| i.is_err()), "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        // An error object must be an object too.
        let text = r#"{"jsonrpc":"2.0","id":1,"error":[-32000,"x"]}"#;
        assert!(matches!(
            parse(text.as_bytes()),
            Err(ParseError::Invalid(_))
        ));
    }

    #[test]
    fn what_the_fuzzer_found_in_the_error_paths() {
        // The version is compared as a string, not as text.
        let text = r#"{"jsonrpc":"2\u002e0","id":1,"method":"ping"}"#;
        assert!(matches!(
            parse(text.as_bytes()),
            Ok(Incoming::Single(Message::Request(_)))
        ));
        // Bytes that are not UTF-8 are not JSON: -32700, whatever field they sit in.
        let mut bytes = br#"{"jsonrpc":"2.0","id":1,"method":"?"}"#.to_vec();
        let at = bytes
            .iter()
            .position(|b| *b == b'?')
            .expect("a placeholder");
        bytes[at] = 0xff;
        assert!(
            matches!(parse(&bytes), Err(ParseError::Json(_))),
            "{:?}",
            parse(&bytes)
        );
        // A repeated member says so, instead of "must be an object".
        let text = r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#;
        let Err(ParseError::Invalid(invalid)) = parse(text.as_bytes()) else {
            panic!("a repeated id is invalid")
        };
        assert!(invalid.reason.contains("duplicate field"), "{invalid:?}");
    }

    #[test]
    fn typed_payloads_must_be_objects() {
        #[derive(Deserialize, Debug)]
        struct Named {
            #[allow(dead_code)]
            name: String,
        }
        assert!(from_object::<Named>(r#"{"name":"x"}"#).is_ok());
        assert!(
            serde_json::from_str::<Named>(r#"["x"]"#).is_ok(),
            "serde's hole"
        );
        for text in [r#"["x"]"#, r#" ["x"]"#, "\"x\"", "1", "null", "true"] {
            let e = from_object::<Named>(text).expect_err(text);
            assert!(e.to_string().contains("a JSON object"), "{e}");
        }
        assert!(from_object::<Named>("[1,").unwrap_err().is_eof());
        let request = Request {
            id: 1.into(),
            method: "m".into(),
            params: Some(raw_json(r#"["x"]"#)),
        };
        assert!(request.params_as::<Named>().is_err());
        let response = Response {
            id: 1.into(),
            result: raw_json(r#"["x"]"#),
        };
        assert!(response.result_as::<Named>().is_err());
    }

    #[test]
    fn batches_parse_each_element() {
        let text = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},5]"#;
        let Ok(Incoming::Batch(items)) = parse(text.as_bytes()) else {
            panic!("not a batch")
        };
        assert_eq!(items.len(), 3);
        assert!(matches!(items[0], Ok(Message::Request(_))));
        assert!(matches!(items[1], Ok(Message::Notification(_))));
        assert!(items[2].is_err());
        assert!(matches!(parse(b"[]"), Err(ParseError::Invalid(_))));
        assert!(parse_message(text.as_bytes()).is_err());
    }

    #[test]
    fn unknown_fields_are_ignored_and_payloads_round_trip() {
        let text = r#"{"jsonrpc":"2.0","id":"a","method":"m","params":{"_meta":{"k":[1,{"z":null}]},"x":"\u00e9\n"},"extra":1}"#;
        let m = single(text);
        let out = m.to_json();
        assert_eq!(
            out,
            r#"{"jsonrpc":"2.0","id":"a","method":"m","params":{"_meta":{"k":[1,{"z":null}]},"x":"\u00e9\n"}}"#
        );
    }

    #[test]
    fn every_kind_serializes() {
        let req = Message::Request(
            Request::new(RequestId::from(3), "ping", &serde_json::json!({})).unwrap(),
        );
        assert_eq!(
            req.to_json(),
            r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{}}"#
        );
        let note = Message::Notification(Notification {
            method: "n".into(),
            params: None,
        });
        assert_eq!(note.to_json(), r#"{"jsonrpc":"2.0","method":"n"}"#);
        let resp = Message::Response(Response {
            id: "x".into(),
            result: empty_object(),
        });
        assert_eq!(resp.to_json(), r#"{"jsonrpc":"2.0","id":"x","result":{}}"#);
        let err = Message::error(
            Some(RequestId::from(1)),
            ErrorObject::method_not_found("nope"),
        );
        assert_eq!(
            err.to_json(),
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: nope"}}"#
        );
        let batch = serde_json::to_string(&Batch(&[req, note])).unwrap();
        assert!(batch.starts_with('[') && batch.ends_with(']'));
    }

    #[test]
    fn written_by_hand_as_serde_writes_it() {
        let messages = [
            Message::Request(Request {
                id: RequestId::from("a \"quoted\" id\n"),
                method: "tools/\u{1}call".into(),
                params: Some(raw_json("{\n  \"k\": [1, 2.50]\n}")),
            }),
            Message::Request(Request {
                id: RequestId::from(-3),
                method: "ping".into(),
                params: None,
            }),
            Message::Notification(Notification {
                method: "notifications/\"x\"".into(),
                params: Some(raw_json("[]")),
            }),
            Message::Notification(Notification {
                method: "n".into(),
                params: None,
            }),
            Message::Response(Response {
                id: RequestId::from(i64::MAX),
                result: raw_json(r#"{"text":"caf\u00e9 \"x\"","n":1e400}"#),
            }),
            Message::error(
                None,
                ErrorObject::invalid_params("x").with_data(&serde_json::json!({"why": "y"})),
            ),
        ];
        for message in &messages {
            let serde = serde_json::to_string(message).unwrap();
            assert_eq!(message.to_json(), serde);
        }
        let mut written = Vec::new();
        Batch(&messages).write_json(&mut written);
        assert_eq!(
            String::from_utf8(written).unwrap(),
            serde_json::to_string(&Batch(&messages)).unwrap()
        );
    }

    #[test]
    fn each_error_code() {
        use error_codes::*;
        let made = [
            (ErrorObject::parse_error("x").code, PARSE_ERROR, -32700),
            (
                ErrorObject::invalid_request("x").code,
                INVALID_REQUEST,
                -32600,
            ),
            (
                ErrorObject::method_not_found("x").code,
                METHOD_NOT_FOUND,
                -32601,
            ),
            (
                ErrorObject::invalid_params("x").code,
                INVALID_PARAMS,
                -32602,
            ),
            (ErrorObject::internal("x").code, INTERNAL_ERROR, -32603),
            (RESOURCE_NOT_FOUND, RESOURCE_NOT_FOUND, -32002),
            (URL_ELICITATION_REQUIRED, URL_ELICITATION_REQUIRED, -32042),
        ];
        for (got, constant, expected) in made {
            assert_eq!(got, expected);
            assert_eq!(constant, expected);
        }
        let e = ErrorObject::new(RESOURCE_NOT_FOUND, "Resource not found")
            .with_data(&serde_json::json!({"uri": "file:///x"}));
        let text = Message::error(Some(RequestId::from(2)), e).to_json();
        assert!(text.contains(r#""data":{"uri":"file:///x"}"#), "{text}");
    }

    #[test]
    fn large_and_negative_ids() {
        let m = single(r#"{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}"#);
        assert_eq!(m.id(), Some(&RequestId::Number(9007199254740993)));
        let m = single(r#"{"jsonrpc":"2.0","id":-5,"method":"ping"}"#);
        assert_eq!(m.id(), Some(&RequestId::Number(-5)));
        let inv = invalid(r#"{"jsonrpc":"2.0","id":99999999999999999999,"method":"ping"}"#);
        assert!(inv.reason.contains("id"), "{}", inv.reason);
    }
}
