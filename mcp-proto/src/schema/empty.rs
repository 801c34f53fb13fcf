//! Params and results that carry nothing but `_meta`: `ping`, `notifications/initialized`,
//! the list-changed notifications, and the empty result of `ping`, `logging/setLevel` and friends.

use serde::{Deserialize, Serialize};

use super::{JsonObject, Meta};

/// Params with no fields of their own; absent params (read as `{}`) decode to the default.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct EmptyParams {
    /// Reserved metadata (`progressToken`, and the per-request keys of 2026-07-28).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A result with no fields of their own, e.g. the answer to `ping` (`{}`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct EmptyResult {
    /// Reserved metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_object_decodes_and_encodes_as_empty() {
        let p: EmptyParams = serde_json::from_value(json!({})).unwrap();
        assert_eq!(p, EmptyParams::default());
        assert_eq!(
            serde_json::to_value(EmptyResult::default()).unwrap(),
            json!({})
        );
    }

    #[test]
    fn meta_and_unknown_fields_survive() {
        let v = json!({"_meta": {"progressToken": 3}, "x-ext": [1, 2]});
        let p: EmptyParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(
            p.meta.as_ref().and_then(|m| m.get("progressToken")),
            Some(&json!(3))
        );
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
    }
}
