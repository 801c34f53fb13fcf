//! `private_key_jwt` client authentication (RFC 7523 §2.2): a short-lived JWT signed with the
//! client's private key (ES256 or RS256, PKCS#8 PEM), sent as `client_assertion`.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{
    EcdsaKeyPair, RsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING, RSA_PKCS1_SHA256,
};
use serde_json::json;

use super::pkce::random_token;
use super::AuthError;

/// The `client_assertion_type` of a JWT assertion.
pub(crate) const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// A signing key for `private_key_jwt`.
#[derive(Clone)]
pub struct JwtSigningKey {
    /// `ES256` or `RS256`.
    pub algorithm: String,
    /// The PKCS#8 DER of the private key.
    der: Vec<u8>,
}

impl std::fmt::Debug for JwtSigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtSigningKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl JwtSigningKey {
    /// A key from a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) and an algorithm (ES256, RS256).
    pub fn from_pem(pem: &str, algorithm: &str) -> Result<Self, AuthError> {
        let bad = |reason: String| AuthError::Config { reason };
        let body: String = pem
            .lines()
            .filter(|l| !l.starts_with("-----"))
            .map(str::trim)
            .collect();
        let der = STANDARD
            .decode(body)
            .map_err(|e| bad(format!("the private key PEM is not valid base64: {e}")))?;
        let key = JwtSigningKey {
            algorithm: algorithm.to_owned(),
            der,
        };
        // Fail now, not at the first token request.
        key.sign(b"probe")?;
        Ok(key)
    }

    fn sign(&self, input: &[u8]) -> Result<Vec<u8>, AuthError> {
        let rng = SystemRandom::new();
        let bad = |reason: String| AuthError::Config { reason };
        match self.algorithm.as_str() {
            "ES256" => {
                let pair =
                    EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &self.der, &rng)
                        .map_err(|e| bad(format!("not a P-256 PKCS#8 private key: {e}")))?;
                pair.sign(&rng, input)
                    .map(|s| s.as_ref().to_vec())
                    .map_err(|e| bad(format!("signing failed: {e}")))
            }
            "RS256" => {
                let pair = RsaKeyPair::from_pkcs8(&self.der)
                    .map_err(|e| bad(format!("not an RSA PKCS#8 private key: {e}")))?;
                let mut sig = vec![0; pair.public().modulus_len()];
                pair.sign(&RSA_PKCS1_SHA256, &rng, input, &mut sig)
                    .map_err(|e| bad(format!("signing failed: {e}")))?;
                Ok(sig)
            }
            other => Err(bad(format!(
                "signing algorithm {other:?} is not supported (ES256, RS256)"
            ))),
        }
    }

    /// A client assertion: `iss` = `sub` = the client id, `aud` = the authorization server's
    /// issuer, a random `jti`, valid for five minutes.
    pub(crate) fn assertion(&self, client_id: &str, audience: &str) -> Result<String, AuthError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let header = json!({"alg": self.algorithm, "typ": "JWT"});
        let claims = json!({
            "iss": client_id, "sub": client_id, "aud": audience,
            "iat": now, "exp": now + 300, "jti": random_token(16),
        });
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self.sign(input.as_bytes())?;
        Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_keys_are_refused() {
        assert!(JwtSigningKey::from_pem(
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
            "ES256"
        )
        .is_err());
        assert!(JwtSigningKey::from_pem("%%%", "ES256").is_err());
    }
}
