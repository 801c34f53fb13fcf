//! What can go wrong while authorizing with an OAuth authorization server, with the URL involved
//! in every message so a user sees which server to look at.

/// An OAuth failure. Secrets (tokens, client secrets, codes) never appear in these messages.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The server's `WWW-Authenticate` header cannot be parsed.
    #[error("malformed WWW-Authenticate header from {url}: {reason}")]
    MalformedChallenge {
        /// The MCP server URL.
        url: String,
        /// What was wrong with it.
        reason: String,
    },
    /// Metadata (protected resource or authorization server) is missing or unusable.
    #[error("OAuth metadata at {url}: {reason}")]
    Metadata {
        /// Where the metadata was looked for.
        url: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// The authorization server cannot be used safely (no PKCE S256, no way to register, ...).
    #[error("authorization server {issuer}: {reason}")]
    Unsupported {
        /// The authorization server.
        issuer: String,
        /// What it lacks.
        reason: String,
    },
    /// A request to an OAuth endpoint failed (network, status, body).
    #[error("{what} at {url} failed: {detail}")]
    Endpoint {
        /// Which request ("token request", "client registration", ...).
        what: &'static str,
        /// The endpoint.
        url: String,
        /// Status, error code and description, or the network error.
        detail: String,
    },
    /// The redirect back from the authorization server is not acceptable.
    #[error("authorization redirect refused: {reason}")]
    Redirect {
        /// Why (state mismatch, `iss` mismatch, an `error` from the server, ...).
        reason: String,
    },
    /// The user must log in first (`mcp login SERVER`); nothing interactive may run here.
    #[error("{server} needs login (`mcp login` with the server's name)")]
    LoginRequired {
        /// The MCP server URL.
        server: String,
    },
    /// The server kept refusing our tokens after the bounded number of authorization rounds.
    #[error("{server} still refuses access after {rounds} authorization attempt(s): {reason}")]
    GaveUp {
        /// The MCP server URL.
        server: String,
        /// How many rounds were tried.
        rounds: u32,
        /// The last refusal.
        reason: String,
    },
    /// The token store could not be read or written.
    #[error("token store {path}: {detail}")]
    Store {
        /// The store's file (or name).
        path: String,
        /// What went wrong.
        detail: String,
    },
    /// The configuration cannot work (bad key, bad URL, ...).
    #[error("OAuth configuration: {reason}")]
    Config {
        /// What is wrong.
        reason: String,
    },
}
