//! Every shortcut this crate takes over raw JSON text, each beside its slow twin (the plain
//! serde_json read), so that fuzz-checks can feed both the same text and require the same
//! answer. Not API: hidden, and public only because fuzz-checks is another crate. The list, with
//! the tests, is in `docs/architecture.md`, "Fast paths".

use mcp_proto::fast_paths::raw;
pub use mcp_proto::fast_paths::Twin;

use crate::http;
use crate::modern::{self, Answer};
use crate::raw_result;

/// This crate's fast paths. Each function takes valid JSON text (what a `RawJson` holds).
pub const TWINS: [Twin; 4] = [
    Twin::new(
        "mcp-client: a request's era on Streamable HTTP (KeySearch guard)",
        |text| format!("{:?}", http::is_modern(text)),
        |text| format!("{:?}", http::is_modern_parsed(text)),
    ),
    Twin::new(
        "mcp-client: a 2025 tool result passed on (member skim)",
        |text| format!("{:?}", raw_result::read(raw(text), false)),
        |text| format!("{:?}", raw_result::read_parsed(raw(text), false)),
    ),
    Twin::new(
        "mcp-client: a 2026-07-28 tool result passed on without its head (member skim)",
        |text| format!("{:?}", raw_result::read(raw(text), true)),
        |text| format!("{:?}", raw_result::read_parsed(raw(text), true)),
    ),
    Twin::new(
        "mcp-client: a 2026-07-28 answer classified and read in one pass (member skim)",
        |text| format!("{:?}", raw_result::classify(raw(text), true)),
        |text| {
            let answer = modern::classify(raw(text)).map(|answer| match answer {
                Answer::Complete(raw) => Answer::Complete(raw_result::read_parsed(raw, true)),
                Answer::Task(raw) => Answer::Task(raw_result::read_parsed(raw, true)),
                Answer::InputRequired(asked) => Answer::InputRequired(asked),
            });
            format!("{answer:?}")
        },
    ),
];
