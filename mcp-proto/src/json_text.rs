//! JSON text handled by hand where serde's generic path costs too much. Not API: the module is
//! hidden, and public only because mcp-server and mcp-client (other crates of this workspace)
//! use it. Each shortcut here has a slow twin; see `docs/architecture.md`, "Fast paths".
//!
//! - string literals escaped eight bytes at a time ([`push_string`]): serde_json escapes one
//!   byte at a time (about 9 instructions a byte), and a tool result that carries its structured
//!   content again as a JSON text block sends hundreds of bytes through that loop on every call;
//! - the top-level members of an object already known to be valid JSON found without reading
//!   their values ([`object_members`], [`RawMembers`]): serde reads every byte of every value
//!   again, which for a result a proxy passes on is a second full parse of it;
//! - a search for a key that is certain when it says "absent" ([`KeySearch`]), for guards that
//!   skip a parse;
//! - JSON written from checked parts kept without being read again ([`written`], [`object`]).

use std::borrow::Cow;

use crate::jsonrpc::RawJson;

/// Keeps `text` that the caller has just written as one JSON value, without reading it again:
/// for writers that build a result from checked parts (raw values, literals, and strings
/// through [`push_string`]). Checked in debug builds only.
pub fn written(text: String) -> RawJson {
    RawJson::from_written(text)
}

/// The object `{"key":value,…}`: each key escaped, each value copied as it is, so the values
/// must be JSON text already checked (members of a [`RawJson`], say). `room` is the length to
/// reserve.
pub fn object<'a>(members: impl IntoIterator<Item = (&'a str, &'a str)>, room: usize) -> RawJson {
    let mut out = String::with_capacity(room);
    push_object(&mut out, members);
    // Valid by construction: escaped keys and values that were valid JSON.
    RawJson::from_written(out)
}

/// An object's members in order (a repeated key kept each time): each key (borrowed from the
/// text unless it has escapes) and each value's text. What a caller that passes a result on
/// reads of it: which members it has, without reading their values into types, or at all.
#[derive(Debug)]
pub struct RawMembers<'a>(Vec<(Cow<'a, str>, &'a str)>);

impl<'a> RawMembers<'a> {
    /// The members of `text`, a JSON object; `None` for anything else. `text` must be valid
    /// JSON, such as a [`RawJson`]'s text or a value inside one: it was checked once, when it
    /// was read or written, and is not read again here (see [`object_members`]).
    pub fn of(text: &'a str) -> Option<Self> {
        object_members(text).map(RawMembers)
    }

    /// The members of `text` as serde_json reads them: the slow twin of [`RawMembers::of`].
    pub fn of_parsed(text: &'a str) -> Option<Self> {
        object_members_parsed(text).map(RawMembers)
    }

    /// The members, in order.
    pub fn as_slice(&self) -> &[(Cow<'a, str>, &'a str)] {
        &self.0
    }

    /// The members without those named `key`, written as an object (their values as they
    /// came, not read again).
    pub fn without(&self, key: &str) -> RawJson {
        let room = 2 + self
            .0
            .iter()
            .map(|(k, v)| k.len() + v.len() + 4)
            .sum::<usize>();
        let kept = self.0.iter().filter(|(name, _)| name != key);
        object(kept.map(|(name, value)| (name.as_ref(), *value)), room)
    }
}

/// The bytes a JSON string must escape: `"`, `\` and the controls below 0x20.
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// The bytes of `word` (read little-endian, so its lowest byte comes first in the text) that
/// need escaping, as the high bit of each; exact for the lowest one, which is all a caller
/// reads. The classic "has a zero byte" and "has a byte below n" tests: a borrow can only
/// mark bytes above a true match.
fn escape_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_bytes = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    below_space
        | zero_bytes(word ^ (ONES * u64::from(b'"')))
        | zero_bytes(word ^ (ONES * u64::from(b'\\')))
}

/// The index of the first byte at or after `from` that needs escaping.
fn next_escape(bytes: &[u8], mut from: usize) -> Option<usize> {
    while let Some(word) = bytes.get(from..from + 8) {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        let mask = escape_mask(u64::from_le_bytes(eight));
        if mask != 0 {
            return Some(from + (mask.trailing_zeros() / 8) as usize);
        }
        from += 8;
    }
    let tail = bytes.get(from..)?;
    tail.iter().position(|&b| needs_escape(b)).map(|i| from + i)
}

/// Appends `text` to `out` as a JSON string literal, quotes included, escaped as serde_json
/// escapes it (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, other controls as `\u00XX`), so the
/// text is the same whichever writer made it.
pub fn push_string(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    let bytes = text.as_bytes();
    // The first byte not yet copied.
    let mut run = 0;
    while let Some(at) = next_escape(bytes, run) {
        // Runs end before an ASCII byte, so they are whole UTF-8 sequences.
        out.push_str(&text[run..at]);
        push_escape(out, bytes[at]);
        run = at + 1;
    }
    out.push_str(&text[run..]);
    out.push('"');
}

/// Appends the object `{"key":value,…}` to `out`, each key escaped and each value copied as
/// it is: the values must be valid JSON text (members of a [`RawJson`], say).
pub fn push_object<'a>(out: &mut String, members: impl IntoIterator<Item = (&'a str, &'a str)>) {
    out.push('{');
    for (i, (key, value)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_string(out, key);
        out.push(':');
        out.push_str(value);
    }
    out.push('}');
}

/// A search for one object key in JSON text that is certain when it says the key is absent,
/// for a guard that skips a parse: a key can hide from a plain search of its text only behind
/// an escape, and the only escapes that decode to a printable ASCII character other than `"`
/// and `\` are `\uXXXX` and `\/`. So the key is certainly absent when its text is not found
/// and no such escape is either; anything else (including the key's text inside a string
/// value) is "maybe", and the caller parses. It never says the key is present.
pub struct KeySearch {
    key: memchr::memmem::Finder<'static>,
    /// Whether the key has a `/`, which `\/` also writes.
    slash: bool,
}

impl KeySearch {
    /// A search for `key`, which must be printable ASCII without `"` or `\` (every key MCP
    /// reads is); panics otherwise, as a programming error.
    pub fn new(key: &'static str) -> Self {
        assert!(
            key.bytes()
                .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\'),
            "KeySearch needs a printable ASCII key without quotes or backslashes: {key:?}"
        );
        KeySearch {
            key: memchr::memmem::Finder::new(key),
            slash: key.contains('/'),
        }
    }

    /// True when `text` (JSON text) certainly has no member named by the key, at any depth.
    pub fn certainly_absent(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        self.key.find(bytes).is_none() && !self.has_hiding_escape(bytes)
    }

    /// Whether `bytes` have a `\u` (or, for a key with a `/`, a `\/`): an escape that could
    /// write one of the key's characters. A `\\u` (an escaped backslash, then `u`) counts too,
    /// which only sends the caller to its parse.
    fn has_hiding_escape(&self, bytes: &[u8]) -> bool {
        memchr::memchr_iter(b'\\', bytes).any(|at| match bytes.get(at + 1) {
            Some(b'u') => true,
            Some(b'/') => self.slash,
            _ => false,
        })
    }
}

fn push_escape(out: &mut String, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match byte {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        _ => {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
    }
}

/// The members of the object `text`, in order: each key (decoded when it has escapes) and the
/// text of its value, borrowed. `text` must be valid JSON, such as a [`RawJson`]'s text or a
/// value inside one: values are skipped by their brackets and quotes, not checked. `None` when
/// `text` is not an object, or (which valid JSON never is) not one the skipping understands.
pub fn object_members(text: &str) -> Option<Vec<(Cow<'_, str>, &str)>> {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    let mut members = Vec::with_capacity(8);
    at = skip_space(bytes, at + 1);
    if bytes.get(at) == Some(&b'}') {
        return only_space_after(bytes, at + 1).then_some(members);
    }
    loop {
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(bytes, at)?;
        let quoted = text.get(at..key_end)?;
        let key = match quoted.contains('\\') {
            false => Cow::Borrowed(quoted.get(1..quoted.len() - 1)?),
            true => Cow::Owned(serde_json::from_str::<String>(quoted).ok()?),
        };
        at = skip_space(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_space(bytes, at + 1);
        let end = value_end(bytes, start)?;
        members.push((key, text.get(start..end)?));
        at = skip_space(bytes, end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            Some(b'}') => return only_space_after(bytes, at + 1).then_some(members),
            _ => return None,
        }
    }
}

/// The members of the JSON object `text` as serde_json reads them: each key decoded, each
/// value's text, in order, repeats kept; `None` for anything that is not one valid object. The
/// slow twin of [`object_members`], which must agree with it on every valid JSON text.
pub fn object_members_parsed(text: &str) -> Option<Vec<(Cow<'_, str>, &str)>> {
    use serde::de::{Deserializer, MapAccess, Visitor};
    use serde_json::value::RawValue;

    struct Members<'a>(Vec<(Cow<'a, str>, &'a str)>);
    impl<'de> serde::Deserialize<'de> for Members<'de> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Read;
            impl<'de> Visitor<'de> for Read {
                type Value = Members<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Members<'de>, A::Error> {
                    let mut members = Vec::new();
                    while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                        let value: &'de RawValue = map.next_value()?;
                        members.push((key, value.get()));
                    }
                    Ok(Members(members))
                }
            }
            deserializer.deserialize_map(Read)
        }
    }
    // serde_json never reads an array into a map visitor, but the kind is checked all the same.
    if !text.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str::<Members<'_>>(text).ok().map(|m| m.0)
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

fn only_space_after(bytes: &[u8], at: usize) -> bool {
    skip_space(bytes, at) == bytes.len()
}

/// The index after the closing quote of the string that opens at `at`.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut from = at + 1;
    loop {
        let found = from + memchr::memchr2(b'"', b'\\', bytes.get(from..)?)?;
        match bytes[found] {
            // An escape: the next byte is escaped (a `u` and its hex digits hold no quote).
            b'\\' => from = found + 2,
            _ => return Some(found + 1),
        }
    }
}

/// The index after the value that starts at `at`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while let Some(&byte) = bytes.get(i) {
                match byte {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        // A number, `true`, `false` or `null`: up to the next delimiter.
        _ => {
            let rest = bytes.get(at..)?;
            let len = rest
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(rest.len());
            (len > 0).then_some(at + len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn written(text: &str) -> String {
        let mut out = String::new();
        push_string(&mut out, text);
        out
    }

    #[test]
    fn raw_members_keep_order_repeats_and_text() {
        let text = r#"{"b":1.50,"a\"k":[1, 2],"b":{"x":null}}"#;
        let members = RawMembers::of(text).expect("an object");
        let seen: Vec<(&str, &str)> = members
            .as_slice()
            .iter()
            .map(|(k, v)| (k.as_ref(), *v))
            .collect();
        assert_eq!(
            seen,
            [("b", "1.50"), ("a\"k", "[1, 2]"), ("b", r#"{"x":null}"#)]
        );
        assert_eq!(members.without("b").get(), r#"{"a\"k":[1, 2]}"#);
        assert_eq!(
            members.without("a\"k").get(),
            r#"{"b":1.50,"b":{"x":null}}"#
        );
        assert_eq!(
            RawMembers::of("{}").expect("empty").without("b").get(),
            "{}"
        );
        assert!(RawMembers::of("[1]").is_none());
    }

    #[test]
    fn a_key_search_says_absent_only_when_it_is() {
        let version = KeySearch::new("io.modelcontextprotocol/protocolVersion");
        let token = KeySearch::new("progressToken");
        assert!(token.certainly_absent(r#"{"name":"x","arguments":{"a":"\n\"\\"}}"#));
        assert!(version.certainly_absent(r#"{"text":"a \n b"}"#));
        for maybe in [
            r#"{"progressToken":1}"#,
            r#"{"\u0070rogressToken":1}"#,
            r#"{"text":"progressToken"}"#,
            r#"{"text":"\\u"}"#,
        ] {
            assert!(!token.certainly_absent(maybe), "{maybe}");
        }
        // `\/` writes a slash: absent for a key without one, maybe for a key with one.
        let slashed = r#"{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}"#;
        assert!(!version.certainly_absent(slashed));
        assert!(token.certainly_absent(slashed));
    }

    #[test]
    fn escapes_as_serde_json_does() {
        for text in [
            "",
            "plain",
            "exactly8",
            "a \"quoted\" word",
            "{\"city\":\"Shenzhen\",\"temperature_c\":34.3}",
            "back\\slash and \u{7f} and \u{1} \u{1f} \n\r\t\u{8}\u{c}",
            "34.3 °C, 深圳, 😀 and \"quotes\" after them",
        ] {
            assert_eq!(
                written(text),
                serde_json::to_string(text).unwrap(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn members_of_valid_objects_as_serde_reads_them() {
        for text in [
            "{}",
            " { } ",
            r#"{"a":1}"#,
            r#"{ "a" : 1.5e3 , "b":[1,{"c":"]}\"\\"}],"d":{"e":[]},"f":true,"g":null,"h":"x"}"#,
            r#"{"a\"k":"v","\u0062":{"x":"}"},"b":-0}"#,
            "{\n  \"k\": [\n    1\n  ],\n  \"t\": \"caf\\u00e9\"\n}\n",
        ] {
            same_object_again(text);
        }
        let members = object_members(r#"{"a\"k":"v","\u0062":1,"b":{"x":"}"}}"#).unwrap();
        let keys: Vec<&str> = members.iter().map(|(key, _)| key.as_ref()).collect();
        assert_eq!(keys, ["a\"k", "b", "b"]);
        assert_eq!(members[2].1, r#"{"x":"}"}"#);
        for not_object in [
            "[]",
            "1",
            "\"{}\"",
            "",
            "{",
            r#"{"a":1"#,
            r#"{"a" 1}"#,
            r#"{"a":}"#,
        ] {
            assert!(object_members(not_object).is_none(), "{not_object}");
        }
    }

    /// Each member's value is one JSON value, and the members written again make the same
    /// object (the exact reading, duplicates and order included, is checked against serde's in
    /// `fuzz-checks`).
    fn same_object_again(text: &str) {
        let value: serde_json::Value = serde_json::from_str(text).expect(text);
        let Some(members) = object_members(text) else {
            assert!(!value.is_object(), "no members read from {text}");
            return;
        };
        for (_, member) in &members {
            assert!(
                serde_json::from_str::<serde::de::IgnoredAny>(member).is_ok(),
                "{member}"
            );
        }
        let mut again = String::new();
        push_object(
            &mut again,
            members.iter().map(|(key, v)| (key.as_ref(), *v)),
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&again).unwrap(),
            value,
            "{text}"
        );
    }

    proptest! {
        /// Any JSON object serde_json writes, compact or pretty, is read back whole.
        #[test]
        fn members_make_the_same_object(value in json_value(3)) {
            let object = serde_json::json!({"v": value.clone(), "w": [value.clone()], "x": 1});
            let text = serde_json::to_string(&object).unwrap();
            same_object_again(&text);
            same_object_again(&serde_json::to_string_pretty(&object).unwrap());
            same_object_again(&serde_json::to_string_pretty(&value).unwrap());
        }

        #[test]
        fn any_text_matches_serde_json(text in any::<String>()) {
            prop_assert_eq!(written(&text), serde_json::to_string(&text).unwrap());
        }

        /// Text that is not valid JSON never reaches the skim through a `RawJson`, but the
        /// function is public: on any text it answers, and never panics.
        #[test]
        fn members_of_any_text_never_panic(text in any::<String>(), tail in "[{}\\[\\]\",:\\\\ 0-9a]{0,24}") {
            let _ = object_members(&text);
            let _ = object_members(&format!("{{{tail}"));
            let _ = object_members(&format!("{{\"k\":{tail}"));
            let _ = object_members(&format!("{{\"{text}\":{tail}}}"));
        }

        #[test]
        fn any_ascii_matches_serde_json(bytes in proptest::collection::vec(0u8..0x80, 0..80)) {
            let text = String::from_utf8(bytes).unwrap();
            prop_assert_eq!(written(&text), serde_json::to_string(&text).unwrap());
        }
    }

    fn json_value(depth: u32) -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            any::<String>().prop_map(Value::String),
            "[\\[\\]{}\",:\\\\ a-z]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(depth, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z\"\\\\]{0,4}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
