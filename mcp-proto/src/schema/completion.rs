//! Argument completion: `completion/complete` for prompt arguments and resource-template variables.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{JsonObject, Meta, RequestType};

/// What is being completed: a prompt or a resource template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// `ref/prompt`: a prompt's argument.
    #[serde(rename = "ref/prompt")]
    Prompt(PromptReference),
    /// `ref/resource`: a resource template's variable.
    #[serde(rename = "ref/resource")]
    Resource(ResourceTemplateReference),
}

/// Identifies a prompt by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptReference {
    /// The prompt's name.
    pub name: String,
    /// A display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Identifies a resource template by its URI template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplateReference {
    /// The URI template.
    pub uri: String,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CompletionReference {
    /// A reference to prompt `name`.
    pub fn prompt(name: impl Into<String>) -> Self {
        CompletionReference::Prompt(PromptReference {
            name: name.into(),
            title: None,
            extra: JsonObject::new(),
        })
    }

    /// A reference to the resource template `uri`.
    pub fn resource(uri: impl Into<String>) -> Self {
        CompletionReference::Resource(ResourceTemplateReference {
            uri: uri.into(),
            extra: JsonObject::new(),
        })
    }
}

/// The argument being completed and what has been typed so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// The argument's name.
    pub name: String,
    /// The partial value.
    pub value: String,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Values already given for other arguments (2025-06-18+).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CompletionContext {
    /// Resolved argument values by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Params of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteParams {
    /// The prompt or resource template.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument and its partial value.
    pub argument: CompletionArgument,
    /// Other arguments already resolved (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CompleteParams {
    /// Complete argument `name` of `reference`, typed so far as `value`.
    pub fn new(
        reference: CompletionReference,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        CompleteParams {
            reference,
            argument: CompletionArgument {
                name: name.into(),
                value: value.into(),
                extra: JsonObject::new(),
            },
            context: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The suggestions of a completion.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 suggestions.
    #[serde(default)]
    pub values: Vec<String>,
    /// How many there are in all, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more than those sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The result of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: Completion,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CompleteResult {
    /// The first 100 of `values`, with `total` and `hasMore` set when some were cut.
    pub fn new(mut values: Vec<String>) -> Self {
        const MAX: usize = 100;
        let all = values.len();
        let (total, has_more) = if all > MAX {
            values.truncate(MAX);
            (Some(all as u64), Some(true))
        } else {
            (None, None)
        };
        CompleteResult {
            completion: Completion {
                values,
                total,
                has_more,
                extra: JsonObject::new(),
            },
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// `completion/complete`: ask for completion suggestions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Complete;

impl RequestType for Complete {
    const METHOD: &'static str = "completion/complete";
    type Params = CompleteParams;
    type Result = CompleteResult;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_are_tagged() {
        let v = json!({"ref": {"type": "ref/resource", "uri": "file:///{p}"},
                       "argument": {"name": "p", "value": "sr"},
                       "context": {"arguments": {"lang": "rust"}}});
        let p: CompleteParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(p.reference, CompletionReference::resource("file:///{p}"));
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
        let p = CompleteParams::new(CompletionReference::prompt("x"), "a", "");
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": ""}})
        );
    }

    #[test]
    fn result_caps_at_one_hundred() {
        let r = CompleteResult::new((0..150).map(|i| i.to_string()).collect());
        assert_eq!(r.completion.values.len(), 100);
        assert_eq!(r.completion.total, Some(150));
        assert_eq!(r.completion.has_more, Some(true));
        let r = CompleteResult::new(vec!["a".into()]);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"completion": {"values": ["a"]}})
        );
    }
}
