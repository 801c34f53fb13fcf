//! RFC 6570 URI templates, the subset resource templates use: simple `{var}` expansion (values
//! percent-encoded, no `/`) and reserved `{+var}` expansion (may span `/`), with matching of a
//! concrete URI back to its variables.

use std::collections::BTreeMap;
use std::fmt;

/// A parsed URI template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Var { name: String, reserved: bool },
}

/// Why a template could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid URI template {template:?}: {reason}")]
pub struct UriTemplateError {
    /// The template text.
    pub template: String,
    /// What is wrong with it.
    pub reason: String,
}

impl UriTemplate {
    /// Parses a template such as `file:///logs/{date}` or `repo://{owner}/{+path}`.
    pub fn parse(template: &str) -> Result<Self, UriTemplateError> {
        let fail = |reason: &str| UriTemplateError {
            template: template.to_owned(),
            reason: reason.to_owned(),
        };
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let close = rest.find('}').ok_or_else(|| fail("unclosed '{'"))?;
                    let mut name = &rest[1..close];
                    let reserved = name.starts_with('+');
                    if reserved {
                        name = &name[1..];
                    }
                    if name.is_empty()
                        || !name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                    {
                        return Err(fail(
                            "only simple {var} and {+var} expressions with one variable are supported",
                        ));
                    }
                    if matches!(parts.last(), Some(Part::Var { .. })) {
                        return Err(fail("two variables must be separated by literal text"));
                    }
                    parts.push(Part::Var {
                        name: name.to_owned(),
                        reserved,
                    });
                    rest = &rest[close + 1..];
                }
                found => {
                    let end = found.unwrap_or(rest.len());
                    if rest[..end].contains('}') {
                        return Err(fail("unmatched '}'"));
                    }
                    parts.push(Part::Literal(rest[..end].to_owned()));
                    rest = &rest[end..];
                }
            }
        }
        Ok(UriTemplate {
            source: template.to_owned(),
            parts,
        })
    }

    /// The template text as given.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The names of the template's variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// Expands the template; a missing variable expands to the empty string.
    pub fn expand(&self, vars: &BTreeMap<String, String>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Var { name, reserved } => {
                    if let Some(value) = vars.get(name) {
                        encode_into(&mut out, value, *reserved);
                    }
                }
            }
        }
        out
    }

    /// Matches a concrete URI; returns the (percent-decoded) variables when it fits.
    pub fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut vars = BTreeMap::new();
        if match_parts(&self.parts, uri, &mut vars) {
            Some(vars)
        } else {
            None
        }
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

fn match_parts(parts: &[Part], uri: &str, vars: &mut BTreeMap<String, String>) -> bool {
    match parts.split_first() {
        None => uri.is_empty(),
        Some((Part::Literal(text), rest)) => match uri.strip_prefix(text.as_str()) {
            Some(tail) => match_parts(rest, tail, vars),
            None => false,
        },
        Some((Part::Var { name, reserved }, rest)) => {
            // The value runs up to some end; a simple variable stops at '/' (it was encoded).
            let limit = if *reserved {
                uri.len()
            } else {
                uri.find(['/', '?', '#']).unwrap_or(uri.len())
            };
            // Try the longest value first so a trailing literal matches its last occurrence.
            let mut end = limit;
            loop {
                if uri.is_char_boundary(end) && end > 0 {
                    let value = &uri[..end];
                    if match_parts(rest, &uri[end..], vars) {
                        vars.insert(name.clone(), decode(value));
                        return true;
                    }
                }
                if end == 0 {
                    return false;
                }
                end -= 1;
            }
        }
    }
}

fn encode_into(out: &mut String, value: &str, reserved: bool) {
    for byte in value.bytes() {
        let c = byte as char;
        let keep = c.is_ascii_alphanumeric()
            || matches!(c, '-' | '.' | '_' | '~')
            || (reserved && ":/?#[]@!$&'()*+,;=".contains(c));
        if keep {
            out.push(c);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
}

/// Percent-decodes: `%` and two hex digits is a byte, anything else stays as it is.
fn decode(value: &str) -> String {
    fn hex(digit: u8) -> Option<u8> {
        // Only digits and letters: `u8::from_str_radix` would also take a sign (`%+1`).
        (digit as char)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    }
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(high * 16 + low);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn expand_and_match_simple() {
        let t = UriTemplate::parse("weather://{city}/current").unwrap();
        assert_eq!(t.variables().collect::<Vec<_>>(), ["city"]);
        assert_eq!(
            t.expand(&vars(&[("city", "New York")])),
            "weather://New%20York/current"
        );
        assert_eq!(
            t.matches("weather://New%20York/current"),
            Some(vars(&[("city", "New York")]))
        );
        assert_eq!(t.matches("weather://a/b/current"), None);
        assert_eq!(t.matches("weather:///current"), None);
        assert_eq!(t.matches("weather://paris/forecast"), None);
    }

    #[test]
    fn several_variables_and_reserved() {
        let t = UriTemplate::parse("repo://{owner}/{name}/{+path}").unwrap();
        assert_eq!(
            t.matches("repo://me/proj/src/lib.rs"),
            Some(vars(&[
                ("owner", "me"),
                ("name", "proj"),
                ("path", "src/lib.rs")
            ]))
        );
        assert_eq!(
            t.expand(&vars(&[("owner", "me"), ("name", "p"), ("path", "a/b")])),
            "repo://me/p/a/b"
        );
        let t = UriTemplate::parse("test://item/{id}").unwrap();
        assert_eq!(t.matches("test://item/42"), Some(vars(&[("id", "42")])));
        assert_eq!(t.matches("test://item/"), None);
    }

    #[test]
    fn percent_decoding_takes_two_hex_digits_only() {
        // Found by fuzzing: `%+e` decoded as the byte 0x0e, since `from_str_radix` takes a sign.
        let t = UriTemplate::parse("x://{v}").unwrap();
        for (uri, value) in [
            ("x://%+e", "%+e"),
            ("x://%+1%-1", "%+1%-1"),
            ("x://%4", "%4"),
            ("x://%zz%41", "%zzA"),
            ("x://a%2", "a%2"),
            ("x://%C3%A9%e9", "\u{e9}\u{fffd}"),
        ] {
            assert_eq!(t.matches(uri), Some(vars(&[("v", value)])), "{uri}");
        }
    }

    #[test]
    fn rejects_what_it_does_not_support() {
        assert!(UriTemplate::parse("x://{a").is_err());
        assert!(UriTemplate::parse("x://{?q}").is_err());
        assert!(UriTemplate::parse("x://{a}{b}").is_err());
        assert!(UriTemplate::parse("x://a}").is_err());
    }
}
