//! Finding out who authorizes an MCP server: its protected-resource metadata (RFC 9728) — the
//! URL the `WWW-Authenticate` challenge names first, then the path-specific well-known URI,
//! then the root one — and its authorization server's metadata (RFC 8414 and OpenID Connect
//! Discovery, in the order the MCP spec gives, with and without a path).

use hyper::Uri;
use serde_json::{Map, Value};

use super::fetch::AuthHttp;
use super::form::{canonical_resource, origin, parse_url, trimmed_path};
use super::AuthError;

/// What the protected-resource metadata says (the parts a client uses).
#[derive(Clone, Debug, Default)]
pub struct ResourceMetadata {
    /// `resource`: the identifier tokens must be bound to.
    pub resource: Option<String>,
    /// `authorization_servers`: issuers that may mint tokens for it.
    pub authorization_servers: Vec<String>,
    /// `scopes_supported`.
    pub scopes_supported: Option<Vec<String>>,
}

/// What the authorization server metadata says (the parts a client uses).
#[derive(Clone, Debug, Default)]
pub struct ServerMetadata {
    /// `issuer`.
    pub issuer: String,
    /// `authorization_endpoint`.
    pub authorization_endpoint: Option<String>,
    /// `token_endpoint`.
    pub token_endpoint: String,
    /// `registration_endpoint` (RFC 7591), when dynamic registration is offered.
    pub registration_endpoint: Option<String>,
    /// `code_challenge_methods_supported`.
    pub code_challenge_methods_supported: Vec<String>,
    /// `token_endpoint_auth_methods_supported`.
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// `grant_types_supported`.
    pub grant_types_supported: Option<Vec<String>>,
    /// `scopes_supported`.
    pub scopes_supported: Option<Vec<String>>,
    /// `client_id_metadata_document_supported`.
    pub client_id_metadata_document_supported: bool,
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub iss_parameter_supported: bool,
    /// No metadata was found: the 2025-03-26 default endpoints at the server's origin.
    pub assumed_defaults: bool,
}

fn strings(map: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
    map.get(key).and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    })
}

fn string(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The well-known protected-resource metadata URLs for `server`, path-specific first.
pub(crate) fn resource_metadata_urls(server: &Uri) -> Vec<String> {
    let base = origin(server);
    let path = trimmed_path(server);
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(format!("{base}/.well-known/oauth-protected-resource{path}"));
    }
    urls.push(format!("{base}/.well-known/oauth-protected-resource"));
    urls
}

/// The authorization-server metadata URLs to try for `issuer`, in the spec's order.
pub(crate) fn server_metadata_urls(issuer: &Uri) -> Vec<String> {
    let base = origin(issuer);
    let path = trimmed_path(issuer);
    if path.is_empty() {
        vec![
            format!("{base}/.well-known/oauth-authorization-server"),
            format!("{base}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{base}/.well-known/oauth-authorization-server{path}"),
            format!("{base}/.well-known/openid-configuration{path}"),
            format!("{base}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// Whether the metadata's `resource` may stand for `server`: same origin, and the server's path
/// is the resource's path or below it.
pub(crate) fn resource_matches(resource: &str, server: &Uri) -> bool {
    let Ok(res) = parse_url(resource) else {
        return false;
    };
    if canonical_resource(&res) == canonical_resource(server) {
        return true;
    }
    let same_origin = origin(&res).eq_ignore_ascii_case(&origin(server));
    let rp = trimmed_path(&res);
    let sp = trimmed_path(server);
    same_origin && (rp.is_empty() || sp == rp || sp.starts_with(&format!("{rp}/")))
}

/// Fetches the protected-resource metadata of `server`: `hinted` (from the challenge) first,
/// then the well-known URLs. `Ok(None)` when no location has any (a 2025-03-26 server).
pub(crate) async fn fetch_resource_metadata(
    http: &AuthHttp,
    server: &Uri,
    hinted: Option<&str>,
) -> Result<Option<ResourceMetadata>, AuthError> {
    let mut urls = Vec::new();
    if let Some(hint) = hinted {
        let hint_uri = parse_url(hint).map_err(|reason| AuthError::Metadata {
            url: hint.to_owned(),
            reason: format!("the resource_metadata URL is unusable: {reason}"),
        })?;
        if !origin(&hint_uri).eq_ignore_ascii_case(&origin(server)) {
            return Err(AuthError::Metadata {
                url: hint.to_owned(),
                reason: format!(
                    "the server named metadata on another origin than itself ({}); refused",
                    origin(server)
                ),
            });
        }
        urls.push(hint.to_owned());
    }
    urls.extend(resource_metadata_urls(server));
    for url in urls {
        let answer = match http.get(&url).await {
            Ok(a) => a,
            Err(detail) => {
                tracing::debug!("protected-resource metadata at {url}: {detail}");
                continue;
            }
        };
        if !answer.status.is_success() {
            tracing::debug!(
                "protected-resource metadata at {url}: HTTP {}",
                answer.status
            );
            continue;
        }
        let map = answer.json().map_err(|reason| AuthError::Metadata {
            url: url.clone(),
            reason,
        })?;
        let metadata = ResourceMetadata {
            resource: string(&map, "resource"),
            authorization_servers: strings(&map, "authorization_servers").unwrap_or_default(),
            scopes_supported: strings(&map, "scopes_supported"),
        };
        if let Some(resource) = &metadata.resource {
            if !resource_matches(resource, server) {
                return Err(AuthError::Metadata {
                    url,
                    reason: format!(
                        "its resource {resource:?} is not the server {}; refused",
                        canonical_resource(server)
                    ),
                });
            }
        }
        if metadata.authorization_servers.is_empty() {
            return Err(AuthError::Metadata {
                url,
                reason: "it names no authorization_servers".into(),
            });
        }
        return Ok(Some(metadata));
    }
    Ok(None)
}

/// Fetches the metadata of the authorization server `issuer` and checks its `issuer` matches.
/// When `legacy_defaults` is set (no protected-resource metadata: a 2025-03-26 server) and no
/// metadata exists either, the default endpoints at the issuer's origin are assumed.
pub(crate) async fn fetch_server_metadata(
    http: &AuthHttp,
    issuer: &str,
    legacy_defaults: bool,
) -> Result<ServerMetadata, AuthError> {
    let issuer_uri = parse_url(issuer).map_err(|reason| AuthError::Metadata {
        url: issuer.to_owned(),
        reason: format!("the authorization server URL is unusable: {reason}"),
    })?;
    for url in server_metadata_urls(&issuer_uri) {
        let answer = match http.get(&url).await {
            Ok(a) => a,
            Err(detail) => {
                tracing::debug!("authorization server metadata at {url}: {detail}");
                continue;
            }
        };
        if !answer.status.is_success() {
            continue;
        }
        let map = answer.json().map_err(|reason| AuthError::Metadata {
            url: url.clone(),
            reason,
        })?;
        let metadata_issuer = string(&map, "issuer").unwrap_or_default();
        // RFC 8414 §3.3: the issuer must be the one the metadata was fetched for, compared as
        // strings without normalization. A 2025-03-26
        // server (no protected-resource metadata) has its metadata at its origin whatever its
        // issuer's path, so there the issuer need only share the origin.
        let same = metadata_issuer == issuer;
        let legacy_ok = legacy_defaults
            && parse_url(&metadata_issuer)
                .is_ok_and(|u| origin(&u).eq_ignore_ascii_case(&origin(&issuer_uri)));
        if !same && !legacy_ok {
            return Err(AuthError::Metadata {
                url,
                reason: format!(
                    "its issuer {metadata_issuer:?} is not the authorization server {issuer:?} it was fetched for; refused"
                ),
            });
        }
        let token_endpoint = string(&map, "token_endpoint").ok_or_else(|| AuthError::Metadata {
            url: url.clone(),
            reason: "it has no token_endpoint".into(),
        })?;
        return Ok(ServerMetadata {
            issuer: metadata_issuer,
            authorization_endpoint: string(&map, "authorization_endpoint"),
            token_endpoint,
            registration_endpoint: string(&map, "registration_endpoint"),
            code_challenge_methods_supported: strings(&map, "code_challenge_methods_supported")
                .unwrap_or_default(),
            token_endpoint_auth_methods_supported: strings(
                &map,
                "token_endpoint_auth_methods_supported",
            ),
            grant_types_supported: strings(&map, "grant_types_supported"),
            scopes_supported: strings(&map, "scopes_supported"),
            client_id_metadata_document_supported: map
                .get("client_id_metadata_document_supported")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            iss_parameter_supported: map
                .get("authorization_response_iss_parameter_supported")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            assumed_defaults: false,
        });
    }
    if legacy_defaults {
        let base = origin(&issuer_uri);
        tracing::info!("no OAuth metadata for {base}: using the 2025-03-26 default endpoints");
        return Ok(ServerMetadata {
            issuer: base.clone(),
            authorization_endpoint: Some(format!("{base}/authorize")),
            token_endpoint: format!("{base}/token"),
            registration_endpoint: Some(format!("{base}/register")),
            code_challenge_methods_supported: vec!["S256".into()],
            assumed_defaults: true,
            ..ServerMetadata::default()
        });
    }
    Err(AuthError::Metadata {
        url: issuer.to_owned(),
        reason: "no authorization server metadata at any well-known location".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        s.parse().expect("uri")
    }

    #[test]
    fn well_known_orders() {
        assert_eq!(
            resource_metadata_urls(&uri("http://h:1/mcp")),
            vec![
                "http://h:1/.well-known/oauth-protected-resource/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            server_metadata_urls(&uri("http://a/tenant1")),
            vec![
                "http://a/.well-known/oauth-authorization-server/tenant1",
                "http://a/.well-known/openid-configuration/tenant1",
                "http://a/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(server_metadata_urls(&uri("http://a/")).len(), 2);
    }

    #[test]
    fn resource_matching() {
        let server = uri("http://localhost:9/mcp");
        assert!(resource_matches("http://localhost:9/mcp", &server));
        assert!(resource_matches("http://localhost:9", &server));
        assert!(!resource_matches("https://evil.example.com/mcp", &server));
        assert!(!resource_matches("http://localhost:9/other", &server));
    }
}
