//! Anthropic's `input_schema`: JSON Schema with an object at the root and no `anyOf`, `oneOf`
//! or `allOf` there. The rest of JSON Schema passes as it is. A root `allOf` is merged; a root
//! `anyOf`/`oneOf` of objects becomes one object with the properties of all of them, requiring
//! only what every alternative requires (the alternatives are named in the description).

use serde_json::{Map, Value};

use super::{merge_all_of, note};

/// A JSON Schema as Anthropic's `input_schema` accepts it.
pub fn anthropic(schema: &Value) -> Value {
    let mut map = match schema {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    if let Some(Value::Array(parts)) = map.remove("allOf") {
        merge_all_of(&mut map, parts);
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(alternatives)) = map.remove(key) else {
            continue;
        };
        let mut required: Option<Vec<Value>> = None;
        let mut properties = match map.remove("properties") {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        for alternative in &alternatives {
            let resolved = resolve_local(schema, alternative);
            if let Some(Value::Object(p)) = resolved.get("properties") {
                for (k, v) in p {
                    properties.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            let theirs: Vec<Value> = resolved
                .get("required")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            required = Some(match required {
                None => theirs,
                Some(mine) => mine.into_iter().filter(|r| theirs.contains(r)).collect(),
            });
        }
        let mut all_required: Vec<Value> = match map.remove("required") {
            Some(Value::Array(r)) => r,
            _ => Vec::new(),
        };
        for r in required.unwrap_or_default() {
            if !all_required.contains(&r) {
                all_required.push(r);
            }
        }
        if !all_required.is_empty() {
            map.insert("required".into(), Value::Array(all_required));
        }
        map.insert("properties".into(), Value::Object(properties));
        note(
            &mut map,
            &format!(
                "(The arguments take one of {} forms; fill the properties of one of them.)",
                alternatives.len()
            ),
        );
    }
    map.insert("type".into(), "object".into());
    Value::Object(map)
}

/// An alternative with a local `$ref` followed (one level), for reading its properties.
fn resolve_local<'a>(root: &'a Value, alternative: &'a Value) -> &'a Value {
    alternative
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
        .unwrap_or(alternative)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn root_is_an_object_without_combinators() {
        let out = anthropic(&json!({
            "oneOf": [
                {"type": "object", "properties": {"a": {"type": "string"}, "k": {"type": "string"}}, "required": ["a", "k"]},
                {"$ref": "#/$defs/B"}
            ],
            "$defs": {"B": {"type": "object", "properties": {"b": {"type": "integer"}, "k": {"type": "string"}}, "required": ["b", "k"]}}
        }));
        assert_eq!(out["type"], "object");
        assert!(out.get("oneOf").is_none());
        assert_eq!(out["required"], json!(["k"]));
        assert_eq!(out["properties"]["b"]["type"], "integer");
        assert!(
            out["$defs"].is_object(),
            "references elsewhere still resolve"
        );
        let plain = json!({"type": "object", "properties": {"x": {"type": "string"}}});
        assert_eq!(anthropic(&plain), plain);
        assert_eq!(anthropic(&json!({})), json!({"type": "object"}));
    }
}
