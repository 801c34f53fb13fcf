//! The authorization server's signing keys (a JWK Set, RFC 7517), fetched from `jwks_uri` and
//! cached. An unknown `kid` refetches the set (key rotation), at most once per
//! `min_refetch`, one fetch at a time however many requests wait; a set older than `max_age`
//! is refetched on next use. Signatures are checked with ring (already in the tree for rustls).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use mcp_proto::sync::lock;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
use serde::Deserialize;

use super::fetch::Fetcher;
use super::AuthError;

/// At most this many keys are kept from one JWK Set.
const MAX_KEYS: usize = 32;

/// The JWS algorithms accepted: asymmetric only (never `none`, never HMAC with a public key).
pub(crate) const ALGORITHMS: [&str; 9] = [
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA",
];

#[derive(Deserialize)]
struct JwkSet {
    #[serde(default)]
    keys: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct Jwk {
    kty: String,
    #[serde(default)]
    kid: Option<String>,
    #[serde(default)]
    alg: Option<String>,
    #[serde(default, rename = "use")]
    usage: Option<String>,
    #[serde(default)]
    crv: Option<String>,
    #[serde(default)]
    n: Option<String>,
    #[serde(default)]
    e: Option<String>,
    #[serde(default)]
    x: Option<String>,
    #[serde(default)]
    y: Option<String>,
}

#[derive(Clone, Debug)]
enum PublicKey {
    Rsa { n: Vec<u8>, e: Vec<u8> },
    P256(Vec<u8>),
    P384(Vec<u8>),
    Ed25519(Vec<u8>),
}

/// One public key of the set, ready to check signatures.
#[derive(Clone, Debug)]
pub(crate) struct VerifyingKey {
    kid: Option<String>,
    alg: Option<String>,
    key: PublicKey,
}

fn b64(field: Option<&String>) -> Option<Vec<u8>> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(field?.trim_end_matches('='))
        .ok()
}

impl VerifyingKey {
    /// A key from one JWK; `None` for keys we cannot or must not use (encryption keys,
    /// symmetric keys, unknown curves, broken fields).
    fn from_jwk(value: serde_json::Value) -> Option<Self> {
        let jwk: Jwk = serde_json::from_value(value).ok()?;
        if jwk.usage.as_deref().is_some_and(|u| u != "sig") {
            return None;
        }
        let key = match (jwk.kty.as_str(), jwk.crv.as_deref()) {
            ("RSA", _) => PublicKey::Rsa {
                n: b64(jwk.n.as_ref())?,
                e: b64(jwk.e.as_ref())?,
            },
            ("EC", Some(crv @ ("P-256" | "P-384"))) => {
                let (x, y) = (b64(jwk.x.as_ref())?, b64(jwk.y.as_ref())?);
                let size = if crv == "P-256" { 32 } else { 48 };
                if x.len() != size || y.len() != size {
                    return None;
                }
                let mut point = Vec::with_capacity(1 + 2 * size);
                point.push(0x04);
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                if crv == "P-256" {
                    PublicKey::P256(point)
                } else {
                    PublicKey::P384(point)
                }
            }
            ("OKP", Some("Ed25519")) => PublicKey::Ed25519(b64(jwk.x.as_ref())?),
            _ => return None,
        };
        Some(VerifyingKey {
            kid: jwk.kid,
            alg: jwk.alg,
            key,
        })
    }

    /// Whether this key may check a signature made with `alg` (and says the `kid` it has).
    fn fits(&self, kid: Option<&str>, alg: &str) -> bool {
        if kid.is_some() && self.kid.as_deref() != kid {
            return false;
        }
        if self.alg.as_deref().is_some_and(|a| a != alg) {
            return false;
        }
        matches!(
            (&self.key, alg),
            (
                PublicKey::Rsa { .. },
                "RS256" | "RS384" | "RS512" | "PS256" | "PS384" | "PS512"
            ) | (PublicKey::P256(_), "ES256")
                | (PublicKey::P384(_), "ES384")
                | (PublicKey::Ed25519(_), "EdDSA")
        )
    }

    /// Checks `signature` over `message` made with `alg`.
    pub(crate) fn verify(&self, alg: &str, message: &[u8], signature_bytes: &[u8]) -> bool {
        let rsa = |params: &'static signature::RsaParameters, n: &[u8], e: &[u8]| {
            RsaPublicKeyComponents { n, e }
                .verify(params, message, signature_bytes)
                .is_ok()
        };
        let other = |algorithm: &'static dyn signature::VerificationAlgorithm, key: &[u8]| {
            UnparsedPublicKey::new(algorithm, key)
                .verify(message, signature_bytes)
                .is_ok()
        };
        match (&self.key, alg) {
            (PublicKey::Rsa { n, e }, "RS256") => rsa(&signature::RSA_PKCS1_2048_8192_SHA256, n, e),
            (PublicKey::Rsa { n, e }, "RS384") => rsa(&signature::RSA_PKCS1_2048_8192_SHA384, n, e),
            (PublicKey::Rsa { n, e }, "RS512") => rsa(&signature::RSA_PKCS1_2048_8192_SHA512, n, e),
            (PublicKey::Rsa { n, e }, "PS256") => rsa(&signature::RSA_PSS_2048_8192_SHA256, n, e),
            (PublicKey::Rsa { n, e }, "PS384") => rsa(&signature::RSA_PSS_2048_8192_SHA384, n, e),
            (PublicKey::Rsa { n, e }, "PS512") => rsa(&signature::RSA_PSS_2048_8192_SHA512, n, e),
            (PublicKey::P256(k), "ES256") => other(&signature::ECDSA_P256_SHA256_FIXED, k),
            (PublicKey::P384(k), "ES384") => other(&signature::ECDSA_P384_SHA384_FIXED, k),
            (PublicKey::Ed25519(k), "EdDSA") => other(&signature::ED25519, k),
            _ => false,
        }
    }
}

/// Parses a JWK Set document into the keys we can use (at most [`MAX_KEYS`]).
pub(crate) fn parse_set(value: serde_json::Value) -> Vec<VerifyingKey> {
    let set: JwkSet = serde_json::from_value(value).unwrap_or(JwkSet { keys: Vec::new() });
    set.keys
        .into_iter()
        .filter_map(VerifyingKey::from_jwk)
        .take(MAX_KEYS)
        .collect()
}

#[derive(Default)]
struct Cached {
    keys: Arc<Vec<VerifyingKey>>,
    fetched_at: Option<Instant>,
    last_attempt: Option<Instant>,
}

/// The cached key set of one `jwks_uri`.
pub(crate) struct KeyCache {
    jwks_uri: String,
    fetcher: Fetcher,
    min_refetch: Duration,
    max_age: Duration,
    cached: Mutex<Cached>,
    /// One fetch at a time; waiters then read what it brought.
    fetching: tokio::sync::Mutex<()>,
}

impl KeyCache {
    pub(crate) fn new(
        jwks_uri: String,
        fetcher: Fetcher,
        min_refetch: Duration,
        max_age: Duration,
    ) -> Self {
        KeyCache {
            jwks_uri,
            fetcher,
            min_refetch,
            max_age,
            cached: Mutex::new(Cached::default()),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    fn matching(keys: &[VerifyingKey], kid: Option<&str>, alg: &str) -> Vec<VerifyingKey> {
        keys.iter().filter(|k| k.fits(kid, alg)).cloned().collect()
    }

    /// The keys that may have signed a token with this `kid` and `alg`: from the cache when it
    /// has them and is fresh; otherwise after a refetch, if one is allowed now.
    pub(crate) async fn keys_for(
        &self,
        kid: Option<&str>,
        alg: &str,
    ) -> Result<Vec<VerifyingKey>, AuthError> {
        let fresh = |c: &Cached| c.fetched_at.is_some_and(|t| t.elapsed() < self.max_age);
        {
            let cached = lock(&self.cached);
            let found = Self::matching(&cached.keys, kid, alg);
            if !found.is_empty() && fresh(&cached) {
                return Ok(found);
            }
        }
        let _one_at_a_time = self.fetching.lock().await;
        let (found, may_fetch) = {
            let cached = lock(&self.cached);
            let found = Self::matching(&cached.keys, kid, alg);
            if !found.is_empty() && fresh(&cached) {
                return Ok(found);
            }
            let may_fetch = cached
                .last_attempt
                .is_none_or(|t| t.elapsed() >= self.min_refetch);
            (found, may_fetch)
        };
        if !may_fetch {
            // Rate-limited: a stale key still serves; an unknown one is refused.
            return if found.is_empty() {
                Err(AuthError::InvalidToken(format!(
                    "no signing key {} for {alg} at {}",
                    kid.unwrap_or("(no kid)"),
                    self.jwks_uri
                )))
            } else {
                Ok(found)
            };
        }
        lock(&self.cached).last_attempt = Some(Instant::now());
        match self
            .fetcher
            .get_json::<serde_json::Value>(&self.jwks_uri)
            .await
        {
            Ok(document) => {
                let keys = Arc::new(parse_set(document));
                tracing::debug!("fetched {} signing keys from {}", keys.len(), self.jwks_uri);
                let found = Self::matching(&keys, kid, alg);
                let mut cached = lock(&self.cached);
                cached.keys = keys;
                cached.fetched_at = Some(Instant::now());
                if found.is_empty() {
                    return Err(AuthError::InvalidToken(format!(
                        "no signing key {} for {alg} at {}",
                        kid.unwrap_or("(no kid)"),
                        self.jwks_uri
                    )));
                }
                Ok(found)
            }
            Err(e) if !found.is_empty() => {
                tracing::warn!("refreshing the signing keys failed, using the cached ones: {e}");
                Ok(found)
            }
            Err(e) => Err(AuthError::Unavailable(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unusable_keys_are_skipped() {
        let set = serde_json::json!({"keys": [
            {"kty": "oct", "k": "c2VjcmV0"},
            {"kty": "RSA", "use": "enc", "n": "AQAB", "e": "AQAB"},
            {"kty": "EC", "crv": "P-256", "x": "AQAB", "y": "AQAB"},
            {"kty": "RSA", "kid": "a", "n": "AQAB", "e": "AQAB"},
            "not an object"
        ]});
        let keys = parse_set(set);
        assert_eq!(keys.len(), 1);
        assert!(keys[0].fits(Some("a"), "RS256"));
        assert!(!keys[0].fits(Some("b"), "RS256"));
        assert!(!keys[0].fits(Some("a"), "ES256"));
        assert!(!keys[0].fits(None, "HS256"));
    }
}
