//! What a turn reports as it goes: typed events, which also serialize as one JSON object per
//! line (NDJSON, `{"type": "text_delta", ...}`) for other programs.

use serde::Serialize;
use serde_json::Value;

use crate::model::Usage;

/// One thing that happened during a turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AgentEvent {
    /// More answer text.
    TextDelta {
        /// The text.
        text: String,
    },
    /// More reasoning text.
    ReasoningDelta {
        /// The text.
        text: String,
    },
    /// A tool call begins (its arguments are complete).
    ToolCallStarted {
        /// The call's id.
        id: String,
        /// The tool's name as the model called it.
        name: String,
        /// The arguments (as text when they are not JSON).
        arguments: Value,
    },
    /// A running call reported progress.
    ToolProgress {
        /// The call's id.
        id: String,
        /// How far along.
        progress: f64,
        /// Out of what, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
        /// What it is doing.
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// A tool call ended.
    ToolCallFinished {
        /// The call's id.
        id: String,
        /// The tool's name as the model called it.
        name: String,
        /// How long it took.
        duration_ms: u64,
        /// Whether it failed (the model sees the error and may recover).
        is_error: bool,
        /// What the model sees of the result, as text.
        output: String,
    },
    /// A call waits for the user's approval.
    ApprovalNeeded {
        /// The server.
        server: String,
        /// The tool's raw name.
        tool: String,
        /// The name the model called it by.
        exposed: String,
        /// The arguments.
        arguments: Value,
    },
    /// A server asks the user for input.
    ElicitationRequested {
        /// The server.
        server: String,
        /// What it asks.
        message: String,
        /// `form` or `url`.
        mode: String,
    },
    /// A server asks the agent's model for a completion (`sampling/createMessage`).
    SamplingRequested {
        /// The server.
        server: String,
    },
    /// Tokens one model call used.
    Usage {
        /// Prompt tokens.
        input_tokens: u64,
        /// Generated tokens.
        output_tokens: u64,
    },
    /// The turn is over.
    TurnFinished {
        /// Why.
        reason: StopReason,
        /// Model calls made.
        steps: usize,
        /// Tokens used by the whole turn.
        usage: Usage,
        /// What went wrong, when `reason` is `error`.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

impl AgentEvent {
    /// The event as one line of NDJSON (no trailing newline).
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model answered.
    Completed,
    /// The step limit was reached while the model still called tools.
    MaxSteps,
    /// The turn's time budget ran out.
    Budget,
    /// The turn was cancelled.
    Cancelled,
    /// The model failed.
    Error,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_ndjson_lines() {
        let line = AgentEvent::ToolCallStarted {
            id: "c1".into(),
            name: "weather__get_weather".into(),
            arguments: serde_json::json!({"city": "Paris"}),
        }
        .to_json_line();
        assert_eq!(
            line,
            r#"{"type":"tool_call_started","id":"c1","name":"weather__get_weather","arguments":{"city":"Paris"}}"#
        );
        let done = AgentEvent::TurnFinished {
            reason: StopReason::MaxSteps,
            steps: 3,
            usage: Usage::default(),
            error: None,
        };
        assert!(done.to_json_line().contains(r#""reason":"max_steps""#));
    }
}
