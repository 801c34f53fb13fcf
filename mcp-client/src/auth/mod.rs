//! OAuth 2.1 for MCP clients (MCP authorization, 2025-11-25 with the 2026-07-28 changes): what
//! the HTTP transports do when a server answers 401 or 403 `insufficient_scope`.
//!
//! An [`Authorizer`] belongs to one MCP server. On a challenge it parses `WWW-Authenticate`,
//! finds the protected-resource metadata and the authorization server, refuses a server without
//! PKCE S256, gets a client id (configured, Client ID Metadata Document, or dynamic
//! registration kept per issuer), runs the authorization code flow with PKCE, `state`, `iss`
//! and `resource` checks (or the client-credentials grant for machines), and keeps the tokens
//! in a [`TokenStore`] keyed by server and issuer. Tokens are refreshed before they expire and
//! on a 401; a failed refresh falls back to a new login and keeps the registration.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use mcp_client::auth::{Authorizer, FileTokenStore, OAuthConfig};
//! use mcp_client::http::{self, HttpClientConfig};
//! let store = Arc::new(FileTokenStore::new("/tmp/oauth.json"));
//! let auth = Authorizer::new("https://example.com/mcp", OAuthConfig::new(store))?;
//! let config = HttpClientConfig::new("https://example.com/mcp").oauth(auth);
//! let transport = http::connect_auto(config).await?;
//! # let _ = transport; Ok(()) }
//! ```

mod challenge;
mod discovery;
mod error;
mod fetch;
mod form;
mod identity_assertion;
mod jwt;
mod pkce;
mod redirect;
mod registration;
mod store;
mod token;

use std::fmt;
use std::sync::{Arc, Mutex};

use hyper::Uri;

pub use challenge::{parse_www_authenticate, BearerChallenge};
pub use discovery::{ResourceMetadata, ServerMetadata};
pub use error::AuthError;
pub use identity_assertion::IdentityAssertion;
pub use jwt::JwtSigningKey;
pub use redirect::{
    auto_approve_hook, redirect_uri, stable_port, AuthorizationRequest, AuthorizeFuture,
    AuthorizeHook, RedirectMode, CALLBACK_PATH,
};
pub use store::{
    ClientRegistration, FileTokenStore, MemoryTokenStore, StoredLogin, TokenSet, TokenStore,
};

use challenge::split_scopes;
use fetch::AuthHttp;
use form::{canonical_resource, encode_pairs, origin, parse_query, parse_url};
use pkce::{random_token, Pkce};
use token::{now, request_tokens};

/// The words every "this server needs a login" message carries.
pub const NEEDS_LOGIN: &str = "needs login";

/// The most authorization rounds (login, refresh, step-up) one HTTP request may trigger.
pub const MAX_AUTH_ROUNDS: u32 = 3;
/// A token this close to its expiry (seconds) is refreshed before use.
const REFRESH_MARGIN: u64 = 60;

/// Which OAuth grant the client uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Grant {
    /// Authorization code with PKCE: a user logs in through a browser.
    #[default]
    AuthorizationCode,
    /// Client credentials (machine to machine): `client_secret_basic` or `private_key_jwt`.
    ClientCredentials,
    /// Enterprise-managed authorization (SEP-990): an ID token from the enterprise identity
    /// provider ([`OAuthConfig::identity_assertion`]) exchanged for an ID-JAG, presented with
    /// the JWT bearer grant.
    IdentityAssertion,
    /// Workload identity federation (SEP-1933): a JWT the workload's platform issued
    /// ([`OAuthConfig::workload_assertion`]) presented with the JWT bearer grant (RFC 7523).
    WorkloadIdentity,
}

/// How a client authorizes with one MCP server.
#[derive(Clone)]
pub struct OAuthConfig {
    /// A pre-registered client id (takes priority over any registration).
    pub client_id: Option<String>,
    /// The secret of the pre-registered client.
    pub client_secret: Option<String>,
    /// The URL of our Client ID Metadata Document, used as client id where the server
    /// supports it.
    pub client_metadata_url: Option<String>,
    /// A key for `private_key_jwt` client authentication.
    pub signing_key: Option<JwtSigningKey>,
    /// Scopes to ask for besides the ones the server's challenge names.
    pub scopes: Vec<String>,
    /// The loopback redirect port; `None` derives a stable one from the server URL.
    pub callback_port: Option<u16>,
    /// How the browser step is done.
    pub redirect: RedirectMode,
    /// Whether a browser login may start; when not, a needed login is
    /// [`AuthError::LoginRequired`].
    pub interactive: bool,
    /// The grant.
    pub grant: Grant,
    /// The `client_name` sent in dynamic registration.
    pub client_name: String,
    /// What the enterprise identity provider gave us, for [`Grant::IdentityAssertion`].
    pub identity_assertion: Option<IdentityAssertion>,
    /// The workload's JWT, for [`Grant::WorkloadIdentity`] (never printed).
    pub workload_assertion: Option<String>,
    /// Where registrations and tokens are kept.
    pub store: Arc<dyn TokenStore>,
}

impl OAuthConfig {
    /// Authorization code, loopback redirect, non-interactive, keeping state in `store`.
    pub fn new(store: Arc<dyn TokenStore>) -> Self {
        OAuthConfig {
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            signing_key: None,
            scopes: Vec::new(),
            callback_port: None,
            redirect: RedirectMode::Loopback,
            interactive: false,
            grant: Grant::AuthorizationCode,
            client_name: "mcp-rs".into(),
            identity_assertion: None,
            workload_assertion: None,
            store,
        }
    }

    /// Lets a browser login start when one is needed, done in `mode`.
    pub fn interactive(mut self, mode: RedirectMode) -> Self {
        self.interactive = true;
        self.redirect = mode;
        self
    }

    /// Uses a pre-registered client.
    pub fn client(mut self, id: impl Into<String>, secret: Option<String>) -> Self {
        self.client_id = Some(id.into());
        self.client_secret = secret;
        self
    }
}

impl fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field("client_metadata_url", &self.client_metadata_url)
            .field("signing_key", &self.signing_key)
            .field("scopes", &self.scopes)
            .field("callback_port", &self.callback_port)
            .field("redirect", &self.redirect)
            .field("interactive", &self.interactive)
            .field("grant", &self.grant)
            .field("identity_assertion", &self.identity_assertion)
            .field(
                "workload_assertion",
                &self.workload_assertion.as_ref().map(|_| "…"),
            )
            .finish_non_exhaustive()
    }
}

/// What discovery found for the server.
#[derive(Clone, Debug)]
struct Discovered {
    /// The `resource_metadata` URL the challenge named, if any.
    hint: Option<String>,
    /// The authorization server.
    metadata: ServerMetadata,
    /// The `resource` parameter (RFC 8707).
    resource: String,
    /// The protected resource's `scopes_supported`.
    resource_scopes: Option<Vec<String>>,
}

#[derive(Default)]
struct State {
    issuer: Option<String>,
    tokens: Option<TokenSet>,
    discovered: Option<Discovered>,
}

/// The OAuth state of one MCP server, shared by its transports.
pub struct Authorizer {
    server: String,
    server_uri: Uri,
    config: OAuthConfig,
    http: AuthHttp,
    state: tokio::sync::Mutex<State>,
    /// The current access token, readable without waiting for a flow in progress.
    current: Mutex<Option<TokenSet>>,
}

impl fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorizer")
            .field("server", &self.server)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether the access token expires within the refresh margin: a minute, or half its
/// lifetime for a token that lives less than two minutes.
fn expiring(tokens: &TokenSet) -> bool {
    let Some(at) = tokens.expires_at else {
        return false;
    };
    let margin = match tokens.issued_at {
        Some(issued) => REFRESH_MARGIN.min(at.saturating_sub(issued) / 2),
        None => REFRESH_MARGIN,
    };
    at <= now().saturating_add(margin)
}

impl Authorizer {
    /// The authorizer of the MCP server at `server`, with the last login stored for it.
    pub fn new(server: &str, config: OAuthConfig) -> Result<Arc<Self>, AuthError> {
        let server_uri = parse_url(server).map_err(|reason| AuthError::Config {
            reason: format!("server URL {server:?}: {reason}"),
        })?;
        if config.grant != Grant::AuthorizationCode && config.client_id.is_none() {
            return Err(AuthError::Config {
                reason: "the client-credentials and identity-assertion grants need a client id"
                    .into(),
            });
        }
        if config.grant == Grant::WorkloadIdentity && config.workload_assertion.is_none() {
            return Err(AuthError::Config {
                reason: "the workload-identity grant needs the workload's JWT".into(),
            });
        }
        if config.grant == Grant::IdentityAssertion && config.identity_assertion.is_none() {
            return Err(AuthError::Config {
                reason: "the identity-assertion grant needs the identity provider's ID token"
                    .into(),
            });
        }
        let http = AuthHttp::new().map_err(|reason| AuthError::Config { reason })?;
        let last = config
            .store
            .logins(server)?
            .into_iter()
            .rev()
            .find(|l| l.tokens.is_some());
        let state = State {
            issuer: last.as_ref().map(|l| l.issuer.clone()),
            tokens: last.as_ref().and_then(|l| l.tokens.clone()),
            discovered: None,
        };
        Ok(Arc::new(Authorizer {
            server: server.to_owned(),
            server_uri,
            current: Mutex::new(state.tokens.clone()),
            config,
            http,
            state: tokio::sync::Mutex::new(state),
        }))
    }

    /// The MCP server this authorizer is for.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// Whether tokens are held (they may still be refused).
    pub fn is_logged_in(&self) -> bool {
        locked(&self.current).is_some()
    }

    /// The current login: issuer, scopes and expiry (tokens included: do not print them).
    pub async fn login_info(&self) -> Option<StoredLogin> {
        let st = self.state.lock().await;
        Some(StoredLogin {
            server: self.server.clone(),
            issuer: st.issuer.clone()?,
            tokens: st.tokens.clone(),
        })
    }

    /// The bearer token to send now, refreshed first when it is about to expire.
    pub async fn bearer(&self) -> Option<String> {
        let current = locked(&self.current).clone()?;
        if !expiring(&current) || current.refresh_token.is_none() {
            return Some(current.access_token);
        }
        let mut st = self.state.lock().await;
        if let Some(t) = &st.tokens {
            if t.access_token != current.access_token && !expiring(t) {
                return Some(t.access_token.clone());
            }
        }
        match self.refresh(&mut st).await {
            Ok(()) => st.tokens.as_ref().map(|t| t.access_token.clone()),
            Err(e) => {
                tracing::warn!("refreshing the token for {} failed: {e}", self.server);
                self.forget_tokens(&mut st);
                None
            }
        }
    }

    /// Acts on a 401 or 403 from the server: refreshes, logs in, or steps up, so that the
    /// request can be retried. `used` is the token the refused request carried.
    pub async fn on_challenge(
        &self,
        status: u16,
        header: Option<&str>,
        used: Option<&str>,
    ) -> Result<(), AuthError> {
        let challenge = match header {
            Some(h) => {
                parse_www_authenticate(h).map_err(|reason| AuthError::MalformedChallenge {
                    url: self.server.clone(),
                    reason,
                })?
            }
            None => BearerChallenge::default(),
        };
        let step_up = status == 403;
        let mut st = self.state.lock().await;
        if let Some(t) = &st.tokens {
            if used.is_some_and(|u| u != t.access_token) || (used.is_none() && !step_up) {
                // Another request already renewed the token: retry with it.
                return Ok(());
            }
        }
        // A refused token may mean the resource moved to another authorization server
        // (SEP-2352): look again rather than trusting what was found before.
        let refused = !step_up && used.is_some();
        self.discover(&mut st, challenge.resource_metadata.as_deref(), refused)
            .await?;
        let has_refresh = st
            .tokens
            .as_ref()
            .is_some_and(|t| t.refresh_token.is_some());
        if !step_up && has_refresh {
            match self.refresh(&mut st).await {
                Ok(()) => return Ok(()),
                Err(e) => {
                    tracing::warn!("refresh failed for {} ({e}); logging in again", self.server);
                    self.forget_tokens(&mut st);
                }
            }
        }
        let scopes = self.scopes_for(&st, &challenge, step_up);
        self.obtain(&mut st, scopes).await
    }

    /// Logs in now (for `mcp login`): discovery from the well-known locations, then the
    /// configured grant, replacing any tokens held.
    pub async fn login(&self) -> Result<(), AuthError> {
        let mut st = self.state.lock().await;
        self.discover(&mut st, None, true).await?;
        let scopes = self.scopes_for(&st, &BearerChallenge::default(), false);
        self.obtain(&mut st, scopes).await
    }

    /// Forgets the tokens of this server (every issuer); registrations stay.
    pub async fn logout(&self) -> Result<(), AuthError> {
        let mut st = self.state.lock().await;
        st.tokens = None;
        *locked(&self.current) = None;
        self.config.store.remove_logins(&self.server)
    }

    fn forget_tokens(&self, st: &mut State) {
        st.tokens = None;
        *locked(&self.current) = None;
        if let Some(issuer) = &st.issuer {
            let login = StoredLogin {
                server: self.server.clone(),
                issuer: issuer.clone(),
                tokens: None,
            };
            if let Err(e) = self.config.store.save_login(&login) {
                tracing::warn!("{e}");
            }
        }
    }

    fn keep_tokens(&self, st: &mut State, tokens: TokenSet) -> Result<(), AuthError> {
        let issuer = st.issuer.clone().unwrap_or_default();
        self.config.store.save_login(&StoredLogin {
            server: self.server.clone(),
            issuer,
            tokens: Some(tokens.clone()),
        })?;
        *locked(&self.current) = Some(tokens.clone());
        st.tokens = Some(tokens);
        Ok(())
    }

    /// The scopes to ask for: the challenge's and the configured ones, else the resource's
    /// `scopes_supported`, else none; a step-up adds the scopes already granted.
    fn scopes_for(&self, st: &State, challenge: &BearerChallenge, step_up: bool) -> Vec<String> {
        fn add(scopes: &mut Vec<String>, list: &[String]) {
            for s in list {
                if !scopes.contains(s) {
                    scopes.push(s.clone());
                }
            }
        }
        let mut scopes: Vec<String> = Vec::new();
        if step_up {
            if let Some(t) = &st.tokens {
                add(&mut scopes, &t.scopes);
            }
        }
        add(&mut scopes, &challenge.scopes());
        add(&mut scopes, &self.config.scopes);
        if scopes.is_empty() {
            if let Some(list) = st
                .discovered
                .as_ref()
                .and_then(|d| d.resource_scopes.as_ref())
            {
                add(&mut scopes, list);
            }
        }
        scopes
    }

    /// Finds the authorization server (once, or again when `force`d or when the challenge
    /// names other metadata) and switches to the tokens held for that issuer.
    async fn discover(
        &self,
        st: &mut State,
        hint: Option<&str>,
        force: bool,
    ) -> Result<(), AuthError> {
        if let (Some(d), false) = (&st.discovered, force) {
            if hint.is_none() || d.hint.as_deref() == hint {
                return Ok(());
            }
        }
        let resource_metadata =
            discovery::fetch_resource_metadata(&self.http, &self.server_uri, hint).await?;
        let (issuer, resource, resource_scopes, legacy) = match &resource_metadata {
            Some(m) => (
                m.authorization_servers[0].clone(),
                m.resource
                    .clone()
                    .unwrap_or_else(|| canonical_resource(&self.server_uri)),
                m.scopes_supported.clone(),
                false,
            ),
            None => (
                origin(&self.server_uri),
                canonical_resource(&self.server_uri),
                None,
                true,
            ),
        };
        let metadata = discovery::fetch_server_metadata(&self.http, &issuer, legacy).await?;
        if self.config.grant == Grant::AuthorizationCode
            && !metadata
                .code_challenge_methods_supported
                .iter()
                .any(|m| m == "S256")
        {
            return Err(AuthError::Unsupported {
                issuer: metadata.issuer.clone(),
                reason: "it does not list PKCE S256 in code_challenge_methods_supported; refusing to continue".into(),
            });
        }
        if st.issuer.as_deref() != Some(metadata.issuer.as_str()) {
            // Credentials are keyed by issuer: never offer another server's tokens.
            let tokens = self
                .config
                .store
                .logins(&self.server)?
                .into_iter()
                .find(|l| l.issuer == metadata.issuer)
                .and_then(|l| l.tokens);
            *locked(&self.current) = tokens.clone();
            st.tokens = tokens;
            st.issuer = Some(metadata.issuer.clone());
        }
        st.discovered = Some(Discovered {
            hint: hint
                .map(str::to_owned)
                .or_else(|| st.discovered.as_ref().and_then(|d| d.hint.clone())),
            metadata,
            resource,
            resource_scopes,
        });
        Ok(())
    }

    /// The configured client id and secret as a registration.
    fn configured_client(&self) -> ClientRegistration {
        ClientRegistration {
            client_id: self.config.client_id.clone().unwrap_or_default(),
            client_secret: self.config.client_secret.clone(),
            ..ClientRegistration::default()
        }
    }

    fn redirect_port(&self) -> u16 {
        self.config
            .callback_port
            .unwrap_or_else(|| redirect::stable_port(&self.server))
    }

    /// A client id without registering: configured, Client ID Metadata Document, or kept
    /// from an earlier registration with the same redirect URI.
    fn known_registration(
        &self,
        d: &Discovered,
        redirect: Option<&str>,
    ) -> Result<Option<ClientRegistration>, AuthError> {
        if let Some(id) = &self.config.client_id {
            return Ok(Some(ClientRegistration {
                client_id: id.clone(),
                client_secret: self.config.client_secret.clone(),
                ..ClientRegistration::default()
            }));
        }
        if let Some(url) = &self.config.client_metadata_url {
            if d.metadata.client_id_metadata_document_supported {
                return Ok(Some(ClientRegistration {
                    client_id: url.clone(),
                    token_endpoint_auth_method: Some("none".into()),
                    ..ClientRegistration::default()
                }));
            }
        }
        let stored = self.config.store.registration(&d.metadata.issuer)?;
        // A login needs a registration for its redirect URI; a refresh takes whatever client
        // the tokens were issued to (the login may have used another port).
        Ok(stored.filter(|r| {
            redirect.is_none() || r.redirect_uri.is_none() || r.redirect_uri.as_deref() == redirect
        }))
    }

    /// Gets tokens with the configured grant and keeps them.
    async fn obtain(&self, st: &mut State, scopes: Vec<String>) -> Result<(), AuthError> {
        let Some(d) = st.discovered.clone() else {
            return Err(AuthError::Config {
                reason: "no authorization server was discovered".into(),
            });
        };
        let tokens = match self.config.grant {
            Grant::ClientCredentials => {
                let registration = self.configured_client();
                let mut params = vec![
                    ("grant_type", "client_credentials".to_owned()),
                    ("resource", d.resource.clone()),
                ];
                if !scopes.is_empty() {
                    params.push(("scope", scopes.join(" ")));
                }
                request_tokens(
                    &self.http,
                    &d.metadata,
                    &registration,
                    self.config.signing_key.as_ref(),
                    params,
                    &scopes,
                )
                .await?
            }
            Grant::WorkloadIdentity => {
                let assertion = self.config.workload_assertion.clone().unwrap_or_default();
                let params = jwt_bearer_params(assertion, &d.resource, &scopes);
                request_tokens(
                    &self.http,
                    &d.metadata,
                    &self.configured_client(),
                    None,
                    params,
                    &scopes,
                )
                .await?
            }
            Grant::IdentityAssertion => {
                let Some(assertion) = &self.config.identity_assertion else {
                    return Err(AuthError::Config {
                        reason: "no identity assertion configured".into(),
                    });
                };
                let jag = identity_assertion::exchange(
                    &self.http,
                    assertion,
                    &d.metadata.issuer,
                    &d.resource,
                    &scopes,
                )
                .await?;
                let params = jwt_bearer_params(jag, &d.resource, &scopes);
                request_tokens(
                    &self.http,
                    &d.metadata,
                    &self.configured_client(),
                    self.config.signing_key.as_ref(),
                    params,
                    &scopes,
                )
                .await?
            }
            Grant::AuthorizationCode => {
                if !self.config.interactive {
                    return Err(AuthError::LoginRequired {
                        server: self.server.clone(),
                    });
                }
                let redirect = redirect::redirect_uri(self.redirect_port());
                let (registration, registered) = match self
                    .known_registration(&d, Some(&redirect))?
                {
                    Some(r) => (r, false),
                    None => {
                        // Register for everything the resource offers (plus what we ask now),
                        // so a later step-up is not refused; nothing when it lists nothing.
                        let mut registered_scopes = d.resource_scopes.clone().unwrap_or_default();
                        if !registered_scopes.is_empty() {
                            for s in &scopes {
                                if !registered_scopes.contains(s) {
                                    registered_scopes.push(s.clone());
                                }
                            }
                        }
                        let r = registration::register(
                            &self.http,
                            &d.metadata,
                            &self.config.client_name,
                            &redirect,
                            &registered_scopes,
                        )
                        .await?;
                        (r, true)
                    }
                };
                let tokens = self
                    .authorize_code(&d, &registration, &redirect, &scopes)
                    .await?;
                // A new registration is kept only once it led to tokens: a login that fails
                // stores nothing.
                if registered {
                    self.config
                        .store
                        .save_registration(&d.metadata.issuer, &registration)?;
                }
                tokens
            }
        };
        self.keep_tokens(st, tokens)
    }

    /// The authorization code flow with PKCE: the browser step, its checks, the token request.
    async fn authorize_code(
        &self,
        d: &Discovered,
        registration: &ClientRegistration,
        redirect: &str,
        scopes: &[String],
    ) -> Result<TokenSet, AuthError> {
        let endpoint =
            d.metadata
                .authorization_endpoint
                .clone()
                .ok_or_else(|| AuthError::Unsupported {
                    issuer: d.metadata.issuer.clone(),
                    reason: "it has no authorization_endpoint".into(),
                })?;
        let pkce = Pkce::new();
        let state = random_token(24);
        let scope = scopes.join(" ");
        let mut pairs = vec![
            ("response_type", "code"),
            ("client_id", registration.client_id.as_str()),
            ("redirect_uri", redirect),
            ("code_challenge", pkce.challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", state.as_str()),
            ("resource", d.resource.as_str()),
        ];
        if !scope.is_empty() {
            pairs.push(("scope", scope.as_str()));
        }
        let separator = if endpoint.contains('?') { '&' } else { '?' };
        let url = format!("{endpoint}{separator}{}", encode_pairs(&pairs));
        let request = AuthorizationRequest {
            url,
            redirect_uri: redirect.to_owned(),
        };
        let landed = redirect::run(&self.config.redirect, request, self.redirect_port()).await?;
        let code = check_redirect(&landed, &state, &d.metadata)?;
        let params = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code),
            ("redirect_uri", redirect.to_owned()),
            ("code_verifier", pkce.verifier),
            ("resource", d.resource.clone()),
        ];
        request_tokens(
            &self.http,
            &d.metadata,
            registration,
            self.config.signing_key.as_ref(),
            params,
            scopes,
        )
        .await
    }

    /// Refreshes the tokens (rotating the refresh token when the server sends a new one).
    async fn refresh(&self, st: &mut State) -> Result<(), AuthError> {
        self.discover(st, None, false).await?;
        let (Some(d), Some(mut tokens)) = (st.discovered.clone(), st.tokens.clone()) else {
            return Err(AuthError::LoginRequired {
                server: self.server.clone(),
            });
        };
        // Another process (or authorizer) may have refreshed already: a rotated refresh token
        // must never be sent again, so take the stored tokens when they are newer.
        let stored = self
            .config
            .store
            .logins(&self.server)?
            .into_iter()
            .find(|l| Some(&l.issuer) == st.issuer.as_ref())
            .and_then(|l| l.tokens);
        if let Some(stored) = stored {
            if stored.refresh_token != tokens.refresh_token {
                *locked(&self.current) = Some(stored.clone());
                st.tokens = Some(stored.clone());
                if !expiring(&stored) {
                    return Ok(());
                }
                tokens = stored;
            }
        }
        let Some(refresh_token) = tokens.refresh_token.clone() else {
            return Err(AuthError::LoginRequired {
                server: self.server.clone(),
            });
        };
        let registration = match self.config.grant {
            Grant::ClientCredentials | Grant::IdentityAssertion | Grant::WorkloadIdentity => {
                self.configured_client()
            }
            Grant::AuthorizationCode => {
                self.known_registration(&d, None)?
                    .ok_or_else(|| AuthError::LoginRequired {
                        server: self.server.clone(),
                    })?
            }
        };
        let params = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh_token.clone()),
            ("resource", d.resource.clone()),
        ];
        let mut fresh = request_tokens(
            &self.http,
            &d.metadata,
            &registration,
            self.config.signing_key.as_ref(),
            params,
            &tokens.scopes,
        )
        .await?;
        if fresh.refresh_token.is_none() {
            fresh.refresh_token = Some(refresh_token);
        }
        self.keep_tokens(st, fresh)
    }
}

/// Checks the URL the browser was redirected to and returns the code: `state` must match,
/// `iss` must be the issuer when present (and present when the server promised it).
fn check_redirect(
    landed: &str,
    state: &str,
    metadata: &ServerMetadata,
) -> Result<String, AuthError> {
    let fail = |reason: String| AuthError::Redirect { reason };
    let query = landed
        .split_once('?')
        .map(|(_, q)| q.split('#').next().unwrap_or(q))
        .ok_or_else(|| fail("the redirect URL has no query".into()))?;
    let params = parse_query(query);
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    if get("state") != Some(state) {
        return Err(fail(
            "its state does not match the one we sent (a forged or stale redirect)".into(),
        ));
    }
    match get("iss") {
        // Simple string comparison, no URL normalization (RFC 9207 §2.4).
        Some(iss) if iss != metadata.issuer => {
            return Err(fail(format!(
                "its iss {iss:?} is not the authorization server {:?} (RFC 9207)",
                metadata.issuer
            )))
        }
        None if metadata.iss_parameter_supported => {
            return Err(fail(
                "it has no iss although the authorization server promises one (RFC 9207)".into(),
            ))
        }
        _ => {}
    }
    if let Some(error) = get("error") {
        let description = get("error_description").unwrap_or("");
        return Err(fail(format!(
            "the authorization server answered {error} {description}"
        )));
    }
    get("code")
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| fail("it carries no code".into()))
}

/// Scopes in a space-separated string, for callers that read config values.
pub fn parse_scopes(text: &str) -> Vec<String> {
    split_scopes(Some(text))
}

/// The token request of the JWT bearer grant (RFC 7523) presenting `assertion` for `resource`,
/// with `scope` when scopes are asked for.
fn jwt_bearer_params(
    assertion: String,
    resource: &str,
    scopes: &[String],
) -> Vec<(&'static str, String)> {
    let mut params = vec![
        ("grant_type", identity_assertion::JWT_BEARER.to_owned()),
        ("assertion", assertion),
        ("resource", resource.to_owned()),
    ];
    if !scopes.is_empty() {
        params.push(("scope", scopes.join(" ")));
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(iss_supported: bool) -> ServerMetadata {
        ServerMetadata {
            issuer: "http://as".into(),
            iss_parameter_supported: iss_supported,
            ..ServerMetadata::default()
        }
    }

    #[test]
    fn redirect_checks() {
        let ok = "http://127.0.0.1:1/callback?code=c&state=s";
        assert_eq!(check_redirect(ok, "s", &meta(false)).expect("ok"), "c");
        assert!(check_redirect(ok, "other", &meta(false)).is_err());
        assert!(check_redirect(ok, "s", &meta(true)).is_err());
        let with_iss = "http://127.0.0.1:1/callback?code=c&state=s&iss=http%3A%2F%2Fas";
        assert!(check_redirect(with_iss, "s", &meta(true)).is_ok());
        let bad_iss = "http://127.0.0.1:1/callback?code=c&state=s&iss=http%3A%2F%2Fevil";
        assert!(check_redirect(bad_iss, "s", &meta(false)).is_err());
        let denied = "http://127.0.0.1:1/callback?error=access_denied&state=s";
        assert!(check_redirect(denied, "s", &meta(false)).is_err());
    }
}
