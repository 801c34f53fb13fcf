//! Bearer-token authorization for the HTTP transports (MCP authorization, spec §4): every
//! request at the MCP endpoints carries `Authorization: Bearer …`, checked by the configured
//! [`TokenVerifier`]. A missing or refused token gets 401 with `WWW-Authenticate: Bearer
//! resource_metadata="…"`; a token without a scope the request needs gets 403
//! `insufficient_scope`. The protected-resource metadata (RFC 9728) is served without a token
//! at `/.well-known/oauth-protected-resource` and at its path-specific form for the endpoint.

use std::collections::HashMap;
use std::sync::Arc;

use hyper::header::{HeaderValue, AUTHORIZATION, HOST, WWW_AUTHENTICATE};
use hyper::{HeaderMap, StatusCode};
use mcp_proto::jsonrpc::{Incoming as Frame, Message};
use serde::Deserialize;

use super::body::Refusal;
use crate::auth::{AuthError, AuthIdentity, ProtectedResourceMetadata, TokenVerifier};

/// The well-known path of OAuth protected-resource metadata (RFC 9728).
pub const PROTECTED_RESOURCE_PATH: &str = "/.well-known/oauth-protected-resource";

/// Authorization for the HTTP transports: who verifies tokens, the metadata that tells clients
/// where to get them, and the scopes requests need.
#[derive(Clone)]
#[non_exhaustive]
pub struct AuthConfig {
    /// Checks each request's bearer token.
    pub verifier: Arc<dyn TokenVerifier>,
    /// The protected-resource metadata, served without authentication and named in every
    /// challenge. An empty `resource` is filled per request from `Host` and the endpoint.
    pub metadata: Option<ProtectedResourceMetadata>,
    /// Scopes every request needs.
    pub required_scopes: Vec<String>,
    /// Scopes a `tools/call` of a given tool needs, on top of `required_scopes`.
    pub tool_scopes: HashMap<String, Vec<String>>,
}

impl std::fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthConfig")
            .field("metadata", &self.metadata)
            .field("required_scopes", &self.required_scopes)
            .field("tool_scopes", &self.tool_scopes)
            .finish_non_exhaustive()
    }
}

impl AuthConfig {
    /// Authorization by `verifier`, with no metadata and no required scopes.
    pub fn new(verifier: impl TokenVerifier) -> Self {
        Self::from_arc(Arc::new(verifier))
    }

    /// Like [`new`](Self::new), with a shared verifier.
    pub fn from_arc(verifier: Arc<dyn TokenVerifier>) -> Self {
        AuthConfig {
            verifier,
            metadata: None,
            required_scopes: Vec::new(),
            tool_scopes: HashMap::new(),
        }
    }

    /// The same, serving `metadata` and naming it in challenges.
    pub fn with_metadata(mut self, metadata: ProtectedResourceMetadata) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// The same, with scopes every request needs.
    pub fn require_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The same, with scopes calls of `tool` need (403 `insufficient_scope` without them).
    pub fn tool_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        tool: impl Into<String>,
        scopes: I,
    ) -> Self {
        self.tool_scopes
            .insert(tool.into(), scopes.into_iter().map(Into::into).collect());
        self
    }

    /// The metadata document for a request to `host`, its `resource` filled when empty.
    pub(crate) fn metadata_for(&self, headers: &HeaderMap, endpoint: &str) -> Option<String> {
        let mut metadata = self.metadata.clone()?;
        if metadata.resource.is_empty() {
            metadata.resource = format!("http://{}{endpoint}", host(headers)?);
        }
        serde_json::to_string(&metadata).ok()
    }

    /// The URL of the metadata, path-specific for the endpoint (RFC 9728 §3.1).
    fn metadata_url(&self, headers: &HeaderMap, endpoint: &str) -> Option<String> {
        let metadata = self.metadata.as_ref()?;
        let resource = if metadata.resource.is_empty() {
            format!("http://{}{endpoint}", host(headers)?)
        } else {
            metadata.resource.clone()
        };
        let (scheme, rest) = resource.split_once("://")?;
        let (authority, path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        let path = path
            .split(['?', '#'])
            .next()
            .unwrap_or("")
            .trim_end_matches('/');
        Some(format!(
            "{scheme}://{authority}{PROTECTED_RESOURCE_PATH}{path}"
        ))
    }

    /// Checks the `Authorization` header and the scopes every request needs; `Err` is the
    /// 401/403/503 response to send.
    pub(crate) async fn authenticate(
        &self,
        headers: &HeaderMap,
        endpoint: &str,
    ) -> Result<Arc<AuthIdentity>, Refusal> {
        let token = bearer_token(headers);
        let result = match token {
            Some(token) => self.verifier.verify(token).await,
            None => Err(AuthError::InvalidToken(String::new())),
        };
        let identity = match result {
            Ok(identity) => identity,
            Err(error) => {
                if let AuthError::InvalidToken(why) | AuthError::Unavailable(why) = &error {
                    if !why.is_empty() {
                        tracing::info!("bearer token refused: {why}");
                    }
                }
                return Err(self.refusal(&error, token.is_none(), headers, endpoint));
            }
        };
        if missing_scopes(&identity, &self.required_scopes).is_some() {
            let error = AuthError::InsufficientScope {
                scope: self.required_scopes.join(" "),
            };
            return Err(self.refusal(&error, false, headers, endpoint));
        }
        Ok(Arc::new(identity))
    }

    /// Checks the scopes of each `tools/call` in `frame` against `identity`; `Err` is the 403.
    pub(crate) fn check_tool_scopes(
        &self,
        identity: &AuthIdentity,
        frame: &Frame,
        headers: &HeaderMap,
        endpoint: &str,
    ) -> Result<(), Refusal> {
        if self.tool_scopes.is_empty() {
            return Ok(());
        }
        let check = |message: &Message| -> Result<(), Refusal> {
            let Message::Request(request) = message else {
                return Ok(());
            };
            if request.method != "tools/call" {
                return Ok(());
            }
            #[derive(Deserialize)]
            struct Named<'a> {
                #[serde(borrow)]
                name: std::borrow::Cow<'a, str>,
            }
            let Some(name) = request
                .params
                .as_ref()
                .and_then(|p| serde_json::from_str::<Named<'_>>(p.get()).ok())
            else {
                return Ok(());
            };
            let Some(needed) = self.tool_scopes.get(name.name.as_ref()) else {
                return Ok(());
            };
            if missing_scopes(identity, needed).is_none() {
                return Ok(());
            }
            let mut scope: Vec<&str> = self.required_scopes.iter().map(String::as_str).collect();
            for s in needed {
                if !scope.contains(&s.as_str()) {
                    scope.push(s);
                }
            }
            let error = AuthError::InsufficientScope {
                scope: scope.join(" "),
            };
            Err(self.refusal(&error, false, headers, endpoint))
        };
        match frame {
            Frame::Single(m) => check(m),
            Frame::Batch(items) => items.iter().flatten().try_for_each(check),
        }
    }

    /// The response for a refused request, with its `WWW-Authenticate` challenge.
    fn refusal(
        &self,
        error: &AuthError,
        no_token: bool,
        headers: &HeaderMap,
        endpoint: &str,
    ) -> Refusal {
        let mut params: Vec<String> = Vec::new();
        let (status, message) = match error {
            // RFC 6750 §3.1: a request without any token gets no error code.
            AuthError::InvalidToken(_) if no_token => (StatusCode::UNAUTHORIZED, "Unauthorized"),
            AuthError::InvalidToken(_) => {
                params.push("error=\"invalid_token\"".into());
                (StatusCode::UNAUTHORIZED, "Unauthorized: invalid token")
            }
            AuthError::InsufficientScope { scope } => {
                params.push("error=\"insufficient_scope\"".into());
                params.push(format!("scope=\"{}\"", quote_safe(scope)));
                (StatusCode::FORBIDDEN, "Forbidden: insufficient scope")
            }
            AuthError::Unavailable(_) => {
                return Refusal::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    -32001,
                    "Service Unavailable: tokens cannot be verified now",
                )
            }
        };
        if !matches!(error, AuthError::InsufficientScope { .. }) && !self.required_scopes.is_empty()
        {
            params.push(format!(
                "scope=\"{}\"",
                quote_safe(&self.required_scopes.join(" "))
            ));
        }
        if let Some(url) = self.metadata_url(headers, endpoint) {
            params.push(format!("resource_metadata=\"{}\"", quote_safe(&url)));
        }
        let mut challenge = String::from("Bearer");
        if !params.is_empty() {
            challenge.push(' ');
            challenge.push_str(&params.join(", "));
        }
        let refusal = Refusal::new(status, -32001, message);
        match HeaderValue::from_str(&challenge) {
            Ok(value) => refusal.with_header(WWW_AUTHENTICATE, value),
            Err(_) => refusal,
        }
    }
}

/// The token of `Authorization: Bearer <token>` (scheme case-insensitive), if any.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, token) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .filter(|t| !t.is_empty())
}

/// The scopes of `needed` that `identity` lacks, or `None` when it has them all.
fn missing_scopes<'a>(identity: &AuthIdentity, needed: &'a [String]) -> Option<Vec<&'a str>> {
    let missing: Vec<&str> = needed
        .iter()
        .filter(|s| !identity.has_scope(s))
        .map(String::as_str)
        .collect();
    (!missing.is_empty()).then_some(missing)
}

fn host(headers: &HeaderMap) -> Option<&str> {
    headers.get(HOST).and_then(|h| h.to_str().ok())
}

fn quote_safe(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '"' && *c != '\\' && !c.is_control())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.append(*k, HeaderValue::from_str(v).expect("header"));
        }
        map
    }

    fn config() -> AuthConfig {
        AuthConfig::new(|t: &str| match t {
            "good" => Ok(AuthIdentity::new("alice", "https://as").with_scopes(["mcp"])),
            "admin" => Ok(AuthIdentity::new("root", "https://as").with_scopes(["mcp", "admin"])),
            _ => Err(AuthError::InvalidToken("no".into())),
        })
        .with_metadata(ProtectedResourceMetadata::new("", "https://as"))
        .require_scopes(["mcp"])
        .tool_scopes("wipe", ["admin"])
    }

    fn challenge(r: &Refusal) -> String {
        r.header()
            .expect("challenge")
            .to_str()
            .expect("ascii")
            .to_owned()
    }

    #[tokio::test]
    async fn challenges_follow_rfc_6750_and_9728() {
        let auth = config();
        let ok = auth
            .authenticate(&headers(&[("authorization", "bearer good")]), "/mcp")
            .await
            .expect("accepted");
        assert_eq!(ok.subject.as_deref(), Some("alice"));

        let none = auth
            .authenticate(&headers(&[("host", "h:1")]), "/mcp")
            .await
            .expect_err("no token");
        assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            challenge(&none),
            "Bearer scope=\"mcp\", resource_metadata=\"http://h:1/.well-known/oauth-protected-resource/mcp\""
        );
        let bad = auth
            .authenticate(
                &headers(&[("authorization", "Bearer bad"), ("host", "h:1")]),
                "/mcp",
            )
            .await
            .expect_err("bad token");
        assert!(challenge(&bad).starts_with("Bearer error=\"invalid_token\""));
    }

    #[test]
    fn tool_scopes_give_403_with_the_scopes_needed() {
        let auth = config();
        let frame = mcp_proto::jsonrpc::parse(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wipe"}}"#,
        )
        .expect("frame");
        let alice = AuthIdentity::new("alice", "https://as").with_scopes(["mcp"]);
        let root = AuthIdentity::new("root", "https://as").with_scopes(["mcp", "admin"]);
        let h = headers(&[("host", "h:1")]);
        let refused = auth
            .check_tool_scopes(&alice, &frame, &h, "/mcp")
            .expect_err("403");
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        let c = challenge(&refused);
        assert!(c.contains("error=\"insufficient_scope\""), "{c}");
        assert!(c.contains("scope=\"mcp admin\""), "{c}");
        assert!(c.contains("resource_metadata="), "{c}");
        assert!(auth.check_tool_scopes(&root, &frame, &h, "/mcp").is_ok());
    }

    #[tokio::test]
    async fn an_unreachable_authorization_server_is_a_503_not_a_login() {
        let auth =
            AuthConfig::new(|_: &str| Err(AuthError::Unavailable("keys unreachable".into())));
        let r = auth
            .authenticate(&headers(&[("authorization", "Bearer x")]), "/mcp")
            .await
            .expect_err("refused");
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(r.header().is_none(), "no challenge: the token may be fine");
    }

    #[test]
    fn the_metadata_url_is_path_specific() {
        let auth = config().with_metadata(ProtectedResourceMetadata::new(
            "https://mcp.example.com/tenant/mcp",
            "https://as",
        ));
        assert_eq!(
            auth.metadata_url(&HeaderMap::new(), "/mcp").as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp")
        );
    }
}
