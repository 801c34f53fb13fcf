//! The small HTTP(S) client the verifiers use to reach the authorization server (metadata,
//! JWKS, introspection): the toolkit's one client setup (`mcp_https`), bounded in time and size.

use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use hyper::{Method, Request, StatusCode, Uri};
use serde::de::DeserializeOwned;

/// Largest document accepted from the authorization server.
const MAX_BODY: usize = 256 * 1024;

/// Why a request to the authorization server failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL is not an absolute `http`/`https` URL.
    #[error("{0:?} is not an absolute http(s) URL")]
    Url(String),
    /// TLS could not be set up.
    #[error("TLS setup failed: {0}")]
    Tls(String),
    /// No connection, or the connection broke.
    #[error("{url} is unreachable: {detail}")]
    Unreachable {
        /// The URL asked.
        url: String,
        /// What failed.
        detail: String,
    },
    /// No answer in time.
    #[error("{url} did not answer within {after:?}")]
    Timeout {
        /// The URL asked.
        url: String,
        /// The time allowed.
        after: Duration,
    },
    /// An answer other than 200.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL asked.
        url: String,
        /// The HTTP status.
        status: u16,
    },
    /// The answer is not the JSON expected (or is over the size limit).
    #[error("{url} answered something that is not the expected JSON: {detail}")]
    Malformed {
        /// The URL asked.
        url: String,
        /// What is wrong with it.
        detail: String,
    },
}

/// A client for JSON documents from the authorization server.
#[derive(Clone)]
pub(crate) struct Fetcher {
    client: mcp_https::Client<Full<Bytes>>,
    timeout: Duration,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Fetcher {
    /// A client that gives up on a request after `timeout`.
    pub(crate) fn new(timeout: Duration) -> Result<Self, FetchError> {
        // Idle connections go before common servers drop them (Node.js: 5 s), so a reused
        // one is rarely found closed.
        let settings = mcp_https::Settings::new(timeout).pool_idle_timeout(Duration::from_secs(4));
        Ok(Fetcher {
            client: mcp_https::client(&settings).map_err(|e| FetchError::Tls(e.to_string()))?,
            timeout,
        })
    }

    /// GETs `url` and parses the JSON answer.
    pub(crate) async fn get_json<T: DeserializeOwned>(&self, url: &str) -> Result<T, FetchError> {
        let request = Request::builder()
            .method(Method::GET)
            .uri(parse_url(url)?)
            .header(ACCEPT, "application/json")
            .body(Full::new(Bytes::new()))
            .map_err(|e| FetchError::Url(format!("{url}: {e}")))?;
        self.send(url, request).await
    }

    /// POSTs `form` (`application/x-www-form-urlencoded`) to `url`, with HTTP Basic client
    /// authentication when `basic` is given (RFC 6749 §2.3.1), and parses the JSON answer.
    pub(crate) async fn post_form<T: DeserializeOwned>(
        &self,
        url: &str,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
    ) -> Result<T, FetchError> {
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri(parse_url(url)?)
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some((id, secret)) = basic {
            let pair = format!("{}:{}", form_encode(id), form_encode(secret));
            let value = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            );
            let value = HeaderValue::from_str(&value)
                .map_err(|_| FetchError::Url(format!("{url}: bad client credentials")))?;
            builder = builder.header(AUTHORIZATION, value);
        }
        let body = form
            .iter()
            .map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let request = builder
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| FetchError::Url(format!("{url}: {e}")))?;
        self.send(url, request).await
    }

    async fn send<T: DeserializeOwned>(
        &self,
        url: &str,
        request: Request<Full<Bytes>>,
    ) -> Result<T, FetchError> {
        let fetch = async {
            let response =
                self.client
                    .request(request)
                    .await
                    .map_err(|e| FetchError::Unreachable {
                        url: url.to_owned(),
                        detail: with_sources(&e),
                    })?;
            if response.status() != StatusCode::OK {
                return Err(FetchError::Status {
                    url: url.to_owned(),
                    status: response.status().as_u16(),
                });
            }
            let body = Limited::new(response.into_body(), MAX_BODY)
                .collect()
                .await
                .map_err(|e| FetchError::Malformed {
                    url: url.to_owned(),
                    detail: e.to_string(),
                })?
                .to_bytes();
            serde_json::from_slice(&body).map_err(|e| FetchError::Malformed {
                url: url.to_owned(),
                detail: e.to_string(),
            })
        };
        tokio::time::timeout(self.timeout, fetch)
            .await
            .unwrap_or_else(|_| {
                Err(FetchError::Timeout {
                    url: url.to_owned(),
                    after: self.timeout,
                })
            })
    }
}

/// An error and its sources, `: `-separated (hyper's own message hides the cause).
fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

fn parse_url(url: &str) -> Result<Uri, FetchError> {
    let uri: Uri = url.parse().map_err(|_| FetchError::Url(url.to_owned()))?;
    match (uri.scheme_str(), uri.authority()) {
        (Some("http" | "https"), Some(_)) => Ok(uri),
        _ => Err(FetchError::Url(url.to_owned())),
    }
}

/// `application/x-www-form-urlencoded` encoding of one name or value.
pub(crate) fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding() {
        assert_eq!(form_encode("a b&c=d/é"), "a+b%26c%3Dd%2F%C3%A9");
        assert!(parse_url("ftp://x/").is_err());
        assert!(parse_url("/relative").is_err());
        assert!(parse_url("https://as.example.com/jwks").is_ok());
    }
}
