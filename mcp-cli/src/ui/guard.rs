//! The access guard of `mcp ui`'s page origin: the `Host` must be our loopback address (no DNS
//! rebinding), an `Origin`, when sent, must be our own page's (no other page's scripts), and
//! every API request must carry the per-run token (header `x-mcp-ui-token`). A cross-origin
//! page cannot send that header without a CORS preflight, which we never answer.

use hyper::header::{HOST, ORIGIN};
use hyper::{HeaderMap, StatusCode};

use super::token::Token;

/// The header the page sends the token in.
pub const TOKEN_HEADER: &str = "x-mcp-ui-token";

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `Host` is not our address.
    Host,
    /// `Origin` is another site's.
    Origin,
    /// The token is missing or wrong.
    Token,
}

impl Refusal {
    /// The status the refusal is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::Token => StatusCode::UNAUTHORIZED,
            Refusal::Host | Refusal::Origin => StatusCode::FORBIDDEN,
        }
    }

    /// What the refused client is told.
    pub fn message(&self) -> &'static str {
        match self {
            Refusal::Host => "mcp ui answers only on its loopback address",
            Refusal::Origin => "mcp ui does not answer other sites' pages",
            Refusal::Token => {
                "the per-run token is missing or wrong: open the URL `mcp ui` printed"
            }
        }
    }
}

/// The addresses one listener of `mcp ui` answers to.
#[derive(Debug, Clone)]
pub struct Guard {
    hosts: [String; 2],
    origins: [String; 2],
    token: Token,
}

impl Guard {
    /// A guard for the listener on 127.0.0.1:`port` with `token`.
    pub fn new(port: u16, token: Token) -> Guard {
        let hosts = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
        let origins = hosts.clone().map(|h| format!("http://{h}"));
        Guard {
            hosts,
            origins,
            token,
        }
    }

    /// The `Host` and `Origin` checks, for everything this listener serves.
    pub fn check_site(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = headers.get(HOST).and_then(|h| h.to_str().ok());
        if !host.is_some_and(|h| self.hosts.iter().any(|ours| ours == h)) {
            return Err(Refusal::Host);
        }
        match headers.get(ORIGIN) {
            None => Ok(()),
            Some(origin) => match origin.to_str() {
                Ok(o) if self.origins.iter().any(|ours| ours == o) => Ok(()),
                _ => Err(Refusal::Origin),
            },
        }
    }

    /// The site checks plus the token in its header, for an API request.
    pub fn check_api(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        self.check_site(headers)?;
        let offered = headers.get(TOKEN_HEADER).and_then(|t| t.to_str().ok());
        match offered {
            Some(t) if self.token.matches(t) => Ok(()),
            _ => Err(Refusal::Token),
        }
    }

    /// The site checks plus the token in the query (`?token=`), for the page itself.
    pub fn check_page(&self, headers: &HeaderMap, query: Option<&str>) -> Result<(), Refusal> {
        self.check_site(headers)?;
        let offered = query
            .unwrap_or_default()
            .split('&')
            .find_map(|pair| pair.strip_prefix("token="));
        match offered {
            Some(t) if self.token.matches(t) => Ok(()),
            _ => Err(Refusal::Token),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_str(v).expect("header"));
        }
        map
    }

    #[test]
    fn host_origin_and_token_are_each_required() {
        let token = Token::generate();
        let guard = Guard::new(4000, token.clone());
        let good = token.as_str();
        let ok = headers(&[("host", "127.0.0.1:4000"), (TOKEN_HEADER, good)]);
        assert_eq!(guard.check_api(&ok), Ok(()));
        let same_origin = headers(&[
            ("host", "localhost:4000"),
            ("origin", "http://localhost:4000"),
            (TOKEN_HEADER, good),
        ]);
        assert_eq!(guard.check_api(&same_origin), Ok(()));
        let rebound = headers(&[("host", "evil.example:4000"), (TOKEN_HEADER, good)]);
        assert_eq!(guard.check_api(&rebound), Err(Refusal::Host));
        let other_port = headers(&[("host", "127.0.0.1:4001"), (TOKEN_HEADER, good)]);
        assert_eq!(guard.check_api(&other_port), Err(Refusal::Host));
        let foreign = headers(&[
            ("host", "127.0.0.1:4000"),
            ("origin", "http://127.0.0.1:4001"),
            (TOKEN_HEADER, good),
        ]);
        assert_eq!(guard.check_api(&foreign), Err(Refusal::Origin));
        let opaque = headers(&[
            ("host", "127.0.0.1:4000"),
            ("origin", "null"),
            (TOKEN_HEADER, good),
        ]);
        assert_eq!(guard.check_api(&opaque), Err(Refusal::Origin));
        let tokenless = headers(&[("host", "127.0.0.1:4000")]);
        assert_eq!(guard.check_api(&tokenless), Err(Refusal::Token));
        let wrong = headers(&[("host", "127.0.0.1:4000"), (TOKEN_HEADER, "00")]);
        assert_eq!(guard.check_api(&wrong), Err(Refusal::Token));
    }

    #[test]
    fn the_page_wants_the_token_in_its_query() {
        let token = Token::generate();
        let guard = Guard::new(4000, token.clone());
        let h = headers(&[("host", "127.0.0.1:4000")]);
        let query = format!("x=1&token={}", token.as_str());
        assert_eq!(guard.check_page(&h, Some(&query)), Ok(()));
        assert_eq!(guard.check_page(&h, None), Err(Refusal::Token));
        assert_eq!(guard.check_page(&h, Some("token=abc")), Err(Refusal::Token));
    }
}
