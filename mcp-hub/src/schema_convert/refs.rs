//! `$ref` inlining: every local reference (`#/$defs/X`, `#/definitions/X`, any `#/…` pointer,
//! `#` itself) is replaced by what it points to, merged with the keywords beside it. A
//! reference met again while it is being expanded (a recursive type) is cut: it becomes a
//! schema of the target's type with a description saying so, so the result is finite.
//! `$defs` and `definitions` are dropped from the result.

use serde_json::{Map, Value};

use super::note;

/// The schema with its local references inlined and cycles cut.
pub fn inline_refs(schema: &Value) -> Value {
    let mut expanding = Vec::new();
    let mut out = expand(schema, schema, &mut expanding);
    if let Value::Object(map) = &mut out {
        map.remove("$defs");
        map.remove("definitions");
    }
    out
}

/// What a local reference points to.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// A short name for a reference, for the note on a cut cycle.
fn ref_name(reference: &str) -> &str {
    reference
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or("the root")
}

fn expand(node: &Value, root: &Value, expanding: &mut Vec<String>) -> Value {
    match node {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                if let Some(target) = resolve(root, reference) {
                    let mut merged: Map<String, Value>;
                    if expanding.contains(reference) {
                        merged = Map::new();
                        if let Some(t) = target.get("type") {
                            merged.insert("type".into(), t.clone());
                        }
                        note(
                            &mut merged,
                            &format!(
                                "(Recursive: the same structure as {}; not expanded further.)",
                                ref_name(reference)
                            ),
                        );
                    } else {
                        expanding.push(reference.clone());
                        let expanded = expand(target, root, expanding);
                        expanding.pop();
                        merged = match expanded {
                            Value::Object(m) => m,
                            Value::Bool(true) => Map::new(),
                            other => return other,
                        };
                        merged.remove("$defs");
                        merged.remove("definitions");
                    }
                    // Keywords beside the `$ref` (a description, a default) win.
                    for (k, v) in map {
                        if k != "$ref" {
                            merged.insert(k.clone(), expand(v, root, expanding));
                        }
                    }
                    return Value::Object(merged);
                }
            }
            Value::Object(
                map.iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "$defs" | "definitions"))
                    .map(|(k, v)| (k.clone(), expand(v, root, expanding)))
                    .collect(),
            )
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| expand(v, root, expanding)).collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_are_inlined_with_their_siblings() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "description": "the a"}},
            "$defs": {"A": {"type": "object", "properties": {"x": {"type": "integer"}}}}
        });
        let out = inline_refs(&schema);
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {"a": {"type": "object", "properties": {"x": {"type": "integer"}}, "description": "the a"}}
            })
        );
    }

    #[test]
    fn cycles_are_cut_and_marked() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/definitions/Node"}},
            "definitions": {"Node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}
            }}}
        });
        let out = inline_refs(&schema);
        let cut = &out["properties"]["tree"]["properties"]["children"]["items"];
        assert_eq!(cut["type"], "object");
        assert!(
            cut["description"].as_str().unwrap().contains("Recursive"),
            "{cut}"
        );
        assert!(out.get("definitions").is_none());
    }
}
