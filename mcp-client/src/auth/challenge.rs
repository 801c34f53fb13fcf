//! The `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9728 §5.1): the parameters an MCP
//! client acts on (`resource_metadata`, `scope`, `error`), parsed strictly so a malformed header
//! is a clear error instead of a silent guess.

use std::collections::BTreeMap;

/// One `Bearer` challenge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// `resource_metadata`: where the protected-resource metadata is (RFC 9728).
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs, space separated.
    pub scope: Option<String>,
    /// `error`: `invalid_token`, `insufficient_scope`, ...
    pub error: Option<String>,
    /// `error_description`, for messages.
    pub error_description: Option<String>,
}

impl BearerChallenge {
    /// Whether the server asks for more scopes (a step-up).
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }

    /// The scopes asked for, split.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref())
    }
}

/// Splits a space-separated scope string.
pub(crate) fn split_scopes(scope: Option<&str>) -> Vec<String> {
    scope
        .unwrap_or("")
        .split(' ')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Parses a `WWW-Authenticate` value and returns its `Bearer` challenge. Other schemes in the
/// same header are skipped; a header with no `Bearer` challenge, or with broken syntax, is an
/// error (the reason is returned).
pub fn parse_www_authenticate(header: &str) -> Result<BearerChallenge, String> {
    let challenges = parse_challenges(header)?;
    let (_, params) = challenges
        .into_iter()
        .find(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .ok_or_else(|| "no Bearer challenge".to_owned())?;
    let get = |k: &str| params.get(k).cloned();
    Ok(BearerChallenge {
        resource_metadata: get("resource_metadata"),
        scope: get("scope"),
        error: get("error"),
        error_description: get("error_description"),
    })
}

type Challenge = (String, BTreeMap<String, String>);

/// Splits a header into challenges: `scheme [token68 | k=v, k="v", …]`, comma separated.
fn parse_challenges(header: &str) -> Result<Vec<Challenge>, String> {
    let mut out: Vec<Challenge> = Vec::new();
    let mut p = Parser {
        s: header.as_bytes(),
        i: 0,
    };
    p.skip_ws_commas();
    if p.done() {
        return Err("the header is empty".into());
    }
    while !p.done() {
        let scheme = p.token().ok_or_else(|| p.unexpected("an auth scheme"))?;
        let mut params = BTreeMap::new();
        loop {
            p.skip_ws_commas();
            if p.done() {
                break;
            }
            let before = p.i;
            let name = p.token().ok_or_else(|| p.unexpected("a parameter name"))?;
            p.skip_ws();
            if p.peek() != Some(b'=') {
                // A bare token: the scheme of the next challenge.
                p.i = before;
                break;
            }
            p.i += 1;
            p.skip_ws();
            let value = if p.peek() == Some(b'"') {
                p.quoted()?
            } else {
                p.token().ok_or_else(|| p.unexpected("a parameter value"))?
            };
            let name = name.to_ascii_lowercase();
            if params.insert(name.clone(), value).is_some() {
                return Err(format!("the parameter {name:?} appears twice"));
            }
            p.skip_ws();
            if !p.done() && p.peek() != Some(b',') {
                return Err(p.unexpected("a comma between parameters"));
            }
        }
        out.push((scheme, params));
    }
    Ok(out)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn done(&self) -> bool {
        self.i >= self.s.len()
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }
    fn skip_ws_commas(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b',')) {
            self.i += 1;
        }
    }
    fn unexpected(&self, wanted: &str) -> String {
        match self.peek() {
            Some(c) => format!(
                "expected {wanted} at byte {}, found {:?}",
                self.i, c as char
            ),
            None => format!("expected {wanted}, found the end"),
        }
    }
    /// An RFC 7230 token (plus `/` and `:`, which token68 and sloppy servers use).
    fn token(&mut self) -> Option<String> {
        let start = self.i;
        while let Some(c) = self.peek() {
            let ok = c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~/:".contains(&c);
            if !ok {
                break;
            }
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }
    fn quoted(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return Err("an unterminated quoted string".into()),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = self.peek().ok_or("an unterminated escape")?;
                    out.push(c);
                    self.i += 1;
                }
                Some(c) if c < 0x20 && c != b'\t' => {
                    return Err("a control character in a quoted string".into())
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_mcp_parameters() {
        let c = parse_www_authenticate(
            r#"Bearer resource_metadata="http://x/.well-known/oauth-protected-resource/mcp", scope="a b", error="insufficient_scope""#,
        )
        .expect("parses");
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://x/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.scopes(), vec!["a", "b"]);
        assert!(c.is_insufficient_scope());
    }

    #[test]
    fn finds_bearer_among_other_schemes_and_unquoted_values() {
        let c = parse_www_authenticate(r#"Basic realm="x", Bearer error=invalid_token, realm="m""#)
            .expect("parses");
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert_eq!(
            parse_www_authenticate("Bearer").expect("bare"),
            BearerChallenge::default()
        );
    }

    #[test]
    fn malformed_headers_are_errors() {
        for bad in [
            "",
            r#"Bearer scope="unterminated"#,
            r#"Basic realm="x""#,
            r#"Bearer scope="a", scope="b""#,
            r#"Bearer ="x""#,
            "Bearer scope=\"a\x01\"",
        ] {
            assert!(parse_www_authenticate(bad).is_err(), "{bad:?}");
        }
    }
}
