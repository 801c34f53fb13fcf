//! Transcripts: a conversation as JSON Lines, one [`Message`] per line, so it can be saved,
//! read by other programs, and resumed.

use std::path::Path;

use crate::error::AgentError;
use crate::message::Message;

/// The largest transcript read back.
const MAX_TRANSCRIPT: u64 = 256 * 1024 * 1024;

/// Writes `messages` to `path`, one JSON object per line.
pub fn save(path: &Path, messages: &[Message]) -> Result<(), AgentError> {
    let mut text = String::new();
    for message in messages {
        let line = serde_json::to_string(message).map_err(|e| failure(path, e))?;
        text.push_str(&line);
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|e| failure(path, e))
}

/// Reads a transcript written by [`save`]; blank lines are skipped, a bad line is an error
/// naming its number.
pub fn load(path: &Path) -> Result<Vec<Message>, AgentError> {
    let size = std::fs::metadata(path).map_err(|e| failure(path, e))?.len();
    if size > MAX_TRANSCRIPT {
        return Err(failure(path, format!("larger than {MAX_TRANSCRIPT} bytes")));
    }
    let text = std::fs::read_to_string(path).map_err(|e| failure(path, e))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line).map_err(|e| failure(path, format!("line {}: {e}", n + 1)))
        })
        .collect()
}

fn failure(path: &Path, reason: impl std::fmt::Display) -> AgentError {
    AgentError::Transcript {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Part, ResultPart, Role, ToolCall, ToolResult};

    #[test]
    fn a_transcript_round_trips() {
        let messages = vec![
            Message::user("weather in Paris?"),
            Message {
                role: Role::Assistant,
                parts: vec![Part::ToolCall(ToolCall {
                    id: "c1".into(),
                    name: "weather__get_weather".into(),
                    arguments: r#"{"city":"Paris"}"#.into(),
                })],
            },
            Message {
                role: Role::User,
                parts: vec![Part::ToolResult(ToolResult {
                    call_id: "c1".into(),
                    name: "weather__get_weather".into(),
                    content: vec![ResultPart::Text {
                        text: "21 C".into(),
                    }],
                    is_error: false,
                })],
            },
            Message::assistant("It is 21 C."),
        ];
        let dir = std::env::temp_dir().join(format!("mcp-agent-transcript-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.jsonl");
        save(&path, &messages).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 4);
        assert_eq!(load(&path).unwrap(), messages);
        std::fs::write(&path, "{\"role\":\"user\"}\n").unwrap();
        let e = load(&path).unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
