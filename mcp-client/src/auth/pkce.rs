//! Random values for one authorization: the PKCE verifier and its S256 challenge (RFC 7636) and
//! the `state`, from the operating system's CSPRNG.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::rand::{SecureRandom, SystemRandom};
use sha2::{Digest, Sha256};

/// `n` random bytes, base64url without padding.
pub(crate) fn random_token(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    // SystemRandom only fails when the OS has no randomness at all; fall back to nothing
    // predictable by refusing to go on would be better, but fill() on Linux cannot fail after
    // getrandom is available, so treat a failure as a fatal bug.
    if SystemRandom::new().fill(&mut bytes).is_err() {
        panic!("the operating system's random number generator failed");
    }
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A PKCE pair: the secret verifier and the challenge sent in the authorization request.
pub(crate) struct Pkce {
    /// Sent in the token request only.
    pub(crate) verifier: String,
    /// `BASE64URL(SHA256(verifier))`.
    pub(crate) challenge: String,
}

impl Pkce {
    /// A fresh pair (a 43-character verifier from 32 random bytes).
    pub(crate) fn new() -> Self {
        let verifier = random_token(32);
        let challenge = s256(&verifier);
        Pkce {
            verifier,
            challenge,
        }
    }
}

/// The S256 challenge of a verifier.
pub(crate) fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let p = Pkce::new();
        assert_eq!(p.verifier.len(), 43);
        assert_ne!(Pkce::new().verifier, p.verifier);
    }
}
