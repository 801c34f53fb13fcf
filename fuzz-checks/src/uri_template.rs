//! The URI-template parser, expander and matcher.

use std::collections::BTreeMap;

use mcp_server::UriTemplate;

/// The longest URI matched (matching is linear in it; this keeps each run quick).
const MAX_URI: usize = 4096;

/// Percent-decoding as RFC 3986 defines it: `%` and two hex digits is a byte; anything else is
/// itself. Invalid UTF-8 becomes U+FFFD.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit()
        {
            let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
            out.push(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The first line of `data` is a template, the rest a URI. Checks: parsing never panics; a
/// match binds every variable of the template and nothing else; a template with one variable
/// matches its expansion of any non-empty value and gives that value back; values are
/// percent-decoded exactly; and matching the expansion of values cut from the URI succeeds.
pub fn check_uri_template(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (template, uri) = text.split_once('\n').unwrap_or((&text, ""));
    let Ok(t) = UriTemplate::parse(template) else {
        return;
    };
    assert_eq!(t.as_str(), template);
    let names: Vec<String> = t.variables().map(str::to_owned).collect();
    let mut distinct = names.clone();
    distinct.sort();
    distinct.dedup();

    let uri = truncate(uri, MAX_URI);
    if let Some(vars) = t.matches(uri) {
        let bound: Vec<&String> = vars.keys().collect();
        assert_eq!(
            bound,
            distinct.iter().collect::<Vec<_>>(),
            "{template} ~ {uri}"
        );
    }

    // Values cut from the URI, one per variable; the expansion must match again.
    let pieces: Vec<&str> = uri.split('\u{1}').filter(|p| !p.is_empty()).collect();
    let values: BTreeMap<String, String> = distinct
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let value = pieces.get(i).copied().unwrap_or("v");
            (name.clone(), truncate(value, MAX_URI / 8).to_owned())
        })
        .collect();
    let expanded = t.expand(&values);
    if expanded.len() <= MAX_URI {
        let matched = t.matches(&expanded);
        assert!(
            matched.is_some(),
            "{template} expanded {values:?} to {expanded:?}, which it does not match"
        );
        if names.len() == 1 {
            assert_eq!(
                matched,
                Some(values),
                "{template} round trip via {expanded:?}"
            );
        }
    }

    // One simple variable after a literal: the value is the rest of the URI, decoded.
    if let [name] = names.as_slice() {
        let literal_only = !template.contains('+') && template.ends_with('}');
        let prefix = template.split('{').next().unwrap_or_default();
        if literal_only && !uri.is_empty() && !uri.contains(['/', '?', '#']) {
            let candidate = format!("{prefix}{uri}");
            let got = t.matches(&candidate).and_then(|mut v| v.remove(name));
            assert_eq!(got, Some(decode(uri)), "{template} ~ {candidate:?}");
        }
    }
}

/// The longest prefix of `text` of at most `max` bytes.
fn truncate(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
