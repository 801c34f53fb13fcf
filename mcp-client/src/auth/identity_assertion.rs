//! Enterprise-managed authorization (SEP-990, the extension
//! `io.modelcontextprotocol/enterprise-managed-authorization`): the user's ID token from the
//! enterprise identity provider is exchanged there (RFC 8693 token exchange) for an Identity
//! Assertion JWT Authorization Grant (ID-JAG) addressed to the MCP server's authorization
//! server, which the client then presents with the JWT bearer grant (RFC 7523).

use std::fmt;

use serde_json::Value;

use super::discovery::ServerMetadata;
use super::fetch::AuthHttp;
use super::store::ClientRegistration;
use super::token::post_token_endpoint;
use super::AuthError;

/// The token-exchange grant type.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The token type of an ID-JAG.
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// The token type of an OpenID Connect ID token.
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The JWT bearer grant type.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// What the client holds from the enterprise identity provider.
#[derive(Clone)]
pub struct IdentityAssertion {
    /// The identity provider's token endpoint.
    pub idp_token_endpoint: String,
    /// The user's ID token (never printed).
    pub id_token: String,
    /// Our client id at the identity provider.
    pub idp_client_id: Option<String>,
    /// Our client secret at the identity provider (never printed).
    pub idp_client_secret: Option<String>,
}

impl fmt::Debug for IdentityAssertion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdentityAssertion")
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client_id", &self.idp_client_id)
            .finish_non_exhaustive()
    }
}

/// Exchanges the ID token for an ID-JAG for `audience` (the authorization server's issuer) and
/// `resource` (the MCP server).
pub(crate) async fn exchange(
    http: &AuthHttp,
    assertion: &IdentityAssertion,
    audience: &str,
    resource: &str,
    scopes: &[String],
) -> Result<String, AuthError> {
    let idp = ServerMetadata {
        issuer: assertion.idp_token_endpoint.clone(),
        token_endpoint: assertion.idp_token_endpoint.clone(),
        ..ServerMetadata::default()
    };
    let client = ClientRegistration {
        client_id: assertion.idp_client_id.clone().unwrap_or_default(),
        client_secret: assertion.idp_client_secret.clone(),
        ..ClientRegistration::default()
    };
    let mut params = vec![
        ("grant_type", TOKEN_EXCHANGE.to_owned()),
        ("requested_token_type", ID_JAG.to_owned()),
        ("audience", audience.to_owned()),
        ("resource", resource.to_owned()),
        ("subject_token", assertion.id_token.clone()),
        ("subject_token_type", ID_TOKEN.to_owned()),
    ];
    if !scopes.is_empty() {
        params.push(("scope", scopes.join(" ")));
    }
    let (url, map) = post_token_endpoint(http, &idp, &client, None, params).await?;
    let fail = |detail: String| AuthError::Endpoint {
        what: "token exchange",
        url: url.clone(),
        detail,
    };
    let issued = map
        .get("issued_token_type")
        .and_then(Value::as_str)
        .unwrap_or("");
    if issued != ID_JAG {
        return Err(fail(format!(
            "issued_token_type {issued:?} is not an ID-JAG"
        )));
    }
    map.get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| fail("the answer has no access_token (the ID-JAG)".into()))
}
