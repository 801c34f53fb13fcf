//! The `auth/*` scenarios of the official suite, for `conformance-client`: connect with OAuth
//! (the suite's authorization server approves without a user, so the browser step follows its
//! redirects), then list and call the tools, which is where the suite's servers challenge.
//!
//! The suite hands credentials over in `MCP_CONFORMANCE_CONTEXT`: `client_id` and
//! `client_secret` (pre-registration, client credentials), `private_key_pem` and
//! `signing_algorithm` (client credentials with `private_key_jwt`), `idp_token_endpoint`,
//! `idp_id_token` and `idp_client_id` (enterprise-managed authorization, SEP-990),
//! `valid_jwt` (workload identity federation, SEP-1933).

use std::sync::Arc;

use mcp_client::auth::{
    auto_approve_hook, Authorizer, Grant, IdentityAssertion, JwtSigningKey, MemoryTokenStore,
    OAuthConfig, RedirectMode,
};
use mcp_client::http::{HttpClientConfig, StreamableHttpTransport};
use mcp_client::{Client, ClientOptions, Negotiation};
use mcp_proto::schema::Implementation;
use mcp_proto::ProtocolVersion;
use serde_json::{json, Value};

/// The Client ID Metadata Document URL the suite expects a client to publish.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null)
}

fn text(context: &Value, key: &str) -> Option<String> {
    context.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The OAuth configuration for `scenario`.
fn oauth_config(scenario: &str) -> Result<OAuthConfig, String> {
    let context = context();
    let mut config = OAuthConfig::new(Arc::new(MemoryTokenStore::new()))
        .interactive(RedirectMode::Hook(auto_approve_hook()));
    config.client_name = "mcp-rs-conformance-client".into();
    config.client_metadata_url = Some(CLIENT_METADATA_URL.into());
    if let Some(id) = text(&context, "client_id") {
        config = config.client(id, text(&context, "client_secret"));
    }
    if scenario.starts_with("auth/client-credentials") {
        config.grant = Grant::ClientCredentials;
        if let Some(pem) = text(&context, "private_key_pem") {
            let algorithm = text(&context, "signing_algorithm").unwrap_or_else(|| "ES256".into());
            config.signing_key =
                Some(JwtSigningKey::from_pem(&pem, &algorithm).map_err(|e| e.to_string())?);
        }
    }
    if let Some(jwt) = text(&context, "valid_jwt") {
        config.grant = Grant::WorkloadIdentity;
        config.workload_assertion = Some(jwt);
    }
    if let (Some(endpoint), Some(id_token)) = (
        text(&context, "idp_token_endpoint"),
        text(&context, "idp_id_token"),
    ) {
        config.grant = Grant::IdentityAssertion;
        config.identity_assertion = Some(IdentityAssertion {
            idp_token_endpoint: endpoint,
            id_token,
            idp_client_id: text(&context, "idp_client_id"),
            idp_client_secret: None,
        });
    }
    Ok(config)
}

/// Runs one `auth/*` scenario against `url`; `modern` pins 2026-07-28.
pub async fn run(scenario: &str, url: &str, modern: bool) -> Result<(), String> {
    let authorizer = Authorizer::new(url, oauth_config(scenario)?).map_err(|e| e.to_string())?;
    let http = HttpClientConfig::new(url).oauth(authorizer);
    let transport = StreamableHttpTransport::new(http)
        .map_err(|e| format!("cannot set up the HTTP transport: {e}"))?;
    let mut options = ClientOptions::new().with_client_info(Implementation::new(
        "mcp-rs-conformance-client",
        env!("CARGO_PKG_VERSION"),
    ));
    if modern {
        options = options.with_negotiation(Negotiation::Pin(ProtocolVersion::V2026_07_28));
    }
    let client = Client::connect(transport, options)
        .await
        .map_err(|e| format!("cannot connect: {e}"))?;
    let outcome = async {
        let tools = client
            .list_tools()
            .await
            .map_err(|e| format!("tools/list failed: {e}"))?;
        for tool in tools {
            client
                .call_tool(&tool.name, json!({}))
                .await
                .map_err(|e| format!("{} failed: {e}", tool.name))?;
        }
        Ok(())
    }
    .await;
    client.close().await;
    outcome
}
