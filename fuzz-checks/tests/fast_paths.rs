//! The fast paths over raw JSON text against their slow twins (`fuzz_checks::check_fast_paths`),
//! on JSON written to trip a text search: the protocol's own key names as keys at any depth (a
//! nested `_meta`, a tool's arguments) and as string values, keys written with `\u` and `\/`
//! escapes, repeated keys, and whitespace between tokens.

use proptest::prelude::*;

/// The keys the fast paths look for, and a few they look at.
const KEYS: [&str; 19] = [
    "_meta",
    "progressToken",
    "traceparent",
    "tracestate",
    "isError",
    "resultType",
    "ttlMs",
    "cacheScope",
    "structuredContent",
    "content",
    "task",
    "name",
    "arguments",
    "type",
    "text",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/serverInfo",
    "io.modelcontextprotocol/logLevel",
];

/// String values: the keys again, the text of members (quotes included), and values the paths
/// read (a trace parent, result types, versions).
const STRINGS: [&str; 9] = [
    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "complete",
    "task",
    "input_required",
    "2026-07-28",
    "\"_meta\":{\"progressToken\":1}",
    "\"isError\":true",
    "{\"resultType\":\"task\"}",
    "back\\slash \\u0070 \\/",
];

/// A JSON value as a tree, with how each key is to be written.
#[derive(Clone, Debug)]
enum Json {
    Null,
    Bool(bool),
    Number(i64),
    String(String),
    Array(Vec<Json>),
    /// Members in order, repeats allowed; each key with one escape choice per character.
    Object(Vec<(String, Vec<u8>, Json)>),
}

impl Json {
    /// Writes the tree as JSON text: keys escaped as chosen, `space` between tokens.
    fn write(&self, out: &mut String, space: &str) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(&n.to_string()),
            Json::String(s) => out.push_str(&serde_json::to_string(s).expect("a string")),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                        out.push_str(space);
                    }
                    item.write(out, space);
                }
                out.push(']');
            }
            Json::Object(members) => {
                out.push('{');
                out.push_str(space);
                for (i, (key, escapes, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                        out.push_str(space);
                    }
                    write_key(out, key, escapes);
                    out.push(':');
                    out.push_str(space);
                    value.write(out, space);
                }
                out.push_str(space);
                out.push('}');
            }
        }
    }
}

/// Writes `key` as a JSON string, each character plain or escaped as `escapes` says (`\uXXXX`,
/// or `\/` for a slash).
fn write_key(out: &mut String, key: &str, escapes: &[u8]) {
    out.push('"');
    for (i, c) in key.chars().enumerate() {
        match escapes.get(i).copied().unwrap_or(0) % 4 {
            1 if c == '/' => out.push_str("\\/"),
            1 | 2 if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            3 if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04X}", c as u32)),
            _ => {
                let one = serde_json::to_string(&c.to_string()).expect("a string");
                out.push_str(&one[1..one.len() - 1]);
            }
        }
    }
    out.push('"');
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(KEYS.to_vec()).prop_map(str::to_owned),
        1 => "[a-z_/\"\\\\]{0,6}",
    ]
}

/// Mostly no escape; sometimes one (or more) characters escaped.
fn escapes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => Just(Vec::new()),
        1 => proptest::collection::vec(prop_oneof![4 => Just(0u8), 1 => 1u8..4], 0..48),
    ]
}

fn json(depth: u32) -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        (-3i64..1_000).prop_map(Json::Number),
        proptest::sample::select(KEYS.to_vec()).prop_map(|s| Json::String(s.into())),
        proptest::sample::select(STRINGS.to_vec()).prop_map(|s| Json::String(s.into())),
        any::<String>().prop_map(Json::String),
    ];
    leaf.prop_recursive(depth, 48, 5, |inner| {
        prop_oneof![
            1 => proptest::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
            3 => proptest::collection::vec((key(), escapes(), inner), 0..6).prop_map(Json::Object),
        ]
    })
}

/// An object at the top, as params and results are.
fn top() -> impl Strategy<Value = Json> {
    proptest::collection::vec((key(), escapes(), json(3)), 0..7).prop_map(Json::Object)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_fast_path_answers_as_its_twin(value in top(), spaced in any::<bool>()) {
        let mut text = String::new();
        value.write(&mut text, if spaced { " " } else { "" });
        fuzz_checks::check_fast_paths(text.as_bytes());
    }

    #[test]
    fn any_value_placed_where_the_paths_look(value in json(3)) {
        let mut text = String::new();
        value.write(&mut text, "");
        fuzz_checks::check_fast_paths(text.as_bytes());
    }
}

/// The generator makes what it promises: escaped keys that read as the plain ones.
#[test]
fn escaped_keys_read_as_plain_ones() {
    let mut out = String::new();
    write_key(
        &mut out,
        "io.modelcontextprotocol/protocolVersion",
        &[
            2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        ],
    );
    assert!(out.contains("\\u0069") && out.contains("\\/"), "{out}");
    let read: String = serde_json::from_str(&out).expect("a JSON string");
    assert_eq!(read, "io.modelcontextprotocol/protocolVersion");
}
