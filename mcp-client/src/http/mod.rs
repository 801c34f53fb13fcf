//! MCP over HTTP, the client side: Streamable HTTP (2025-03-26 and later), the HTTP+SSE
//! transport (2024-11-05), and the automatic choice between them the spec's
//! backwards-compatibility section describes.
//!
//! Each transport is a plain [`mcp_proto::peer::Transport`]: the sink POSTs every outgoing
//! message (one task per POST, so a slow answer never blocks the sink), and every answer, JSON
//! body or SSE event, lands in one bounded queue the [`HttpSource`] reads. The transports watch
//! the `initialize` exchange pass through them to learn the session id and the negotiated
//! protocol version; the handshake itself belongs to whoever drives the peer.
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcp_client::http::HttpError> {
//! use mcp_client::http::{self, HttpClientConfig};
//! let config = HttpClientConfig::new("http://127.0.0.1:8080/mcp").bearer_token("secret");
//! let transport = http::connect_auto(config).await?; // a `Transport`: hand it to a peer
//! # let _ = transport; Ok(()) }
//! ```

mod auto;
pub(crate) mod body;
pub(crate) mod connection;
mod error;
mod http_sse;
mod inbox;
mod outgoing;
mod streamable;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use auto::{connect_auto, AutoSink, AutoTransport, FlavorHandle, HttpFlavor};
pub use error::HttpError;
pub use http_sse::{HttpSseSink, HttpSseTransport};
pub use inbox::HttpSource;
pub(crate) use streamable::{is_modern, is_modern_parsed};
pub use streamable::{StreamableHttpSink, StreamableHttpTransport};

/// Where an HTTP MCP server is and how to talk to it.
#[derive(Clone)]
pub struct HttpClientConfig {
    /// The MCP endpoint (Streamable HTTP) or the SSE URL (HTTP+SSE), `http://` or `https://`.
    pub url: String,
    /// Headers sent on every request to this server (`Authorization`, API keys, ...).
    pub headers: Vec<(String, String)>,
    /// Limit on opening a TCP (and TLS) connection; also bounds the wait for an HTTP+SSE server's
    /// `endpoint` event.
    pub connect_timeout: Duration,
    /// Limit on waiting for the response headers of any request; `None` leaves it to the
    /// caller's per-request timeout (a server may hold a POST until its tool is done).
    pub response_timeout: Option<Duration>,
    /// Limit on the DELETE that ends the session when the transport closes.
    pub close_timeout: Duration,
    /// On 404 for a request that carried a session id, start a new session (replaying the
    /// original `initialize`) and retry the request once.
    pub reinit_on_expiry: bool,
    /// Open the GET stream for server-initiated messages after initialization.
    pub open_get_stream: bool,
    /// How dropped SSE streams are reconnected.
    pub reconnect: ReconnectPolicy,
    /// The largest JSON body or SSE event accepted, in bytes.
    pub max_message_size: usize,
    /// How many received messages may wait for the reader before the transport pauses.
    pub queue_capacity: usize,
    /// OAuth for this server: a bearer token on every request, and a 401 or a 403
    /// `insufficient_scope` answered by refreshing, logging in or stepping up, then retrying.
    pub oauth: Option<Arc<crate::auth::Authorizer>>,
}

impl HttpClientConfig {
    /// A configuration for `url` with the defaults: 10 s to connect, no response-header limit,
    /// 2 s for the closing DELETE, re-initialize on expiry, GET stream on.
    pub fn new(url: impl Into<String>) -> Self {
        HttpClientConfig {
            url: url.into(),
            headers: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            response_timeout: None,
            close_timeout: Duration::from_secs(2),
            reinit_on_expiry: true,
            open_get_stream: true,
            reconnect: ReconnectPolicy::default(),
            max_message_size: mcp_proto::sse::DEFAULT_MAX_EVENT_SIZE,
            queue_capacity: 256,
            oauth: None,
        }
    }

    /// Adds a header sent on every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Authorizes requests with OAuth through `authorizer`.
    pub fn oauth(mut self, authorizer: Arc<crate::auth::Authorizer>) -> Self {
        self.oauth = Some(authorizer);
        self
    }

    /// Adds `Authorization: Bearer <token>`.
    pub fn bearer_token(self, token: impl AsRef<str>) -> Self {
        let value = format!("Bearer {}", token.as_ref());
        self.header("Authorization", value)
    }
}

impl fmt::Debug for HttpClientConfig {
    /// Header values are left out: they are often credentials.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("HttpClientConfig")
            .field("url", &self.url)
            .field("headers", &names)
            .field("connect_timeout", &self.connect_timeout)
            .field("response_timeout", &self.response_timeout)
            .field("close_timeout", &self.close_timeout)
            .field("reinit_on_expiry", &self.reinit_on_expiry)
            .field("open_get_stream", &self.open_get_stream)
            .field("reconnect", &self.reconnect)
            .field("max_message_size", &self.max_message_size)
            .field("queue_capacity", &self.queue_capacity)
            .field("oauth", &self.oauth.is_some())
            .finish()
    }
}

/// How a dropped SSE stream is reconnected: the server's `retry` time when it sent one, else an
/// exponential backoff; a bounded number of failed attempts in a row.
#[derive(Clone, Debug)]
pub struct ReconnectPolicy {
    /// The first delay when the server gave no `retry`.
    pub initial_delay: Duration,
    /// The largest delay.
    pub max_delay: Duration,
    /// Give up after this many failed reconnects in a row.
    pub max_attempts: u32,
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        ReconnectPolicy {
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_attempts: 8,
        }
    }
}

impl ReconnectPolicy {
    /// The delay before reconnect number `attempt` (0 for the first), given the server's `retry`.
    pub fn delay(&self, attempt: u32, server_retry_ms: Option<u64>) -> Duration {
        if let Some(ms) = server_retry_ms {
            return Duration::from_millis(ms).min(self.max_delay);
        }
        let factor = 1u32 << attempt.min(16);
        self.initial_delay
            .saturating_mul(factor)
            .min(self.max_delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let p = ReconnectPolicy::default();
        assert_eq!(p.delay(0, None), Duration::from_millis(500));
        assert_eq!(p.delay(1, None), Duration::from_secs(1));
        assert_eq!(p.delay(30, None), Duration::from_secs(30));
        assert_eq!(p.delay(3, Some(700)), Duration::from_millis(700));
    }

    #[test]
    fn debug_hides_header_values() {
        let c = HttpClientConfig::new("http://x/mcp").bearer_token("s3cret");
        let text = format!("{c:?}");
        assert!(text.contains("Authorization"));
        assert!(!text.contains("s3cret"));
    }
}
