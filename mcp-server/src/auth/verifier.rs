//! The token verifier trait and why a token is refused.

use std::future::Future;
use std::pin::Pin;

use super::AuthIdentity;

/// Why a bearer token was refused; becomes the `error` of `WWW-Authenticate` (RFC 6750 §3.1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The token is missing, expired, revoked, malformed, for another resource or from another
    /// issuer: 401 `invalid_token`. The text says which, for the server's log.
    #[error("invalid token: {0}")]
    InvalidToken(String),
    /// The token is valid but lacks a scope: 403 `insufficient_scope`, naming the scopes the
    /// request needs.
    #[error("insufficient scope; needs {scope}")]
    InsufficientScope {
        /// The scope(s) the request needs, space-separated.
        scope: String,
    },
    /// The token could not be checked now (the authorization server's keys or introspection
    /// endpoint unreachable): 503, so the client retries instead of logging in again.
    #[error("cannot verify tokens now: {0}")]
    Unavailable(String),
}

/// The future a [`TokenVerifier`] returns.
pub type VerifyFuture<'a> =
    Pin<Box<dyn Future<Output = Result<AuthIdentity, AuthError>> + Send + 'a>>;

/// Checks a bearer token and says whom it speaks for. Runs once per HTTP request when
/// authorization is on; implementations cache what they can (keys, say).
pub trait TokenVerifier: Send + Sync + 'static {
    /// Accepts (with the token's identity) or refuses a token (the text after `Bearer `).
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a>;
}

/// A plain function is a verifier (tests, static tokens).
impl<F> TokenVerifier for F
where
    F: Fn(&str) -> Result<AuthIdentity, AuthError> + Send + Sync + 'static,
{
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        let result = self(token);
        Box::pin(std::future::ready(result))
    }
}
