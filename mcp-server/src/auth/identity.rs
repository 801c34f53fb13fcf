//! Who a verified bearer token speaks for, as handlers see it.

use std::sync::{Arc, Mutex};

use mcp_proto::sync::lock;

/// The principal of a verified access token: what handlers read through
/// [`Context::auth`](crate::Context::auth) and what tasks or other per-user state bind to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthIdentity {
    /// The token's subject (`sub`): the user, or the client itself for client credentials.
    pub subject: Option<String>,
    /// The authorization server that issued the token (`iss`).
    pub issuer: Option<String>,
    /// The OAuth client the token was issued to (`client_id`, or `azp`).
    pub client_id: Option<String>,
    /// The scopes granted (`scope`, space-separated on the wire).
    pub scopes: Vec<String>,
    /// The audiences the token is for (`aud`): this server's resource among them.
    pub audiences: Vec<String>,
    /// When the token expires, in seconds since the Unix epoch (`exp`).
    pub expires_at: Option<u64>,
}

impl AuthIdentity {
    /// An identity with a subject and an issuer and nothing else (tests, custom verifiers).
    pub fn new(subject: impl Into<String>, issuer: impl Into<String>) -> Self {
        AuthIdentity {
            subject: Some(subject.into()),
            issuer: Some(issuer.into()),
            ..Default::default()
        }
    }

    /// The same identity with these scopes.
    pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The same identity with this client id.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Whether the token granted `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// A stable key for the principal, `issuer` + `subject` (falling back to the client id):
    /// what per-user records (tasks, say) are owned by. Two tokens of the same user at the same
    /// issuer give the same key whatever their scopes or expiry.
    pub fn owner_key(&self) -> String {
        let who = self
            .subject
            .as_deref()
            .or(self.client_id.as_deref())
            .unwrap_or("");
        format!("{}#{who}", self.issuer.as_deref().unwrap_or(""))
    }

    /// Whether `other` is the same principal (same issuer, subject and client).
    pub fn same_principal(&self, other: &AuthIdentity) -> bool {
        self.issuer == other.issuer
            && self.subject == other.subject
            && self.client_id == other.client_id
    }
}

/// The identity an HTTP session serves under: set when the session starts, refreshed by each
/// request that carries a newer token of the same principal.
#[derive(Debug, Default)]
pub(crate) struct IdentityCell(Mutex<Option<Arc<AuthIdentity>>>);

impl IdentityCell {
    /// The identity now, if any.
    pub(crate) fn get(&self) -> Option<Arc<AuthIdentity>> {
        lock(&self.0).clone()
    }

    /// Replaces the identity.
    #[cfg(feature = "http")]
    pub(crate) fn set(&self, identity: Option<Arc<AuthIdentity>>) {
        *lock(&self.0) = identity;
    }

    /// Takes `identity` when the cell is empty or holds the same principal, and says whether it
    /// did: a session never changes hands.
    #[cfg(feature = "http")]
    pub(crate) fn admit(&self, identity: &Arc<AuthIdentity>) -> bool {
        let mut slot = lock(&self.0);
        match &*slot {
            Some(current) if !current.same_principal(identity) => false,
            _ => {
                *slot = Some(identity.clone());
                true
            }
        }
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;

    #[test]
    fn a_session_cell_admits_only_its_principal() {
        let cell = IdentityCell::default();
        let alice = Arc::new(AuthIdentity::new("alice", "https://as"));
        let alice_more = Arc::new(AuthIdentity::new("alice", "https://as").with_scopes(["x"]));
        let mallory = Arc::new(AuthIdentity::new("alice", "https://other-as"));
        assert!(cell.admit(&alice));
        assert!(cell.admit(&alice_more));
        assert!(cell.get().expect("set").has_scope("x"));
        assert!(!cell.admit(&mallory));
        assert_eq!(
            cell.get().expect("kept").issuer.as_deref(),
            Some("https://as")
        );
        assert_eq!(alice.owner_key(), "https://as#alice");
    }
}
