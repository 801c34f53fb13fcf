//! Every fast path over raw JSON text against its slow twin (the plain serde_json read): fed the
//! same text, they must give the same answer, compared as text (so that a difference hidden by
//! a repeated key still shows). The twins are listed by each crate's hidden `fast_paths` module,
//! and in `docs/architecture.md`, "Fast paths".

use mcp_proto::fast_paths::Twin;
use serde::de::IgnoredAny;

/// Every crate's twins.
pub fn twins() -> impl Iterator<Item = Twin> {
    mcp_proto::fast_paths::TWINS
        .into_iter()
        .chain(mcp_server::fast_paths::TWINS)
        .chain(mcp_client::fast_paths::TWINS)
}

/// Reads `data` as one JSON text (anything else is skipped: a fast path only ever sees text that
/// was checked once, on the wire or when written) and checks every twin on it, and on it placed
/// where the paths look: as `_meta`, beside a `_meta`, as a tool's arguments and as a result's
/// member.
pub fn check_fast_paths(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if serde_json::from_str::<IgnoredAny>(text).is_err() {
        return;
    }
    for placed in placements(text) {
        check_text(&placed);
    }
}

/// `text` where the fast paths look for things.
pub fn placements(text: &str) -> [String; 5] {
    [
        text.to_owned(),
        format!(r#"{{"_meta":{text}}}"#),
        format!(r#"{{"name":"t","arguments":{text},"_meta":{{"progressToken":1}}}}"#),
        format!(r#"{{"content":[],"structuredContent":{text},"isError":false}}"#),
        format!(r#"{{"resultType":"complete","_meta":{text},"content":[{text}]}}"#),
    ]
}

/// Checks every twin on `text`, valid JSON.
pub fn check_text(text: &str) {
    for twin in twins() {
        let fast = (twin.fast)(text);
        let slow = (twin.slow)(text);
        assert_eq!(
            fast, slow,
            "{}: the fast path and its twin differ on {text}",
            twin.name
        );
    }
}
