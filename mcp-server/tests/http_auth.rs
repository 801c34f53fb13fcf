//! Bearer authorization on the HTTP transports over a real socket, with a real `Server`: the
//! verified identity reaches handlers through `Context::auth` in both eras and on HTTP+SSE,
//! a session stays bound to its principal, per-tool scopes give 403 `insufficient_scope`, and
//! the protected-resource metadata is served at both well-known URIs.

mod http_common;

use http_common::*;
use mcp_server::auth::{AuthError, AuthIdentity, ProtectedResourceMetadata};
use mcp_server::http::{AuthConfig, HttpConfig, HttpServer};
use mcp_server::schema::TaskSupport;
use mcp_server::{Context, Server, Tool};
use serde_json::{json, Value};

const V: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";
const ISSUER: &str = "https://as.example.com";

fn verify(token: &str) -> Result<AuthIdentity, AuthError> {
    match token {
        "alice" => Ok(AuthIdentity::new("alice", ISSUER)
            .with_scopes(["mcp"])
            .with_client_id("app")),
        "alice-admin" => Ok(AuthIdentity::new("alice", ISSUER)
            .with_scopes(["mcp", "admin"])
            .with_client_id("app")),
        "bob" => Ok(AuthIdentity::new("bob", ISSUER)
            .with_scopes(["mcp"])
            .with_client_id("app")),
        "no-mcp" => Ok(AuthIdentity::new("carol", ISSUER).with_client_id("app")),
        _ => Err(AuthError::InvalidToken("unknown".into())),
    }
}

async fn whoami(ctx: Context) -> String {
    match ctx.auth() {
        Some(id) => format!(
            "{} {} {}",
            id.owner_key(),
            id.client_id.as_deref().unwrap_or("-"),
            id.scopes.join(",")
        ),
        None => "anonymous".into(),
    }
}

async fn start_protected(stateless: bool) -> HttpServer {
    let server = Server::builder("auth-test", "1.0.0")
        .tool(Tool::new("whoami", "Who is calling"), whoami)
        .tool(
            Tool::new(
                "slow_whoami",
                "Who is calling, after a while; runs as a task",
            )
            .task_support(TaskSupport::Optional),
            |ctx: Context| async move {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                whoami(ctx).await
            },
        )
        .tool(Tool::new("wipe", "Needs admin"), || async { "wiped" })
        .build();
    let auth = AuthConfig::new(verify)
        .with_metadata(ProtectedResourceMetadata::new("", ISSUER).with_scopes(["mcp", "admin"]))
        .require_scopes(["mcp"])
        .tool_scopes("wipe", ["admin"]);
    server
        .serve_http(
            "127.0.0.1:0",
            HttpConfig {
                auth: Some(auth),
                stateless,
                ..HttpConfig::default()
            },
        )
        .await
        .expect("bind")
}

fn text(reply: &Reply) -> String {
    let body = reply.json();
    body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {body}"))
        .to_owned()
}

fn modern_call(id: i64, tool: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "0" }
        }
    }})
}

#[tokio::test]
async fn identity_reaches_handlers_and_sessions_stay_with_their_principal() {
    let server = start_protected(false).await;
    let addr = server.local_addr();
    let alice = [("Authorization", "Bearer alice")];
    let reply = post(addr, &alice, &initialize(1, V)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let id = reply.header("mcp-session-id").expect("session").to_owned();
    let as_alice = [
        ("Authorization", "Bearer alice"),
        ("Mcp-Session-Id", id.as_str()),
        ("MCP-Protocol-Version", V),
    ];
    let me = post(addr, &as_alice, &call(2, "whoami", json!({}))).await;
    assert_eq!(text(&me), "https://as.example.com#alice app mcp");

    // Another principal cannot use alice's session, nor end it.
    let as_bob = [
        ("Authorization", "Bearer bob"),
        ("Mcp-Session-Id", id.as_str()),
        ("MCP-Protocol-Version", V),
    ];
    let stolen = post(addr, &as_bob, &call(3, "whoami", json!({}))).await;
    assert_eq!(stolen.status, 404);
    let stolen = request(addr, "DELETE", "/mcp", &as_bob, b"").await;
    assert_eq!(stolen.status, 404);
    // Without a token: 401, whatever the session.
    let anonymous = post(
        addr,
        &[("Mcp-Session-Id", id.as_str())],
        &call(4, "whoami", json!({})),
    )
    .await;
    assert_eq!(anonymous.status, 401);

    // A 2026-07-28 request carries its own identity.
    let modern = post(
        addr,
        &[
            ("Authorization", "Bearer bob"),
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "whoami"),
        ],
        &modern_call(5, "whoami"),
    )
    .await;
    assert_eq!(modern.status, 200, "{}", modern.text());
    assert_eq!(text(&modern), "https://as.example.com#bob app mcp");
    server.shutdown().await;
}

#[tokio::test]
async fn tool_scopes_step_up_on_the_same_session() {
    let server = start_protected(false).await;
    let addr = server.local_addr();
    let reply = post(
        addr,
        &[("Authorization", "Bearer alice")],
        &initialize(1, V),
    )
    .await;
    let id = reply.header("mcp-session-id").expect("session").to_owned();
    let with = |token: &'static str| {
        [
            ("Authorization", token),
            ("Mcp-Session-Id", id.as_str()),
            ("MCP-Protocol-Version", V),
        ]
    };
    let refused = post(addr, &with("Bearer alice"), &call(2, "wipe", json!({}))).await;
    assert_eq!(refused.status, 403);
    let challenge = refused.header("www-authenticate").expect("challenge");
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\", scope=\"mcp admin\""),
        "{challenge}"
    );
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"http://{addr}/.well-known/oauth-protected-resource/mcp\""
        )),
        "{challenge}"
    );
    // Other tools still work with the narrow token.
    let me = post(addr, &with("Bearer alice"), &call(3, "whoami", json!({}))).await;
    assert_eq!(me.status, 200);
    // The same user with a wider token (step-up) goes on in the same session.
    let wiped = post(
        addr,
        &with("Bearer alice-admin"),
        &call(4, "wipe", json!({})),
    )
    .await;
    assert_eq!(wiped.status, 200, "{}", wiped.text());
    assert_eq!(text(&wiped), "wiped");
    let me = post(
        addr,
        &with("Bearer alice-admin"),
        &call(5, "whoami", json!({})),
    )
    .await;
    assert_eq!(text(&me), "https://as.example.com#alice app mcp,admin");
    // A token without the scope every request needs: 403 naming it.
    let narrow = post(
        addr,
        &[("Authorization", "Bearer no-mcp")],
        &initialize(6, V),
    )
    .await;
    assert_eq!(narrow.status, 403);
    assert!(narrow
        .header("www-authenticate")
        .is_some_and(|c| c.contains("scope=\"mcp\"")));
    // The 2026-07-28 era gets the same 403.
    let modern = post(
        addr,
        &[
            ("Authorization", "Bearer alice"),
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "wipe"),
        ],
        &modern_call(7, "wipe"),
    )
    .await;
    assert_eq!(modern.status, 403);
    server.shutdown().await;
}

#[tokio::test]
async fn stateless_mode_and_metadata() {
    let server = start_protected(true).await;
    let addr = server.local_addr();
    let headers = [("Authorization", "Bearer bob"), ("MCP-Protocol-Version", V)];
    let me = post(addr, &headers, &call(1, "whoami", json!({}))).await;
    assert_eq!(me.status, 200, "{}", me.text());
    assert_eq!(text(&me), "https://as.example.com#bob app mcp");
    let missing = post(
        addr,
        &[("MCP-Protocol-Version", V)],
        &call(2, "whoami", json!({})),
    )
    .await;
    assert_eq!(missing.status, 401);
    assert_eq!(
        missing.header("www-authenticate"),
        Some(
            format!(
                "Bearer scope=\"mcp\", resource_metadata=\"http://{addr}/.well-known/oauth-protected-resource/mcp\""
            )
            .as_str()
        )
    );
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let meta = request(addr, "GET", path, &[], b"").await;
        assert_eq!(meta.status, 200, "{path}");
        let doc = meta.json();
        assert_eq!(doc["resource"], format!("http://{addr}/mcp"));
        assert_eq!(doc["authorization_servers"], json!([ISSUER]));
        assert_eq!(doc["scopes_supported"], json!(["mcp", "admin"]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }
    server.shutdown().await;
}

#[tokio::test]
async fn http_sse_is_protected_and_bound() {
    let server = start_protected(false).await;
    let addr = server.local_addr();
    let refused = request(addr, "GET", "/sse", &[("Accept", "text/event-stream")], b"").await;
    assert_eq!(refused.status, 401);
    let mut stream = SseReader::open(
        addr,
        "GET",
        "/sse",
        &[
            ("Accept", "text/event-stream"),
            ("Authorization", "Bearer alice"),
        ],
        b"",
    )
    .await;
    assert_eq!(stream.status, 200);
    let path = stream.next().await.expect("endpoint").data;
    let send = |token: &'static str, body: Value| {
        let path = path.clone();
        async move {
            request(
                addr,
                "POST",
                &path,
                &[
                    ("Content-Type", "application/json"),
                    ("Authorization", token),
                ],
                body.to_string().as_bytes(),
            )
            .await
        }
    };
    assert_eq!(
        send("Bearer alice", initialize(1, "2024-11-05"))
            .await
            .status,
        202
    );
    stream.next_message().await.expect("initialize answer");
    let note = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    assert_eq!(send("Bearer alice", note).await.status, 202);
    assert_eq!(
        send("Bearer bob", call(2, "whoami", json!({})))
            .await
            .status,
        404
    );
    assert_eq!(
        send("Bearer alice", call(3, "wipe", json!({})))
            .await
            .status,
        403
    );
    assert_eq!(
        send("Bearer alice", call(4, "whoami", json!({})))
            .await
            .status,
        202
    );
    let (_, answer) = stream.next_message().await.expect("answer");
    assert_eq!(answer["id"], 4);
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "https://as.example.com#alice app mcp"
    );
    server.shutdown().await;
}

/// A session of `token`'s principal, initialized at 2025-11-25; the headers to use it.
async fn session_of(
    addr: std::net::SocketAddr,
    token: &'static str,
) -> [(&'static str, String); 3] {
    let bearer = format!("Bearer {token}");
    let reply = post(
        addr,
        &[("Authorization", bearer.as_str())],
        &initialize(1, V),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let id = reply.header("mcp-session-id").expect("session").to_owned();
    [
        ("Authorization", bearer),
        ("Mcp-Session-Id", id),
        ("MCP-Protocol-Version", V.to_owned()),
    ]
}

async fn post_as(
    addr: std::net::SocketAddr,
    headers: &[(&'static str, String); 3],
    body: &Value,
) -> Reply {
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    post(addr, &headers, body).await
}

#[tokio::test]
async fn tasks_are_bound_to_the_principal_not_the_session() {
    let server = start_protected(false).await;
    let addr = server.local_addr();
    let alice = session_of(addr, "alice").await;
    let created = post_as(
        addr,
        &alice,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "slow_whoami", "arguments": {}, "task": {"ttl": 60000}}}),
    )
    .await;
    assert_eq!(created.status, 200, "{}", created.text());
    let task_id = created.json()["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no task: {}", created.text()))
        .to_owned();
    let get = |id: i64, method: &str| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"taskId": task_id}});

    // Bob knows the id but is not its owner: the task does not exist for him, in any method.
    let bob = session_of(addr, "bob").await;
    for (id, method) in [(3, "tasks/get"), (4, "tasks/result"), (5, "tasks/cancel")] {
        let refused = post_as(addr, &bob, &get(id, method)).await;
        assert_eq!(
            refused.json()["error"]["code"],
            json!(-32602),
            "{method}: {}",
            refused.text()
        );
    }
    let listed = post_as(
        addr,
        &bob,
        &json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/list", "params": {}}),
    )
    .await;
    assert_eq!(
        listed.json()["result"]["tasks"],
        json!([]),
        "{}",
        listed.text()
    );

    // Alice, on a new session of her own, sees it, lists it and gets its result.
    let alice_again = session_of(addr, "alice").await;
    let listed = post_as(
        addr,
        &alice_again,
        &json!({"jsonrpc": "2.0", "id": 7, "method": "tasks/list", "params": {}}),
    )
    .await;
    assert_eq!(
        listed.json()["result"]["tasks"][0]["taskId"],
        json!(task_id),
        "{}",
        listed.text()
    );
    let result = post_as(addr, &alice_again, &get(8, "tasks/result")).await;
    assert_eq!(text(&result), "https://as.example.com#alice app mcp");
    server.shutdown().await;
}
