//! Finding an authorization server's metadata from its issuer (RFC 8414, OpenID Connect
//! Discovery), in the order the MCP spec gives, so a verifier learns `jwks_uri` and
//! `introspection_endpoint` from the issuer alone.

use serde::Deserialize;

use super::fetch::{FetchError, Fetcher};

/// The parts of an authorization server's metadata a resource server uses.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier; must equal the issuer it was looked up by.
    pub issuer: String,
    /// Where the signing keys are (JWT access tokens).
    #[serde(default)]
    pub jwks_uri: Option<String>,
    /// The RFC 7662 introspection endpoint.
    #[serde(default)]
    pub introspection_endpoint: Option<String>,
    /// The scopes the server knows.
    #[serde(default)]
    pub scopes_supported: Vec<String>,
}

/// The metadata URLs to try for `issuer`, in the spec's order (2025-11-25 §AS discovery).
pub(crate) fn metadata_urls(issuer: &str) -> Result<Vec<String>, FetchError> {
    let issuer = issuer.trim_end_matches('/');
    let (scheme, rest) = issuer
        .split_once("://")
        .ok_or_else(|| FetchError::Url(issuer.to_owned()))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let origin = format!("{scheme}://{authority}");
    Ok(if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    })
}

/// Fetches the metadata of the authorization server `issuer`, trying each well-known URL in
/// turn; the first document whose `issuer` matches wins (RFC 8414 §3.3).
pub async fn discover_authorization_server(
    issuer: &str,
) -> Result<AuthorizationServerMetadata, FetchError> {
    let fetcher = Fetcher::new(std::time::Duration::from_secs(10))?;
    discover_with(&fetcher, issuer).await
}

pub(crate) async fn discover_with(
    fetcher: &Fetcher,
    issuer: &str,
) -> Result<AuthorizationServerMetadata, FetchError> {
    let mut last = None;
    for url in metadata_urls(issuer)? {
        match fetcher.get_json::<AuthorizationServerMetadata>(&url).await {
            Ok(meta) if same_issuer(&meta.issuer, issuer) => return Ok(meta),
            Ok(meta) => {
                last = Some(FetchError::Malformed {
                    url,
                    detail: format!(
                        "its issuer is {:?}, not {issuer:?} (RFC 8414 §3.3)",
                        meta.issuer
                    ),
                })
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| FetchError::Url(issuer.to_owned())))
}

/// Issuers compare as strings, forgiving only a trailing slash.
pub(crate) fn same_issuer(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_order_follows_the_spec() {
        assert_eq!(
            metadata_urls("https://as.example.com").expect("urls"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("http://127.0.0.1:9/tenant1/").expect("urls"),
            [
                "http://127.0.0.1:9/.well-known/oauth-authorization-server/tenant1",
                "http://127.0.0.1:9/.well-known/openid-configuration/tenant1",
                "http://127.0.0.1:9/tenant1/.well-known/openid-configuration"
            ]
        );
        assert!(metadata_urls("no-scheme").is_err());
    }
}
