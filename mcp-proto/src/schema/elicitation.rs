//! Elicitation: `elicitation/create`, the server asking the user for input through the client,
//! as a form (2025-06-18+) or by sending them to a URL (2025-11-25+).

use serde::{Deserialize, Serialize};

use super::tasks::TaskMetadata;
use super::{JsonObject, Meta, NotificationType, RequestType};

/// The `mode` tag of a form elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum FormMode {
    /// `"form"`.
    #[default]
    #[serde(rename = "form")]
    Form,
}

/// The `mode` tag of a URL elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum UrlMode {
    /// `"url"`.
    #[default]
    #[serde(rename = "url")]
    Url,
}

/// Params of a form elicitation: a message and a flat JSON Schema of the fields wanted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitFormParams {
    /// `"form"`; optional on the wire (form is the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// What to tell the user.
    pub message: String,
    /// The fields wanted, as a JSON Schema object kept verbatim.
    pub requested_schema: JsonObject,
    /// Run as a task (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Params of a URL elicitation: send the user to a URL out of band (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitUrlParams {
    /// `"url"`.
    pub mode: UrlMode,
    /// What to tell the user.
    pub message: String,
    /// Where to send them.
    pub url: String,
    /// The id `notifications/elicitation/complete` refers to (2025-11-25; gone in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Run as a task (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Params of `elicitation/create`: a form or a URL, told apart by `mode`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitParams {
    /// `mode: "url"`.
    Url(ElicitUrlParams),
    /// `mode: "form"` or no mode.
    Form(ElicitFormParams),
}

impl ElicitParams {
    /// A form asking for the fields of `requested_schema` (a JSON object; anything else asks
    /// for nothing).
    pub fn form(message: impl Into<String>, requested_schema: serde_json::Value) -> Self {
        let requested_schema = match requested_schema {
            serde_json::Value::Object(map) => map,
            _ => {
                let mut empty = JsonObject::new();
                empty.insert("type".into(), "object".into());
                empty.insert(
                    "properties".into(),
                    serde_json::Value::Object(JsonObject::new()),
                );
                empty
            }
        };
        ElicitParams::Form(ElicitFormParams {
            mode: None,
            message: message.into(),
            requested_schema,
            task: None,
            meta: None,
            extra: JsonObject::new(),
        })
    }

    /// A URL elicitation sending the user to `url`, tracked as `elicitation_id`.
    pub fn url(
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Self {
        ElicitParams::Url(ElicitUrlParams {
            mode: UrlMode::Url,
            message: message.into(),
            url: url.into(),
            elicitation_id: Some(elicitation_id.into()),
            task: None,
            meta: None,
            extra: JsonObject::new(),
        })
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        match self {
            ElicitParams::Url(p) => &p.message,
            ElicitParams::Form(p) => &p.message,
        }
    }
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted or confirmed.
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The result of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (accepted forms only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ElicitResult {
    fn with_action(action: ElicitAction, content: Option<JsonObject>) -> Self {
        ElicitResult {
            action,
            content,
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// The user accepted; `content` holds the form values (none for URL mode).
    pub fn accept(content: Option<JsonObject>) -> Self {
        Self::with_action(ElicitAction::Accept, content)
    }

    /// The user declined.
    pub fn decline() -> Self {
        Self::with_action(ElicitAction::Decline, None)
    }

    /// The user dismissed the request.
    pub fn cancel() -> Self {
        Self::with_action(ElicitAction::Cancel, None)
    }
}

/// `elicitation/create`: the server asks the user for input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elicit;

impl RequestType for Elicit {
    const METHOD: &'static str = "elicitation/create";
    type Params = ElicitParams;
    type Result = ElicitResult;
}

/// Params of `notifications/elicitation/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteParams {
    /// The URL elicitation that finished.
    pub elicitation_id: String,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// `notifications/elicitation/complete`: a URL elicitation finished out of band (2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ElicitationComplete;

impl NotificationType for ElicitationComplete {
    const METHOD: &'static str = "notifications/elicitation/complete";
    type Params = ElicitationCompleteParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn form_without_mode_and_with_mode() {
        let v = json!({"message": "name?", "requestedSchema": {"type": "object",
                       "properties": {"n": {"type": "string"}}, "required": ["n"]}});
        let p: ElicitParams = serde_json::from_value(v.clone()).unwrap();
        assert!(matches!(
            p,
            ElicitParams::Form(ElicitFormParams { mode: None, .. })
        ));
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
        let mut with_mode = v.clone();
        with_mode["mode"] = json!("form");
        let p: ElicitParams = serde_json::from_value(with_mode.clone()).unwrap();
        assert_eq!(serde_json::to_value(&p).unwrap(), with_mode);
    }

    #[test]
    fn url_mode_is_recognised() {
        let p = ElicitParams::url("log in", "https://x.example/a", "e1");
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(
            v,
            json!({"mode": "url", "message": "log in", "url": "https://x.example/a",
                             "elicitationId": "e1"})
        );
        let back: ElicitParams = serde_json::from_value(v).unwrap();
        assert_eq!(back, p);
        assert!(
            serde_json::from_value::<ElicitParams>(json!({"mode": "url", "message": "m"})).is_err()
        );
        assert!(
            serde_json::from_value::<ElicitParams>(json!({"mode": "x", "message": "m",
            "requestedSchema": {}}))
            .is_err()
        );
    }

    #[test]
    fn results() {
        assert_eq!(
            serde_json::to_value(ElicitResult::decline()).unwrap(),
            json!({"action": "decline"})
        );
        let r: ElicitResult =
            serde_json::from_value(json!({"action": "accept", "content": {"n": "a"}})).unwrap();
        assert_eq!(r.action, ElicitAction::Accept);
    }
}
