//! OAuth against a scripted authorization server and protected MCP endpoint on 127.0.0.1: the
//! whole flow through the Streamable HTTP transport, refresh with rotation, a failed refresh
//! falling back to a new login, step-up, and bad input (malformed `WWW-Authenticate`,
//! metadata on another origin, a token endpoint answering HTML, a redirect with a wrong `state`
//! or `iss`) failing clearly with nothing stored.

#[path = "common/oauth_server.rs"]
mod oauth_server;

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::auth::{
    auto_approve_hook, AuthorizationRequest, AuthorizeFuture, Authorizer, ClientRegistration,
    FileTokenStore, MemoryTokenStore, OAuthConfig, RedirectMode, StoredLogin, TokenSet, TokenStore,
};
use mcp_client::http::{HttpClientConfig, StreamableHttpTransport};
use mcp_client::{Client, ClientError, ClientOptions, Negotiation};
use oauth_server::{start, Script};
use serde_json::json;

async fn bounded<F: Future>(what: &str, f: F) -> F::Output {
    match tokio::time::timeout(Duration::from_secs(20), f).await {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish in time"),
    }
}

fn config(store: Arc<dyn TokenStore>) -> OAuthConfig {
    OAuthConfig::new(store).interactive(RedirectMode::Hook(auto_approve_hook()))
}

async fn connect(base: &str, auth: Arc<Authorizer>) -> Result<Client, ClientError> {
    let http = HttpClientConfig::new(format!("{base}/mcp")).oauth(auth);
    let transport = StreamableHttpTransport::new(http).expect("transport");
    Client::connect(
        transport,
        ClientOptions::new().with_negotiation(Negotiation::Legacy),
    )
    .await
}

fn temp_store(name: &str) -> (Arc<FileTokenStore>, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("mcp-oauth-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("oauth.json");
    (Arc::new(FileTokenStore::new(&path)), path)
}

#[tokio::test]
async fn login_runs_the_whole_flow_and_the_registration_is_reused() {
    let (base, script) = start(Script::default()).await;
    let (store, path) = temp_store("flow");
    let auth = Authorizer::new(&format!("{base}/mcp"), config(store.clone())).expect("auth");
    let client = bounded("connect", connect(&base, auth))
        .await
        .expect("connects");
    let result = bounded("call", client.call_tool("echo", json!({}))).await;
    assert!(result.is_ok(), "{result:?}");
    client.close().await;
    {
        let s = script.lock().expect("lock");
        assert_eq!(s.registrations, 1);
        let a = &s.authorizations[0];
        assert_eq!(a["code_challenge_method"], "S256");
        assert_eq!(a["resource"], format!("{base}/mcp"));
        assert_eq!(a["scope"], "read");
        let t = &s.token_requests[0];
        assert_eq!(t["resource"], format!("{base}/mcp"));
        assert!(!t["code_verifier"].is_empty());
    }
    let text = std::fs::read_to_string(&path).expect("store written");
    assert!(text.contains("at-1") && text.contains("client-1"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // A new process: the stored token is used, nothing registers or logs in again.
    let auth = Authorizer::new(&format!("{base}/mcp"), config(store)).expect("auth");
    assert!(auth.is_logged_in());
    let client = bounded("reconnect", connect(&base, auth))
        .await
        .expect("connects");
    client.close().await;
    let s = script.lock().expect("lock");
    assert_eq!((s.registrations, s.authorizations.len()), (1, 1));
}

#[tokio::test]
async fn a_refused_token_is_refreshed_with_rotation_and_a_failed_refresh_logs_in_again() {
    let (base, script) = start(Script::default()).await;
    let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::new());
    let url = format!("{base}/mcp");
    let auth = Authorizer::new(&url, config(store.clone())).expect("auth");
    let client = bounded("connect", connect(&base, auth.clone()))
        .await
        .expect("connects");
    // The server forgets the access token: the next call refreshes and goes through.
    script.lock().expect("lock").valid.clear();
    bounded("call", client.call_tool("echo", json!({})))
        .await
        .expect("call after refresh");
    {
        let s = script.lock().expect("lock");
        let last = s.token_requests.last().expect("refresh");
        assert_eq!(last["grant_type"], "refresh_token");
        assert_eq!(last["refresh_token"], "rt-1");
    }
    let stored = store.logins(&url).expect("logins");
    let tokens = stored[0].tokens.clone().expect("tokens");
    assert_eq!(tokens.refresh_token.as_deref(), Some("rt-2"), "rotated");
    // Now refresh fails too: a new login, with the same registration.
    {
        let mut s = script.lock().expect("lock");
        s.valid.clear();
        s.refuse_refresh = true;
    }
    bounded("call", client.call_tool("echo", json!({})))
        .await
        .expect("call after a new login");
    client.close().await;
    let s = script.lock().expect("lock");
    assert_eq!(s.authorizations.len(), 2);
    assert_eq!(s.registrations, 1, "the registration is kept");
}

#[tokio::test]
async fn a_token_about_to_expire_is_refreshed_before_use() {
    let (base, script) = start(Script::default()).await;
    script.lock().expect("lock").refresh.push("rt-0".into());
    let url = format!("{base}/mcp");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    // A stored login whose token expires in a second (of a 100 s life): within the margin.
    let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::new());
    store
        .save_registration(
            &base,
            &ClientRegistration {
                client_id: "client-0".into(),
                ..ClientRegistration::default()
            },
        )
        .expect("registration");
    store
        .save_login(&StoredLogin {
            server: url.clone(),
            issuer: base.clone(),
            tokens: Some(TokenSet {
                access_token: "at-0".into(),
                refresh_token: Some("rt-0".into()),
                expires_at: Some(now + 1),
                issued_at: Some(now - 99),
                scopes: vec!["read".into()],
            }),
        })
        .expect("login");
    let auth = Authorizer::new(&url, OAuthConfig::new(store)).expect("auth");
    let client = bounded("connect", connect(&base, auth))
        .await
        .expect("connects");
    client.close().await;
    let s = script.lock().expect("lock");
    assert_eq!(s.token_requests[0]["grant_type"], "refresh_token");
    assert_eq!(s.token_requests[0]["refresh_token"], "rt-0");
    // Refreshed with the stored refresh token and the stored registration; no login ran.
    assert!(s.authorizations.is_empty());
}

#[tokio::test]
async fn a_refresh_needs_neither_the_login_port_nor_a_stale_refresh_token() {
    let (base, script) = start(Script::default()).await;
    let store: Arc<dyn TokenStore> = Arc::new(MemoryTokenStore::new());
    let url = format!("{base}/mcp");
    // Logged in through another port than the stable one (`mcp login --port`).
    let mut login = config(store.clone());
    login.callback_port = Some(45679);
    let first = Authorizer::new(&url, login).expect("auth");
    let client = bounded("connect", connect(&base, first))
        .await
        .expect("connects");
    client.close().await;
    // Two later runs load rt-1; the first refreshes (rt-1 -> rt-2) ...
    let a = Authorizer::new(&url, OAuthConfig::new(store.clone())).expect("a");
    let b = Authorizer::new(&url, OAuthConfig::new(store.clone())).expect("b");
    script.lock().expect("lock").valid.clear();
    let client = bounded("connect a", connect(&base, a))
        .await
        .expect("a refreshes");
    client.close().await;
    // ... and the second, refused with its stale copy, takes the stored rt-2 tokens instead of
    // replaying rt-1.
    script
        .lock()
        .expect("lock")
        .valid
        .retain(|token, _| token == "at-2");
    let client = bounded("connect b", connect(&base, b))
        .await
        .expect("b goes on");
    client.close().await;
    let s = script.lock().expect("lock");
    let replays = s
        .token_requests
        .iter()
        .filter(|t| t.get("refresh_token").map(String::as_str) == Some("rt-1"))
        .count();
    assert_eq!(replays, 1, "rt-1 was sent once");
    assert_eq!(s.authorizations.len(), 1);
}

#[tokio::test]
async fn insufficient_scope_steps_up_with_the_union_of_scopes() {
    let (base, script) = start(Script {
        call_needs_write: true,
        ..Script::default()
    })
    .await;
    let auth = Authorizer::new(
        &format!("{base}/mcp"),
        config(Arc::new(MemoryTokenStore::new())),
    )
    .expect("auth");
    let client = bounded("connect", connect(&base, auth))
        .await
        .expect("connects");
    bounded("call", client.call_tool("echo", json!({})))
        .await
        .expect("call after step-up");
    client.close().await;
    let s = script.lock().expect("lock");
    assert_eq!(s.authorizations.len(), 2);
    assert_eq!(s.authorizations[1]["scope"], "read write");
}

#[tokio::test]
async fn without_interactive_login_the_error_says_needs_login() {
    let (base, _script) = start(Script::default()).await;
    let auth = Authorizer::new(
        &format!("{base}/mcp"),
        OAuthConfig::new(Arc::new(MemoryTokenStore::new())),
    )
    .expect("auth");
    let error = bounded("connect", connect(&base, auth))
        .await
        .expect_err("needs login");
    assert!(error.to_string().contains("needs login"), "{error}");
}

/// Connects with `script`, expects a failure whose message contains `expected`, and checks
/// that nothing was stored.
async fn fails_and_stores_nothing(script: Script, expected: &str) {
    let (base, _script) = start(script).await;
    let (store, path) = temp_store(&expected.replace(' ', "-"));
    let auth = Authorizer::new(&format!("{base}/mcp"), config(store)).expect("auth");
    let error = bounded("connect", connect(&base, auth))
        .await
        .expect_err("must fail");
    assert!(
        error.to_string().contains(expected),
        "expected {expected:?} in: {error}"
    );
    assert!(!path.exists(), "nothing may be stored after: {error}");
}

#[tokio::test]
async fn a_malformed_www_authenticate_is_a_clear_error() {
    fails_and_stores_nothing(
        Script {
            challenge: Some(r#"Bearer resource_metadata="unterminated"#.into()),
            ..Script::default()
        },
        "malformed WWW-Authenticate",
    )
    .await;
}

#[tokio::test]
async fn metadata_on_another_origin_is_refused() {
    fails_and_stores_nothing(
        Script {
            metadata_url: Some(
                "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp".into(),
            ),
            ..Script::default()
        },
        "another origin",
    )
    .await;
}

#[tokio::test]
async fn a_token_endpoint_answering_html_is_a_clear_error() {
    fails_and_stores_nothing(
        Script {
            html_tokens: true,
            ..Script::default()
        },
        "expected JSON, got content type \"text/html\"",
    )
    .await;
}

#[tokio::test]
async fn a_redirect_with_a_wrong_state_is_refused() {
    fails_and_stores_nothing(
        Script {
            forged_state: Some("forged".into()),
            ..Script::default()
        },
        "state does not match",
    )
    .await;
}

#[tokio::test]
async fn a_redirect_with_a_wrong_iss_is_refused() {
    fails_and_stores_nothing(
        Script {
            iss: Some("http%3A%2F%2Fevil.example".into()),
            ..Script::default()
        },
        "RFC 9207",
    )
    .await;
}

#[tokio::test]
async fn a_hook_sees_the_authorization_url_and_redirect_uri() {
    let (base, _script) = start(Script::default()).await;
    let seen = Arc::new(Mutex::new(None::<AuthorizationRequest>));
    let seen2 = seen.clone();
    let inner = auto_approve_hook();
    let hook = Arc::new(move |r: AuthorizationRequest| {
        *seen2.lock().expect("lock") = Some(r.clone());
        inner(r)
    });
    let mut config =
        OAuthConfig::new(Arc::new(MemoryTokenStore::new())).interactive(RedirectMode::Hook(
            hook as Arc<dyn Fn(AuthorizationRequest) -> AuthorizeFuture + Send + Sync>,
        ));
    config.callback_port = Some(45678);
    let auth = Authorizer::new(&format!("{base}/mcp"), config).expect("auth");
    let client = bounded("connect", connect(&base, auth))
        .await
        .expect("connects");
    client.close().await;
    let request = seen.lock().expect("lock").clone().expect("hook called");
    assert_eq!(request.redirect_uri, "http://127.0.0.1:45678/callback");
    assert!(request.url.starts_with(&format!("{base}/authorize?")));
}
