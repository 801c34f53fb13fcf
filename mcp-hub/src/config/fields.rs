//! Reading one field of a server entry: typed, with `${env:VAR}` and `${input:id}` expanded,
//! and errors that name the file, the server and the field.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{ConfigError, Variables};

pub(super) struct Ctx<'a> {
    pub(super) file: &'a str,
    pub(super) vars: &'a Variables,
    pub(super) warnings: Vec<String>,
    pub(super) missing_inputs: Vec<String>,
}

impl Ctx<'_> {
    pub(super) fn field_error(
        &self,
        server: &str,
        field: &str,
        problem: impl Into<String>,
    ) -> ConfigError {
        ConfigError::Field {
            file: self.file.into(),
            server: server.into(),
            field: field.into(),
            problem: problem.into(),
        }
    }

    /// Expands `${env:VAR}`, `${VAR}` and `${input:id}`; anything unresolved stays as written.
    pub(super) fn expand(&mut self, server: &str, field: &str, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                out.push_str(&rest[start..]);
                return out;
            };
            let name = &after[..end];
            let whole = &rest[start..start + 2 + end + 1];
            let value = if let Some(id) = name.strip_prefix("input:") {
                let v = self.vars.inputs.get(id).cloned();
                if v.is_none() && !self.missing_inputs.iter().any(|m| m == id) {
                    self.missing_inputs.push(id.to_owned());
                }
                v
            } else {
                let var = name.strip_prefix("env:").unwrap_or(name);
                let v = self.vars.env_var(var);
                if v.is_none() {
                    self.warnings.push(format!(
                        "{}: server \"{server}\": field \"{field}\": variable {whole} is not set; kept as written",
                        self.file
                    ));
                }
                v
            };
            out.push_str(value.as_deref().unwrap_or(whole));
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        out
    }

    pub(super) fn string(
        &mut self,
        server: &str,
        entry: &Map<String, Value>,
        field: &str,
    ) -> Result<Option<String>, ConfigError> {
        match entry.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(self.expand(server, field, s))),
            Some(other) => Err(self.field_error(
                server,
                field,
                format!("must be a string, found {}", kind_of(other)),
            )),
        }
    }

    pub(super) fn strings(
        &mut self,
        server: &str,
        entry: &Map<String, Value>,
        field: &str,
    ) -> Result<Vec<String>, ConfigError> {
        match entry.get(field) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) => Ok(self.expand(server, field, s)),
                    other => Err(self.field_error(
                        server,
                        field,
                        format!("item {i} must be a string, found {}", kind_of(other)),
                    )),
                })
                .collect(),
            Some(other) => Err(self.field_error(
                server,
                field,
                format!("must be an array of strings, found {}", kind_of(other)),
            )),
        }
    }

    pub(super) fn string_map(
        &mut self,
        server: &str,
        entry: &Map<String, Value>,
        field: &str,
    ) -> Result<BTreeMap<String, String>, ConfigError> {
        match entry.get(field) {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(map)) => {
                let mut out = BTreeMap::new();
                for (k, v) in map {
                    let value = match v {
                        Value::String(s) => self.expand(server, field, s),
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        other => {
                            return Err(self.field_error(
                                server,
                                &format!("{field}.{k}"),
                                format!("must be a string, found {}", kind_of(other)),
                            ))
                        }
                    };
                    out.insert(k.clone(), value);
                }
                Ok(out)
            }
            Some(other) => Err(self.field_error(
                server,
                field,
                format!("must be an object of strings, found {}", kind_of(other)),
            )),
        }
    }
}

pub(super) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
