//! Roots: the directories or files a client lets a server work in.

use serde::{Deserialize, Serialize};

use super::empty::EmptyParams;
use super::{JsonObject, Meta, NotificationType, RequestType};

/// A root the client exposes, by URI (`file://` for now).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// The root's URI.
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Root {
    /// A root at `uri`, optionally named.
    pub fn new(uri: impl Into<String>, name: Option<String>) -> Self {
        Root {
            uri: uri.into(),
            name,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// The result of `roots/list`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    #[serde(default)]
    pub roots: Vec<Root>,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ListRootsResult {
    /// A result listing these roots.
    pub fn new(roots: Vec<Root>) -> Self {
        ListRootsResult {
            roots,
            ..Default::default()
        }
    }
}

/// `roots/list`: the server asks the client for its roots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListRoots;

impl RequestType for ListRoots {
    const METHOD: &'static str = "roots/list";
    type Params = EmptyParams;
    type Result = ListRootsResult;
}

/// `notifications/roots/list_changed`: the client's roots changed (removed in 2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RootsListChanged;

impl NotificationType for RootsListChanged {
    const METHOD: &'static str = "notifications/roots/list_changed";
    type Params = EmptyParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn roots_round_trip() {
        let v = json!({"roots": [{"uri": "file:///p", "name": "p", "x": 1}], "_meta": {}});
        let r: ListRootsResult = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(r.roots[0].name.as_deref(), Some("p"));
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
    }
}
