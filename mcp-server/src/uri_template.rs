//! RFC 6570 URI templates, the subset resource templates use: simple `{var}` expansion (values
//! percent-encoded, no `/`) and reserved `{+var}` expansion (may span `/`), with matching of a
//! concrete URI back to its variables.

use std::collections::BTreeMap;
use std::fmt;

/// URIs longer than this (in bytes) match no template: matching takes time and memory in
/// proportion to the URI's length (times the template's parts), so the length is checked first.
pub const MAX_MATCH_LEN: usize = 16 * 1024;

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
    /// URIs over [`MAX_MATCH_LEN`] bytes never match.
    pub fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        if uri.len() > MAX_MATCH_LEN {
            return None;
        }
        match_parts(&self.parts, uri)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// Matches `uri` against `parts`. Each variable takes the longest value after which the rest
/// of the template still matches. Rather than backtrack (exponential in the number of
/// variables), it works from the last part to the first, recording for each part and position
/// the furthest position at or before it from which the rest matches: linear in the URI's length
/// per part.
fn match_parts(parts: &[Part], uri: &str) -> Option<BTreeMap<String, String>> {
    const NONE: usize = usize::MAX;
    let bytes = uri.as_bytes();
    let n = bytes.len();
    // stop[p]: the furthest a simple variable starting at p can end (it was encoded, so it holds
    // no '/', '?' or '#').
    let mut stop = vec![n; n + 1];
    for p in (0..n).rev() {
        stop[p] = if matches!(bytes[p], b'/' | b'?' | b'#') {
            p
        } else {
            stop[p + 1]
        };
    }
    // A variable starting at p ends at the furthest point the rest matches from, if any.
    let var_end = |next: &[usize], p: usize, reserved: bool| {
        let e = next[if reserved { n } else { stop[p] }];
        (e != NONE && e > p).then_some(e)
    };
    // last[i][q]: the furthest position e <= q from which parts[i..] match uri[e..].
    let mut last = vec![vec![NONE; n + 1]; parts.len() + 1];
    last[parts.len()][n] = n;
    for i in (0..parts.len()).rev() {
        let (before, after) = last.split_at_mut(i + 1);
        let (here, next) = (&mut before[i], &after[0]);
        let mut furthest = NONE;
        for p in 0..=n {
            let matches_here = match &parts[i] {
                Part::Literal(text) => {
                    let end = p + text.len();
                    bytes[p..].starts_with(text.as_bytes()) && next[end] == end
                }
                Part::Var { reserved, .. } => var_end(next, p, *reserved).is_some(),
            };
            if matches_here {
                furthest = p;
            }
            here[p] = furthest;
        }
    }
    if last[0][0] != 0 {
        return None;
    }
    let mut vars = BTreeMap::new();
    let mut p = 0;
    for (i, part) in parts.iter().enumerate() {
        match part {
            Part::Literal(text) => p += text.len(),
            Part::Var { name, reserved } => {
                let e = var_end(&last[i + 1], p, *reserved)?;
                vars.insert(name.clone(), decode(uri.get(p..e)?));
                p = e;
            }
        }
    }
    Some(vars)
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

fn decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
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
    fn rejects_what_it_does_not_support() {
        assert!(UriTemplate::parse("x://{a").is_err());
        assert!(UriTemplate::parse("x://{?q}").is_err());
        assert!(UriTemplate::parse("x://{a}{b}").is_err());
        assert!(UriTemplate::parse("x://a}").is_err());
    }

    /// The plain backtracking matcher (longest value first), as the reference.
    fn backtrack(parts: &[Part], uri: &str, vars: &mut BTreeMap<String, String>) -> bool {
        match parts.split_first() {
            None => uri.is_empty(),
            Some((Part::Literal(text), rest)) => uri
                .strip_prefix(text.as_str())
                .is_some_and(|tail| backtrack(rest, tail, vars)),
            Some((Part::Var { name, reserved }, rest)) => {
                let limit = if *reserved {
                    uri.len()
                } else {
                    uri.find(['/', '?', '#']).unwrap_or(uri.len())
                };
                (1..=limit).rev().any(|end| {
                    let found = backtrack(rest, &uri[end..], vars);
                    if found {
                        vars.insert(name.clone(), uri[..end].to_owned());
                    }
                    found
                })
            }
        }
    }

    #[test]
    fn matches_like_backtracking_on_every_small_uri() {
        let templates = [
            "{a}",
            "{+a}",
            "x{a}b{b}",
            "{+a}b{b}",
            "{a}/{+b}/{c}",
            "{+a}b{+b}b",
            "b{a}bb{+b}a",
        ];
        let alphabet = ['a', 'b', '/'];
        let mut uris = vec![String::new()];
        for _ in 0..7 {
            let longer: Vec<String> = uris
                .iter()
                .filter(|u| u.len() == uris.last().map_or(0, String::len))
                .flat_map(|u| alphabet.iter().map(move |c| format!("{u}{c}")))
                .collect();
            uris.extend(longer);
        }
        for template in templates {
            let t = UriTemplate::parse(template).unwrap();
            for uri in &uris {
                let mut expected = BTreeMap::new();
                let expected = backtrack(&t.parts, uri, &mut expected).then_some(expected);
                assert_eq!(t.matches(uri), expected, "{template} {uri:?}");
            }
        }
    }

    #[test]
    fn matching_work_is_bounded() {
        // Backtracking would try every split of the four variables here (O(n^4)).
        let t = UriTemplate::parse("x://{+a}b{+c}b{+d}b{+e}z").unwrap();
        let uri = format!("x://{}", "b".repeat(MAX_MATCH_LEN - 10));
        assert_eq!(t.matches(&uri), None);
        let uri = format!("x://{}z", "b".repeat(MAX_MATCH_LEN - 10));
        assert!(t.matches(&uri).is_some());
        let long = format!("x://{}z", "b".repeat(MAX_MATCH_LEN));
        assert_eq!(t.matches(&long), None, "over the bound nothing matches");
    }
}
