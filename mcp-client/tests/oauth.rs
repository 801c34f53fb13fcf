//! OAuth against a scripted authorization server and protected MCP endpoint on 127.0.0.1: the
//! whole flow through the Streamable HTTP transport, refresh with rotation, a failed refresh
//! falling back to a new login, step-up, and bad input (malformed `WWW-Authenticate`,
//! metadata on another origin, a token endpoint answering HTML, a redirect with a wrong `state`
//! or `iss`) failing clearly with nothing stored.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use mcp_client::auth::{
    auto_approve_hook, AuthorizationRequest, AuthorizeFuture, Authorizer, FileTokenStore,
    MemoryTokenStore, OAuthConfig, RedirectMode, TokenStore,
};
use mcp_client::http::{HttpClientConfig, StreamableHttpTransport};
use mcp_client::{Client, ClientError, ClientOptions, Negotiation};
use serde_json::{json, Value};
use tokio::net::TcpListener;

async fn bounded<F: Future>(what: &str, f: F) -> F::Output {
    match tokio::time::timeout(Duration::from_secs(20), f).await {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish in time"),
    }
}

/// What the scripted servers do, and what they saw.
#[derive(Default)]
struct Script {
    /// Raw `WWW-Authenticate` to send on 401 (default: a good one).
    challenge: Option<String>,
    /// Where the challenge says the metadata is (default: this server).
    metadata_url: Option<String>,
    /// The token endpoint answers with an HTML page.
    html_tokens: bool,
    /// The authorization endpoint sends back this `state` instead of ours.
    forged_state: Option<String>,
    /// The authorization endpoint adds this `iss`.
    iss: Option<String>,
    /// `tools/call` needs the `write` scope.
    call_needs_write: bool,
    /// Refresh requests fail with `invalid_grant`.
    refuse_refresh: bool,
    // What happened:
    registrations: usize,
    authorizations: Vec<HashMap<String, String>>,
    token_requests: Vec<HashMap<String, String>>,
    issued: usize,
    /// Valid access tokens and their scopes.
    valid: HashMap<String, Vec<String>>,
    /// The refresh tokens still valid.
    refresh: Vec<String>,
}

type Shared = Arc<Mutex<Script>>;

fn form(body: &[u8]) -> HashMap<String, String> {
    String::from_utf8_lossy(body)
        .split('&')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect()
}

fn decode(s: &str) -> String {
    let s = s.replace('+', " ");
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn reply(status: StatusCode, content_type: &str, body: String) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut()
        .insert("content-type", content_type.parse().expect("ct"));
    r
}

fn json_reply(value: Value) -> Response<Full<Bytes>> {
    reply(StatusCode::OK, "application/json", value.to_string())
}

async fn handle(
    script: Shared,
    base: String,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = request.uri().path().to_owned();
    let query = request.uri().query().unwrap_or("").to_owned();
    let auth = request
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = request
        .into_body()
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let mut s = script.lock().expect("lock");
    let response = match path.as_str() {
        "/.well-known/oauth-protected-resource/mcp" => json_reply(json!({
            "resource": format!("{base}/mcp"),
            "authorization_servers": [base.clone()],
            "scopes_supported": ["read", "write"],
        })),
        "/.well-known/oauth-authorization-server" => json_reply(json!({
            "issuer": base.clone(),
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "registration_endpoint": format!("{base}/register"),
            "code_challenge_methods_supported": ["S256"],
            "response_types_supported": ["code"],
            "token_endpoint_auth_methods_supported": ["none"],
        })),
        "/register" => {
            s.registrations += 1;
            json_reply(json!({"client_id": format!("client-{}", s.registrations)}))
        }
        "/authorize" => {
            let q = form(query.as_bytes());
            s.authorizations.push(q.clone());
            let state = s.forged_state.clone().unwrap_or_else(|| q["state"].clone());
            let mut location = format!("{}?code=the-code&state={state}", q["redirect_uri"]);
            if let Some(iss) = &s.iss {
                location.push_str(&format!("&iss={iss}"));
            }
            let mut r = reply(StatusCode::FOUND, "text/plain", String::new());
            r.headers_mut()
                .insert("location", location.parse().expect("location"));
            r
        }
        "/token" => {
            let f = form(&body);
            s.token_requests.push(f.clone());
            if s.html_tokens {
                reply(
                    StatusCode::OK,
                    "text/html",
                    "<html><body>Sign in</body></html>".into(),
                )
            } else if f["grant_type"] == "refresh_token"
                && (s.refuse_refresh || !s.refresh.contains(&f["refresh_token"]))
            {
                reply(
                    StatusCode::BAD_REQUEST,
                    "application/json",
                    json!({"error": "invalid_grant"}).to_string(),
                )
            } else {
                s.issued += 1;
                let n = s.issued;
                // A code carries the scope of its authorization request.
                let asked = match f["grant_type"].as_str() {
                    "authorization_code" => s.authorizations.last().and_then(|a| a.get("scope")),
                    _ => f.get("scope"),
                };
                let scopes: Vec<String> = match asked {
                    Some(scope) => scope.split(' ').map(str::to_owned).collect(),
                    None => vec!["read".into()],
                };
                s.valid.insert(format!("at-{n}"), scopes.clone());
                if let Some(old) = f.get("refresh_token") {
                    s.refresh.retain(|r| r != old);
                }
                s.refresh.push(format!("rt-{n}"));
                json_reply(json!({
                    "access_token": format!("at-{n}"), "token_type": "Bearer",
                    "expires_in": 3600, "refresh_token": format!("rt-{n}"),
                    "scope": scopes.join(" "),
                }))
            }
        }
        "/mcp" => {
            let token = auth
                .as_deref()
                .and_then(|a| a.strip_prefix("Bearer "))
                .unwrap_or("");
            let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let method = message["method"].as_str().unwrap_or("").to_owned();
            match s.valid.get(token).cloned() {
                None => {
                    let metadata = s.metadata_url.clone().unwrap_or_else(|| {
                        format!("{base}/.well-known/oauth-protected-resource/mcp")
                    });
                    let challenge = s.challenge.clone().unwrap_or_else(|| {
                        format!(r#"Bearer resource_metadata="{metadata}", scope="read""#)
                    });
                    let mut r = reply(StatusCode::UNAUTHORIZED, "application/json", "{}".into());
                    r.headers_mut()
                        .insert("www-authenticate", challenge.parse().expect("challenge"));
                    r
                }
                Some(scopes)
                    if method == "tools/call"
                        && s.call_needs_write
                        && !scopes.iter().any(|x| x == "write") =>
                {
                    let mut r = reply(StatusCode::FORBIDDEN, "application/json", "{}".into());
                    r.headers_mut().insert(
                        "www-authenticate",
                        r#"Bearer error="insufficient_scope", scope="read write""#
                            .parse()
                            .expect("challenge"),
                    );
                    r
                }
                Some(_) => match method.as_str() {
                    "initialize" => {
                        json_reply(json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                        "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "scripted", "version": "1"}}}))
                    }
                    "tools/list" => json_reply(
                        json!({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": [
                        {"name": "echo", "inputSchema": {"type": "object"}}]}}),
                    ),
                    "tools/call" => {
                        json_reply(json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                        "content": [{"type": "text", "text": "ok"}]}}))
                    }
                    _ if message.get("id").is_some() => {
                        json_reply(json!({"jsonrpc": "2.0", "id": message["id"], "result": {}}))
                    }
                    _ => reply(StatusCode::ACCEPTED, "application/json", String::new()),
                },
            }
        }
        _ => reply(StatusCode::NOT_FOUND, "text/plain", "not found".into()),
    };
    Ok(response)
}

/// Starts the scripted server (MCP endpoint and authorization server on one origin).
async fn start(script: Script) -> (String, Shared) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!(
        "http://127.0.0.1:{}",
        listener.local_addr().expect("addr").port()
    );
    let shared: Shared = Arc::new(Mutex::new(script));
    let (s, b) = (shared.clone(), base.clone());
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let (s, b) = (s.clone(), b.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |r| handle(s.clone(), b.clone(), r));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (base, shared)
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
