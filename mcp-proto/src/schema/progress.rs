//! Progress and cancellation: `notifications/progress` and `notifications/cancelled`.

use serde::{Deserialize, Serialize};

use super::{JsonObject, Meta, NotificationType};
use crate::jsonrpc::RequestId;

/// A progress token: a string or an integer, like a request id, chosen by the requester.
pub type ProgressToken = RequestId;

/// The `_meta` key a requester uses to ask for progress notifications.
pub const PROGRESS_TOKEN_META_KEY: &str = "progressToken";

/// Reads the progress token a request's `_meta` carries, if any (a malformed one reads as none).
pub fn progress_token(meta: Option<&Meta>) -> Option<ProgressToken> {
    let value = meta?.get(PROGRESS_TOKEN_META_KEY)?;
    serde_json::from_value(value.clone()).ok()
}

/// Params of `notifications/progress`: how far a long request has come.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; increases with every notification.
    #[serde(serialize_with = "super::number::serialize")]
    pub progress: f64,
    /// The total, when known.
    #[serde(
        serialize_with = "super::number::serialize_opt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total: Option<f64>,
    /// A human-readable status line (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ProgressParams {
    /// Progress `progress` (of `total`, if known) for the request that sent `token`.
    pub fn new(token: ProgressToken, progress: f64, total: Option<f64>) -> Self {
        ProgressParams {
            progress_token: token,
            progress,
            total,
            message: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// Adds a status message.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}

/// `notifications/progress`: progress of a request in flight, either direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress;

impl NotificationType for Progress {
    const METHOD: &'static str = "notifications/progress";
    type Params = ProgressParams;
}

/// Params of `notifications/cancelled`: which request to stop, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// The id of the request to cancel (optional in the 2025-11-25 schema, required otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why it was cancelled, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl CancelledParams {
    /// Cancels request `id`, with an optional reason.
    pub fn new(id: RequestId, reason: Option<String>) -> Self {
        CancelledParams {
            request_id: Some(id),
            reason,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// `notifications/cancelled`: the sender no longer wants the answer to a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

impl NotificationType for Cancelled {
    const METHOD: &'static str = "notifications/cancelled";
    type Params = CancelledParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn progress_token_is_string_or_integer() {
        let p: ProgressParams =
            serde_json::from_value(json!({"progressToken": "abc", "progress": 1})).unwrap();
        assert_eq!(p.progress_token, RequestId::from("abc"));
        let p: ProgressParams =
            serde_json::from_value(json!({"progressToken": 7, "progress": 0.5, "total": 2}))
                .unwrap();
        assert_eq!(p.progress_token, RequestId::from(7));
        assert_eq!(p.total, Some(2.0));
        assert_eq!(p.message, None);
    }

    #[test]
    fn reads_progress_token_from_meta() {
        let meta: Meta = serde_json::from_value(json!({"progressToken": 12})).unwrap();
        assert_eq!(progress_token(Some(&meta)), Some(RequestId::from(12)));
        let meta: Meta = serde_json::from_value(json!({"progressToken": null})).unwrap();
        assert_eq!(progress_token(Some(&meta)), None);
        assert_eq!(progress_token(None), None);
    }

    #[test]
    fn cancelled_round_trips_with_unknown_fields() {
        let v = json!({"requestId": 5, "reason": "user", "vendor": {"a": 1}});
        let p: CancelledParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(p.request_id, Some(RequestId::from(5)));
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
    }
}
