//! Per-server caps on the size of a tool result, from the server's config entry
//! (`"resultLimits": {"text": 20000, "structured": 50000}`, or `"maxResultBytes": N` for
//! both). Text keeps its head and ends with `[truncated, N bytes more]`; structured content
//! over its cap is replaced by the head of its JSON text with the same marker, so a model
//! still sees the start of it and knows how much is missing.

use mcp_proto::schema::{CallToolResult, Content};

/// The most bytes of a result one server may hand to a model; `None` is no cap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResultLimit {
    /// The most UTF-8 bytes of text over all text blocks.
    pub max_text_bytes: Option<usize>,
    /// The most bytes of `structuredContent` as compact JSON.
    pub max_structured_bytes: Option<usize>,
}

impl super::Hub {
    /// The result caps of one server (none for a server the hub does not have).
    pub fn result_limit(&self, server: &str) -> ResultLimit {
        self.find(server)
            .map(|s| s.config().result_limit)
            .unwrap_or_default()
    }
}

/// The marker ending a cut: `[truncated, N bytes more]`.
pub fn truncation_marker(more: usize) -> String {
    format!("[truncated, {more} bytes more]")
}

impl ResultLimit {
    /// Whether no cap is set.
    pub fn is_unlimited(&self) -> bool {
        self.max_text_bytes.is_none() && self.max_structured_bytes.is_none()
    }

    /// Applies the caps.
    pub fn apply(&self, mut result: CallToolResult) -> CallToolResult {
        if let Some(max) = self.max_text_bytes {
            keep_head(&mut result.content, max);
        }
        if let (Some(max), Some(structured)) = (
            self.max_structured_bytes,
            result.structured_content.as_ref(),
        ) {
            let json = serde_json::to_string(structured).unwrap_or_default();
            if json.len() > max {
                let cut = floor_char_boundary(&json, max);
                result.structured_content = None;
                result.content.push(Content::text(format!(
                    "structuredContent: {}… {}",
                    &json[..cut],
                    truncation_marker(json.len() - cut)
                )));
            }
        }
        result
    }
}

/// The largest index `<= at` that is a char boundary of `s`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

/// Keeps the first `max` bytes of text over all text blocks: later text blocks are dropped,
/// the block where the budget ends is cut and marked. Non-text blocks stay.
fn keep_head(content: &mut Vec<Content>, max: usize) {
    let total: usize = content
        .iter()
        .filter_map(Content::as_text)
        .map(str::len)
        .sum();
    if total <= max {
        return;
    }
    let mut budget = max;
    let mut kept = Vec::with_capacity(content.len());
    let mut marked = false;
    for block in content.drain(..) {
        let Some(text) = block.as_text() else {
            kept.push(block);
            continue;
        };
        if text.len() <= budget {
            budget -= text.len();
            kept.push(block);
        } else if !marked {
            let cut = floor_char_boundary(text, budget);
            let dropped = total - (max - budget) - cut;
            kept.push(Content::text(format!(
                "{}… {}",
                &text[..cut],
                truncation_marker(dropped)
            )));
            budget = 0;
            marked = true;
        }
    }
    *content = kept;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_keeps_its_head_and_says_how_much_is_missing() {
        let limit = ResultLimit {
            max_text_bytes: Some(8),
            ..ResultLimit::default()
        };
        let result = CallToolResult::new(vec![
            Content::text("abcde"),
            Content::text("fghij"),
            Content::text("klm"),
        ]);
        let shaped = limit.apply(result);
        let texts: Vec<&str> = shaped.content.iter().filter_map(Content::as_text).collect();
        assert_eq!(texts, ["abcde", "fgh… [truncated, 5 bytes more]"]);
    }

    #[test]
    fn cuts_fall_on_char_boundaries() {
        let limit = ResultLimit {
            max_text_bytes: Some(3),
            ..ResultLimit::default()
        };
        // "é" is two bytes: three bytes end inside the second one.
        let shaped = limit.apply(CallToolResult::text("ééé"));
        assert_eq!(
            shaped.content[0].as_text(),
            Some("é… [truncated, 4 bytes more]")
        );
    }

    #[test]
    fn small_results_are_untouched() {
        let limit = ResultLimit {
            max_text_bytes: Some(100),
            max_structured_bytes: Some(100),
        };
        let result = CallToolResult::structured(json!({"a": 1}));
        assert_eq!(limit.apply(result.clone()), result);
    }

    #[test]
    fn big_structured_content_becomes_marked_text() {
        let limit = ResultLimit {
            max_structured_bytes: Some(10),
            ..ResultLimit::default()
        };
        let value = json!({"items": [1, 2, 3, 4, 5, 6, 7, 8]});
        let json_len = serde_json::to_string(&value).unwrap().len();
        let mut result = CallToolResult::new(vec![]);
        result.structured_content = Some(value);
        let shaped = limit.apply(result);
        assert!(shaped.structured_content.is_none());
        let text = shaped.content.last().and_then(Content::as_text).unwrap();
        assert!(
            text.ends_with(&format!("[truncated, {} bytes more]", json_len - 10)),
            "{text}"
        );
        assert!(text.starts_with("structuredContent: {\"items\":"), "{text}");
    }
}
