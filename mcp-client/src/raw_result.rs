//! A tool's result kept as the JSON text the server wrote, for a caller that hands it on (a
//! proxy): read only as far as needed to tell a result from a task and to take the 2026-07-28
//! head off, never into types, so it is neither parsed into a `CallToolResult` nor written
//! again.

use std::borrow::Cow;

use mcp_proto::json_text::{self, RawMembers};
use mcp_proto::jsonrpc::RawJson;
use mcp_proto::schema::modern::meta_keys;
use mcp_proto::schema::PassThroughResult;

use crate::modern::{self, Answer};

/// `raw` as a tool's result, with the head taken off when `modern`; `raw` itself back when it
/// is not plainly one (a task handle, a field of the wrong type), for the typed read to judge.
pub(crate) fn read(raw: RawJson, modern: bool) -> Result<PassThroughResult, RawJson> {
    read_with(raw, modern, skimmed)
}

/// [`read`] with the members as serde_json reads them: the slow twin of the skim it makes.
pub(crate) fn read_parsed(raw: RawJson, modern: bool) -> Result<PassThroughResult, RawJson> {
    read_with(raw, modern, parsed)
}

/// [`read`] with the members of an object (the result, and its `_meta`) read by `members`.
fn read_with(raw: RawJson, modern: bool, members: MembersOf) -> Result<PassThroughResult, RawJson> {
    let verdict = match members(raw.get()) {
        Some(fields) => verdict(fields.as_slice(), modern, members),
        None => Verdict::Typed,
    };
    verdict.finish(raw)
}

/// How the members of an object are read: [`skimmed`], or (the twin) [`parsed`].
type MembersOf = for<'a> fn(&'a str) -> Option<RawMembers<'a>>;

/// The members of an object, skimmed (its values not read).
fn skimmed(text: &str) -> Option<RawMembers<'_>> {
    RawMembers::of(text)
}

/// The members of an object as serde_json reads them.
fn parsed(text: &str) -> Option<RawMembers<'_>> {
    RawMembers::of_parsed(text)
}

/// A 2026-07-28 `tools/call` answer told apart as [`modern::classify`] does and, when complete,
/// read as [`read`] does, in one pass over its text when its `resultType` is plain (absent,
/// `null` or `"complete"`); any other answer takes both steps.
pub(crate) fn classify(
    raw: RawJson,
    modern: bool,
) -> Result<Answer<Result<PassThroughResult, RawJson>>, String> {
    if let Some(fields) = RawMembers::of(raw.get()) {
        if says_complete(fields.as_slice()) {
            let verdict = verdict(fields.as_slice(), modern, skimmed);
            drop(fields);
            return Ok(Answer::Complete(verdict.finish(raw)));
        }
    }
    Ok(match modern::classify(raw)? {
        Answer::Complete(raw) => Answer::Complete(read(raw, modern)),
        Answer::Task(raw) => Answer::Task(read(raw, modern)),
        Answer::InputRequired(asked) => Answer::InputRequired(asked),
    })
}

/// Whether an object's members make a complete answer the way [`modern::classify`] reads them:
/// no `resultType`, or one that is `null` or `"complete"`. `false` also for what that reading
/// treats apart (a repeated `resultType`, one that is not a string).
fn says_complete(fields: &[(Cow<'_, str>, &str)]) -> bool {
    let mut kinds = fields.iter().filter(|(key, _)| key == "resultType");
    let complete = match kinds.next() {
        None => true,
        Some((_, value)) => match *value {
            "null" | "\"complete\"" => true,
            text if text.starts_with('"') && text.contains('\\') => {
                serde_json::from_str::<String>(text).is_ok_and(|kind| kind == "complete")
            }
            _ => false,
        },
    };
    complete && kinds.next().is_none()
}

/// What [`read`] makes of a result's members.
enum Verdict {
    /// Not plainly a result: left to the typed read.
    Typed,
    /// A result to pass on as it came.
    AsItCame { is_error: bool },
    /// A result written again without its head.
    Cut(PassThroughResult),
}

impl Verdict {
    /// The verdict applied to `raw`, the text the members were read from.
    fn finish(self, raw: RawJson) -> Result<PassThroughResult, RawJson> {
        match self {
            Verdict::Typed => Err(raw),
            Verdict::AsItCame { is_error } => Ok(PassThroughResult::from_checked(raw, is_error)),
            Verdict::Cut(result) => Ok(result),
        }
    }
}

/// Judges a result's members: its head taken off when `modern` (`_meta`'s members read by
/// `members`).
fn verdict(fields: &[(Cow<'_, str>, &str)], modern: bool, members: MembersOf) -> Verdict {
    let mut is_error = false;
    let mut head = false;
    for (key, value) in fields {
        let value = *value;
        match key.as_ref() {
            "content" if !value.starts_with('[') => return Verdict::Typed,
            "isError" => match value {
                "true" => is_error = true,
                "false" | "null" => {}
                _ => return Verdict::Typed,
            },
            // Either flavour of task: the typed read follows it.
            "task" if value.starts_with('{') => return Verdict::Typed,
            "resultType" if value == "\"task\"" => return Verdict::Typed,
            "resultType" => head |= modern,
            "_meta" if !value.starts_with('{') => return Verdict::Typed,
            "_meta" => head |= modern && names_server_info(value, members),
            _ => {}
        }
    }
    if !head {
        return Verdict::AsItCame { is_error };
    }
    Verdict::Cut(PassThroughResult::from_checked(
        without_head(fields, members),
        is_error,
    ))
}

/// Whether `_meta` (an object's text) has the server's info among its members.
fn names_server_info(meta: &str, members: MembersOf) -> bool {
    members(meta).is_some_and(|meta| {
        meta.as_slice()
            .iter()
            .any(|(key, _)| key == meta_keys::SERVER_INFO)
    })
}

/// An object's members without `resultType` and without the server's info in `_meta` (a
/// `_meta` left empty is left out), written again from their text, which is not read again.
fn without_head(fields: &[(Cow<'_, str>, &str)], members: MembersOf) -> RawJson {
    let metas: Vec<Option<RawJson>> = fields
        .iter()
        .filter(|(key, _)| key == "_meta")
        .map(|(_, meta)| {
            members(meta)
                .filter(|meta| {
                    meta.as_slice()
                        .iter()
                        .any(|(key, _)| key != meta_keys::SERVER_INFO)
                })
                .map(|meta| meta.without(meta_keys::SERVER_INFO))
        })
        .collect();
    let mut metas = metas.iter();
    let kept = fields.iter().filter_map(|(key, value)| match key.as_ref() {
        "resultType" => None,
        "_meta" => metas
            .next()
            .and_then(Option::as_ref)
            .map(|meta| (key.as_ref(), meta.get())),
        _ => Some((key.as_ref(), *value)),
    });
    let room = 2 + fields
        .iter()
        .map(|(k, v)| k.len() + v.len() + 4)
        .sum::<usize>();
    json_text::object(kept, room)
}

#[cfg(test)]
mod tests {
    use mcp_proto::jsonrpc::raw_json;
    use mcp_proto::schema::CallToolResult;
    use serde_json::{json, Value};

    use super::*;

    fn passed(text: &str, modern: bool) -> PassThroughResult {
        read(raw_json(text), modern).expect("a plain result")
    }

    #[test]
    fn a_2025_result_passes_as_it_came() {
        let text = r#"{"x-b":1,"content":[{"type":"text","text":"hi","_meta":{"k":2}}],"isError":true,"structuredContent":{"n":1.50},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s"}}}"#;
        let result = passed(text, false);
        assert_eq!(result.as_str(), text);
        assert!(result.is_error());
    }

    #[test]
    fn the_modern_head_is_taken_off_and_nothing_else() {
        let text = r#"{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"},"v\"k":[1]},"content":[],"structuredContent":{"n":1.50},"x-b":{"y":null}}"#;
        let result = passed(text, true);
        assert_eq!(
            result.as_str(),
            r#"{"_meta":{"v\"k":[1]},"content":[],"structuredContent":{"n":1.50},"x-b":{"y":null}}"#
        );
        assert!(!result.is_error());
        let only_head = r#"{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{}},"content":[{"type":"text","text":"t"}],"isError":false}"#;
        assert_eq!(
            passed(only_head, true).as_str(),
            r#"{"content":[{"type":"text","text":"t"}],"isError":false}"#
        );
        assert_eq!(passed("{}", true).as_str(), "{}");
    }

    #[test]
    fn the_text_read_matches_the_typed_read() {
        let text = r#"{"resultType":"complete","content":[{"type":"text","text":"a"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s"},"k":1},"isError":true,"z":2}"#;
        let mut typed: CallToolResult = serde_json::from_str(text).expect("typed");
        crate::modern::drop_head(&mut typed.meta, &mut typed.extra);
        let raw: Value = serde_json::from_str(passed(text, true).as_str()).expect("json");
        assert_eq!(raw, serde_json::to_value(&typed).expect("value"));
        assert_eq!(passed(text, true).to_typed().expect("typed"), typed);
    }

    #[test]
    fn one_pass_classifies_as_the_two_steps_do() {
        let two_steps = |text: &str, modern: bool| {
            crate::modern::classify(raw_json(text)).map(|answer| match answer {
                Answer::Complete(raw) => Answer::Complete(read(raw, modern)),
                Answer::Task(raw) => Answer::Task(read(raw, modern)),
                Answer::InputRequired(asked) => Answer::InputRequired(asked),
            })
        };
        for text in [
            r#"{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s"},"k":1},"content":[],"isError":true}"#,
            r#"{"content":[{"type":"text","text":"a\"b"}]}"#,
            r#"{"resultType":null,"content":[]}"#,
            r#"{"resultType":"compl\u0065te","content":[]}"#,
            r#"{"resultType":"complete","resultType":"complete","content":[]}"#,
            r#"{"resultType":7,"content":[]}"#,
            r#"{"resultType":"task","taskId":"t"}"#,
            r#"{"resultType":"t\u0061sk","taskId":"t"}"#,
            r#"{"resultType":"input_required","requestState":"s"}"#,
            r#"{"resultType":"later"}"#,
            r#"{"task":{"taskId":"t"}}"#,
            r#"{"content":null}"#,
            r#"{"_meta":[]}"#,
            r#"["later"]"#,
            r#"[1]"#,
            r#"7"#,
        ] {
            for modern in [true, false] {
                assert_eq!(
                    format!("{:?}", classify(raw_json(text), modern)),
                    format!("{:?}", two_steps(text, modern)),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn tasks_and_odd_results_are_left_to_the_typed_read() {
        for text in [
            r#"{"task":{"taskId":"t"}}"#,
            r#"{"resultType":"task","taskId":"t"}"#,
            r#"{"content":null}"#,
            r#"{"content":{}}"#,
            r#"{"isError":"yes"}"#,
            r#"{"_meta":[]}"#,
            r#"[1]"#,
            r#"7"#,
        ] {
            assert!(read(raw_json(text), true).is_err(), "{text}");
        }
        let typed = PassThroughResult::from_typed(&CallToolResult::error("no")).expect("typed");
        assert!(typed.is_error());
        assert_eq!(
            serde_json::from_str::<Value>(typed.as_str()).expect("json"),
            json!({"content": [{"type": "text", "text": "no"}], "isError": true})
        );
    }
}
