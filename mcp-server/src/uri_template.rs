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

/// Matches `uri` against `parts`. Each variable takes the longest value (at least one byte; a
/// simple one stops before `/`, `?` or `#`) that leaves a match for the parts after it, as a
/// backtracking matcher trying the longest value first would, but in time linear in the URI per
/// part: backtracking took time growing as the URI's length to the power of the number of
/// variables (a 256-byte URI against four `{+var}`s took two seconds).
fn match_parts(parts: &[Part], uri: &str) -> Option<BTreeMap<String, String>> {
    let bytes = uri.as_bytes();
    let n = bytes.len();
    // stop[p]: where a simple variable starting at p must end by.
    let mut stop = vec![n; n + 1];
    for p in (0..n).rev() {
        stop[p] = if matches!(bytes[p], b'/' | b'?' | b'#') {
            p
        } else {
            stop[p + 1]
        };
    }
    let limit = |reserved: bool, p: usize| if reserved { n } else { stop[p] };
    // fits[i][p]: parts[i..] match uri[p..]. Filled from the last part back.
    let mut fits = vec![vec![false; n + 1]; parts.len() + 1];
    fits[parts.len()][n] = true;
    for (i, part) in parts.iter().enumerate().rev() {
        let (head, tail) = fits.split_at_mut(i + 1);
        let (here, next) = (&mut head[i], &tail[0]);
        match part {
            Part::Literal(text) => {
                for p in 0..=n {
                    here[p] = uri.is_char_boundary(p)
                        && bytes[p..].starts_with(text.as_bytes())
                        && next[p + text.len()];
                }
            }
            Part::Var { reserved, .. } => {
                // The first end after p where the rest matches, if any.
                let mut first_end = usize::MAX;
                for p in (0..=n).rev() {
                    here[p] = uri.is_char_boundary(p) && first_end <= limit(*reserved, p);
                    if next[p] && uri.is_char_boundary(p) {
                        first_end = p;
                    }
                }
            }
        }
    }
    if !fits[0][0] {
        return None;
    }
    let mut vars = BTreeMap::new();
    let mut p = 0;
    for (i, part) in parts.iter().enumerate() {
        match part {
            Part::Literal(text) => p += text.len(),
            Part::Var { name, reserved } => {
                let end = (p + 1..=limit(*reserved, p))
                    .rev()
                    .find(|&e| fits[i + 1][e] && uri.is_char_boundary(e))?;
                // A name used twice keeps its first value.
                vars.entry(name.clone())
                    .or_insert_with(|| decode(&uri[p..end]));
                p = end;
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
    fn matching_is_linear_in_the_uri() {
        // Backtracking took about 2 s for this (and grew as n^k for k variables).
        let t = UriTemplate::parse("x:{+a}/{+b}/{+c}/{+d}/end").unwrap();
        let uri = format!("x:{}", "/".repeat(100_000));
        let start = std::time::Instant::now();
        assert_eq!(t.matches(&uri), None);
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
        let fits = format!("x:{}end", "/".repeat(10));
        let got = t.matches(&fits).unwrap();
        // Earlier variables take the longest values that leave a match for the rest.
        assert_eq!(got["a"], "///");
        assert_eq!(
            (got["b"].as_str(), got["c"].as_str(), got["d"].as_str()),
            ("/", "/", "/")
        );
        let t = UriTemplate::parse("x://{a}-{b}.{a}").unwrap();
        assert_eq!(
            t.matches("x://1-2-3.4"),
            Some(vars(&[("a", "1-2"), ("b", "3")]))
        );
    }

    /// The matcher this one replaced: plain backtracking, longest value first.
    fn backtracking(parts: &[Part], uri: &str, vars: &mut BTreeMap<String, String>) -> bool {
        match parts.split_first() {
            None => uri.is_empty(),
            Some((Part::Literal(text), rest)) => uri
                .strip_prefix(text.as_str())
                .is_some_and(|tail| backtracking(rest, tail, vars)),
            Some((Part::Var { name, reserved }, rest)) => {
                let limit = if *reserved {
                    uri.len()
                } else {
                    uri.find(['/', '?', '#']).unwrap_or(uri.len())
                };
                (1..=limit).rev().any(|end| {
                    uri.is_char_boundary(end) && backtracking(rest, &uri[end..], vars) && {
                        vars.insert(name.clone(), decode(&uri[..end]));
                        true
                    }
                })
            }
        }
    }

    #[test]
    fn agrees_with_backtracking() {
        let templates = [
            "x:{a}",
            "x:{+a}/{b}",
            "{a}-{b}-{c}",
            "{+a}/{+b}.{c}",
            "x/{a}/{a}",
            "{a}?q={+b}#{c}",
            "{+p}é{q}",
            "{a}a{b}",
        ];
        let alphabet = ["/", "-", ".", "a", "é", "?", "#", "%41", "q=", "x:", "x"];
        let mut seed = 12345u64;
        let mut next = |m: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % m
        };
        for template in templates {
            let t = UriTemplate::parse(template).unwrap();
            for _ in 0..2000 {
                let len = next(9);
                let uri: String = (0..len).map(|_| alphabet[next(alphabet.len())]).collect();
                let mut vars = BTreeMap::new();
                let expected = backtracking(&t.parts, &uri, &mut vars).then_some(vars);
                assert_eq!(t.matches(&uri), expected, "{template} ~ {uri}");
            }
        }
    }

    #[test]
    fn rejects_what_it_does_not_support() {
        assert!(UriTemplate::parse("x://{a").is_err());
        assert!(UriTemplate::parse("x://{?q}").is_err());
        assert!(UriTemplate::parse("x://{a}{b}").is_err());
        assert!(UriTemplate::parse("x://a}").is_err());
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
