//! The 2026-07-28 request metadata headers: values a POST mirrors from its body
//! (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-{name}` for tool parameters annotated `x-mcp-header`),
//! their `=?base64?…?=` encoding, and the check that they match the body.

use std::borrow::Cow;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use hyper::header::{HeaderName, HeaderValue};
use hyper::HeaderMap;
use mcp_proto::schema::JsonObject;
use serde_json::Value;

/// `Mcp-Method`.
pub(crate) static MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`.
pub(crate) static MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");

/// How deep `properties` chains are searched for `x-mcp-header` annotations.
const MAX_SCHEMA_DEPTH: usize = 16;

/// A tool parameter annotated `x-mcp-header`: a 2026-07-28 client mirrors its value into the
/// `Mcp-Param-{name}` header of every `tools/call` over Streamable HTTP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolHeaderParam {
    /// The header is `Mcp-Param-{name}`.
    pub name: String,
    /// The chain of `properties` keys from the arguments object to the value.
    pub path: Vec<String>,
}

impl ToolHeaderParam {
    /// The full header name, or `None` when the annotation is not a valid header token.
    fn header(&self) -> Option<HeaderName> {
        HeaderName::from_bytes(format!("mcp-param-{}", self.name).as_bytes()).ok()
    }
}

/// The `x-mcp-header` parameters of a tool's input schema: properties reachable from the root
/// through `properties` keys only (the spec ignores annotations anywhere else).
pub(crate) fn tool_header_params(input_schema: &JsonObject) -> Vec<ToolHeaderParam> {
    let mut found = Vec::new();
    let mut path = Vec::new();
    collect(input_schema, &mut path, &mut found);
    found
}

fn collect(schema: &JsonObject, path: &mut Vec<String>, found: &mut Vec<ToolHeaderParam>) {
    if path.len() >= MAX_SCHEMA_DEPTH {
        return;
    }
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return;
    };
    for (key, property) in properties {
        let Value::Object(property) = property else {
            continue;
        };
        path.push(key.clone());
        if let Some(Value::String(name)) = property.get("x-mcp-header") {
            found.push(ToolHeaderParam {
                name: name.clone(),
                path: path.clone(),
            });
        }
        collect(property, path, found);
        path.pop();
    }
}

/// Why mirrored headers do not match the body; the text is the JSON-RPC error message.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("Header mismatch: {0}")]
pub(crate) struct Mismatch(pub(crate) String);

/// The one value of header `name`: `Ok(None)` when absent; an error when sent twice or not
/// valid (visible ASCII, space and tab, or a well-formed `=?base64?…?=` of UTF-8).
pub(crate) fn decoded<'h>(
    headers: &'h HeaderMap,
    name: &HeaderName,
) -> Result<Option<Cow<'h, str>>, Mismatch> {
    let mut values = headers.get_all(name).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(Mismatch(format!(
            "the {name} header is sent more than once"
        )));
    }
    decode(value)
        .map(Some)
        .ok_or_else(|| Mismatch(format!("the {name} header holds invalid characters")))
}

/// A header value as text, Base64 sentinel decoded.
fn decode(value: &HeaderValue) -> Option<Cow<'_, str>> {
    let text = value.to_str().ok()?;
    match text
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => String::from_utf8(base64_decode(encoded)?)
            .ok()
            .map(Cow::Owned),
        None => Some(Cow::Borrowed(text)),
    }
}

/// Requires header `name` to be present and equal to `body` (after decoding).
pub(crate) fn require_equal(
    headers: &HeaderMap,
    name: &HeaderName,
    body: &str,
) -> Result<(), Mismatch> {
    match decoded(headers, name)? {
        None => Err(Mismatch(format!(
            "the {name} header is required and must be {body:?}"
        ))),
        Some(value) if value == body => Ok(()),
        Some(value) => Err(Mismatch(format!(
            "{name} header value {value:?} does not match body value {body:?}"
        ))),
    }
}

/// Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments: each annotated
/// parameter with a value needs its header, equal to the value; one without a value needs none.
pub(crate) fn check_tool_params(
    headers: &HeaderMap,
    params: &[ToolHeaderParam],
    arguments: Option<&Value>,
) -> Result<(), Mismatch> {
    for param in params {
        let Some(header) = param.header() else {
            continue;
        };
        let value = arguments.and_then(|args| {
            param
                .path
                .iter()
                .try_fold(args, |at, key| at.as_object()?.get(key))
        });
        let sent = decoded(headers, &header)?;
        match (value, sent) {
            (None | Some(Value::Null), None) => {}
            (None | Some(Value::Null), Some(sent)) => {
                return Err(Mismatch(format!(
                    "{header} header value {sent:?} is sent but the argument has no value"
                )))
            }
            (Some(Value::Object(_) | Value::Array(_)), _) => {}
            (Some(_), None) => {
                return Err(Mismatch(format!(
                    "the {header} header is required: the argument {} has a value",
                    param.path.join(".")
                )))
            }
            (Some(value), Some(sent)) => {
                if !primitive_matches(value, &sent) {
                    return Err(Mismatch(format!(
                        "{header} header value {sent:?} does not match body value {value}"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// A string as is, a boolean as `true`/`false`, a number compared numerically (`42.0` = `42`).
fn primitive_matches(value: &Value, sent: &str) -> bool {
    match value {
        Value::String(s) => s == sent,
        Value::Bool(b) => sent == if *b { "true" } else { "false" },
        Value::Number(n) => {
            if let (Some(body), Ok(header)) = (n.as_i64(), sent.parse::<i64>()) {
                return body == header;
            }
            match (n.as_f64(), sent.parse::<f64>()) {
                (Some(body), Ok(header)) => body == header,
                _ => false,
            }
        }
        _ => false,
    }
}

/// Standard Base64 (RFC 4648 §4, padded); `None` when it is not.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    STANDARD.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.append(
                HeaderName::from_bytes(k.as_bytes()).expect("name"),
                HeaderValue::from_str(v).expect("value"),
            );
        }
        map
    }

    #[test]
    fn base64_matches_the_spec_examples() {
        let decode = |s| base64_decode(s).map(|b| String::from_utf8(b).expect("utf-8"));
        assert_eq!(
            decode("SGVsbG8sIOS4lueVjA==").as_deref(),
            Some("Hello, 世界")
        );
        assert_eq!(decode("IHBhZGRlZCA=").as_deref(), Some(" padded "));
        assert_eq!(decode("bGluZTEKbGluZTI=").as_deref(), Some("line1\nline2"));
        assert_eq!(
            decode("PT9iYXNlNjQ/bGl0ZXJhbD89").as_deref(),
            Some("=?base64?literal?=")
        );
        assert_eq!(decode("").as_deref(), Some(""));
        assert_eq!(base64_decode("ab!d"), None);
    }

    #[test]
    fn names_compare_after_decoding() {
        let map = headers(&[("mcp-name", "=?base64?SGVsbG8sIOS4lueVjA==?=")]);
        assert_eq!(require_equal(&map, &MCP_NAME, "Hello, 世界"), Ok(()));
        assert!(require_equal(&map, &MCP_NAME, "Hello").is_err());
        assert!(require_equal(&HeaderMap::new(), &MCP_NAME, "x").is_err());
        let twice = headers(&[("mcp-name", "a"), ("mcp-name", "a")]);
        assert!(require_equal(&twice, &MCP_NAME, "a").is_err());
        let broken = headers(&[("mcp-name", "=?base64?!!?=")]);
        assert!(require_equal(&broken, &MCP_NAME, "x").is_err());
    }

    #[test]
    fn annotated_parameters_are_found_through_properties_only() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": { "type": "string", "x-mcp-header": "Region" },
                "query": { "type": "string" },
                "opts": { "type": "object", "properties": {
                    "tenant": { "type": "integer", "x-mcp-header": "Tenant" } } },
                "list": { "type": "array", "items": { "x-mcp-header": "Nope" } }
            }
        });
        let Value::Object(schema) = schema else {
            unreachable!()
        };
        let found = tool_header_params(&schema);
        assert_eq!(
            found,
            vec![
                ToolHeaderParam {
                    name: "Region".into(),
                    path: vec!["region".into()]
                },
                ToolHeaderParam {
                    name: "Tenant".into(),
                    path: vec!["opts".into(), "tenant".into()]
                },
            ]
        );
    }

    #[test]
    fn tool_params_match_by_type() {
        let params = [
            ToolHeaderParam {
                name: "Region".into(),
                path: vec!["region".into()],
            },
            ToolHeaderParam {
                name: "N".into(),
                path: vec!["n".into()],
            },
            ToolHeaderParam {
                name: "Flag".into(),
                path: vec!["flag".into()],
            },
        ];
        let args = json!({ "region": "us-west1", "n": 42, "flag": true });
        let good = headers(&[
            ("mcp-param-region", "us-west1"),
            ("mcp-param-n", "42.0"),
            ("mcp-param-flag", "true"),
        ]);
        assert_eq!(check_tool_params(&good, &params, Some(&args)), Ok(()));
        let wrong = headers(&[
            ("mcp-param-region", "eu"),
            ("mcp-param-n", "42"),
            ("mcp-param-flag", "true"),
        ]);
        assert!(check_tool_params(&wrong, &params, Some(&args)).is_err());
        let missing = headers(&[("mcp-param-n", "42"), ("mcp-param-flag", "true")]);
        assert!(check_tool_params(&missing, &params, Some(&args)).is_err());
        // No value in the body: no header expected, and one sent anyway does not match.
        let none = json!({ "region": null });
        assert_eq!(
            check_tool_params(&HeaderMap::new(), &params, Some(&none)),
            Ok(())
        );
        let extra = headers(&[("mcp-param-region", "x")]);
        assert!(check_tool_params(&extra, &params, Some(&none)).is_err());
    }
}
