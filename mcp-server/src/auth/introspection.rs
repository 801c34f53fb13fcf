//! Opaque (or any) access tokens checked by asking the authorization server (RFC 7662 token
//! introspection), authenticating as a client with `client_secret_basic`.

use std::time::Duration;

use serde::Deserialize;

use super::discovery::{discover_with, same_issuer};
use super::fetch::{FetchError, Fetcher};
use super::jwt::{audience_matches, now_secs};
use super::{AuthError, AuthIdentity, TokenVerifier, VerifyFuture};

/// What an [`IntrospectionVerifier`] asks and accepts.
#[derive(Clone)]
#[non_exhaustive]
pub struct IntrospectionConfig {
    /// The authorization server's issuer; a token whose introspection names another `iss` is
    /// refused.
    pub issuer: String,
    /// The introspection endpoint; `None` to learn it from the issuer's metadata.
    pub endpoint: Option<String>,
    /// This server's client id at the authorization server.
    pub client_id: String,
    /// Its client secret.
    pub client_secret: String,
    /// Audiences accepted (the answer's `aud` must name one); empty accepts a token without
    /// `aud` only when [`require_audience`](Self::require_audience) is off.
    pub audiences: Vec<String>,
    /// Refuse an active token whose answer carries no `aud` (default true: MCP servers must
    /// check the audience).
    pub require_audience: bool,
    /// Time allowed for each introspection (default 10 s).
    pub timeout: Duration,
}

impl std::fmt::Debug for IntrospectionConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionConfig")
            .field("issuer", &self.issuer)
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.client_id)
            .field("audiences", &self.audiences)
            .finish_non_exhaustive()
    }
}

impl IntrospectionConfig {
    /// Introspection at `issuer` (endpoint discovered) as client `client_id`, accepting tokens
    /// for `audience`.
    pub fn new(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        IntrospectionConfig {
            issuer: issuer.into(),
            endpoint: None,
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            audiences: vec![audience.into()],
            require_audience: true,
            timeout: Duration::from_secs(10),
        }
    }

    /// The same, with the endpoint given (no discovery).
    pub fn with_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = Some(endpoint.into());
        self
    }
}

/// Verifies tokens with RFC 7662 introspection at the authorization server.
pub struct IntrospectionVerifier {
    config: IntrospectionConfig,
    endpoint: String,
    fetcher: Fetcher,
}

impl std::fmt::Debug for IntrospectionVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionVerifier")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
struct Introspection {
    active: bool,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    aud: Option<OneOrMany>,
    #[serde(default)]
    iss: Option<String>,
    #[serde(default)]
    exp: Option<f64>,
    #[serde(default)]
    nbf: Option<f64>,
    #[serde(default)]
    token_type: Option<String>,
}

impl IntrospectionVerifier {
    /// A verifier; reads the issuer's metadata for the endpoint when the config names none.
    pub async fn discover(config: IntrospectionConfig) -> Result<Self, FetchError> {
        let fetcher = Fetcher::new(config.timeout)?;
        let endpoint = match &config.endpoint {
            Some(e) => e.clone(),
            None => discover_with(&fetcher, &config.issuer)
                .await?
                .introspection_endpoint
                .ok_or_else(|| FetchError::Malformed {
                    url: config.issuer.clone(),
                    detail: "the authorization server's metadata has no introspection_endpoint"
                        .into(),
                })?,
        };
        Ok(IntrospectionVerifier {
            config,
            endpoint,
            fetcher,
        })
    }

    async fn check(&self, token: &str) -> Result<AuthIdentity, AuthError> {
        let answer: Introspection = self
            .fetcher
            .post_form(
                &self.endpoint,
                &[("token", token), ("token_type_hint", "access_token")],
                Some((&self.config.client_id, &self.config.client_secret)),
            )
            .await
            .map_err(|e| AuthError::Unavailable(e.to_string()))?;
        if !answer.active {
            return Err(AuthError::InvalidToken("not active".into()));
        }
        if answer
            .token_type
            .as_deref()
            .is_some_and(|t| !t.eq_ignore_ascii_case("bearer"))
        {
            return Err(AuthError::InvalidToken(format!(
                "a {:?} token, not a bearer token",
                answer.token_type.unwrap_or_default()
            )));
        }
        if answer
            .iss
            .as_deref()
            .is_some_and(|iss| !same_issuer(iss, &self.config.issuer))
        {
            return Err(AuthError::InvalidToken(format!(
                "issued by {:?}, not {:?}",
                answer.iss, self.config.issuer
            )));
        }
        let audiences = match answer.aud {
            Some(OneOrMany::One(a)) => vec![a],
            Some(OneOrMany::Many(v)) => v,
            None => Vec::new(),
        };
        let audience_ok = if audiences.is_empty() {
            !self.config.require_audience
        } else {
            audience_matches(&audiences, &self.config.audiences)
        };
        if !audience_ok {
            return Err(AuthError::InvalidToken(format!(
                "for audience {audiences:?}, not this resource {:?}",
                self.config.audiences
            )));
        }
        let now = now_secs();
        if answer.exp.is_some_and(|exp| now > exp) {
            return Err(AuthError::InvalidToken("expired".into()));
        }
        if answer.nbf.is_some_and(|nbf| now < nbf) {
            return Err(AuthError::InvalidToken("not valid yet (nbf)".into()));
        }
        Ok(AuthIdentity {
            subject: answer.sub,
            issuer: answer.iss.or_else(|| Some(self.config.issuer.clone())),
            client_id: answer.client_id,
            scopes: answer
                .scope
                .as_deref()
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            audiences,
            expires_at: answer.exp.map(|e| e.max(0.0) as u64),
        })
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}
