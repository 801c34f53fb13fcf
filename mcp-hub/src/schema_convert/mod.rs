//! Tool input schemas rewritten the way each LLM provider accepts them, for export:
//!
//! - [`openai_strict`]: OpenAI's strict function calling: every object closed
//!   (`additionalProperties: false`) with every property required, optional ones made
//!   nullable; keywords strict mode refuses dropped. A schema strict mode cannot express (a
//!   free-form object, an array without `items`, "any value") is reported, and the export
//!   falls back to a non-strict definition for that tool;
//! - [`anthropic`]: Anthropic's `input_schema`: an object at the root, no `anyOf`/`oneOf`/
//!   `allOf` there;
//! - [`gemini`]: Gemini's OpenAPI subset: `$ref`/`$defs` inlined (a cycle is cut and marked in
//!   the description), type unions with `null` turned into `nullable`, `oneOf` into `anyOf`,
//!   `allOf` merged, unsupported keywords and formats dropped.
//!
//! Arguments a model fills under OpenAI strict mode carry `null` for optional fields it leaves
//! out; [`restore_arguments`] takes those out again before the call reaches the server.
//! Every conversion only loosens or re-expresses: an instance the original schema accepts is
//! accepted by the converted one (after the `null` filling for strict mode); the tests check
//! this on real servers' schemas.

mod anthropic;
mod gemini;
mod openai;
mod refs;

pub use anthropic::anthropic;
pub use gemini::{gemini, gemini_to_json_schema};
pub use openai::{fill_nulls, openai_strict, restore_arguments, restore_tool_arguments, NotStrict};
pub use refs::inline_refs;

use serde_json::{Map, Value};

/// Merges the subschemas of an `allOf` into `target`: properties and `required` are united,
/// other keywords keep the first value seen (the target's own first).
pub(crate) fn merge_all_of(target: &mut Map<String, Value>, parts: Vec<Value>) {
    for part in parts {
        let Value::Object(part) = part else { continue };
        for (key, value) in part {
            match (key.as_str(), target.get_mut(&key)) {
                ("properties", Some(Value::Object(existing))) => {
                    if let Value::Object(more) = value {
                        for (k, v) in more {
                            existing.entry(k).or_insert(v);
                        }
                    }
                }
                ("required", Some(Value::Array(existing))) => {
                    if let Value::Array(more) = value {
                        for v in more {
                            if !existing.contains(&v) {
                                existing.push(v);
                            }
                        }
                    }
                }
                ("description", Some(_)) | ("title", Some(_)) => {}
                (_, Some(_)) => {}
                (_, None) => {
                    target.insert(key, value);
                }
            }
        }
    }
}

/// The non-null types a schema's `type` names, and whether it names `null`.
pub(crate) fn types_of(schema: &Map<String, Value>) -> (Vec<String>, bool) {
    match schema.get("type") {
        Some(Value::String(t)) if t == "null" => (Vec::new(), true),
        Some(Value::String(t)) => (vec![t.clone()], false),
        Some(Value::Array(items)) => {
            let mut types = Vec::new();
            let mut null = false;
            for t in items.iter().filter_map(Value::as_str) {
                if t == "null" {
                    null = true;
                } else {
                    types.push(t.to_owned());
                }
            }
            (types, null)
        }
        _ => (Vec::new(), false),
    }
}

/// Whether a subschema is exactly "null" (`{"type": "null"}`, perhaps with a description).
pub(crate) fn is_null_schema(schema: &Value) -> bool {
    schema.as_object().is_some_and(|m| {
        m.get("type").and_then(Value::as_str) == Some("null")
            && m.keys()
                .all(|k| matches!(k.as_str(), "type" | "description" | "title"))
    })
}

/// Appends a sentence to a schema's description.
pub(crate) fn note(schema: &mut Map<String, Value>, text: &str) {
    let description = match schema.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{} {text}", d.trim_end()),
        _ => text.to_owned(),
    };
    schema.insert("description".into(), description.into());
}
