//! Shaping results and descriptions for a model's context window: a cap on the characters of
//! a result (keeping the tail, where a command's outcome usually is), whether
//! `structuredContent` and `_meta` are passed on, and a cap on tool descriptions.

use mcp_proto::schema::{CallToolResult, Content};

/// How results and descriptions are trimmed before a model sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shaping {
    /// The most characters of text a result keeps (the last ones); `None` keeps all.
    pub max_chars: Option<usize>,
    /// Keep `structuredContent`.
    pub include_structured: bool,
    /// Keep `_meta` (of the result and of its blocks).
    pub include_meta: bool,
    /// The most characters of a tool description; `None` keeps all.
    pub max_description_chars: Option<usize>,
}

impl Default for Shaping {
    /// Everything is kept: no caps, structured content and `_meta` included.
    fn default() -> Self {
        Shaping {
            max_chars: None,
            include_structured: true,
            include_meta: true,
            max_description_chars: None,
        }
    }
}

impl Shaping {
    /// Whether [`shape`](Self::shape) leaves every result as it is.
    pub fn keeps_results(&self) -> bool {
        self.include_structured && self.include_meta && self.max_chars.is_none()
    }

    /// Applies the rules to a result.
    pub fn shape(&self, mut result: CallToolResult) -> CallToolResult {
        if !self.include_structured {
            result.structured_content = None;
        }
        if !self.include_meta {
            result.meta = None;
            for block in &mut result.content {
                strip_meta(block);
            }
        }
        if let Some(max) = self.max_chars {
            keep_tail(&mut result.content, max);
        }
        result
    }

    /// Applies the description cap, marking a cut with `…`.
    pub fn description(&self, text: &str) -> String {
        match self.max_description_chars {
            Some(max) if text.chars().count() > max => {
                let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
                cut.push('…');
                cut
            }
            _ => text.to_owned(),
        }
    }
}

/// Removes a block's own `_meta`, whatever its kind.
fn strip_meta(block: &mut Content) {
    if let Content::Text(t) = block {
        t.meta = None;
        return;
    }
    if let Ok(serde_json::Value::Object(mut map)) = serde_json::to_value(&*block) {
        if map.remove("_meta").is_some() {
            if let Ok(stripped) = serde_json::from_value(serde_json::Value::Object(map)) {
                *block = stripped;
            }
        }
    }
}

/// Keeps the last `max` characters of text over all text blocks, dropping earlier blocks
/// whole and cutting the first kept one; a note says how much was cut.
fn keep_tail(content: &mut Vec<Content>, max: usize) {
    let total: usize = content
        .iter()
        .filter_map(Content::as_text)
        .map(|t| t.chars().count())
        .sum();
    if total <= max {
        return;
    }
    let mut budget = max;
    let mut kept = Vec::with_capacity(content.len());
    for block in content.drain(..).rev() {
        let Some(text) = block.as_text() else {
            kept.push(block);
            continue;
        };
        let n = text.chars().count();
        if n <= budget {
            budget -= n;
            kept.push(block);
        } else if budget > 0 {
            let tail: String = text.chars().skip(n - budget).collect();
            budget = 0;
            kept.push(Content::text(tail));
        }
    }
    kept.push(Content::text(format!(
        "[{} of {total} characters cut; the last {max} follow]",
        total - max
    )));
    kept.reverse();
    *content = kept;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_the_tail() {
        let result = CallToolResult::new(vec![Content::text("abcdef"), Content::text("ghij")]);
        let shaped = Shaping {
            max_chars: Some(6),
            ..Shaping::default()
        }
        .shape(result);
        let texts: Vec<&str> = shaped.content.iter().filter_map(Content::as_text).collect();
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert!(texts[0].contains("4 of 10 characters cut"), "{texts:?}");
        assert_eq!(&texts[1..], ["ef", "ghij"]);
    }

    #[test]
    fn short_results_are_untouched() {
        let result = CallToolResult::text("short");
        let shaped = Shaping {
            max_chars: Some(100),
            ..Shaping::default()
        }
        .shape(result.clone());
        assert_eq!(shaped, result);
    }

    #[test]
    fn structured_and_meta_can_be_dropped() {
        let mut result = CallToolResult::structured(json!({"t": 1}));
        result.meta = Some(serde_json::Map::new());
        let shaped = Shaping {
            include_structured: false,
            include_meta: false,
            ..Shaping::default()
        }
        .shape(result);
        assert!(shaped.structured_content.is_none());
        assert!(shaped.meta.is_none());
    }

    #[test]
    fn descriptions_are_capped() {
        let s = Shaping {
            max_description_chars: Some(5),
            ..Shaping::default()
        };
        assert_eq!(s.description("abcdefgh"), "abcd…");
        assert_eq!(s.description("abc"), "abc");
    }
}
