//! An independent reading of one JSON-RPC 2.0 frame, written from the specification rather than
//! from `mcp_proto::jsonrpc`, so the checks can compare the two.
//!
//! The rules: a message is a JSON object (UTF-8) whose known fields (`jsonrpc`, `id`, `method`,
//! `params`, `result`, `error`) each appear once; `jsonrpc` is the string `"2.0"`; an id is an
//! integer (a JSON number without a fraction below 9e15, or any `i64`) or a string. A method call
//! has a string `method`, no `result`/`error`, and `params` absent, null, an object or an array;
//! without `id` it is a notification, with a null id it is invalid. A response has no `params`,
//! exactly one of `result` (with a non-null id) and `error` (with an id, null allowed, and an
//! object with an integer `code` and a string `message`). Anything else is invalid, and the id of
//! an invalid message is the id it carried when that id could be read.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use mcp_proto::jsonrpc::RequestId;

/// What a frame is, by the rules above.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Not UTF-8: JSON text must be, and the checks take no position on what happens then.
    NotUtf8,
    /// Not JSON at all.
    NotJson,
    /// JSON, but not a valid message; with the id it carried, if readable.
    Invalid(Option<RequestId>),
    /// A request.
    Request {
        /// Its id.
        id: RequestId,
        /// Its method.
        method: String,
        /// Its params as raw text (`None` when absent or null).
        params: Option<String>,
    },
    /// A notification.
    Notification {
        /// Its method.
        method: String,
        /// Its params as raw text (`None` when absent or null).
        params: Option<String>,
    },
    /// A successful response.
    Response {
        /// Its id.
        id: RequestId,
        /// Its result as raw text.
        result: String,
    },
    /// An error response.
    Error {
        /// Its id (`None` for null).
        id: Option<RequestId>,
        /// The error code.
        code: i64,
        /// The error message.
        message: String,
        /// The error data as raw text (`None` when absent or null).
        data: Option<String>,
    },
}

impl Shape {
    /// The id a receiver must answer, for requests and invalid messages with a readable id.
    pub fn id_to_answer(&self) -> Option<&RequestId> {
        match self {
            Shape::Request { id, .. } => Some(id),
            Shape::Invalid(id) => id.as_ref(),
            _ => None,
        }
    }
}

/// What a whole frame holds: one message, or a batch (a JSON array) of element shapes.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// A frame that is not an array.
    Single(Shape),
    /// A non-empty JSON array; each element read as a message on its own.
    Batch(Vec<Shape>),
}

/// The fields of an object in order, duplicates kept, values raw.
struct Pairs(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Pairs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct PairsVisitor;
        impl<'de> Visitor<'de> for PairsVisitor {
            type Value = Pairs;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pairs, A::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry::<String, Box<RawValue>>()? {
                    pairs.push(pair);
                }
                Ok(Pairs(pairs))
            }
        }
        d.deserialize_map(PairsVisitor)
    }
}

impl Pairs {
    /// The value of `key`, or `Err(())` when the key appears more than once.
    fn get(&self, key: &str) -> Result<Option<&RawValue>, ()> {
        let mut found = self.0.iter().filter(|(k, _)| k == key);
        let first = found.next().map(|(_, v)| &**v);
        if found.next().is_some() {
            return Err(());
        }
        Ok(first)
    }
}

/// Whether `bytes` is JSON text (UTF-8, one value, nothing after it but whitespace).
pub fn is_json(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok() && serde_json::from_slice::<IgnoredAny>(bytes).is_ok()
}

/// Reads a whole frame.
pub fn frame(bytes: &[u8]) -> Frame {
    if std::str::from_utf8(bytes).is_err() {
        return Frame::Single(Shape::NotUtf8);
    }
    if !is_json(bytes) {
        return Frame::Single(Shape::NotJson);
    }
    match serde_json::from_slice::<Vec<Box<RawValue>>>(bytes) {
        Ok(items) if items.is_empty() => Frame::Single(Shape::Invalid(None)),
        Ok(items) => Frame::Batch(items.iter().map(|raw| message(raw.get())).collect()),
        Err(_) => Frame::Single(message_bytes(bytes)),
    }
}

fn message_bytes(bytes: &[u8]) -> Shape {
    match std::str::from_utf8(bytes) {
        Ok(text) => message(text),
        Err(_) => Shape::NotUtf8,
    }
}

/// An id read by the rules above: `Ok(None)` for null, `Err(())` when unreadable.
fn read_id(raw: &RawValue) -> Result<Option<RequestId>, ()> {
    match serde_json::from_str::<Value>(raw.get()).map_err(|_| ())? {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(RequestId::from(s))),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(Some(RequestId::Number(i)))
            } else if n.is_u64() {
                Err(())
            } else {
                let f = n.as_f64().ok_or(())?;
                if f.fract() == 0.0 && f.abs() < 9.0e15 {
                    Ok(Some(RequestId::Number(f as i64)))
                } else {
                    Err(())
                }
            }
        }
        _ => Err(()),
    }
}

fn params_of(raw: Option<&RawValue>) -> Result<Option<String>, ()> {
    match raw {
        None => Ok(None),
        Some(p) => match serde_json::from_str::<Value>(p.get()) {
            Ok(Value::Null) => Ok(None),
            Ok(Value::Object(_) | Value::Array(_)) => Ok(Some(p.get().to_owned())),
            Ok(_) => Err(()),
            // Grammatical JSON serde_json cannot hold (a lone surrogate escape): judge by the
            // first byte, as the kind of a value is plain from it.
            Err(_) => match p.get().as_bytes().first() {
                Some(b'{' | b'[') => Ok(Some(p.get().to_owned())),
                _ => Err(()),
            },
        },
    }
}

/// Reads one JSON value (known to be JSON) as a message.
pub fn message(text: &str) -> Shape {
    let Ok(pairs) = serde_json::from_str::<Pairs>(text) else {
        return Shape::Invalid(None);
    };
    let field = |key: &str| pairs.get(key);
    let (Ok(jsonrpc), Ok(id), Ok(method), Ok(params), Ok(result), Ok(error)) = (
        field("jsonrpc"),
        field("id"),
        field("method"),
        field("params"),
        field("result"),
        field("error"),
    ) else {
        return Shape::Invalid(None);
    };
    let id = match id.map(read_id) {
        None => None,
        Some(Ok(id)) => Some(id),
        Some(Err(())) => return Shape::Invalid(None),
    };
    let known = id.clone().flatten();
    let invalid = Shape::Invalid(known.clone());
    if jsonrpc.and_then(|v| serde_json::from_str::<String>(v.get()).ok()) != Some("2.0".into()) {
        return invalid;
    }
    if let Some(method) = method {
        let Ok(method) = serde_json::from_str::<String>(method.get()) else {
            return invalid;
        };
        if result.is_some() || error.is_some() {
            return invalid;
        }
        let Ok(params) = params_of(params) else {
            return invalid;
        };
        return match id {
            None => Shape::Notification { method, params },
            Some(None) => invalid,
            Some(Some(id)) => Shape::Request { id, method, params },
        };
    }
    if params.is_some() {
        return invalid;
    }
    match (result, error) {
        (Some(result), None) => match known {
            Some(id) => Shape::Response {
                id,
                result: result.get().to_owned(),
            },
            None => invalid,
        },
        (None, Some(error)) => {
            let Some(id) = id else { return invalid };
            error_object(error.get())
                .map(|(code, message, data)| Shape::Error {
                    id,
                    code,
                    message,
                    data,
                })
                .unwrap_or(invalid)
        }
        _ => invalid,
    }
}

/// The code, message and data of an error object, or `None` when it is not a valid one.
fn error_object(text: &str) -> Option<(i64, String, Option<String>)> {
    let pairs = serde_json::from_str::<Pairs>(text).ok()?;
    let code = pairs.get("code").ok()??;
    let message = pairs.get("message").ok()??;
    let data = pairs.get("data").ok()?;
    let code = serde_json::from_str::<i64>(code.get()).ok()?;
    let message = serde_json::from_str::<String>(message.get()).ok()?;
    let data = data
        .filter(|d| d.get() != "null")
        .map(|d| d.get().to_owned());
    Some((code, message, data))
}

/// The members of the JSON object `text` as serde reads them: each key decoded, each value's
/// text, in order, a repeated key kept each time; `None` when `text` is not an object.
pub fn members(text: &str) -> Option<Vec<(std::borrow::Cow<'_, str>, &str)>> {
    // The slow twin of the skim, one plain serde_json read.
    mcp_proto::json_text::object_members_parsed(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_four_kinds_and_invalid_ones() {
        assert!(matches!(
            message(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Shape::Request { .. }
        ));
        assert!(matches!(
            message(r#"{"jsonrpc":"2.0","method":"n","params":null}"#),
            Shape::Notification { params: None, .. }
        ));
        assert!(matches!(
            message(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Shape::Response { .. }
        ));
        assert!(matches!(
            message(r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}"#),
            Shape::Error { id: None, .. }
        ));
        assert_eq!(
            message(r#"{"jsonrpc":"2.0","id":3,"method":"m","id":4}"#),
            Shape::Invalid(None)
        );
        assert_eq!(
            message(r#"{"jsonrpc":"1.0","id":3,"method":"m"}"#),
            Shape::Invalid(Some(RequestId::Number(3)))
        );
        assert_eq!(message(r#"["2.0",5,"ping"]"#), Shape::Invalid(None));
        assert_eq!(frame(b"[]"), Frame::Single(Shape::Invalid(None)));
        assert_eq!(frame(b"{"), Frame::Single(Shape::NotJson));
    }
}
