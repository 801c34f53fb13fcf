//! JSON Schemas derived from Rust types (feature `schemars`): plain JSON Schema 2020-12 that
//! every client accepts. The root is `"type": "object"`, subschemas are inlined (no `$ref`
//! for clients that do not resolve them), and there is no `$schema`, no root `title` (the Rust
//! type's name) and no schemars-only `format` such as `int64` or `double`.

use mcp_proto::schema::JsonObject;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The formats schemars adds to numbers, which no JSON Schema vocabulary defines.
const RUST_NUMBER_FORMATS: [&str; 12] = [
    "int8", "int16", "int32", "int64", "int128", "uint8", "uint16", "uint32", "uint64", "uint128",
    "float", "double",
];

/// The schema of `T` as a tool's input or output schema, or `None` when `T` is not a JSON
/// object (such as `serde_json::Value`, whose schema accepts anything): an input schema then
/// stays `{"type":"object"}`, and there is no output schema.
pub(crate) fn object_schema<T: schemars::JsonSchema>() -> Option<JsonObject> {
    let Value::Object(mut root) = root_schema::<T>() else {
        return None;
    };
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return None;
    }
    root.remove("title");
    let mut root = Value::Object(root);
    strip_rust_formats(&mut root);
    match root {
        Value::Object(root) => Some(root),
        _ => None,
    }
}

/// The schema of a tool's arguments type `T`: its object schema, `None` for a type that accepts
/// any JSON (`serde_json::Value`: the input schema stays `{"type":"object"}`), or what the
/// schema says `T` is instead when that cannot be an object (`"string"` for `String`,
/// `"array"` for `Vec<_>`), a type no call's arguments can ever fit.
pub(crate) fn arguments_schema<T: schemars::JsonSchema>() -> Result<Option<JsonObject>, String> {
    if let Some(schema) = object_schema::<T>() {
        return Ok(Some(schema));
    }
    match root_schema::<T>() {
        Value::Bool(false) => Err("nothing (the schema `false`)".to_owned()),
        Value::Object(root) => match root.get("type") {
            Some(Value::String(t)) if t != "object" => Err(format!("{t:?}")),
            Some(Value::Array(types)) if !types.iter().any(|t| t == "object") => {
                Err(Value::Array(types.clone()).to_string())
            }
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

/// The root schema of `T`, with subschemas inlined and without `$schema`.
fn root_schema<T: schemars::JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    settings.inline_subschemas = true;
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// Removes the schemars-only number formats everywhere in `schema` (bounded by the type's own
/// nesting, which the compiler already bounded).
fn strip_rust_formats(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let rust_format = map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| RUST_NUMBER_FORMATS.contains(&f));
            if rust_format {
                map.remove("format");
            }
            map.values_mut().for_each(strip_rust_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_rust_formats),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[allow(dead_code)]
    #[derive(schemars::JsonSchema)]
    /// Where and how long.
    struct Forecast {
        /// The city's name.
        city: String,
        /// Days ahead, 1 to 7.
        days: Option<u8>,
        place: Place,
    }

    #[allow(dead_code)]
    #[derive(schemars::JsonSchema)]
    struct Place {
        lat: f64,
    }

    #[test]
    fn plain_object_schemas_with_descriptions() {
        let schema = Value::Object(object_schema::<Forecast>().unwrap());
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["description"], "Where and how long.");
        assert_eq!(
            schema["properties"]["city"]["description"],
            "The city's name."
        );
        assert_eq!(schema["required"], json!(["city", "place"]));
        assert_eq!(
            schema["properties"]["place"]["properties"]["lat"]["type"],
            "number"
        );
        let text = schema.to_string();
        for noise in [
            "$schema",
            "$ref",
            "$defs",
            "\"title\"",
            "int64",
            "uint8",
            "double",
        ] {
            assert!(!text.contains(noise), "{noise} in {text}");
        }
    }

    #[test]
    fn non_objects_have_no_derived_schema() {
        assert_eq!(object_schema::<Value>(), None);
        assert_eq!(object_schema::<Vec<String>>(), None);
        assert_eq!(object_schema::<i64>(), None);
    }
}
