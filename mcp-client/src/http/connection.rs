//! The HTTP client both transports share: the toolkit's one client setup (`mcp_https`: pooled,
//! `TCP_NODELAY` so small JSON-RPC messages do not wait for Nagle, rustls for `https` URLs when
//! the `tls` feature is on), plus the per-server headers, response timeout and OAuth.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, Uri};

use super::error::HttpError;
use super::HttpClientConfig;
use crate::auth::{parse_www_authenticate, Authorizer, MAX_AUTH_ROUNDS};

/// A pooled HTTP/1.1 client plus the headers every request to this server carries.
#[derive(Clone)]
pub(crate) struct Connection {
    client: mcp_https::Client<Full<Bytes>>,
    /// The configured per-server headers (`Authorization`, ...).
    headers: HeaderMap,
    /// How long to wait for response headers, when bounded.
    response_timeout: Option<Duration>,
    /// OAuth: the bearer for every request and what to do on 401/403.
    auth: Option<Arc<Authorizer>>,
}

impl Connection {
    /// A client for `config`: validates its headers and builds the connector.
    pub(crate) fn new(config: &HttpClientConfig) -> Result<Self, HttpError> {
        let mut headers = HeaderMap::new();
        for (name, value) in &config.headers {
            let header =
                HeaderName::from_bytes(name.as_bytes()).map_err(|e| HttpError::InvalidHeader {
                    name: name.clone(),
                    reason: e.to_string(),
                })?;
            let mut value = HeaderValue::from_str(value).map_err(|e| HttpError::InvalidHeader {
                name: name.clone(),
                reason: e.to_string(),
            })?;
            if header == hyper::header::AUTHORIZATION || header == hyper::header::COOKIE {
                value.set_sensitive(true);
            }
            headers.append(header, value);
        }
        let settings = mcp_https::Settings::new(config.connect_timeout)
            .pool_idle_timeout(Duration::from_secs(30));
        let client = mcp_https::client(&settings).map_err(|e| HttpError::Tls {
            detail: e.to_string(),
        })?;
        Ok(Connection {
            client,
            headers,
            response_timeout: config.response_timeout,
            auth: config.oauth.clone(),
        })
    }

    /// Builds a request to `uri` with the configured headers plus `extra`.
    pub(crate) fn request(
        &self,
        method: Method,
        uri: &Uri,
        extra: &[(HeaderName, HeaderValue)],
        body: Bytes,
    ) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = method;
        *request.uri_mut() = uri.clone();
        let headers = request.headers_mut();
        for (name, value) in &self.headers {
            headers.append(name.clone(), value.clone());
        }
        for (name, value) in extra {
            headers.insert(name.clone(), value.clone());
        }
        request
    }

    /// Sends a request and waits for the response headers (bounded by the response timeout).
    /// With OAuth, the request carries the current bearer token; a 401, or a 403 with
    /// `insufficient_scope`, is handed to the authorizer and the request is sent again, at most
    /// [`MAX_AUTH_ROUNDS`] times.
    pub(crate) async fn send(
        &self,
        request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, HttpError> {
        let Some(auth) = self.auth.clone() else {
            return self.send_once(request).await;
        };
        let (parts, body) = request.into_parts();
        let body = http_body_util::BodyExt::collect(body)
            .await
            .map(|c| c.to_bytes())
            .unwrap_or_default();
        let url = parts.uri.to_string();
        let mut rounds = 0;
        loop {
            // Boxed: the authorizer's own requests go through a `Connection` too.
            let token = Box::pin(auth.bearer()).await;
            let mut request = Request::new(Full::new(body.clone()));
            *request.method_mut() = parts.method.clone();
            *request.uri_mut() = parts.uri.clone();
            *request.headers_mut() = parts.headers.clone();
            if let Some(token) = &token {
                if let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {token}")) {
                    value.set_sensitive(true);
                    request
                        .headers_mut()
                        .insert(hyper::header::AUTHORIZATION, value);
                }
            }
            let response = self.send_once(request).await?;
            let status = response.status();
            let header = response
                .headers()
                .get(hyper::header::WWW_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let step_up = status == hyper::StatusCode::FORBIDDEN
                && header
                    .as_deref()
                    .and_then(|h| parse_www_authenticate(h).ok())
                    .is_some_and(|c| c.is_insufficient_scope());
            if status != hyper::StatusCode::UNAUTHORIZED && !step_up {
                return Ok(response);
            }
            if rounds >= MAX_AUTH_ROUNDS {
                return Err(HttpError::Auth {
                    url,
                    source: crate::auth::AuthError::GaveUp {
                        server: auth.server().to_owned(),
                        rounds,
                        reason: format!(
                            "HTTP {}{}",
                            status.as_u16(),
                            header.map(|h| format!(" ({h})")).unwrap_or_default()
                        ),
                    },
                });
            }
            rounds += 1;
            drop(response);
            Box::pin(auth.on_challenge(status.as_u16(), header.as_deref(), token.as_deref()))
                .await
                .map_err(|source| HttpError::Auth {
                    url: url.clone(),
                    source,
                })?;
        }
    }

    /// Sends one request as it is.
    async fn send_once(
        &self,
        request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, HttpError> {
        let method = request.method().clone();
        let url = request.uri().to_string();
        let future = self.client.request(request);
        let result = match self.response_timeout {
            Some(limit) => match tokio::time::timeout(limit, future).await {
                Ok(result) => result,
                Err(_) => {
                    return Err(HttpError::Timeout {
                        what: "the response headers",
                        url,
                        after: limit,
                    })
                }
            },
            None => future.await,
        };
        result.map_err(|e| HttpError::connect(method, &url, &e))
    }
}

/// Checks that `uri` is an absolute `http` URL, or `https` with the `tls` feature.
pub(crate) fn check_url(text: &str) -> Result<Uri, HttpError> {
    let invalid = |reason: &str| HttpError::InvalidUrl {
        url: text.to_owned(),
        reason: reason.to_owned(),
    };
    let uri: Uri = text
        .parse()
        .map_err(|e: hyper::http::uri::InvalidUri| invalid(&e.to_string()))?;
    if uri.authority().is_none() {
        return Err(invalid("the URL must be absolute (http://host:port/path)"));
    }
    match uri.scheme_str() {
        Some("http") => Ok(uri),
        Some("https") if mcp_https::SUPPORTS_HTTPS => Ok(uri),
        Some("https") => Err(invalid(
            "https needs the `tls` feature of mcp-client, which is off in this build",
        )),
        _ => Err(invalid("only http and https URLs are supported")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_urls_are_accepted() {
        let uri = check_url("http://127.0.0.1:8080/mcp?x=1").expect("valid");
        assert_eq!(uri.path(), "/mcp");
    }

    #[test]
    fn https_follows_the_tls_feature() {
        assert_eq!(
            check_url("https://example.com/mcp").is_ok(),
            mcp_https::SUPPORTS_HTTPS
        );
    }

    #[test]
    fn relative_and_other_schemes_are_refused() {
        for bad in ["/mcp", "ws://host/mcp", "", "http://"] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_connection_builds_with_headers() {
        let config = HttpClientConfig::new("https://example.com/mcp").bearer_token("t");
        let conn = Connection::new(&config).expect("builds");
        let uri: Uri = "http://127.0.0.1/mcp".parse().expect("uri");
        let request = conn.request(Method::GET, &uri, &[], Bytes::new());
        let auth = request
            .headers()
            .get(hyper::header::AUTHORIZATION)
            .expect("auth");
        assert!(auth.is_sensitive());
    }
}
