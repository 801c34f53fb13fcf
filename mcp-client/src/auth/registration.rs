//! How the client gets a `client_id` at an authorization server, in the spec's priority: a
//! pre-registered client from config, a Client ID Metadata Document URL where the server
//! supports it, else dynamic client registration (RFC 7591, with `application_type`).

use serde_json::{json, Value};

use super::discovery::ServerMetadata;
use super::fetch::AuthHttp;
use super::store::ClientRegistration;
use super::token::oauth_error;
use super::AuthError;

/// Registers with `metadata`'s registration endpoint as a native app redirecting to
/// `redirect_uri`. `scopes` (the resource's `scopes_supported`, when known) become the
/// registration's `scope`; without them none is sent, since some servers limit a client to the
/// scopes it registered with and a later step-up would be refused.
pub(crate) async fn register(
    http: &AuthHttp,
    metadata: &ServerMetadata,
    client_name: &str,
    redirect_uri: &str,
    scopes: &[String],
) -> Result<ClientRegistration, AuthError> {
    let Some(url) = &metadata.registration_endpoint else {
        return Err(AuthError::Unsupported {
            issuer: metadata.issuer.clone(),
            reason: "it offers no dynamic client registration and no client id is configured \
                     (set the server's OAuth client id in the config)"
                .into(),
        });
    };
    let supported = metadata
        .token_endpoint_auth_methods_supported
        .clone()
        .unwrap_or_default();
    let method = ["none", "client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|m| supported.is_empty() || supported.iter().any(|s| s == m))
        .unwrap_or("none");
    let mut body = json!({
        "client_name": client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": "native",
    });
    if !scopes.is_empty() {
        body["scope"] = Value::String(scopes.join(" "));
    }
    let fail = |detail: String| AuthError::Endpoint {
        what: "client registration",
        url: url.clone(),
        detail,
    };
    let answer = http.post_json(url, &body).await.map_err(fail)?;
    let parsed = answer.json();
    if !answer.status.is_success() {
        let detail = match &parsed {
            Ok(map) => oauth_error(map),
            Err(reason) => reason.clone(),
        };
        return Err(fail(format!("HTTP {}: {detail}", answer.status.as_u16())));
    }
    let map = parsed.map_err(fail)?;
    let client_id = map
        .get("client_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| fail("the answer has no client_id".into()))?;
    Ok(ClientRegistration {
        client_id: client_id.to_owned(),
        client_secret: map
            .get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_owned),
        token_endpoint_auth_method: map
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .map(str::to_owned),
        redirect_uri: Some(redirect_uri.to_owned()),
    })
}
