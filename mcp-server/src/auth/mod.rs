//! OAuth 2.1 resource-server side of MCP authorization (spec §4): who may call this server.
//!
//! - [`TokenVerifier`] turns a bearer token into an [`AuthIdentity`] or refuses it. Two come
//!   with the crate (feature `oauth`, on by default): [`JwtVerifier`] checks JWT access tokens
//!   (RFC 9068) against the authorization server's JWKS, and [`IntrospectionVerifier`] asks the
//!   authorization server (RFC 7662).
//! - [`AuthConfig`](crate::http::AuthConfig) puts a verifier in front of the HTTP transports:
//!   401 with `WWW-Authenticate: Bearer resource_metadata=…` without a valid token, 403
//!   `insufficient_scope` when a tool needs scopes the token lacks, and the protected-resource
//!   metadata (RFC 9728, [`ProtectedResourceMetadata`]) served at the well-known URIs.
//! - Handlers read the verified identity with [`Context::auth`](crate::Context::auth).

mod identity;
mod metadata;
mod verifier;

#[cfg(feature = "oauth")]
mod discovery;
#[cfg(feature = "oauth")]
mod fetch;
#[cfg(feature = "oauth")]
mod introspection;
#[cfg(feature = "oauth")]
mod jwks;
#[cfg(feature = "oauth")]
mod jwt;

pub use identity::AuthIdentity;
pub(crate) use identity::IdentityCell;
pub use metadata::ProtectedResourceMetadata;
pub use verifier::{AuthError, TokenVerifier, VerifyFuture};

#[cfg(feature = "oauth")]
pub use discovery::{discover_authorization_server, AuthorizationServerMetadata};
#[cfg(feature = "oauth")]
pub use fetch::FetchError;
#[cfg(feature = "oauth")]
pub use introspection::{IntrospectionConfig, IntrospectionVerifier};
#[cfg(feature = "oauth")]
pub use jwt::{JwtConfig, JwtVerifier};
