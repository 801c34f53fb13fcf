//! weather-server run protected (`--auth-issuer`) in front of a real authorization server,
//! oidc-provider (npm, OpenID-certified; `interop/auth`, installed by
//! `scripts/interop-setup.sh`): tokens are JWT access tokens for the resource, checked against
//! the AS's JWKS. Without a token, with a token for another resource, an expired one or one
//! from a second AS the server answers 401; a client-credentials token for it works, and a
//! tool that needs more scope answers 403 `insufficient_scope` until the token has it.

mod common;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use bytes::Bytes;
use common::{bounded, first_text, json_of, HttpServer};
use http_body_util::{BodyExt, Full};
use hyper::header::HeaderMap;
use hyper::{Method, Request};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use mcp_client::http::{HttpClientConfig, StreamableHttpTransport};
use mcp_client::{Client, ClientOptions};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The oidc-provider modules (from `scripts/interop-setup.sh`); `None` skips the test, unless
/// `MCP_INTEROP_REQUIRED=1`, which fails it instead.
fn auth_modules() -> Option<PathBuf> {
    match std::env::var_os("MCP_INTEROP_AUTH_MODULES") {
        Some(path) if PathBuf::from(&path).join("oidc-provider").exists() => Some(path.into()),
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!("oidc-provider is not installed but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh");
            }
            eprintln!("skipped: MCP_INTEROP_AUTH_MODULES has no oidc-provider; run `eval \"$(scripts/interop-setup.sh)\"` to enable");
            None
        }
    }
}

/// A running oidc-provider on 127.0.0.1 (killed on drop).
struct AuthServer {
    issuer: String,
    _child: Child,
}

impl AuthServer {
    async fn start(modules: &PathBuf) -> AuthServer {
        // Node has been seen to hang at start on this machine (its main thread parked on a
        // lock, before listening): a start that prints no first line within 20 s is killed and
        // tried again, three times at most.
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../interop/auth/provider.mjs");
        for _ in 0..3 {
            let mut child = Command::new("node")
                .arg(script)
                .arg(modules)
                .arg("0")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .kill_on_drop(true)
                .spawn()
                .expect("node starts");
            let stdout = child.stdout.take().expect("stdout");
            let mut line = String::new();
            let mut reader = BufReader::new(stdout);
            let read = reader.read_line(&mut line);
            match tokio::time::timeout(Duration::from_secs(20), read).await {
                Ok(Ok(n)) if n > 0 => {
                    let first: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("oidc-provider printed {line:?}: {e}"));
                    let issuer = first["issuer"].as_str().expect("issuer").to_owned();
                    return AuthServer {
                        issuer,
                        _child: child,
                    };
                }
                Ok(Ok(_)) => panic!("oidc-provider exited before printing its issuer"),
                Ok(Err(e)) => panic!("reading oidc-provider's first line: {e}"),
                Err(_) => eprintln!("oidc-provider printed nothing within 20 s; starting it again"),
            }
        }
        panic!("oidc-provider (interop/auth/provider.mjs) did not start in 3 tries");
    }

    /// A client-credentials access token of client `client` (secret `m2m-secret`) for
    /// `resource` with `scope`.
    async fn client_token(&self, client: &str, resource: &str, scope: &str) -> String {
        let body = format!(
            "grant_type=client_credentials&resource={}&scope={}",
            encode(resource),
            encode(scope)
        );
        let basic = base64_basic(client, "m2m-secret");
        let (status, _, answer) = send(
            Method::POST,
            &format!("{}/token", self.issuer),
            &[
                ("content-type", "application/x-www-form-urlencoded"),
                ("authorization", &basic),
            ],
            body,
        )
        .await;
        let answer: Value = serde_json::from_slice(&answer).expect("token JSON");
        assert_eq!(status, 200, "{answer}");
        answer["access_token"]
            .as_str()
            .expect("access_token")
            .to_owned()
    }
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn base64_basic(id: &str, secret: &str) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let input = format!("{id}:{secret}").into_bytes();
    let mut out = String::from("Basic ");
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// One HTTP request on 127.0.0.1: status, headers, body.
async fn send(
    method: Method,
    url: &str,
    headers: &[(&str, &str)],
    body: String,
) -> (u16, HeaderMap, Bytes) {
    let client: HyperClient<_, Full<Bytes>> =
        HyperClient::builder(TokioExecutor::new()).build_http();
    let mut request = Request::builder().method(method).uri(url);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let request = request.body(Full::new(Bytes::from(body))).expect("request");
    let response = bounded(30, url, client.request(request))
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = bounded(30, "body", response.into_body().collect())
        .await
        .expect("body")
        .to_bytes();
    (status, headers, body)
}

/// POSTs an `initialize` to `url` with `token` (if any): status and `WWW-Authenticate`.
async fn initialize_with(url: &str, token: Option<&str>) -> (u16, Option<String>) {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    if let Some(b) = &bearer {
        headers.push(("authorization", b));
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "oauth-test", "version": "0"}}});
    let (status, headers, _) = send(Method::POST, url, &headers, body.to_string()).await;
    let challenge = headers
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (status, challenge)
}

async fn connect(url: &str, token: &str) -> Client {
    let config = HttpClientConfig::new(url).bearer_token(token);
    let transport = StreamableHttpTransport::new(config).expect("valid config");
    let options = ClientOptions::new().with_request_timeout(Duration::from_secs(20));
    bounded(20, "connect", Client::connect(transport, options))
        .await
        .expect("connects with the token")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protected_weather_server_against_oidc_provider() {
    let Some(modules) = auth_modules() else {
        return;
    };
    let as1 = AuthServer::start(&modules).await;
    let as2 = AuthServer::start(&modules).await;
    let server = HttpServer::start(&[
        "--auth-issuer",
        &as1.issuer,
        "--auth-leeway",
        "0",
        "--auth-tool-scope",
        "get_forecast=weather:admin",
    ])
    .await;
    let url = server.url("/mcp");

    // No token: 401 naming the metadata, which names the AS.
    let (status, challenge) = initialize_with(&url, None).await;
    assert_eq!(status, 401);
    let challenge = challenge.expect("WWW-Authenticate");
    let metadata_url = challenge
        .split("resource_metadata=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no resource_metadata in {challenge}"));
    assert_eq!(
        metadata_url,
        server.url("/.well-known/oauth-protected-resource/mcp")
    );
    let (status, _, metadata) = send(Method::GET, metadata_url, &[], String::new()).await;
    assert_eq!(status, 200);
    let metadata: Value = serde_json::from_slice(&metadata).expect("metadata JSON");
    assert_eq!(metadata["resource"], url);
    assert_eq!(metadata["authorization_servers"], json!([as1.issuer]));

    // A token for another resource, one from a second AS, garbage: 401 invalid_token.
    let elsewhere = as1
        .client_token("m2m", "http://127.0.0.1:1/mcp", "mcp")
        .await;
    let foreign = as2.client_token("m2m", &url, "mcp").await;
    for (what, token) in [
        ("another resource", elsewhere.as_str()),
        ("a second AS", foreign.as_str()),
        ("garbage", "not-a-jwt"),
    ] {
        let (status, challenge) = initialize_with(&url, Some(token)).await;
        assert_eq!(status, 401, "{what}");
        let challenge = challenge.expect("WWW-Authenticate");
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{what}: {challenge}"
        );
    }

    // An expired token (1 s tokens; no leeway).
    let short = as1.client_token("m2m-short", &url, "mcp").await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let (status, _) = initialize_with(&url, Some(&short)).await;
    assert_eq!(status, 401, "an expired token");

    // A client-credentials token for this server works.
    let token = as1.client_token("m2m", &url, "mcp").await;
    let client = connect(&url, &token).await;
    let result = bounded(
        20,
        "get_weather",
        client.call_tool("get_weather", json!({"city": "Shenzhen"})),
    )
    .await
    .expect("get_weather");
    assert!(first_text(&json_of(&result)).starts_with(common::SHENZHEN_PREFIX));
    // get_forecast needs weather:admin: 403 insufficient_scope, naming it.
    let refused = bounded(
        20,
        "get_forecast",
        client.call_tool("get_forecast", json!({"city": "Shenzhen", "days": 2})),
    )
    .await;
    let error = format!("{:?}", refused.expect_err("403"));
    assert!(error.contains("403"), "{error}");
    bounded(10, "close", client.close()).await;

    // With the scope, it works.
    let admin = as1.client_token("m2m", &url, "mcp weather:admin").await;
    let client = connect(&url, &admin).await;
    let forecast = bounded(
        20,
        "get_forecast",
        client.call_tool("get_forecast", json!({"city": "Shenzhen", "days": 2})),
    )
    .await
    .expect("get_forecast with weather:admin");
    assert!(first_text(&json_of(&forecast)).contains("Shenzhen"));
    bounded(10, "close", client.close()).await;
    server.stop().await;
}

/// RFC 7662: mcp-server's `IntrospectionVerifier` against the same real AS, with opaque tokens
/// (oidc-provider does not introspect its JWTs): an active token for the resource is accepted
/// with its client and scopes; one for another resource is refused; once revoked, refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn introspection_against_oidc_provider_sees_revocation() {
    use mcp_server::auth::{AuthError, IntrospectionConfig, IntrospectionVerifier, TokenVerifier};
    let Some(modules) = auth_modules() else {
        return;
    };
    let auth = AuthServer::start(&modules).await;
    let resource = "http://127.0.0.1:9/mcp";
    let config = IntrospectionConfig::new(&auth.issuer, resource, "m2m-opaque", "m2m-secret");
    let verifier = bounded(30, "discover", IntrospectionVerifier::discover(config))
        .await
        .expect("finds the introspection endpoint");
    let token = auth.client_token("m2m-opaque", resource, "mcp").await;
    let identity = bounded(30, "introspect", verifier.verify(&token))
        .await
        .expect("an active token");
    assert_eq!(identity.client_id.as_deref(), Some("m2m-opaque"));
    assert_eq!(identity.issuer.as_deref(), Some(auth.issuer.as_str()));
    assert_eq!(identity.scopes, ["mcp"]);

    let elsewhere = auth
        .client_token("m2m-opaque", "http://127.0.0.1:1/other", "mcp")
        .await;
    let refused = bounded(30, "introspect", verifier.verify(&elsewhere)).await;
    assert!(
        matches!(&refused, Err(AuthError::InvalidToken(why)) if why.contains("audience")),
        "{refused:?}"
    );

    let basic = base64_basic("m2m-opaque", "m2m-secret");
    let (status, _, _) = send(
        Method::POST,
        &format!("{}/token/revocation", auth.issuer),
        &[
            ("content-type", "application/x-www-form-urlencoded"),
            ("authorization", &basic),
        ],
        format!("token={token}"),
    )
    .await;
    assert_eq!(status, 200);
    let revoked = bounded(30, "introspect", verifier.verify(&token)).await;
    assert!(
        matches!(&revoked, Err(AuthError::InvalidToken(why)) if why.contains("not active")),
        "{revoked:?}"
    );
}

/// mcp-remote (npm, the most-used OAuth bridge for MCP), a third-party client, against the
/// protected weather-server: its `mcp-remote-client` logs in through oidc-provider (DCR, PKCE,
/// resource; the test plays the browser via its printed URL and loopback callback) and lists
/// the tools; then `mcp-remote` as a stdio proxy, reusing the stored tokens, carries our
/// client's `tools/call`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_remote_logs_in_and_calls_a_tool() {
    use mcp_client::StdioServerConfig;
    let Some(modules) = auth_modules() else {
        return;
    };
    let remote = modules.join("mcp-remote/dist");
    if !remote.join("proxy.js").exists() {
        panic!("mcp-remote is not installed next to oidc-provider; run scripts/interop-setup.sh");
    }
    let auth = AuthServer::start(&modules).await;
    let server = HttpServer::start(&[
        "--auth-issuer",
        &auth.issuer,
        "--auth-required-scope",
        "mcp",
    ])
    .await;
    let url = server.url("/mcp");
    let config_dir = std::env::temp_dir().join(format!("mcp-remote-auth-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&config_dir);
    let port = common::free_port().to_string();

    let mut login = Command::new("node")
        .arg(remote.join("client.js"))
        .args([url.as_str(), port.as_str()])
        .env("MCP_REMOTE_CONFIG_DIR", &config_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("node runs mcp-remote-client");
    let mut lines = BufReader::new(login.stderr.take().expect("stderr")).lines();
    let mut log = Vec::new();
    let authorize = bounded(60, "mcp-remote's authorization URL", async {
        let mut next_is_url = false;
        while let Ok(Some(line)) = lines.next_line().await {
            log.push(line.clone());
            if next_is_url && line.starts_with("http") {
                return line;
            }
            next_is_url |= line.contains("authorize this client by visiting");
        }
        panic!("mcp-remote-client printed no authorization URL: {log:?}");
    })
    .await;
    let browser = Command::new("node")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../interop/auth/browse.mjs"
        ))
        .arg(&authorize)
        .stdin(Stdio::null())
        .output();
    let browser = bounded(60, "browse.mjs", browser).await.expect("node runs");
    assert!(
        browser.status.success(),
        "{}",
        String::from_utf8_lossy(&browser.stderr)
    );
    let rest = bounded(60, "mcp-remote-client", async {
        let mut rest = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            rest.push(line);
        }
        rest
    })
    .await;
    let status = bounded(30, "mcp-remote-client exit", login.wait())
        .await
        .expect("exit status");
    assert!(
        status.success() && rest.iter().any(|l| l.contains("Connected successfully")),
        "mcp-remote-client: {status}\n{}",
        rest.join("\n")
    );

    // The proxy reuses the stored tokens: no browser this time.
    let mut config = StdioServerConfig::new(
        "node",
        vec![
            remote.join("proxy.js").to_string_lossy().into_owned(),
            url.clone(),
            port.clone(),
        ],
    );
    config.env.insert(
        "MCP_REMOTE_CONFIG_DIR".into(),
        config_dir.to_string_lossy().into_owned(),
    );
    let options = ClientOptions::new().with_request_timeout(Duration::from_secs(30));
    let client = bounded(60, "mcp-remote proxy", Client::spawn_stdio(config, options))
        .await
        .expect("mcp-remote serves over stdio");
    let result = bounded(
        30,
        "get_weather through mcp-remote",
        client.call_tool("get_weather", json!({"city": "Shenzhen"})),
    )
    .await
    .expect("get_weather");
    assert!(first_text(&json_of(&result)).starts_with(common::SHENZHEN_PREFIX));
    bounded(10, "close", client.close()).await;
    let _ = std::fs::remove_dir_all(&config_dir);
    server.stop().await;
}

/// Step-up end to end: mcp-client's OAuth client (browser step through a hook that plays the
/// browser) logs in with the scope our 401 names, and when a tool needs more our 403
/// `insufficient_scope` makes it authorize again with the extra scope and retry, once.
///
/// Ignored until mcp-client's dynamic registration stops pinning the client to the scopes of the
/// first login: it sends `scope` = the challenge's scopes in DCR, and oidc-provider (rightly,
/// RFC 7591 §2) then refuses the step-up's `weather:admin` with `invalid_scope`. Registering
/// with the metadata's `scopes_supported` (or no `scope`) fixes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_up_on_insufficient_scope_with_a_real_as() {
    use mcp_client::auth::{
        AuthorizationRequest, AuthorizeFuture, Authorizer, MemoryTokenStore, OAuthConfig,
        RedirectMode,
    };
    use std::sync::{Arc, Mutex};
    let Some(modules) = auth_modules() else {
        return;
    };
    let auth = AuthServer::start(&modules).await;
    let server = HttpServer::start(&[
        "--auth-issuer",
        &auth.issuer,
        "--auth-required-scope",
        "mcp",
        "--auth-tool-scope",
        "get_forecast=weather:admin",
    ])
    .await;
    let url = server.url("/mcp");
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = asked.clone();
    let hook = Arc::new(move |request: AuthorizationRequest| -> AuthorizeFuture {
        seen.lock().expect("lock").push(request.url.clone());
        Box::pin(async move {
            let out = Command::new("node")
                .arg(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../interop/auth/browse.mjs"
                ))
                .args(["--stop-at", &request.redirect_uri, &request.url])
                .stdin(Stdio::null())
                .output()
                .await
                .map_err(|e| e.to_string())?;
            let redirect = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            if !out.status.success() || redirect.is_empty() {
                return Err(String::from_utf8_lossy(&out.stderr).into_owned());
            }
            Ok(redirect)
        })
    });
    let mut config = OAuthConfig::new(Arc::new(MemoryTokenStore::new()));
    config.interactive = true;
    config.redirect = RedirectMode::Hook(hook);
    let authorizer = Authorizer::new(&url, config).expect("authorizer");
    let transport = StreamableHttpTransport::new(HttpClientConfig::new(&url).oauth(authorizer))
        .expect("valid config");
    let options = ClientOptions::new().with_request_timeout(Duration::from_secs(30));
    let client = bounded(
        60,
        "connect with login",
        Client::connect(transport, options),
    )
    .await
    .expect("logs in and connects");
    let weather = bounded(
        30,
        "get_weather",
        client.call_tool("get_weather", json!({"city": "Shenzhen"})),
    )
    .await
    .expect("get_weather with scope mcp");
    assert!(first_text(&json_of(&weather)).starts_with(common::SHENZHEN_PREFIX));
    assert_eq!(asked.lock().expect("lock").len(), 1, "one login");
    let forecast = bounded(
        60,
        "get_forecast",
        client.call_tool("get_forecast", json!({"city": "Shenzhen", "days": 2})),
    )
    .await
    .expect("get_forecast after step-up");
    assert!(first_text(&json_of(&forecast)).contains("Shenzhen"));
    let asked = asked.lock().expect("lock").clone();
    assert_eq!(asked.len(), 2, "one step-up: {asked:?}");
    assert!(asked[1].contains("weather%3Aadmin"), "{}", asked[1]);
    bounded(10, "close", client.close()).await;
    server.stop().await;
}
