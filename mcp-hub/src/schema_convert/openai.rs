//! OpenAI strict function calling (`"strict": true`): every object lists all its properties
//! in `required` and says `additionalProperties: false`; a property the original left
//! optional becomes nullable, so a model fills it with `null` instead of leaving it out.
//! References are inlined (a recursive type is cut, which strict mode then refuses), `oneOf`
//! becomes `anyOf`, `allOf` is merged, and keywords strict mode does not take are dropped.

use serde_json::{json, Map, Value};

use super::{inline_refs, merge_all_of, types_of};

/// The keywords strict mode takes.
const KEPT: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// The string formats strict mode knows.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Why a schema has no strict form; the tool is exported without `strict` instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no strict form at {path}: {reason}")]
pub struct NotStrict {
    /// Where in the schema (a JSON pointer).
    pub path: String,
    /// What strict mode cannot express there.
    pub reason: String,
}

/// The schema in strict mode's form, or why it has none.
pub fn openai_strict(schema: &Value) -> Result<Value, NotStrict> {
    let mut inlined = inline_refs(schema);
    // A tool without parameters lists none: at the root that means "no arguments", which
    // strict mode says as a closed empty object.
    if let Value::Object(root) = &mut inlined {
        let no_properties = root
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty);
        if no_properties && !root.contains_key("additionalProperties") {
            root.insert("additionalProperties".into(), false.into());
        }
    }
    let mut out = convert(&inlined, "")?;
    if out.get("type").and_then(Value::as_str) != Some("object") {
        return Err(NotStrict {
            path: "/".into(),
            reason: "the root is not an object".into(),
        });
    }
    if let Value::Object(map) = &mut out {
        map.remove("title");
    }
    Ok(out)
}

fn not_strict(path: &str, reason: &str) -> NotStrict {
    NotStrict {
        path: if path.is_empty() {
            "/".into()
        } else {
            path.into()
        },
        reason: reason.into(),
    }
}

fn convert(node: &Value, path: &str) -> Result<Value, NotStrict> {
    let Value::Object(source) = node else {
        return Err(not_strict(path, "a schema that accepts any value"));
    };
    let mut map = source.clone();
    if let Some(Value::Array(parts)) = map.remove("allOf") {
        merge_all_of(&mut map, parts);
    }
    if let Some(one_of) = map.remove("oneOf") {
        map.entry("anyOf").or_insert(one_of);
    }
    // Draft-04 booleans for exclusive bounds have no meaning here.
    for key in ["exclusiveMinimum", "exclusiveMaximum"] {
        if map.get(key).is_some_and(Value::is_boolean) {
            map.remove(key);
        }
    }
    if map
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| !FORMATS.contains(&f))
    {
        map.remove("format");
    }
    if let Some(Value::Array(variants)) = map.remove("anyOf") {
        let converted = variants
            .iter()
            .enumerate()
            .map(|(i, v)| convert(v, &format!("{path}/anyOf/{i}")))
            .collect::<Result<Vec<_>, _>>()?;
        map.insert("anyOf".into(), Value::Array(converted));
    }
    let (types, has_null) = types_of(&map);
    let is_object = types.iter().any(|t| t == "object") || map.contains_key("properties");
    let is_array = types.iter().any(|t| t == "array");
    if is_object {
        let properties = match map.remove("properties") {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        if properties.is_empty() {
            let open = !matches!(map.get("additionalProperties"), Some(Value::Bool(false)));
            if open {
                return Err(not_strict(
                    path,
                    "an object whose keys are not listed (a free-form map)",
                ));
            }
        }
        let required: Vec<String> = match map.get("required") {
            Some(Value::Array(r)) => r
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
            _ => Vec::new(),
        };
        let mut converted = Map::new();
        for (name, schema) in &properties {
            let mut property = convert(schema, &format!("{path}/properties/{name}"))?;
            if !required.contains(name) {
                property = nullable(property);
            }
            converted.insert(name.clone(), property);
        }
        let all: Vec<Value> = converted.keys().cloned().map(Value::from).collect();
        map.insert("properties".into(), Value::Object(converted));
        map.insert("required".into(), Value::Array(all));
        map.insert("additionalProperties".into(), false.into());
        if types.is_empty() {
            map.insert("type".into(), "object".into());
        }
    }
    if is_array {
        match map.remove("items") {
            Some(items @ Value::Object(_)) => {
                map.insert("items".into(), convert(&items, &format!("{path}/items"))?);
            }
            Some(Value::Array(tuple)) if !tuple.is_empty() => {
                let variants = tuple
                    .iter()
                    .enumerate()
                    .map(|(i, v)| convert(v, &format!("{path}/items/{i}")))
                    .collect::<Result<Vec<_>, _>>()?;
                map.insert("items".into(), json!({ "anyOf": variants }));
            }
            _ => return Err(not_strict(path, "an array without an item schema")),
        }
    }
    if types.is_empty()
        && !has_null
        && !is_object
        && !map.contains_key("anyOf")
        && !map.contains_key("enum")
        && !map.contains_key("const")
    {
        return Err(not_strict(path, "a schema without a type"));
    }
    map.retain(|k, _| KEPT.contains(&k.as_str()));
    Ok(Value::Object(map))
}

/// The schema, also accepting `null`.
fn nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    let (types, has_null) = types_of(&map);
    if has_null {
        return Value::Object(map);
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
        if types.is_empty() {
            return Value::Object(map);
        }
    }
    if map.contains_key("const") || map.contains_key("anyOf") || types.is_empty() {
        let description = map.remove("description");
        let mut wrapped = Map::new();
        wrapped.insert(
            "anyOf".into(),
            json!([Value::Object(map), {"type": "null"}]),
        );
        if let Some(d) = description {
            wrapped.insert("description".into(), d);
        }
        return Value::Object(wrapped);
    }
    let mut all: Vec<Value> = types.into_iter().map(Value::from).collect();
    all.push("null".into());
    map.insert("type".into(), Value::Array(all));
    Value::Object(map)
}

/// Arguments shaped for the original schema turned into arguments a strict-mode model would
/// send: every property the original leaves optional and the arguments leave out is `null`.
pub fn fill_nulls(original: &Value, arguments: &Value) -> Value {
    let inlined = inline_refs(original);
    fill(&inlined, arguments)
}

fn fill(schema: &Value, value: &Value) -> Value {
    let (Some(properties), Value::Object(object)) =
        (schema.get("properties").and_then(Value::as_object), value)
    else {
        if let (Some(items), Value::Array(values)) = (schema.get("items"), value) {
            return Value::Array(values.iter().map(|v| fill(items, v)).collect());
        }
        return value.clone();
    };
    let mut out = Map::new();
    for (name, property) in properties {
        let filled = match object.get(name) {
            Some(v) => fill(property, v),
            None => Value::Null,
        };
        out.insert(name.clone(), filled);
    }
    for (name, v) in object {
        out.entry(name.clone()).or_insert_with(|| v.clone());
    }
    Value::Object(out)
}

/// Arguments from a strict-mode model made fit for the original schema: a `null` for a
/// property the original leaves optional and does not allow to be `null` is taken out, at
/// every depth. Anything else is left as it is.
pub fn restore_arguments(original: &Value, arguments: Value) -> Value {
    if !contains_null(&arguments) {
        return arguments;
    }
    let inlined = inline_refs(original);
    restore(&inlined, arguments)
}

/// [`restore_arguments`] against a tool's input schema; the schema is read only when the
/// arguments hold a `null`.
pub fn restore_tool_arguments(tool: &mcp_proto::schema::Tool, arguments: Value) -> Value {
    if !contains_null(&arguments) {
        return arguments;
    }
    restore_arguments(&Value::Object(tool.input_schema.clone()), arguments)
}

fn contains_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(m) => m.values().any(contains_null),
        Value::Array(a) => a.iter().any(contains_null),
        _ => false,
    }
}

fn allows_null(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return true;
    };
    let (_, has_null) = types_of(map);
    has_null
        || map.get("nullable") == Some(&Value::Bool(true))
        || map
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.contains(&Value::Null))
        || ["anyOf", "oneOf"].iter().any(|k| {
            map.get(*k)
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(allows_null))
        })
        || map.is_empty()
}

fn restore(schema: &Value, value: Value) -> Value {
    match value {
        Value::Object(object) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return Value::Object(object);
            };
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            for (name, v) in object {
                match properties.get(&name) {
                    Some(property) => {
                        if v.is_null()
                            && !required.contains(&name.as_str())
                            && !allows_null(property)
                        {
                            continue;
                        }
                        out.insert(name, restore(property, v));
                    }
                    None => {
                        out.insert(name, v);
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(values) => match schema.get("items") {
            Some(items @ Value::Object(_)) => {
                Value::Array(values.into_iter().map(|v| restore(items, v)).collect())
            }
            _ => Value::Array(values),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_properties_become_required_and_nullable() {
        let out = openai_strict(&json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "days": {"type": "integer", "default": 3},
                "unit": {"enum": ["c", "f"]},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
            },
            "required": ["city"],
            "$schema": "http://json-schema.org/draft-07/schema#"
        }))
        .expect("strict");
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": ["integer", "null"]},
                    "unit": {"enum": ["c", "f", null]},
                    "tags": {"type": ["array", "null"], "items": {"type": "string"}}
                },
                "required": ["city", "days", "unit", "tags"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn free_form_objects_and_untyped_values_have_no_strict_form() {
        let map = json!({"type": "object", "properties": {
            "env": {"type": "object", "additionalProperties": {"type": "string"}}
        }});
        let e = openai_strict(&map).unwrap_err();
        assert_eq!(e.path, "/properties/env");
        let any = json!({"type": "object", "properties": {"v": {}}});
        assert!(openai_strict(&any).is_err());
        let untyped_array = json!({"type": "object", "properties": {"v": {"type": "array"}}});
        assert!(openai_strict(&untyped_array).is_err());
        let open_root = json!({"type": "object", "additionalProperties": true});
        assert!(openai_strict(&open_root).is_err());
        let no_arguments = openai_strict(&json!({"type": "object"})).expect("strict");
        assert_eq!(
            no_arguments,
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
        let closed_empty =
            json!({"type": "object", "properties": {}, "additionalProperties": false});
        assert!(openai_strict(&closed_empty).is_ok());
    }

    #[test]
    fn nulls_round_trip() {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "note": {"type": ["string", "null"]},
                "opts": {"type": "object", "properties": {"x": {"type": "integer"}}}
            },
            "required": ["city"]
        });
        let filled = fill_nulls(&schema, &json!({"city": "Oslo", "opts": {}}));
        assert_eq!(
            filled,
            json!({"city": "Oslo", "days": null, "note": null, "opts": {"x": null}})
        );
        let restored = restore_arguments(&schema, filled);
        assert_eq!(restored, json!({"city": "Oslo", "note": null, "opts": {}}));
    }
}
