//! An elicitation form asked at the terminal, field by field from its schema: each field's
//! title, description, type, choices and default are shown; an answer is checked against the
//! field's type and limits and asked again until it fits; an empty answer takes the default or
//! leaves an optional field out.

use serde_json::{Map, Number, Value};

/// One answer checked against one field's schema: the value, or why it does not fit.
pub fn check_field(schema: &Value, answer: &str) -> Result<Value, String> {
    let answer = answer.trim();
    if let Some(choices) = choices(schema) {
        if let Some(found) = choices
            .iter()
            .find(|(value, title)| value == answer || title == answer)
        {
            return Ok(Value::String(found.0.clone()));
        }
        if let Ok(n) = answer.parse::<usize>() {
            if let Some(found) = n.checked_sub(1).and_then(|i| choices.get(i)) {
                return Ok(Value::String(found.0.clone()));
            }
        }
        let names: Vec<&str> = choices.iter().map(|c| c.0.as_str()).collect();
        return Err(format!("choose one of: {}", names.join(", ")));
    }
    match schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string")
    {
        "boolean" => match answer.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" | "1" => Ok(Value::Bool(true)),
            "n" | "no" | "false" | "0" => Ok(Value::Bool(false)),
            _ => Err("answer yes or no".into()),
        },
        "integer" => {
            let n: i64 = answer
                .parse()
                .map_err(|_| "expected a whole number".to_owned())?;
            in_range(schema, n as f64)?;
            Ok(Value::Number(n.into()))
        }
        "number" => {
            let n: f64 = answer
                .parse()
                .ok()
                .filter(|n: &f64| n.is_finite())
                .ok_or("expected a number")?;
            in_range(schema, n)?;
            Number::from_f64(n)
                .map(Value::Number)
                .ok_or_else(|| "expected a number".into())
        }
        _ => {
            let length = answer.chars().count() as u64;
            let limit = |k: &str| schema.get(k).and_then(Value::as_u64);
            if let Some(min) = limit("minLength").filter(|m| length < *m) {
                return Err(format!("at least {min} characters"));
            }
            if let Some(max) = limit("maxLength").filter(|m| length > *m) {
                return Err(format!("at most {max} characters"));
            }
            match schema.get("format").and_then(Value::as_str) {
                Some("email") if !answer.contains('@') => Err("expected an email address".into()),
                Some("uri") if !answer.contains(':') => Err("expected a URI".into()),
                _ => Ok(Value::String(answer.to_owned())),
            }
        }
    }
}

fn in_range(schema: &Value, n: f64) -> Result<(), String> {
    let limit = |k: &str| schema.get(k).and_then(Value::as_f64);
    if let Some(min) = limit("minimum").filter(|m| n < *m) {
        return Err(format!("at least {min}"));
    }
    if let Some(max) = limit("maximum").filter(|m| n > *m) {
        return Err(format!("at most {max}"));
    }
    Ok(())
}

/// A field's choices as `(value, title)`: `enum` (with `enumNames`) or `oneOf` of `const`s.
fn choices(schema: &Value) -> Option<Vec<(String, String)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let value = v.as_str()?.to_owned();
                    let title = names
                        .and_then(|n| n.get(i))
                        .and_then(Value::as_str)
                        .map_or_else(|| value.clone(), str::to_owned);
                    Some((value, title))
                })
                .collect(),
        );
    }
    let options = schema.get("oneOf").and_then(Value::as_array)?;
    Some(
        options
            .iter()
            .filter_map(|o| {
                let value = o.get("const")?.as_str()?.to_owned();
                let title = o
                    .get("title")
                    .and_then(Value::as_str)
                    .map_or_else(|| value.clone(), str::to_owned);
                Some((value, title))
            })
            .collect(),
    )
}

/// The question for a field: `Title (description; one of 1) a, 2) b) [default]: `.
pub fn question(name: &str, schema: &Value, required: bool) -> String {
    let title = schema.get("title").and_then(Value::as_str).unwrap_or(name);
    let mut notes = Vec::new();
    if let Some(d) = schema.get("description").and_then(Value::as_str) {
        notes.push(d.to_owned());
    }
    match choices(schema) {
        Some(choices) => {
            let listed: Vec<String> = choices
                .iter()
                .enumerate()
                .map(|(i, (_, t))| format!("{}) {t}", i + 1))
                .collect();
            notes.push(format!("one of {}", listed.join(", ")));
        }
        None => notes.push(
            match schema
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("string")
            {
                "boolean" => "yes/no",
                "integer" => "whole number",
                "number" => "number",
                _ => "text",
            }
            .into(),
        ),
    }
    if !required {
        notes.push("optional".into());
    }
    let default = schema
        .get("default")
        .map(|d| match d {
            Value::String(s) => format!(" [{s}]"),
            other => format!(" [{other}]"),
        })
        .unwrap_or_default();
    format!("  {title} ({}){default}: ", notes.join("; "))
}

/// What an empty answer means for a field: its default, nothing (optional), or ask again.
pub fn empty_answer(schema: &Value, required: bool) -> Result<Option<Value>, String> {
    match schema.get("default") {
        Some(d) => Ok(Some(d.clone())),
        None if required => Err("this field is required".into()),
        None => Ok(None),
    }
}

/// The fields of a form schema, in order, with whether each is required.
pub fn fields(schema: &Map<String, Value>) -> Vec<(String, Value, bool)> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .map(|(name, s)| (name.clone(), s.clone(), required.contains(&name.as_str())))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_checked_by_type() {
        let int = json!({"type": "integer", "minimum": 1, "maximum": 7});
        assert_eq!(check_field(&int, "3"), Ok(json!(3)));
        assert!(check_field(&int, "9").unwrap_err().contains("at most 7"));
        assert!(check_field(&int, "x").is_err());
        let yes = json!({"type": "boolean"});
        assert_eq!(check_field(&yes, "Y"), Ok(json!(true)));
        let city = json!({"type": "string", "enum": ["Springfield, IL", "Springfield, MO"]});
        assert_eq!(check_field(&city, "2"), Ok(json!("Springfield, MO")));
        assert_eq!(
            check_field(&city, "Springfield, IL"),
            Ok(json!("Springfield, IL"))
        );
        assert!(check_field(&city, "Paris").is_err());
        let mail = json!({"type": "string", "format": "email"});
        assert!(check_field(&mail, "nobody").is_err());
        let short = json!({"type": "string", "minLength": 2});
        assert!(check_field(&short, "a").is_err());
    }

    #[test]
    fn questions_show_choices_and_defaults() {
        let q = question(
            "days",
            &json!({"type": "integer", "title": "Days", "default": 3}),
            false,
        );
        assert_eq!(q, "  Days (whole number; optional) [3]: ");
        assert_eq!(
            empty_answer(&json!({"default": 3}), true),
            Ok(Some(json!(3)))
        );
        assert!(empty_answer(&json!({}), true).is_err());
        assert_eq!(empty_answer(&json!({}), false), Ok(None));
    }
}
