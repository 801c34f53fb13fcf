//! JSON Schema dialects of tool schemas (`tools.schema-dialect`): every `inputSchema` (and
//! `outputSchema`) is an object schema, a `$schema` names a dialect by an absolute URI, each
//! schema is valid under its declared dialect or, without `$schema`, under JSON Schema 2020-12
//! (the 2025-11-25 default), and the `structuredContent` of a successful safe call conforms
//! under that same dialect.

use jsonschema::Draft;
use mcp_proto::ProtocolVersion;
use serde_json::Value;

use crate::case;
use crate::case::{Case, CaseResult, Outcome, Versions};
use crate::context::Ctx;
use crate::driver::session::brief;

/// The schema dialect cases.
pub fn cases() -> Vec<Case> {
    vec![
        case!("tools.schema-dialect", Must, Versions::since(ProtocolVersion::V2025_11_25), Shared, "basic/index#json-schema-usage",
            "tool schemas are object schemas valid under their $schema dialect (2020-12 when absent), and structuredContent conforms under it", schema_dialect),
    ]
}

/// The dialect a schema is written in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// No `$schema`: JSON Schema 2020-12, the default since 2025-11-25.
    Default,
    /// A `$schema` naming a dialect the runner validates.
    Declared(Draft),
    /// A `$schema` that is an absolute URI of a dialect the runner does not know.
    Unknown(String),
}

impl Dialect {
    /// The draft to validate with, when the runner knows it.
    pub fn draft(&self) -> Option<Draft> {
        match self {
            Dialect::Default => Some(Draft::Draft202012),
            Dialect::Declared(d) => Some(*d),
            Dialect::Unknown(_) => None,
        }
    }
}

/// The dialect of `schema`, or what is wrong with its `$schema`: it must be a string holding an
/// absolute URI. The official meta-schema URIs are matched with either scheme and with or
/// without the empty fragment.
pub fn dialect_of(schema: &Value) -> Result<Dialect, String> {
    let Some(declared) = schema.get("$schema") else {
        return Ok(Dialect::Default);
    };
    let Some(uri) = declared.as_str() else {
        return Err(format!("`$schema` is not a string: {declared}"));
    };
    let Some((scheme, rest)) = uri.split_once(':') else {
        return Err(format!("`$schema` {uri:?} is not an absolute URI"));
    };
    let scheme_ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok || rest.is_empty() {
        return Err(format!("`$schema` {uri:?} is not an absolute URI"));
    }
    let path = rest.trim_end_matches('#');
    let draft = match (scheme.to_ascii_lowercase().as_str(), path) {
        ("http" | "https", "//json-schema.org/draft/2020-12/schema") => Draft::Draft202012,
        ("http" | "https", "//json-schema.org/draft/2019-09/schema") => Draft::Draft201909,
        ("http" | "https", "//json-schema.org/draft-07/schema") => Draft::Draft7,
        ("http" | "https", "//json-schema.org/draft-06/schema") => Draft::Draft6,
        ("http" | "https", "//json-schema.org/draft-04/schema") => Draft::Draft4,
        _ => return Ok(Dialect::Unknown(uri.to_owned())),
    };
    Ok(Dialect::Declared(draft))
}

/// A compiled validator for `schema` under `draft`, whatever its `$schema` says.
fn validator(schema: &Value, draft: Draft) -> Result<jsonschema::Validator, String> {
    // The declared `$schema` was mapped to `draft` already; validating a copy without it keeps
    // the library from re-detecting (or fetching) the dialect.
    let mut bare = schema.clone();
    if let Some(obj) = bare.as_object_mut() {
        obj.remove("$schema");
    }
    jsonschema::options()
        .with_draft(draft)
        .build(&bare)
        .map_err(|e| e.to_string())
}

/// The problem with one tool schema (`which` is `inputSchema` or `outputSchema`), if any;
/// `object_root` says whether the root must be `type: "object"`.
pub fn schema_problem(schema: &Value, which: &str, object_root: bool) -> Option<String> {
    if !schema.is_object() {
        return Some(format!("{which} is not a JSON object: {}", brief(schema)));
    }
    if object_root && super::schema_type(schema) != Some("object") {
        return Some(format!(
            "{which} has root type {} instead of \"object\"",
            schema.get("type").map_or("absent".into(), Value::to_string)
        ));
    }
    let dialect = match dialect_of(schema) {
        Ok(d) => d,
        Err(problem) => return Some(format!("{which}: {problem}")),
    };
    let draft = dialect.draft()?;
    validator(schema, draft).err().map(|e| {
        let name = match dialect {
            Dialect::Default => "JSON Schema 2020-12 (the default without $schema)".to_owned(),
            _ => format!("its declared dialect {draft:?}"),
        };
        format!("{which} is not valid under {name}: {e}")
    })
}

fn name_of(tool: &Value) -> &str {
    tool.get("name")
        .and_then(Value::as_str)
        .unwrap_or("<unnamed>")
}

async fn schema_dialect(cx: &mut Ctx) -> CaseResult {
    if let Some(skip) = cx.require("tools").await? {
        return Ok(skip);
    }
    // 2026-07-28 lifts the object-root restriction on outputSchema (any 2020-12 schema).
    let output_object_root = !cx.version().await?.is_stateless_era();
    let tools = cx.tools().await?;
    if tools.is_empty() {
        return Ok(Outcome::skip("the server lists no tools"));
    }
    let expected = "object schemas valid under their $schema dialect (2020-12 when absent)";
    for tool in &tools {
        let name = name_of(tool);
        let Some(input) = tool.get("inputSchema") else {
            return Ok(Outcome::fail(
                expected,
                format!("`{name}` has no inputSchema"),
            ));
        };
        let checks = [
            Some((input, "inputSchema", true)),
            tool.get("outputSchema")
                .map(|o| (o, "outputSchema", output_object_root)),
        ];
        for (schema, which, object_root) in checks.into_iter().flatten() {
            if let Some(problem) = schema_problem(schema, which, object_root) {
                return Ok(Outcome::fail(expected, format!("`{name}`: {problem}")));
            }
        }
    }
    // The structured results of the tools that could be called safely, under the same dialect.
    let calls = super::tools::sample_calls(cx).await?;
    for call in &calls {
        let (Some(schema), Some(result)) = (call.tool.get("outputSchema"), call.reply.result())
        else {
            continue;
        };
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let (Some(structured), Some(draft)) = (
            result.get("structuredContent"),
            dialect_of(schema).ok().and_then(|d| d.draft()),
        ) else {
            continue;
        };
        let Ok(validator) = validator(schema, draft) else {
            continue;
        };
        let errors = super::tools::instance_errors(&validator, structured);
        if !errors.is_empty() {
            return Ok(Outcome::fail(
                format!(
                    "`{}`: structuredContent valid against its outputSchema under {draft:?}",
                    name_of(&call.tool)
                ),
                format!("{} — {}", errors.join("; "), brief(structured)),
            ));
        }
    }
    Ok(Outcome::Pass)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dialects_are_read_from_schema() {
        assert_eq!(dialect_of(&json!({"type": "object"})), Ok(Dialect::Default));
        for (uri, draft) in [
            (
                "https://json-schema.org/draft/2020-12/schema",
                Draft::Draft202012,
            ),
            ("http://json-schema.org/draft-07/schema#", Draft::Draft7),
            ("https://json-schema.org/draft-07/schema", Draft::Draft7),
            (
                "http://json-schema.org/draft/2019-09/schema#",
                Draft::Draft201909,
            ),
        ] {
            assert_eq!(
                dialect_of(&json!({"$schema": uri})),
                Ok(Dialect::Declared(draft)),
                "{uri}"
            );
        }
        assert_eq!(
            dialect_of(&json!({"$schema": "urn:example:my-dialect"})),
            Ok(Dialect::Unknown("urn:example:my-dialect".into()))
        );
        assert!(dialect_of(&json!({"$schema": "draft-07"})).is_err());
        assert!(dialect_of(&json!({"$schema": 7})).is_err());
    }

    #[test]
    fn schemas_are_judged_under_their_dialect() {
        // A draft-04 boolean exclusiveMinimum is invalid under the 2020-12 default…
        let draft4_style = json!({"type": "object", "properties":
            {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}});
        assert!(schema_problem(&draft4_style, "inputSchema", true)
            .is_some_and(|p| p.contains("2020-12")));
        // …and valid when the schema declares draft-04.
        let mut declared = draft4_style.clone();
        declared["$schema"] = json!("http://json-schema.org/draft-04/schema#");
        assert_eq!(schema_problem(&declared, "inputSchema", true), None);
        // 2020-12 keywords are fine without $schema.
        let modern = json!({"type": "object", "$defs": {"a": {"type": "string"}},
            "properties": {"t": {"type": "array", "prefixItems": [{"$ref": "#/$defs/a"}]}}});
        assert_eq!(schema_problem(&modern, "inputSchema", true), None);
        // The root must be an object schema where the version says so.
        let array_root = json!({"type": "array"});
        assert!(schema_problem(&array_root, "outputSchema", true).is_some());
        assert_eq!(schema_problem(&array_root, "outputSchema", false), None);
        // An unknown (absolute) dialect cannot be validated, and is not a failure.
        let custom = json!({"$schema": "urn:example:x", "type": "object"});
        assert_eq!(schema_problem(&custom, "inputSchema", true), None);
    }
}
