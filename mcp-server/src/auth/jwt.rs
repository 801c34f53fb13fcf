//! JWT access tokens (RFC 9068) checked locally: the signature against the authorization
//! server's JWKS, then `iss`, `aud` (this server's resource, RFC 8707), `exp`/`nbf` with a small
//! leeway, and the scopes read into the identity.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use serde::Deserialize;

use super::discovery::{discover_with, same_issuer};
use super::fetch::{FetchError, Fetcher};
use super::jwks::{KeyCache, ALGORITHMS};
use super::{AuthError, AuthIdentity, TokenVerifier, VerifyFuture};

/// Longest token accepted, in bytes.
const MAX_TOKEN: usize = 16 * 1024;

/// What a [`JwtVerifier`] accepts.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct JwtConfig {
    /// The issuer tokens must name (`iss`), exactly (a trailing slash aside).
    pub issuer: String,
    /// Audiences accepted (`aud` must name one): this server's canonical URI.
    pub audiences: Vec<String>,
    /// Where the signing keys are; `None` to learn it from the issuer's metadata
    /// ([`JwtVerifier::discover`]).
    pub jwks_uri: Option<String>,
    /// Clock skew allowed on `exp` and `nbf` (default 60 s).
    pub leeway: Duration,
    /// An unknown `kid` refetches the keys at most this often (default 30 s).
    pub min_refetch: Duration,
    /// Keys older than this are refetched on next use (default 1 h).
    pub max_key_age: Duration,
    /// Time allowed for each request to the authorization server (default 10 s).
    pub timeout: Duration,
}

impl JwtConfig {
    /// Tokens of `issuer` for `audience`, with the default leeway and key caching.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        JwtConfig {
            issuer: issuer.into(),
            audiences: vec![audience.into()],
            jwks_uri: None,
            leeway: Duration::from_secs(60),
            min_refetch: Duration::from_secs(30),
            max_key_age: Duration::from_secs(3600),
            timeout: Duration::from_secs(10),
        }
    }

    /// The same, with the keys at `jwks_uri` (no discovery).
    pub fn with_jwks_uri(mut self, jwks_uri: impl Into<String>) -> Self {
        self.jwks_uri = Some(jwks_uri.into());
        self
    }

    /// The same, with another minimum time between key refetches.
    pub fn with_min_refetch(mut self, min_refetch: Duration) -> Self {
        self.min_refetch = min_refetch;
        self
    }

    /// The same, with another clock-skew allowance.
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }
}

/// Verifies JWT access tokens against the issuer's published keys.
pub struct JwtVerifier {
    config: JwtConfig,
    keys: KeyCache,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct Header {
    alg: String,
    #[serde(default)]
    kid: Option<String>,
    #[serde(default)]
    typ: Option<String>,
    #[serde(default)]
    crit: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
struct Claims {
    #[serde(default)]
    iss: Option<String>,
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    aud: Option<OneOrMany>,
    #[serde(default)]
    exp: Option<f64>,
    #[serde(default)]
    nbf: Option<f64>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<OneOrMany>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    azp: Option<String>,
    #[serde(default)]
    cnf: Option<serde_json::Value>,
}

fn invalid(why: impl Into<String>) -> AuthError {
    AuthError::InvalidToken(why.into())
}

fn decode_part(part: &str) -> Result<Vec<u8>, AuthError> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| invalid("not base64url"))
}

pub(crate) fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Whether `audiences` (from a token) names one of `accepted` (a trailing slash aside).
pub(crate) fn audience_matches(audiences: &[String], accepted: &[String]) -> bool {
    audiences.iter().any(|a| {
        accepted
            .iter()
            .any(|b| a.trim_end_matches('/') == b.trim_end_matches('/'))
    })
}

impl JwtVerifier {
    /// A verifier with the keys at `config.jwks_uri`, which must be set (see
    /// [`discover`](Self::discover) otherwise).
    pub fn new(config: JwtConfig) -> Result<Self, FetchError> {
        let fetcher = Fetcher::new(config.timeout)?;
        let jwks_uri = config
            .jwks_uri
            .clone()
            .ok_or_else(|| FetchError::Url("(no jwks_uri given)".into()))?;
        Ok(Self::with_fetcher(config, fetcher, jwks_uri))
    }

    /// A verifier that first reads the issuer's metadata (RFC 8414 / OpenID discovery) for its
    /// `jwks_uri` when the config names none.
    pub async fn discover(config: JwtConfig) -> Result<Self, FetchError> {
        let fetcher = Fetcher::new(config.timeout)?;
        let jwks_uri = match &config.jwks_uri {
            Some(uri) => uri.clone(),
            None => {
                let metadata = discover_with(&fetcher, &config.issuer).await?;
                metadata.jwks_uri.ok_or_else(|| FetchError::Malformed {
                    url: config.issuer.clone(),
                    detail: "the authorization server's metadata has no jwks_uri".into(),
                })?
            }
        };
        Ok(Self::with_fetcher(config, fetcher, jwks_uri))
    }

    fn with_fetcher(config: JwtConfig, fetcher: Fetcher, jwks_uri: String) -> Self {
        let keys = KeyCache::new(jwks_uri, fetcher, config.min_refetch, config.max_key_age);
        JwtVerifier { config, keys }
    }

    /// The checks, in order: shape, header, signature, then claims.
    async fn check(&self, token: &str) -> Result<AuthIdentity, AuthError> {
        if token.len() > MAX_TOKEN {
            return Err(invalid("too long"));
        }
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(sig), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid("not a JWS in compact form"));
        };
        let header: Header = serde_json::from_slice(&decode_part(header)?)
            .map_err(|_| invalid("the JWT header is not JSON"))?;
        if header.crit.is_some() {
            return Err(invalid("the JWT names critical extensions we do not know"));
        }
        if !ALGORITHMS.contains(&header.alg.as_str()) {
            return Err(invalid(format!(
                "algorithm {:?} is not accepted",
                header.alg
            )));
        }
        if let Some(typ) = &header.typ {
            let typ = typ.to_ascii_lowercase();
            if !matches!(typ.as_str(), "at+jwt" | "application/at+jwt" | "jwt") {
                return Err(invalid(format!("typ {typ:?} is not an access token")));
            }
        }
        let signature = decode_part(sig)?;
        let signed = &token.as_bytes()[..token.len() - sig.len() - 1];
        let keys = self
            .keys
            .keys_for(header.kid.as_deref(), &header.alg)
            .await?;
        if !keys
            .iter()
            .any(|k| k.verify(&header.alg, signed, &signature))
        {
            return Err(invalid("bad signature"));
        }
        let claims: Claims = serde_json::from_slice(&decode_part(payload)?)
            .map_err(|_| invalid("the JWT claims are not a JSON object of the expected shape"))?;
        self.check_claims(claims)
    }

    fn check_claims(&self, claims: Claims) -> Result<AuthIdentity, AuthError> {
        let leeway = self.config.leeway.as_secs_f64();
        let now = now_secs();
        match &claims.iss {
            Some(iss) if same_issuer(iss, &self.config.issuer) => {}
            other => {
                return Err(invalid(format!(
                    "issued by {other:?}, not {:?}",
                    self.config.issuer
                )))
            }
        }
        let audiences = claims.aud.map(OneOrMany::into_vec).unwrap_or_default();
        if !audience_matches(&audiences, &self.config.audiences) {
            return Err(invalid(format!(
                "for audience {audiences:?}, not this resource {:?}",
                self.config.audiences
            )));
        }
        let exp = claims.exp.ok_or_else(|| invalid("no exp"))?;
        if now > exp + leeway {
            return Err(invalid("expired"));
        }
        if claims.nbf.is_some_and(|nbf| now + leeway < nbf) {
            return Err(invalid("not valid yet (nbf)"));
        }
        if claims.cnf.is_some() {
            return Err(invalid(
                "sender-constrained (cnf); only bearer tokens are accepted",
            ));
        }
        let scopes = match (claims.scope, claims.scp) {
            (Some(scope), _) => scope.split_whitespace().map(str::to_owned).collect(),
            (None, Some(scp)) => scp
                .into_vec()
                .iter()
                .flat_map(|s| s.split_whitespace())
                .map(str::to_owned)
                .collect(),
            (None, None) => Vec::new(),
        };
        Ok(AuthIdentity {
            subject: claims.sub,
            issuer: claims.iss,
            client_id: claims.client_id.or(claims.azp),
            scopes,
            audiences,
            expires_at: Some(exp.max(0.0) as u64),
        })
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verifier() -> JwtVerifier {
        let config = JwtConfig::new("https://as.example", "http://127.0.0.1:1/mcp")
            .with_jwks_uri("http://127.0.0.1:1/jwks");
        JwtVerifier::new(config).expect("verifier")
    }

    fn claims(json: serde_json::Value) -> Claims {
        serde_json::from_value(json).expect("claims")
    }

    #[tokio::test]
    async fn malformed_tokens_are_refused_before_any_fetch() {
        let v = verifier();
        for token in ["", "a.b", "a.b.c.d", "!!.e30.e30", "e30.e30.e30"] {
            assert!(
                matches!(v.check(token).await, Err(AuthError::InvalidToken(_))),
                "{token}"
            );
        }
        // alg none and HMAC are never accepted.
        let none = "eyJhbGciOiJub25lIn0.e30.";
        assert!(
            matches!(v.check(none).await, Err(AuthError::InvalidToken(m)) if m.contains("algorithm"))
        );
        let hs = "eyJhbGciOiJIUzI1NiJ9.e30.AAAA";
        assert!(
            matches!(v.check(hs).await, Err(AuthError::InvalidToken(m)) if m.contains("algorithm"))
        );
    }

    #[test]
    fn claims_are_checked() {
        let v = verifier();
        let now = now_secs() as u64;
        let good = serde_json::json!({
            "iss": "https://as.example", "sub": "alice", "aud": ["x", "http://127.0.0.1:1/mcp/"],
            "exp": now + 300, "scope": "a b", "client_id": "c1"
        });
        let id = v.check_claims(claims(good.clone())).expect("accepted");
        assert_eq!(id.subject.as_deref(), Some("alice"));
        assert_eq!(id.scopes, ["a", "b"]);
        assert_eq!(id.client_id.as_deref(), Some("c1"));
        let with = |key: &str, value: serde_json::Value| {
            let mut c = good.clone();
            c[key] = value;
            v.check_claims(claims(c))
        };
        assert!(with("iss", "https://other".into()).is_err());
        assert!(with("aud", "http://127.0.0.1:1/other".into()).is_err());
        assert!(with("exp", (now - 3600).into()).is_err());
        // Inside the leeway.
        assert!(with("exp", (now - 10).into()).is_ok());
        assert!(with("nbf", (now + 3600).into()).is_err());
        assert!(with("cnf", serde_json::json!({"jkt": "x"})).is_err());
        let mut no_exp = good.clone();
        no_exp.as_object_mut().expect("object").remove("exp");
        assert!(v.check_claims(claims(no_exp)).is_err());
    }
}
