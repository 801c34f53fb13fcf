//! What can go wrong talking to an MCP server over HTTP, with the URL and the status in every
//! message so a user sees at once which server failed and how.

use std::time::Duration;

use hyper::{Method, StatusCode};

/// The longest piece of an error body quoted in an error message, in characters.
const BODY_EXCERPT_CHARS: usize = 300;

/// An HTTP transport failure.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// The configured URL cannot be used.
    #[error("invalid server URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// Why it was refused.
        reason: String,
    },
    /// The TLS client could not be set up.
    #[error("TLS setup failed: {detail}")]
    Tls {
        /// What rustls said.
        detail: String,
    },
    /// A configured header has an invalid name or value.
    #[error("invalid header {name:?}: {reason}")]
    InvalidHeader {
        /// The header name as given.
        name: String,
        /// Why it was refused.
        reason: String,
    },
    /// The server could not be reached (connection refused, DNS, TLS, reset).
    #[error("{method} {url} failed: {detail}")]
    Connect {
        /// The HTTP method of the failed request.
        method: Method,
        /// The URL requested.
        url: String,
        /// The chain of causes.
        detail: String,
    },
    /// The server answered with an error status.
    #[error("HTTP {} from {method} {url}{}", fmt_status(*.status), fmt_excerpt(.body))]
    Status {
        /// The HTTP method of the failed request.
        method: Method,
        /// The URL requested.
        url: String,
        /// The status the server answered with.
        status: StatusCode,
        /// A short excerpt of the response body (may be empty).
        body: String,
    },
    /// The answer has a content type the transport cannot read.
    #[error("unexpected content type {content_type:?} from {method} {url}")]
    ContentType {
        /// The HTTP method of the request.
        method: Method,
        /// The URL requested.
        url: String,
        /// The `Content-Type` the server sent (empty when none).
        content_type: String,
    },
    /// Something did not happen in time.
    #[error("{what} from {url} timed out after {}ms", .after.as_millis())]
    Timeout {
        /// What was awaited.
        what: &'static str,
        /// The URL involved.
        url: String,
        /// The limit that ran out.
        after: Duration,
    },
    /// Reading a response body failed or the body was too large.
    #[error("reading the answer of {url} failed: {detail}")]
    Body {
        /// The URL requested.
        url: String,
        /// What went wrong.
        detail: String,
    },
    /// A HTTP+SSE server sent no usable `endpoint` event.
    #[error("HTTP+SSE server {url}: {reason}")]
    Endpoint {
        /// The SSE URL.
        url: String,
        /// What was wrong with the endpoint.
        reason: String,
    },
    /// An SSE stream ended before it delivered what was waited for.
    #[error("the SSE stream from {url} ended: {reason}")]
    StreamEnded {
        /// The URL of the stream.
        url: String,
        /// What was still missing.
        reason: String,
    },
    /// Authorizing with the server's OAuth authorization server failed.
    #[error("authorization for {url} failed: {source}")]
    Auth {
        /// The MCP endpoint.
        url: String,
        /// What went wrong.
        #[source]
        source: crate::auth::AuthError,
    },
    /// The session ended on the server and could not be started again.
    #[error("session at {url} expired: {reason}")]
    SessionExpired {
        /// The MCP endpoint.
        url: String,
        /// Why no new session could be used.
        reason: String,
    },
}

impl HttpError {
    /// The HTTP status, for an error status answer.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            HttpError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether the user must log in (`mcp login`) before this server can be used.
    pub fn needs_login(&self) -> bool {
        matches!(
            self,
            HttpError::Auth {
                source: crate::auth::AuthError::LoginRequired { .. },
                ..
            }
        )
    }

    /// A [`HttpError::Connect`] from a hyper client error, with its whole chain of causes.
    pub(crate) fn connect(
        method: Method,
        url: &str,
        error: &(dyn std::error::Error + 'static),
    ) -> Self {
        HttpError::Connect {
            method,
            url: url.to_owned(),
            detail: error_chain(error),
        }
    }

    /// A [`HttpError::Status`] quoting the start of `body`.
    pub(crate) fn status_error(method: Method, url: &str, status: StatusCode, body: &[u8]) -> Self {
        HttpError::Status {
            method,
            url: url.to_owned(),
            status,
            body: excerpt(body),
        }
    }
}

/// Joins an error and its sources into one line: "client error (Connect): tcp connect error: ...".
pub(crate) fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// The start of a body as one line of text, cut at [`BODY_EXCERPT_CHARS`] characters.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut out = String::new();
    for (n, c) in text.trim().chars().enumerate() {
        if n == BODY_EXCERPT_CHARS {
            out.push('…');
            break;
        }
        out.push(if c.is_control() { ' ' } else { c });
    }
    out
}

fn fmt_status(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

fn fmt_excerpt(body: &str) -> String {
    if body.is_empty() {
        String::new()
    } else {
        format!(": {body}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_error_names_url_status_and_body() {
        let e = HttpError::status_error(
            Method::POST,
            "http://127.0.0.1:1/mcp",
            StatusCode::NOT_FOUND,
            b"  session\nnot found ",
        );
        assert_eq!(
            e.to_string(),
            "HTTP 404 Not Found from POST http://127.0.0.1:1/mcp: session not found"
        );
        assert_eq!(e.status(), Some(StatusCode::NOT_FOUND));
    }

    #[test]
    fn long_bodies_are_cut() {
        let body = "x".repeat(1000);
        let e = HttpError::status_error(Method::GET, "u", StatusCode::BAD_GATEWAY, body.as_bytes());
        let text = e.to_string();
        assert!(text.ends_with('…'));
        assert!(text.len() < 400);
    }

    #[test]
    fn empty_body_has_no_colon() {
        let e =
            HttpError::status_error(Method::DELETE, "u", StatusCode::from_u16(599).unwrap(), b"");
        assert_eq!(e.to_string(), "HTTP 599 from DELETE u");
    }
}
