//! The one HTTP(S) client setup of the toolkit, shared by everything that fetches: the client's
//! HTTP transports and OAuth discovery, the server's JWKS and introspection verifiers, OTLP
//! export and the sample server's weather provider. Each builds its client here, so they agree
//! on TLS (rustls with the ring backend and the webpki roots), HTTP/1.1, `TCP_NODELAY` and
//! timeouts, and a fix to one is a fix to all.
//!
//! ```no_run
//! use std::time::Duration;
//! use bytes::Bytes;
//! use http_body_util::Full;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let settings = mcp_https::Settings::new(Duration::from_secs(10));
//! let client = mcp_https::client::<Full<Bytes>>(&settings)?;
//! let request = hyper::Request::get("https://example.com/").body(Full::new(Bytes::new()))?;
//! let response = client.request(request).await?;
//! println!("{}", response.status());
//! # Ok(()) }
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

use std::time::Duration;

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// The connector under every client: TCP (with `TCP_NODELAY` and a connect timeout), and TLS
/// for `https` URLs with the `tls` feature.
#[cfg(feature = "tls")]
pub type Connector = hyper_rustls::HttpsConnector<HttpConnector>;
/// The connector under every client: TCP (with `TCP_NODELAY` and a connect timeout), and TLS
/// for `https` URLs with the `tls` feature.
#[cfg(not(feature = "tls"))]
pub type Connector = HttpConnector;

/// A pooled HTTP/1.1 client over [`Connector`], sending request bodies of type `B`.
pub type Client<B> = hyper_util::client::legacy::Client<Connector, B>;

/// How a client connects: the few settings the users of this crate choose differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// The longest a TCP connection may take to open.
    pub connect_timeout: Duration,
    /// How long an idle pooled connection is kept; `None` keeps hyper-util's default (90 s).
    pub pool_idle_timeout: Option<Duration>,
}

impl Settings {
    /// Settings with this connect timeout and the pool's default idle timeout.
    pub fn new(connect_timeout: Duration) -> Self {
        Settings {
            connect_timeout,
            pool_idle_timeout: None,
        }
    }

    /// Keeps idle pooled connections for `idle` at most; shorter than the servers' own idle
    /// timeout (Node.js: 5 s), a reused connection is rarely found closed.
    pub fn pool_idle_timeout(mut self, idle: Duration) -> Self {
        self.pool_idle_timeout = Some(idle);
        self
    }
}

/// Why a client could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// rustls could not be set up with the ring provider and the webpki roots.
    #[error("TLS setup failed: {0}")]
    Setup(String),
}

/// Whether `https` URLs can be fetched in this build (the `tls` feature).
pub const SUPPORTS_HTTPS: bool = cfg!(feature = "tls");

/// The connector every client of the toolkit uses: TCP with `TCP_NODELAY` and the connect
/// timeout of `settings`, `http` and (with `tls`) `https` URLs, HTTP/1.1.
pub fn connector(settings: &Settings) -> Result<Connector, TlsError> {
    let mut http = HttpConnector::new();
    http.set_nodelay(true);
    http.set_connect_timeout(Some(settings.connect_timeout));
    http.enforce_http(false);
    wrap(http)
}

#[cfg(feature = "tls")]
fn wrap(http: HttpConnector) -> Result<Connector, TlsError> {
    let builder = hyper_rustls::HttpsConnectorBuilder::new()
        .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
        .map_err(|e| TlsError::Setup(e.to_string()))?;
    Ok(builder.https_or_http().enable_http1().wrap_connector(http))
}

#[cfg(not(feature = "tls"))]
fn wrap(http: HttpConnector) -> Result<Connector, TlsError> {
    Ok(http)
}

/// A pooled client over [`connector`], sending bodies of type `B`.
pub fn client<B>(settings: &Settings) -> Result<Client<B>, TlsError>
where
    B: hyper::body::Body + Send,
    B::Data: Send,
{
    let mut builder = hyper_util::client::legacy::Client::builder(TokioExecutor::new());
    if let Some(idle) = settings.pool_idle_timeout {
        builder.pool_idle_timeout(idle);
    }
    Ok(builder.build(connector(settings)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use http_body_util::{BodyExt, Full};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// The client speaks plain HTTP/1.1 to a loopback server and reads its answer.
    #[tokio::test]
    async fn fetches_over_http() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.expect("accept");
            let mut buf = [0u8; 1024];
            let _ = socket.read(&mut buf).await;
            let _ = socket
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                .await;
        });
        let settings =
            Settings::new(Duration::from_secs(5)).pool_idle_timeout(Duration::from_secs(1));
        let client = client::<Full<Bytes>>(&settings).expect("client");
        let request = hyper::Request::get(format!("http://{addr}/"))
            .body(Full::new(Bytes::new()))
            .expect("request");
        let response = client.request(request).await.expect("response");
        assert_eq!(response.status(), 200);
        let body = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        assert_eq!(&body[..], b"ok");
    }

    #[test]
    fn https_follows_the_feature() {
        assert_eq!(SUPPORTS_HTTPS, cfg!(feature = "tls"));
        assert!(connector(&Settings::new(Duration::from_secs(1))).is_ok());
    }
}
