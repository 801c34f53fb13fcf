//! The header values a 2026-07-28 request mirrors from its body over Streamable HTTP:
//! `Mcp-Name` (the tool, prompt or resource a call names) and `Mcp-Param-{name}` for tool
//! parameters whose schema property carries `x-mcp-header`. Values that are not safe as a plain
//! HTTP field value travel as `=?base64?{base64 of the UTF-8}?=`.
//!
//! A tool whose `x-mcp-header` annotations break the spec's rules (not a token, not unique
//! ignoring case, not on a `string`/`integer`/`boolean` property reachable through
//! `properties` only) is invalid, and the client drops it from `tools/list`.

use serde_json::Value;

/// One `x-mcp-header` annotation: where the value sits in `arguments`, and the header suffix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderParam {
    /// The chain of `properties` keys from the root of `arguments`.
    pub path: Vec<String>,
    /// The name after `Mcp-Param-`.
    pub header: String,
}

/// The schema keywords whose subschemas are not reachable through `properties` alone: an
/// annotation under any of them makes the tool invalid.
const UNREACHABLE: [&str; 18] = [
    "items",
    "prefixItems",
    "contains",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "patternProperties",
    "dependentSchemas",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "definitions",
];

/// How deep a schema is searched; deeper schemas are refused rather than walked without end.
const MAX_DEPTH: usize = 32;

/// The `x-mcp-header` annotations of a tool's `inputSchema`, or why the tool is invalid.
pub fn header_params(input_schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    walk(input_schema, &mut Vec::new(), true, &mut found, 0)?;
    let mut seen: Vec<String> = Vec::with_capacity(found.len());
    for param in &found {
        let lower = param.header.to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(format!(
                "x-mcp-header {:?} is declared twice (names are compared ignoring case)",
                param.header
            ));
        }
        seen.push(lower);
    }
    Ok(found)
}

fn walk(
    node: &Value,
    path: &mut Vec<String>,
    reachable: bool,
    found: &mut Vec<HeaderParam>,
    depth: usize,
) -> Result<(), String> {
    let Value::Object(schema) = node else {
        return Ok(());
    };
    if depth > MAX_DEPTH {
        return Err(format!(
            "the input schema is nested deeper than {MAX_DEPTH} levels"
        ));
    }
    let at = || {
        if path.is_empty() {
            "<root>".to_owned()
        } else {
            path.join(".")
        }
    };
    if let Some(header) = schema.get("x-mcp-header") {
        if !reachable || path.is_empty() {
            return Err(format!(
                "{}: x-mcp-header is allowed only on a property reached through `properties`",
                at()
            ));
        }
        let Some(header) = header.as_str().filter(|h| is_token(h)) else {
            return Err(format!(
                "{}: x-mcp-header must be a non-empty HTTP token, got {header}",
                at()
            ));
        };
        let kind = schema.get("type").and_then(Value::as_str);
        if !matches!(kind, Some("string" | "integer" | "boolean")) {
            return Err(format!(
                "{}: x-mcp-header is allowed only on string, integer or boolean properties, not {}",
                at(),
                kind.unwrap_or("an untyped one")
            ));
        }
        found.push(HeaderParam {
            path: path.clone(),
            header: header.to_owned(),
        });
    }
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (key, child) in properties {
            path.push(key.clone());
            let result = walk(child, path, reachable, found, depth + 1);
            path.pop();
            result?;
        }
    }
    for keyword in UNREACHABLE {
        let branches: Vec<&Value> = match schema.get(keyword) {
            None => continue,
            Some(Value::Array(items)) => items.iter().collect(),
            Some(Value::Object(map))
                if matches!(
                    keyword,
                    "patternProperties" | "dependentSchemas" | "$defs" | "definitions"
                ) =>
            {
                map.values().collect()
            }
            Some(other) => vec![other],
        };
        for branch in branches {
            path.push(format!("<{keyword}>"));
            let result = walk(branch, path, false, found, depth + 1);
            path.pop();
            result?;
        }
    }
    Ok(())
}

/// An RFC 9110 token: one or more of the characters allowed in a header name.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The header value for `value`: as is when it is a safe plain field value, else the Base64
/// sentinel form (also for a value that looks like the sentinel, so it cannot be misread).
pub fn header_value(value: &str) -> String {
    let looks_encoded = value.starts_with("=?base64?") && value.ends_with("?=");
    let safe = !value.is_empty()
        && !looks_encoded
        && value.trim() == value
        && value
            .bytes()
            .all(|b| b == b'\t' || (0x20..=0x7e).contains(&b));
    if safe {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", base64(value.as_bytes()))
    }
}

/// The `Mcp-Param-*` headers of a `tools/call` with `arguments`: one per annotation whose value
/// is a string, integer or boolean; a null, missing or other value sends no header.
pub fn param_headers(params: &[HeaderParam], arguments: &Value) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(params.len());
    for param in params {
        let mut node = arguments;
        let mut found = true;
        for key in &param.path {
            match node.get(key) {
                Some(next) => node = next,
                None => {
                    found = false;
                    break;
                }
            }
        }
        if !found {
            continue;
        }
        let text = match node {
            Value::String(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
            _ => continue,
        };
        out.push((format!("Mcp-Param-{}", param.header), header_value(&text)));
    }
    out
}

/// Standard Base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        let sextets = [n >> 18, n >> 12, n >> 6, n];
        for (i, s) in sextets.iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(s & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn unsafe_values_are_wrapped() {
        assert_eq!(header_value("get_weather"), "get_weather");
        assert_eq!(header_value("file:///a b.txt"), "file:///a b.txt");
        assert_eq!(header_value("Zürich"), "=?base64?WsO8cmljaA==?=");
        assert_eq!(header_value(" x"), "=?base64?IHg=?=");
        assert_eq!(header_value(""), "=?base64??=");
        assert_eq!(
            header_value("=?base64?abc?="),
            "=?base64?PT9iYXNlNjQ/YWJjPz0=?="
        );
    }

    #[test]
    fn annotations_are_found_and_checked() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {
                "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}}},
            "n": {"type": "integer"}
        }});
        let params = header_params(&schema).expect("valid");
        assert_eq!(params.len(), 2);
        let headers = param_headers(
            &params,
            &json!({"region": "eu west", "opts": {"dry": true}, "n": 3}),
        );
        assert_eq!(
            headers,
            vec![
                ("Mcp-Param-Region".to_owned(), "eu west".to_owned()),
                ("Mcp-Param-Dry-Run".to_owned(), "true".to_owned())
            ]
        );
        assert!(param_headers(&params, &json!({"region": null})).is_empty());

        let bad = [
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "X"},
                                  "b": {"type": "string", "x-mcp-header": "x"}}}),
            json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "X"}}}}),
            json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "X"}}}]}),
            json!({"type": "object", "x-mcp-header": "Root"}),
        ];
        for schema in bad {
            assert!(header_params(&schema).is_err(), "{schema}");
        }
    }
}
