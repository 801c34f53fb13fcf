//! Pagination: an opaque cursor in, a `nextCursor` out.

use serde::{Deserialize, Serialize};

use super::{JsonObject, Meta};

/// An opaque position in a paginated list, issued by the server in `nextCursor`.
pub type Cursor = String;

/// Params of a list request (`tools/list`, `resources/list`, ...): an optional cursor.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PaginatedParams {
    /// Where to continue; absent for the first page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Reserved metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl PaginatedParams {
    /// Params asking for the page after `cursor`.
    pub fn after(cursor: impl Into<Cursor>) -> Self {
        PaginatedParams {
            cursor: Some(cursor.into()),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_cursor_is_none_and_not_written() {
        let p: PaginatedParams = serde_json::from_value(json!({})).unwrap();
        assert_eq!(p.cursor, None);
        assert_eq!(serde_json::to_value(&p).unwrap(), json!({}));
        let p = PaginatedParams::after("abc");
        assert_eq!(serde_json::to_value(&p).unwrap(), json!({"cursor": "abc"}));
    }
}
