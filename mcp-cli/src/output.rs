//! How results look on a terminal: text as text, images and audio as a one-line summary,
//! structured content pretty-printed; aligned columns for lists; progress on stderr.

use std::io::{IsTerminal, Write};

use mcp_proto::schema::{CallToolResult, Content, ResourceContents};
use serde_json::Value;

/// Rows as aligned columns (two spaces apart; the last column is not padded).
pub fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(cell);
                let pad = widths[i] - cell.chars().count() + 2;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The first line of a text.
pub fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().trim().to_owned()
}

/// A byte count from base64 text, for summaries.
fn decoded_size(base64: &str) -> String {
    let bytes = base64.trim_end_matches('=').len() * 3 / 4;
    if bytes >= 1024 * 1024 {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    } else if bytes >= 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} bytes")
    }
}

/// One content block for a reader.
pub fn render_content(content: &Content) -> String {
    match content {
        Content::Text(t) => t.text.clone(),
        Content::Image(i) => format!("[image: {}, {}]", i.mime_type, decoded_size(&i.data)),
        Content::Audio(a) => format!("[audio: {}, {}]", a.mime_type, decoded_size(&a.data)),
        Content::Resource(r) => render_resource_contents(&r.resource),
        Content::ResourceLink(l) => format!("[resource link: {} ({})]", l.uri, l.name),
        other => format!("[{} block]", other.type_name()),
    }
}

/// Resource contents for a reader: the text, or a summary of a blob.
pub fn render_resource_contents(contents: &ResourceContents) -> String {
    match contents {
        ResourceContents::Text(t) => t.text.clone(),
        ResourceContents::Blob(b) => format!(
            "[blob: {}, {}, {}]",
            b.uri,
            b.mime_type.as_deref().unwrap_or("application/octet-stream"),
            decoded_size(&b.blob)
        ),
    }
}

/// A tool result for a reader: its blocks, then its structured content pretty-printed
/// (a text block that only repeats the structured JSON is not printed twice).
pub fn render_result(result: &CallToolResult) -> String {
    let structured_text = result.structured_content.as_ref();
    let mut parts = Vec::new();
    for block in &result.content {
        if let (Content::Text(t), Some(structured)) = (block, structured_text) {
            if serde_json::from_str::<Value>(&t.text).ok().as_ref() == Some(structured) {
                continue;
            }
        }
        parts.push(render_content(block));
    }
    if let Some(structured) = &result.structured_content {
        parts.push(serde_json::to_string_pretty(structured).unwrap_or_default());
    }
    parts.join("\n")
}

/// Progress on stderr: a bar redrawn in place on a terminal, else one line per report.
pub struct ProgressReporter {
    terminal: bool,
}

impl ProgressReporter {
    /// A reporter for this process's stderr.
    pub fn new() -> Self {
        ProgressReporter {
            terminal: std::io::stderr().is_terminal(),
        }
    }

    /// Shows one progress notification.
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let message = message.unwrap_or_default();
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let line = format!("\r{} {message}\x1b[K", progress_bar(progress, total, 30));
            let _ = err.write_all(line.as_bytes());
        } else {
            let line = match total {
                Some(total) => format!("progress: {progress}/{total} {message}\n"),
                None => format!("progress: {progress} {message}\n"),
            };
            let _ = err.write_all(line.as_bytes());
        }
        let _ = err.flush();
    }

    /// Ends a bar drawn in place.
    pub fn finish(&self) {
        if self.terminal {
            let _ = std::io::stderr().write_all(b"\r\x1b[K");
        }
    }
}

/// A progress bar `[####      ]  40%` of `width` cells, or the bare count when the total is
/// unknown.
pub fn progress_bar(progress: f64, total: Option<f64>, width: usize) -> String {
    match total {
        Some(total) if total > 0.0 => {
            let fraction = (progress / total).clamp(0.0, 1.0);
            let filled = ((fraction * width as f64).round() as usize).min(width);
            format!(
                "[{}{}] {:>3.0}%",
                "#".repeat(filled),
                " ".repeat(width - filled),
                fraction * 100.0
            )
        }
        _ => format!("{progress}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structured_json_is_not_printed_twice() {
        let mut result = CallToolResult::text(r#"{"a":1}"#);
        result.structured_content = Some(json!({"a": 1}));
        assert_eq!(render_result(&result), "{\n  \"a\": 1\n}");
    }

    #[test]
    fn images_are_summarised() {
        let result = CallToolResult::new(vec![Content::image("AAAA", "image/png")]);
        assert_eq!(render_result(&result), "[image: image/png, 3 bytes]");
    }

    #[test]
    fn tables_align() {
        let t = table(&[
            vec!["a".into(), "bb".into(), "c".into()],
            vec!["aaa".into(), "b".into(), "".into()],
        ]);
        assert_eq!(t, "a    bb  c\naaa  b\n");
    }
}
