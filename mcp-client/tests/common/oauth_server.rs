//! A scripted OAuth authorization server and protected MCP endpoint on one 127.0.0.1 origin,
//! for the OAuth tests of mcp-client and mcp-cli: it registers clients, approves every
//! authorization at once (a redirect with the code), issues rotating tokens, and answers
//! `initialize`, `tools/list` and `tools/call` for valid tokens; a `Script` bends it into the
//! bad cases and records what it saw.

#![allow(dead_code)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::TcpListener;

/// What the scripted servers do, and what they saw.
#[derive(Default)]
pub struct Script {
    /// Raw `WWW-Authenticate` to send on 401 (default: a good one).
    pub challenge: Option<String>,
    /// Where the challenge says the metadata is (default: this server).
    pub metadata_url: Option<String>,
    /// The token endpoint answers with an HTML page.
    pub html_tokens: bool,
    /// The authorization endpoint sends back this `state` instead of ours.
    pub forged_state: Option<String>,
    /// The authorization endpoint adds this `iss`.
    pub iss: Option<String>,
    /// `tools/call` needs the `write` scope.
    pub call_needs_write: bool,
    /// Refresh requests fail with `invalid_grant`.
    pub refuse_refresh: bool,
    /// The `expires_in` of issued tokens (default 3600).
    pub expires_in: Option<u64>,
    // What happened:
    pub registrations: usize,
    pub authorizations: Vec<HashMap<String, String>>,
    pub token_requests: Vec<HashMap<String, String>>,
    pub issued: usize,
    /// Valid access tokens and their scopes.
    pub valid: HashMap<String, Vec<String>>,
    /// The refresh tokens still valid.
    pub refresh: Vec<String>,
}

pub type Shared = Arc<Mutex<Script>>;

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
                    "expires_in": s.expires_in.unwrap_or(3600), "refresh_token": format!("rt-{n}"),
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
pub async fn start(script: Script) -> (String, Shared) {
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
