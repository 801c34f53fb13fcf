//! OAuth for the hub's remote servers: the [`Authorizer`] a server config calls for.

use std::sync::Arc;

use mcp_client::auth::{AuthError, Authorizer, Grant, OAuthConfig, RedirectMode, TokenStore};

use super::config::{ServerConfig, TransportConfig};

/// The authorizer of a remote server, keeping its state in `store`; `login` lets a browser
/// login start in that mode (else a needed login is an error). `None` for stdio servers and
/// for servers whose config sets an `Authorization` header (a static token wins).
pub fn authorizer_for(
    server: &ServerConfig,
    store: Arc<dyn TokenStore>,
    login: Option<RedirectMode>,
) -> Option<Result<Arc<Authorizer>, AuthError>> {
    let (TransportConfig::Sse { url, headers } | TransportConfig::StreamableHttp { url, headers }) =
        &server.transport
    else {
        return None;
    };
    if headers
        .keys()
        .any(|h| h.eq_ignore_ascii_case("authorization"))
    {
        return None;
    }
    let mut config = OAuthConfig::new(store);
    config.client_name = format!("mcp ({})", server.name);
    if let Some(settings) = &server.oauth {
        config.client_id = settings.client_id.clone();
        config.client_secret = settings.client_secret.clone();
        config.scopes = settings.scopes.clone();
        config.callback_port = settings.callback_port;
        config.client_metadata_url = settings.client_metadata_url.clone();
        if settings.client_credentials {
            config.grant = Grant::ClientCredentials;
        }
    }
    if let Some(mode) = login {
        config = config.interactive(mode);
    }
    Some(Authorizer::new(url, config))
}
