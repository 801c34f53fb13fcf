//! What the model sees of a tool's result: text as text, `structuredContent` as JSON (unless a
//! text block already carries it), images as images where the model takes them, resource links
//! and embedded resources as text, audio described, and `isError` as the error flag each
//! provider understands.

use mcp_proto::schema::{CallToolResult, Content, ResourceContents};
use serde_json::Value;

use crate::message::{ResultPart, ToolResult};

/// The result of call `call_id` of tool `name`, as the model will see it.
pub fn model_view(
    call_id: &str,
    name: &str,
    result: &CallToolResult,
    takes_images: bool,
) -> ToolResult {
    let mut content = Vec::with_capacity(result.content.len() + 1);
    for block in &result.content {
        content.push(match block {
            Content::Text(t) => ResultPart::Text {
                text: t.text.clone(),
            },
            Content::Image(i) if takes_images => ResultPart::Image {
                mime_type: i.mime_type.clone(),
                data: i.data.clone(),
            },
            Content::Image(i) => ResultPart::Text {
                text: format!(
                    "[an image ({}, {} bytes base64) this model cannot be shown]",
                    i.mime_type,
                    i.data.len()
                ),
            },
            Content::Audio(a) => ResultPart::Text {
                text: format!(
                    "[audio ({}, {} bytes base64) not shown]",
                    a.mime_type,
                    a.data.len()
                ),
            },
            Content::ResourceLink(link) => {
                let mut text = format!("Resource link: {} <{}>", link.name, link.uri);
                if let Some(mime) = &link.mime_type {
                    text.push_str(&format!(" ({mime})"));
                }
                if let Some(description) = &link.description {
                    text.push_str(&format!(": {description}"));
                }
                ResultPart::Text { text }
            }
            Content::Resource(embedded) => ResultPart::Text {
                text: match &embedded.resource {
                    ResourceContents::Text(t) => format!("Resource {}:\n{}", t.uri, t.text),
                    ResourceContents::Blob(b) => format!(
                        "[resource {} ({}, {} bytes base64) not shown]",
                        b.uri,
                        b.mime_type.as_deref().unwrap_or("binary"),
                        b.blob.len()
                    ),
                },
            },
            other => ResultPart::Text {
                text: serde_json::to_string(other).unwrap_or_default(),
            },
        });
    }
    if let Some(structured) = &result.structured_content {
        let already = result.content.iter().any(|block| match block {
            Content::Text(t) => {
                serde_json::from_str::<Value>(&t.text).is_ok_and(|v| &v == structured)
            }
            _ => false,
        });
        if !already {
            content.push(ResultPart::Text {
                text: structured.to_string(),
            });
        }
    }
    if content.is_empty() {
        content.push(ResultPart::Text {
            text: "(the tool returned no content)".into(),
        });
    }
    ToolResult {
        call_id: call_id.to_owned(),
        name: name.to_owned(),
        content,
        is_error: result.is_error(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structured_content_is_shown_once() {
        let result = CallToolResult::structured(json!({"temp": 21}));
        let view = model_view("c", "t", &result, true);
        assert_eq!(view.text(), r#"{"temp":21}"#);
        let mut only = CallToolResult::new(vec![]);
        only.structured_content = Some(json!({"temp": 21}));
        assert_eq!(model_view("c", "t", &only, true).text(), r#"{"temp":21}"#);
    }

    #[test]
    fn errors_images_and_links() {
        let mut result = CallToolResult::error("no such city");
        result.content.push(Content::Image(
            serde_json::from_value(
                json!({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
            )
            .unwrap(),
        ));
        result.content.push(
            serde_json::from_value(
                json!({"type": "resource_link", "uri": "file:///a", "name": "a"}),
            )
            .unwrap(),
        );
        let view = model_view("c", "t", &result, true);
        assert!(view.is_error);
        assert_eq!(view.images().count(), 1);
        assert!(view.text().contains("Resource link: a <file:///a>"));
        let text_only = model_view("c", "t", &result, false);
        assert_eq!(text_only.images().count(), 0);
        assert!(text_only.text().contains("cannot be shown"));
    }
}
