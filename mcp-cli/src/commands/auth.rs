//! `mcp login SERVER`, `mcp logout SERVER` and `mcp auth status`: OAuth logins to remote
//! servers, kept in the token store (`$MCP_OAUTH_STORE`, else `~/.config/mcp/oauth.json`,
//! mode 0600). Tokens and secrets are never printed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use mcp_client::auth::{FileTokenStore, RedirectMode, TokenStore};
use mcp_hub::{authorizer_for, HubError, ServerConfig};

use super::{load, open_hub, Failure, Outcome};
use crate::config_path::ConfigSource;
use crate::output::table;

/// The token store file: `$MCP_OAUTH_STORE`, else the per-user default.
pub fn store_path() -> Option<PathBuf> {
    std::env::var_os("MCP_OAUTH_STORE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(FileTokenStore::default_path)
}

/// The token store, when a path for it is known.
pub fn token_store() -> Option<Arc<dyn TokenStore>> {
    store_path().map(|p| Arc::new(FileTokenStore::new(p)) as Arc<dyn TokenStore>)
}

fn store_or_fail() -> Result<Arc<dyn TokenStore>, Failure> {
    token_store()
        .ok_or_else(|| Failure::usage("no place for the token store: set MCP_OAUTH_STORE or HOME"))
}

fn server_named(source: &ConfigSource, name: &str) -> Result<ServerConfig, Failure> {
    let config = load(source)?;
    config
        .server(name)
        .cloned()
        .ok_or_else(|| HubError::UnknownServer { name: name.into() }.into())
}

/// `mcp login SERVER`: runs the browser login (loopback redirect, or pasting the URL with
/// `--headless`), then connects once to check the server accepts the token.
pub async fn login(
    source: &ConfigSource,
    name: &str,
    headless: bool,
    port: Option<u16>,
) -> Outcome {
    let mut server = server_named(source, name)?;
    if let Some(port) = port {
        server
            .oauth
            .get_or_insert_with(Default::default)
            .callback_port = Some(port);
    }
    let mode = if headless {
        RedirectMode::Headless
    } else {
        RedirectMode::Loopback
    };
    let authorizer = match authorizer_for(&server, store_or_fail()?, Some(mode)) {
        Some(result) => result.map_err(|e| Failure::usage(e.to_string()))?,
        None => {
            return Err(Failure::usage(format!(
                "{name} is not a remote server using OAuth (a stdio server, or one with an Authorization header)"
            )))
        }
    };
    authorizer
        .login()
        .await
        .map_err(|e| Failure::usage(format!("login to {name} failed: {e}")))?;
    let info = authorizer.login_info().await;
    let issuer = info.as_ref().map(|i| i.issuer.clone()).unwrap_or_default();
    outln!("logged in to {name} at {issuer}");
    let hub = open_hub(source, Some(name)).await?;
    let status = hub
        .servers()
        .into_iter()
        .next()
        .map(|s| s.status.describe())
        .unwrap_or_default();
    hub.close().await;
    outln!("{name}: {status}");
    Ok(ExitCode::SUCCESS)
}

/// `mcp logout SERVER`: forgets its tokens; the client registration stays for the next login.
pub async fn logout(source: &ConfigSource, name: &str) -> Outcome {
    let server = server_named(source, name)?;
    let Some(authorizer) = authorizer_for(&server, store_or_fail()?, None) else {
        return Err(Failure::usage(format!("{name} does not use OAuth")));
    };
    let authorizer = authorizer.map_err(|e| Failure::usage(e.to_string()))?;
    authorizer
        .logout()
        .await
        .map_err(|e| Failure::usage(e.to_string()))?;
    outln!("logged out of {name}");
    Ok(ExitCode::SUCCESS)
}

/// `mcp auth status`: each remote server's login, from the store (no network).
pub async fn status(source: &ConfigSource) -> Outcome {
    let config = load(source)?;
    let store = store_or_fail()?;
    if let Some(path) = store_path() {
        outln!("token store: {}", path.display());
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut rows = Vec::new();
    for server in &config.servers {
        let Some(authorizer) = authorizer_for(server, store.clone(), None) else {
            continue;
        };
        let authorizer = authorizer.map_err(|e| Failure::usage(e.to_string()))?;
        let (state, issuer, scopes, expiry) = match authorizer.login_info().await {
            Some(login) => match &login.tokens {
                Some(tokens) => (
                    "logged in".to_owned(),
                    login.issuer.clone(),
                    tokens.scopes.join(" "),
                    match tokens.expires_at {
                        Some(at) if at > now => format!("expires in {}s", at - now),
                        Some(_) => {
                            if tokens.refresh_token.is_some() {
                                "expired (will refresh)".to_owned()
                            } else {
                                "expired".to_owned()
                            }
                        }
                        None => "-".to_owned(),
                    },
                ),
                None => (
                    "not logged in".into(),
                    login.issuer.clone(),
                    String::new(),
                    String::new(),
                ),
            },
            None => (
                "not logged in".into(),
                "-".into(),
                String::new(),
                String::new(),
            ),
        };
        rows.push(vec![server.name.clone(), state, issuer, scopes, expiry]);
    }
    if rows.is_empty() {
        outln!("no remote servers in the config");
    } else {
        out!("{}", table(&rows));
    }
    Ok(ExitCode::SUCCESS)
}
