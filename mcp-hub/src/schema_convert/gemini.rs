//! Gemini's function parameter schemas: an OpenAPI 3.0 subset. References are inlined
//! (cycles cut and marked), `null` in a type union or an `anyOf` becomes `nullable: true`,
//! `oneOf` becomes `anyOf`, `allOf` is merged, `const` becomes a one-value `enum`, enums of
//! anything but strings and keywords and formats Gemini does not know are dropped (an enum's
//! values are kept in the description).

use serde_json::{json, Map, Value};

use super::{inline_refs, is_null_schema, merge_all_of, note, types_of};

/// The keywords Gemini's `Schema` has.
const KEPT: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// A JSON Schema as Gemini accepts it.
pub fn gemini(schema: &Value) -> Value {
    convert(&inline_refs(schema))
}

fn convert(node: &Value) -> Value {
    let Value::Object(source) = node else {
        // `true` (anything) has no Gemini form; an empty schema is the closest.
        return json!({});
    };
    let mut map = source.clone();
    if let Some(Value::Array(parts)) = map.remove("allOf") {
        merge_all_of(&mut map, parts);
    }
    if let Some(one_of) = map.remove("oneOf") {
        map.entry("anyOf").or_insert(one_of);
    }
    if let Some(value) = map.remove("const") {
        map.entry("enum").or_insert_with(|| json!([value]));
    }
    if let Some(Value::Array(examples)) = map.remove("examples") {
        if let Some(first) = examples.into_iter().next() {
            map.entry("example").or_insert(first);
        }
    }
    let mut nullable = map.get("nullable") == Some(&Value::Bool(true));
    // A union of types: `null` becomes `nullable`, several others an `anyOf`.
    let (types, has_null) = types_of(&map);
    nullable |= has_null;
    match types.len() {
        0 => {
            if has_null {
                map.remove("type");
            }
        }
        1 => {
            map.insert("type".into(), types[0].clone().into());
        }
        _ => {
            map.remove("type");
            let variants: Vec<Value> = types.iter().map(|t| json!({ "type": t })).collect();
            map.insert("anyOf".into(), Value::Array(variants));
        }
    }
    if let Some(Value::Array(variants)) = map.remove("anyOf") {
        let mut kept: Vec<Value> = Vec::new();
        for variant in variants {
            if is_null_schema(&variant) {
                nullable = true;
            } else {
                kept.push(variant);
            }
        }
        if kept.len() == 1 {
            // One real alternative: it is the schema (the outer keywords win).
            if let Some(Value::Object(only)) = kept.pop() {
                for (k, v) in only {
                    map.entry(k).or_insert(v);
                }
                return finish(convert(&Value::Object(map)), nullable);
            }
        } else if !kept.is_empty() {
            map.insert(
                "anyOf".into(),
                Value::Array(kept.iter().map(convert).collect()),
            );
        }
    }
    if let Some(Value::Array(values)) = map.get("enum").cloned() {
        let (nulls, rest): (Vec<Value>, Vec<Value>) = values.into_iter().partition(Value::is_null);
        nullable |= !nulls.is_empty();
        if rest.iter().all(Value::is_string) && !rest.is_empty() {
            map.insert("enum".into(), Value::Array(rest));
            map.entry("type").or_insert_with(|| "string".into());
        } else {
            map.remove("enum");
            let listed: Vec<String> = rest.iter().map(Value::to_string).collect();
            note(&mut map, &format!("One of: {}.", listed.join(", ")));
        }
    }
    if let Some(Value::Object(properties)) = map.remove("properties") {
        let converted: Map<String, Value> = properties
            .iter()
            .map(|(k, v)| (k.clone(), convert(v)))
            .collect();
        if let Some(Value::Array(required)) = map.get_mut("required") {
            required.retain(|r| r.as_str().is_some_and(|r| converted.contains_key(r)));
        }
        map.insert("properties".into(), Value::Object(converted));
    } else {
        map.remove("required");
    }
    match map.remove("items") {
        Some(Value::Array(tuple)) => {
            let variants: Vec<Value> = tuple.iter().map(convert).collect();
            map.insert("items".into(), json!({ "anyOf": variants }));
        }
        Some(items) => {
            map.insert("items".into(), convert(&items));
        }
        None => {}
    }
    if let Some(format) = map.get("format").and_then(Value::as_str) {
        let known = match map.get("type").and_then(Value::as_str) {
            Some("string") => matches!(format, "enum" | "date-time"),
            Some("integer") => matches!(format, "int32" | "int64"),
            Some("number") => matches!(format, "float" | "double"),
            _ => false,
        };
        if !known {
            let described = format!("Format: {format}.");
            map.remove("format");
            note(&mut map, &described);
        }
    }
    map.retain(|k, _| KEPT.contains(&k.as_str()));
    finish(Value::Object(map), nullable)
}

fn finish(mut schema: Value, nullable: bool) -> Value {
    if nullable {
        if let Value::Object(map) = &mut schema {
            map.insert("nullable".into(), true.into());
        }
    }
    schema
}

/// A Gemini schema read back as JSON Schema (`nullable` as a union with `null`), to check
/// instances against it with a JSON Schema validator.
pub fn gemini_to_json_schema(schema: &Value) -> Value {
    let Value::Object(source) = schema else {
        return schema.clone();
    };
    let mut map: Map<String, Value> = source
        .iter()
        .filter(|(k, _)| *k != "nullable" && *k != "example")
        .map(|(k, v)| {
            let v = match k.as_str() {
                "properties" => Value::Object(
                    v.as_object()
                        .map(|p| {
                            p.iter()
                                .map(|(name, s)| (name.clone(), gemini_to_json_schema(s)))
                                .collect()
                        })
                        .unwrap_or_default(),
                ),
                "items" => gemini_to_json_schema(v),
                "anyOf" => Value::Array(
                    v.as_array()
                        .map(|a| a.iter().map(gemini_to_json_schema).collect())
                        .unwrap_or_default(),
                ),
                _ => v.clone(),
            };
            (k.clone(), v)
        })
        .collect();
    if source.get("nullable") == Some(&Value::Bool(true)) {
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.push(Value::Null);
        }
        return json!({ "anyOf": [Value::Object(map), {"type": "null"}] });
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unions_with_null_become_nullable() {
        let out = gemini(&json!({
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "A"},
                "b": {"type": ["integer", "null"]},
                "c": {"type": ["string", "number"]},
                "d": {"const": "x"},
                "e": {"enum": [1, 2, 3]},
                "f": {"type": "string", "format": "uri"},
                "g": {"type": "object", "additionalProperties": {"type": "string"}}
            },
            "required": ["a", "zzz"],
            "additionalProperties": false,
            "$schema": "http://json-schema.org/draft-07/schema#"
        }));
        let p = &out["properties"];
        assert_eq!(
            p["a"],
            json!({"type": "string", "default": null, "title": "A", "nullable": true})
        );
        assert_eq!(p["b"], json!({"type": "integer", "nullable": true}));
        assert_eq!(
            p["c"],
            json!({"anyOf": [{"type": "string"}, {"type": "number"}]})
        );
        assert_eq!(p["d"], json!({"enum": ["x"], "type": "string"}));
        assert_eq!(p["e"], json!({"description": "One of: 1, 2, 3."}));
        assert_eq!(
            p["f"],
            json!({"type": "string", "description": "Format: uri."})
        );
        assert_eq!(p["g"], json!({"type": "object"}));
        assert_eq!(out["required"], json!(["a"]));
        assert!(out.get("additionalProperties").is_none());
        assert!(out.get("$schema").is_none());
    }

    #[test]
    fn all_of_is_merged_and_one_of_becomes_any_of() {
        let out = gemini(&json!({
            "allOf": [
                {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
                {"properties": {"y": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}
            ]
        }));
        assert_eq!(out["type"], "object");
        assert_eq!(out["required"], json!(["x"]));
        assert_eq!(out["properties"]["y"]["anyOf"][1]["type"], "integer");
    }

    #[test]
    fn read_back_accepts_null_where_nullable() {
        let back = gemini_to_json_schema(&json!({"type": "object", "properties": {
            "a": {"type": "string", "nullable": true, "enum": ["x"]}
        }}));
        assert_eq!(
            back["properties"]["a"],
            json!({"anyOf": [{"type": "string", "enum": ["x", null]}, {"type": "null"}]})
        );
    }
}
