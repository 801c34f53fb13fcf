//! OAuth 2.0 Protected Resource Metadata (RFC 9728): where clients learn which authorization
//! servers issue tokens for this server and which scopes exist.

use serde::{Deserialize, Serialize};

/// The protected-resource metadata document this server serves at
/// `/.well-known/oauth-protected-resource` (and at the path-specific URI of its endpoint).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The canonical URI of this MCP server (what tokens' audience must name, RFC 8707).
    pub resource: String,
    /// The issuers of the authorization servers that issue tokens for it (at least one).
    pub authorization_servers: Vec<String>,
    /// The scopes clients may ask for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// How a token may be presented: only `header` (never the query string).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bearer_methods_supported: Vec<String>,
    /// A name for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
}

impl ProtectedResourceMetadata {
    /// Metadata for `resource`, whose tokens `authorization_server` issues, presented in the
    /// `Authorization` header.
    pub fn new(resource: impl Into<String>, authorization_server: impl Into<String>) -> Self {
        ProtectedResourceMetadata {
            resource: resource.into(),
            authorization_servers: vec![authorization_server.into()],
            scopes_supported: Vec::new(),
            bearer_methods_supported: vec!["header".into()],
            resource_name: None,
        }
    }

    /// The same metadata listing these scopes as supported.
    pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }
}
