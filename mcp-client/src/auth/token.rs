//! Requests to the token endpoint (authorization code, refresh, client credentials) with the
//! client authentication the registration and the server agree on, and the parsing of the
//! answer: a JSON token response, or a clear error (an OAuth error object, an HTML page, ...).

use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;

use super::challenge::split_scopes;
use super::discovery::ServerMetadata;
use super::fetch::AuthHttp;
use super::form::{encode, encode_pairs};
use super::jwt::{JwtSigningKey, ASSERTION_TYPE};
use super::store::{ClientRegistration, TokenSet};
use super::AuthError;

/// Seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// How the client proves who it is at the token endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClientAuthMethod {
    /// A public client: `client_id` in the body.
    None,
    /// HTTP Basic with the client id and secret.
    SecretBasic,
    /// `client_id` and `client_secret` in the body.
    SecretPost,
    /// A signed JWT assertion.
    PrivateKeyJwt,
}

impl ClientAuthMethod {
    /// The registered name of the method.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ClientAuthMethod::None => "none",
            ClientAuthMethod::SecretBasic => "client_secret_basic",
            ClientAuthMethod::SecretPost => "client_secret_post",
            ClientAuthMethod::PrivateKeyJwt => "private_key_jwt",
        }
    }

    /// The method for this registration at this server: a signing key means `private_key_jwt`;
    /// else what the registration says; else, with a secret, Basic unless the server lists
    /// only `client_secret_post`; without a secret, `none`.
    pub(crate) fn choose(
        registration: &ClientRegistration,
        key: Option<&JwtSigningKey>,
        metadata: &ServerMetadata,
    ) -> Self {
        if key.is_some() {
            return ClientAuthMethod::PrivateKeyJwt;
        }
        match registration.token_endpoint_auth_method.as_deref() {
            Some("client_secret_basic") if registration.client_secret.is_some() => {
                return ClientAuthMethod::SecretBasic
            }
            Some("client_secret_post") if registration.client_secret.is_some() => {
                return ClientAuthMethod::SecretPost
            }
            Some("none") => return ClientAuthMethod::None,
            _ => {}
        }
        if registration.client_secret.is_none() {
            return ClientAuthMethod::None;
        }
        let supported = metadata
            .token_endpoint_auth_methods_supported
            .clone()
            .unwrap_or_else(|| vec!["client_secret_basic".into()]);
        if supported.iter().any(|m| m == "client_secret_basic") {
            ClientAuthMethod::SecretBasic
        } else if supported.iter().any(|m| m == "client_secret_post") {
            ClientAuthMethod::SecretPost
        } else {
            ClientAuthMethod::SecretBasic
        }
    }
}

/// One token request: the grant's parameters; client authentication is added here.
pub(crate) async fn request_tokens(
    http: &AuthHttp,
    metadata: &ServerMetadata,
    registration: &ClientRegistration,
    key: Option<&JwtSigningKey>,
    params: Vec<(&'static str, String)>,
    requested_scopes: &[String],
) -> Result<TokenSet, AuthError> {
    let (url, map) = post_token_endpoint(http, metadata, registration, key, params).await?;
    let fail = |detail: String| AuthError::Endpoint {
        what: "token request",
        url: url.clone(),
        detail,
    };
    let access_token = map
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| fail("the answer has no access_token".into()))?
        .to_owned();
    let token_type = map.get("token_type").and_then(Value::as_str).unwrap_or("");
    if !token_type.eq_ignore_ascii_case("bearer") {
        return Err(fail(format!("token_type {token_type:?} is not Bearer")));
    }
    let scopes = match map.get("scope").and_then(Value::as_str) {
        Some(s) => split_scopes(Some(s)),
        None => requested_scopes.to_vec(),
    };
    Ok(TokenSet {
        access_token,
        refresh_token: map
            .get("refresh_token")
            .and_then(Value::as_str)
            .map(str::to_owned),
        expires_at: map
            .get("expires_in")
            .and_then(Value::as_u64)
            .map(|s| now().saturating_add(s)),
        issued_at: Some(now()),
        scopes,
    })
}

/// POSTs `params` to `metadata`'s token endpoint with the client's authentication and returns
/// the JSON answer (an OAuth error or a non-JSON body is an error).
pub(crate) async fn post_token_endpoint(
    http: &AuthHttp,
    metadata: &ServerMetadata,
    registration: &ClientRegistration,
    key: Option<&JwtSigningKey>,
    mut params: Vec<(&'static str, String)>,
) -> Result<(String, serde_json::Map<String, Value>), AuthError> {
    let url = metadata.token_endpoint.clone();
    let method = ClientAuthMethod::choose(registration, key, metadata);
    let mut basic = None;
    tracing::debug!(
        "token request to {url} with client authentication {}",
        method.name()
    );
    match method {
        ClientAuthMethod::None => params.push(("client_id", registration.client_id.clone())),
        ClientAuthMethod::SecretPost => {
            params.push(("client_id", registration.client_id.clone()));
            params.push((
                "client_secret",
                registration.client_secret.clone().unwrap_or_default(),
            ));
        }
        ClientAuthMethod::SecretBasic => {
            let secret = registration.client_secret.clone().unwrap_or_default();
            basic = Some(STANDARD.encode(format!(
                "{}:{}",
                encode(&registration.client_id),
                encode(&secret)
            )));
        }
        ClientAuthMethod::PrivateKeyJwt => {
            let Some(key) = key else {
                return Err(AuthError::Config {
                    reason: "private_key_jwt needs a signing key".into(),
                });
            };
            let audience = metadata.issuer.clone();
            params.push(("client_id", registration.client_id.clone()));
            params.push(("client_assertion_type", ASSERTION_TYPE.into()));
            params.push((
                "client_assertion",
                key.assertion(&registration.client_id, &audience)?,
            ));
        }
    }
    let pairs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let fail = |detail: String| AuthError::Endpoint {
        what: "token request",
        url: url.clone(),
        detail,
    };
    let answer = http
        .post_form(&url, encode_pairs(&pairs), basic)
        .await
        .map_err(fail)?;
    let body = answer.json();
    if !answer.status.is_success() {
        let detail = match &body {
            Ok(map) => oauth_error(map),
            Err(reason) => reason.clone(),
        };
        return Err(fail(format!("HTTP {}: {detail}", answer.status.as_u16())));
    }
    let map = body.map_err(fail)?;
    Ok((url, map))
}

/// `error: description` from an OAuth error object.
pub(crate) fn oauth_error(map: &serde_json::Map<String, Value>) -> String {
    let error = map
        .get("error")
        .and_then(Value::as_str)
        .unwrap_or("no error code");
    match map.get("error_description").and_then(Value::as_str) {
        Some(d) => format!("{error}: {d}"),
        None => error.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_choice() {
        let meta = ServerMetadata {
            token_endpoint_auth_methods_supported: Some(vec!["client_secret_post".into()]),
            ..ServerMetadata::default()
        };
        let mut reg = ClientRegistration {
            client_id: "c".into(),
            ..Default::default()
        };
        assert_eq!(
            ClientAuthMethod::choose(&reg, None, &meta),
            ClientAuthMethod::None
        );
        reg.client_secret = Some("s".into());
        assert_eq!(
            ClientAuthMethod::choose(&reg, None, &meta),
            ClientAuthMethod::SecretPost
        );
        reg.token_endpoint_auth_method = Some("client_secret_basic".into());
        assert_eq!(
            ClientAuthMethod::choose(&reg, None, &meta),
            ClientAuthMethod::SecretBasic
        );
    }
}
