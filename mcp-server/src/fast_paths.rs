//! Every shortcut this crate takes over raw JSON text, each beside its slow twin (the plain
//! serde_json read), so that fuzz-checks can feed both the same text and require the same
//! answer. Not API: hidden, and public only because fuzz-checks is another crate. The list, with
//! the tests, is in `docs/architecture.md`, "Fast paths".

use mcp_proto::fast_paths::raw;
pub use mcp_proto::fast_paths::Twin;

use crate::modern;
use crate::tool;

/// This crate's fast paths. Each function takes valid JSON text (what a `RawJson` holds).
pub const TWINS: [Twin; 3] = [
    Twin::new(
        "mcp-server: a request's era, without a protocol version (KeySearch guard)",
        |text| {
            format!(
                "{:?}",
                !modern::names_no_version(text) && modern::names_version_parsed(text)
            )
        },
        |text| format!("{:?}", modern::names_version_parsed(text)),
    ),
    Twin::new(
        "mcp-server: a 2026-07-28 result with no head member of its own (KeySearch guard)",
        |text| format!("{:?}", modern::is_plain(text)),
        |text| format!("{:?}", modern::is_plain_parsed(text)),
    ),
    Twin::new(
        "mcp-server: a forwarded result without structuredContent (KeySearch guard, member skim)",
        |text| tool::without_structured_content(raw(text)).get().to_owned(),
        |text| {
            tool::without_structured_content_parsed(raw(text))
                .get()
                .to_owned()
        },
    ),
];
