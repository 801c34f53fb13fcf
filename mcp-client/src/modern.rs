//! The client's side of a 2026-07-28 request: its params on their way out ([`Params`], which
//! 2025 requests share), the `_meta` every request carries (version, capabilities, client info,
//! log level), and the check of every answer's `resultType`.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use mcp_proto::jsonrpc::{self, RawJson};
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::{ClientCapabilities, Implementation, LoggingLevel};
use mcp_proto::ProtocolVersion;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A request's params on their way out: any JSON value, or a `tools/call`'s name and arguments,
/// written straight into the request without being made into a JSON object first.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Params<'a> {
    /// The params as they are (`None`: no params).
    Json(Option<&'a Value>),
    /// `{"name": name, "arguments": arguments}`, arguments that are not an object left out (as
    /// `CallToolParams::new(name).with_arguments(arguments)` serializes).
    ToolCall {
        /// The tool's name.
        name: &'a str,
        /// Its arguments.
        arguments: &'a Value,
    },
}

/// A `tools/call`'s params as [`Params::ToolCall`] writes them, `_meta` after them when given.
#[derive(serde::Serialize)]
struct ToolCallParams<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    arguments: Option<&'a Value>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a RawValue>,
}

impl<'a> Params<'a> {
    /// The params as a JSON object (no params: an empty one), or why they are not one.
    pub(crate) fn object(self) -> Result<Cow<'a, Map<String, Value>>, String> {
        match self {
            Params::Json(None | Some(Value::Null)) => Ok(Cow::Owned(Map::new())),
            Params::Json(Some(Value::Object(map))) => Ok(Cow::Borrowed(map)),
            Params::Json(Some(other)) => Err(format!("params must be an object, got {other}")),
            Params::ToolCall { name, arguments } => {
                let mut object = Map::new();
                object.insert("name".into(), Value::String(name.to_owned()));
                if arguments.is_object() {
                    object.insert("arguments".into(), arguments.clone());
                }
                Ok(Cow::Owned(object))
            }
        }
    }

    /// The params as JSON text for a 2025 request (`None`: no params).
    pub(crate) fn to_raw(self) -> Result<Option<RawJson>, serde_json::Error> {
        match self {
            Params::Json(params) => params.map(jsonrpc::to_raw).transpose(),
            Params::ToolCall { name, arguments } => jsonrpc::to_raw(&ToolCallParams {
                name,
                arguments: arguments.is_object().then_some(arguments),
                meta: None,
            })
            .map(Some),
        }
    }
}

/// What goes into the `_meta` of every modern request.
#[derive(Clone, Debug)]
pub(crate) struct ModernMeta {
    pub(crate) version: ProtocolVersion,
    pub(crate) identity: Arc<Identity>,
    pub(crate) log_level: Option<LoggingLevel>,
}

/// A client's capabilities and info as JSON text: the same in every request's `_meta`, so
/// written once per client rather than once per request.
#[derive(Debug)]
pub(crate) struct Identity {
    capabilities: RawJson,
    client_info: RawJson,
    /// The whole `_meta` of a request that has none of its own, for the version and log level
    /// it was last written for (they change seldom, if ever, in a client's life).
    meta_alone: Mutex<Option<WrittenMeta>>,
}

/// A request's `_meta` as written for one version and log level.
#[derive(Debug)]
struct WrittenMeta {
    version: ProtocolVersion,
    log_level: Option<LoggingLevel>,
    text: Arc<RawValue>,
}

impl Identity {
    /// Writes `capabilities` and `client_info`.
    pub(crate) fn new(
        capabilities: &ClientCapabilities,
        client_info: &Implementation,
    ) -> Result<Self, String> {
        let encode = |e: serde_json::Error| e.to_string();
        Ok(Identity {
            capabilities: jsonrpc::to_raw(capabilities).map_err(encode)?,
            client_info: jsonrpc::to_raw(client_info).map_err(encode)?,
            meta_alone: Mutex::new(None),
        })
    }
}

impl ModernMeta {
    /// Writes the per-request keys into `params._meta`, keeping other `_meta` keys (a progress
    /// token, trace context) and creating `params` and `_meta` when absent.
    pub(crate) fn apply(&self, params: Option<Value>) -> Result<Value, String> {
        let mut object = match params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(object)) => object,
            Some(other) => {
                return Err(format!(
                    "params must be a JSON object to carry the 2026-07-28 _meta, got {other}"
                ))
            }
        };
        let meta = object
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(meta) = meta else {
            return Err("params._meta must be a JSON object".into());
        };
        meta.insert(
            meta_keys::PROTOCOL_VERSION.into(),
            Value::from(self.version.as_str()),
        );
        let encode = |v: Result<Value, serde_json::Error>| v.map_err(|e| e.to_string());
        let identity = &self.identity;
        meta.insert(
            meta_keys::CLIENT_CAPABILITIES.into(),
            encode(serde_json::from_str(identity.capabilities.get()))?,
        );
        meta.insert(
            meta_keys::CLIENT_INFO.into(),
            encode(serde_json::from_str(identity.client_info.get()))?,
        );
        if let Some(level) = self.log_level {
            meta.insert(
                meta_keys::LOG_LEVEL.into(),
                encode(serde_json::to_value(level))?,
            );
        }
        Ok(Value::Object(object))
    }

    /// `params` as JSON text with the per-request keys in its `_meta`, as [`apply`](Self::apply)
    /// would make them, written in one pass without copying the params.
    pub(crate) fn encode(&self, params: &Map<String, Value>) -> Result<RawJson, String> {
        let meta = MetaWithKeys {
            existing: match params.get("_meta") {
                None => None,
                Some(Value::Object(meta)) => Some(meta),
                Some(_) => return Err("params._meta must be a JSON object".into()),
            },
            keys: self,
        };
        let encoded = match meta.existing {
            // The usual request: its `_meta` is ours alone, written once and copied since.
            None => jsonrpc::to_raw(&WithMeta {
                params,
                meta: &*self.meta_alone()?,
            }),
            Some(_) => jsonrpc::to_raw(&WithMeta { params, meta }),
        };
        encoded.map_err(|e| e.to_string())
    }

    /// `params` as JSON text with the per-request keys in its `_meta`, as [`encode`](Self::encode)
    /// writes their object; a tool call's in one pass, without making an object of them.
    pub(crate) fn encode_params(&self, params: Params<'_>) -> Result<RawJson, String> {
        match params {
            Params::ToolCall { name, arguments } => jsonrpc::to_raw(&ToolCallParams {
                name,
                arguments: arguments.is_object().then_some(arguments),
                meta: Some(&*self.meta_alone()?),
            })
            .map_err(|e| e.to_string()),
            Params::Json(_) => self.encode(&*params.object()?),
        }
    }

    /// The `_meta` of a request with none of its own, as [`encode`](Self::encode) would write
    /// it: the one written last time when the version and log level are the same.
    fn meta_alone(&self) -> Result<Arc<RawValue>, String> {
        let mut last = mcp_proto::sync::lock(&self.identity.meta_alone);
        if let Some(written) = &*last {
            if (written.version, written.log_level) == (self.version, self.log_level) {
                return Ok(written.text.clone());
            }
        }
        let alone = MetaWithKeys {
            existing: None,
            keys: self,
        };
        let text: Arc<RawValue> = serde_json::value::to_raw_value(&alone)
            .map_err(|e| e.to_string())?
            .into();
        *last = Some(WrittenMeta {
            version: self.version,
            log_level: self.log_level,
            text: text.clone(),
        });
        Ok(text)
    }
}

/// Params with `_meta` replaced by `meta` ([`MetaWithKeys`], or its text written before).
struct WithMeta<'a, M> {
    params: &'a Map<String, Value>,
    meta: M,
}

impl<M: serde::Serialize> serde::Serialize for WithMeta<'_, M> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.params.iter().filter(|(k, _)| *k != "_meta") {
            map.serialize_entry(key, value)?;
        }
        map.serialize_entry("_meta", &self.meta)?;
        map.end()
    }
}

/// A request's own `_meta` keys (a progress token, trace context), then the per-request keys,
/// which replace any the caller set.
struct MetaWithKeys<'a> {
    existing: Option<&'a Map<String, Value>>,
    keys: &'a ModernMeta,
}

impl serde::Serialize for MetaWithKeys<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        const OURS: [&str; 4] = [
            meta_keys::PROTOCOL_VERSION,
            meta_keys::CLIENT_CAPABILITIES,
            meta_keys::CLIENT_INFO,
            meta_keys::LOG_LEVEL,
        ];
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.existing.into_iter().flatten() {
            if !OURS.contains(&key.as_str()) {
                map.serialize_entry(key, value)?;
            }
        }
        let keys = self.keys;
        map.serialize_entry(meta_keys::PROTOCOL_VERSION, keys.version.as_str())?;
        map.serialize_entry(meta_keys::CLIENT_CAPABILITIES, &keys.identity.capabilities)?;
        map.serialize_entry(meta_keys::CLIENT_INFO, &keys.identity.client_info)?;
        if let Some(level) = keys.log_level {
            map.serialize_entry(meta_keys::LOG_LEVEL, &level)?;
        }
        map.end()
    }
}

/// Takes the 2026-07-28 head the client has read (`resultType`, the server's info in `_meta`)
/// off a result, so the caller gets what the server answered and nothing of the envelope (and a
/// proxy passing the result on does not answer with its upstream's head).
pub(crate) fn drop_head(meta: &mut Option<Map<String, Value>>, extra: &mut Map<String, Value>) {
    extra.remove("resultType");
    if let Some(fields) = meta {
        fields.remove(meta_keys::SERVER_INFO);
        if fields.is_empty() {
            *meta = None;
        }
    }
}

/// What a modern result turned out to be; `R` is the answer as the caller reads it (its text,
/// unless said otherwise).
#[derive(Debug)]
pub(crate) enum Answer<R = RawJson> {
    /// `resultType` absent or `complete`: the final result.
    Complete(R),
    /// `resultType: input_required`, parsed as a JSON object.
    InputRequired(Value),
    /// `resultType: task` (the tasks extension): a task handle instead of the result.
    Task(R),
}

/// Reads a result's `resultType`: absent means complete (a legacy server), `input_required`
/// asks for input, anything else is refused with the value in the text.
pub(crate) fn classify(raw: RawJson) -> Result<Answer, String> {
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(rename = "resultType", borrow, default)]
        result_type: Option<std::borrow::Cow<'a, str>>,
    }
    let kind = match serde_json::from_str::<Head<'_>>(raw.get()) {
        Ok(head) => head.result_type.map(|s| s.into_owned()),
        // Not an object (or `resultType` not a string): leave the check to the typed decode,
        // unless `resultType` is present and malformed.
        Err(_) => match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::Object(map)) => match map.get("resultType") {
                Some(other) => return Err(format!("resultType {other} is not a string")),
                None => None,
            },
            _ => None,
        },
    };
    match kind.as_deref() {
        None | Some("complete") => Ok(Answer::Complete(raw)),
        Some("input_required") => serde_json::from_str(raw.get())
            .map(Answer::InputRequired)
            .map_err(|e| format!("an input_required result that is not JSON: {e}")),
        Some("task") => Ok(Answer::Task(raw)),
        Some(other) => Err(format!(
            "unknown resultType {other:?} (this client knows \"complete\", \"input_required\" \
             and \"task\")"
        )),
    }
}

#[cfg(test)]
mod tests {
    use mcp_proto::jsonrpc::raw_json;
    use serde_json::json;

    use super::*;

    fn meta() -> ModernMeta {
        let identity = Identity::new(
            &ClientCapabilities::default(),
            &Implementation::new("c", "1"),
        );
        ModernMeta {
            version: ProtocolVersion::V2026_07_28,
            identity: Arc::new(identity.expect("encodes")),
            log_level: None,
        }
    }

    #[test]
    fn the_head_is_dropped_and_the_rest_kept() {
        let Value::Object(mut extra) = json!({"resultType": "complete", "ttlMs": 5}) else {
            unreachable!()
        };
        let Value::Object(meta) = json!({(meta_keys::SERVER_INFO): {"name": "s"}, "k": 1}) else {
            unreachable!()
        };
        let mut meta = Some(meta);
        drop_head(&mut meta, &mut extra);
        assert_eq!(Value::Object(extra), json!({"ttlMs": 5}));
        assert_eq!(meta.map(Value::Object), Some(json!({"k": 1})));
        let Value::Object(only_info) = json!({(meta_keys::SERVER_INFO): {}}) else {
            unreachable!()
        };
        let mut meta = Some(only_info);
        drop_head(&mut meta, &mut Map::new());
        assert!(meta.is_none());
    }

    #[test]
    fn encoded_params_are_the_applied_params() {
        let mut with_level = meta();
        with_level.log_level = Some(LoggingLevel::Info);
        for params in [
            json!({}),
            json!({"name": "t", "arguments": {"a": [1, "x"]}}),
            json!({"name": "t", "_meta": {"progressToken": 3, (meta_keys::PROTOCOL_VERSION): "old"}}),
        ] {
            let Value::Object(map) = params.clone() else {
                unreachable!()
            };
            let encoded: Value =
                serde_json::from_str(with_level.encode(&map).expect("encodes").get())
                    .expect("json");
            assert_eq!(encoded, with_level.apply(Some(params)).expect("applies"));
        }
        let bad = json!({"_meta": 1});
        let Value::Object(bad) = bad else {
            unreachable!()
        };
        assert!(meta().encode(&bad).is_err());
    }

    #[test]
    fn the_meta_written_once_follows_the_version_and_level() {
        let mut meta = meta();
        let params = Map::new();
        let first = meta.encode(&params).expect("encodes");
        assert_eq!(meta.encode(&params).expect("encodes").get(), first.get());
        meta.log_level = Some(LoggingLevel::Info);
        let encoded = meta.encode(&params).expect("encodes");
        let encoded: Value = serde_json::from_str(encoded.get()).expect("json");
        assert_eq!(encoded, meta.apply(None).expect("applies"));
        meta.version = ProtocolVersion::V2025_11_25;
        let encoded = meta.encode(&params).expect("encodes");
        let encoded: Value = serde_json::from_str(encoded.get()).expect("json");
        assert_eq!(encoded, meta.apply(None).expect("applies"));
    }

    #[test]
    fn a_tool_call_is_written_as_its_object() {
        let meta = meta();
        for arguments in [
            json!({"city": "Oslo", "days": [1, 2.5, null], "x": {"y": "z"}}),
            json!({}),
            json!([1]),
            json!("text"),
            Value::Null,
        ] {
            let call = Params::ToolCall {
                name: "t",
                arguments: &arguments,
            };
            let object = call.object().expect("an object");
            let typed =
                mcp_proto::schema::CallToolParams::new("t").with_arguments(arguments.clone());
            assert_eq!(
                serde_json::to_string(&*object).expect("json"),
                serde_json::to_string(&typed).expect("json")
            );
            assert_eq!(
                call.to_raw().expect("json").expect("params").get(),
                serde_json::to_string(&*object).expect("json")
            );
            assert_eq!(
                meta.encode_params(call).expect("encodes").get(),
                meta.encode(&object).expect("encodes").get()
            );
        }
        assert!(Params::Json(Some(&json!([1]))).object().is_err());
    }

    #[test]
    fn meta_is_added_and_other_keys_kept() {
        let out = meta()
            .apply(Some(json!({"name": "t", "_meta": {"progressToken": 3}})))
            .expect("applies");
        assert_eq!(out["name"], "t");
        assert_eq!(out["_meta"]["progressToken"], 3);
        assert_eq!(
            out["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            out["_meta"]["io.modelcontextprotocol/clientCapabilities"],
            json!({})
        );
        assert_eq!(
            out["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
            "c"
        );
        assert!(out["_meta"]
            .get("io.modelcontextprotocol/logLevel")
            .is_none());
        let mut with_level = meta();
        with_level.log_level = Some(LoggingLevel::Debug);
        let out = with_level.apply(None).expect("applies");
        assert_eq!(out["_meta"]["io.modelcontextprotocol/logLevel"], "debug");
        assert!(meta().apply(Some(json!([1]))).is_err());
    }

    #[test]
    fn result_types_are_checked() {
        assert!(matches!(
            classify(raw_json(r#"{"content":[]}"#)),
            Ok(Answer::Complete(_))
        ));
        assert!(matches!(
            classify(raw_json(r#"{"resultType":"complete"}"#)),
            Ok(Answer::Complete(_))
        ));
        assert!(matches!(
            classify(raw_json(
                r#"{"resultType":"input_required","requestState":"s"}"#
            )),
            Ok(Answer::InputRequired(_))
        ));
        assert!(matches!(
            classify(raw_json(r#"{"resultType":"task","taskId":"t"}"#)),
            Ok(Answer::Task(_))
        ));
        let err = classify(raw_json(r#"{"resultType":"later"}"#)).expect_err("unknown");
        assert!(err.contains("later"), "{err}");
        assert!(classify(raw_json(r#"{"resultType":7}"#)).is_err());
    }
}
