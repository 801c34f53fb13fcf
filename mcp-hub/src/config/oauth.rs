//! The OAuth settings of a remote server, read from the keys other clients' files use:
//!
//! - `oauth` with `clientId`, `clientSecret`, `callbackPort`, `scopes` (Claude Code's
//!   `claude mcp add --client-id --client-secret --callback-port` and Kiro write these),
//!   `redirectUri` (its port is the callback port), `clientMetadataUrl` (our Client ID
//!   Metadata Document) and `grantType: "client_credentials"`; snake_case spellings too;
//! - Cursor's `auth` with `CLIENT_ID`, `CLIENT_SECRET` and `scopes`.

use std::fmt;

use serde_json::{Map, Value};

use super::{kind_of, ConfigError, Ctx};

/// OAuth settings of one remote server.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct OAuthSettings {
    /// A pre-registered client id.
    pub client_id: Option<String>,
    /// Its secret (never printed).
    pub client_secret: Option<String>,
    /// Scopes to ask for.
    pub scopes: Vec<String>,
    /// The loopback port of the redirect URI.
    pub callback_port: Option<u16>,
    /// The URL of our Client ID Metadata Document.
    pub client_metadata_url: Option<String>,
    /// Machine-to-machine: the client-credentials grant instead of a browser login.
    pub client_credentials: bool,
}

impl fmt::Debug for OAuthSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthSettings")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field("scopes", &self.scopes)
            .field("callback_port", &self.callback_port)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("client_credentials", &self.client_credentials)
            .finish()
    }
}

/// The first of `keys` present in `map`, with the key found.
fn first<'m>(
    map: &'m Map<String, Value>,
    keys: &[&'static str],
) -> Option<(&'static str, &'m Value)> {
    keys.iter()
        .find_map(|k| map.get(*k).filter(|v| !v.is_null()).map(|v| (*k, v)))
}

impl Ctx<'_> {
    fn oauth_string(
        &mut self,
        server: &str,
        map: &Map<String, Value>,
        keys: &[&'static str],
    ) -> Result<Option<String>, ConfigError> {
        match first(map, keys) {
            Some((key, _)) => self.string(server, map, key),
            None => Ok(None),
        }
    }
}

/// Reads `oauth` (or Cursor's `auth`) from a server entry.
pub(super) fn parse(
    ctx: &mut Ctx<'_>,
    server: &str,
    entry: &Map<String, Value>,
) -> Result<Option<OAuthSettings>, ConfigError> {
    let Some((field, value)) = first(entry, &["oauth", "auth"]) else {
        return Ok(None);
    };
    let Value::Object(map) = value else {
        return Err(ctx.field_error(
            server,
            field,
            format!("must be an object, found {}", kind_of(value)),
        ));
    };
    let mut settings = OAuthSettings {
        client_id: ctx.oauth_string(server, map, &["clientId", "client_id", "CLIENT_ID"])?,
        client_secret: ctx.oauth_string(
            server,
            map,
            &["clientSecret", "client_secret", "CLIENT_SECRET"],
        )?,
        client_metadata_url: ctx.oauth_string(
            server,
            map,
            &["clientMetadataUrl", "client_metadata_url"],
        )?,
        ..OAuthSettings::default()
    };
    settings.scopes = match first(map, &["scopes", "scope"]) {
        None => Vec::new(),
        Some((key, Value::String(_))) => ctx
            .string(server, map, key)?
            .map(|s| mcp_client::auth::parse_scopes(&s))
            .unwrap_or_default(),
        Some((key, _)) => ctx.strings(server, map, key)?,
    };
    let port_field = format!("{field}.callbackPort");
    settings.callback_port = match first(map, &["callbackPort", "callback_port"]) {
        None => None,
        Some((_, Value::Number(n))) => n.as_u64().and_then(|p| u16::try_from(p).ok()),
        Some((_, Value::String(s))) => s.trim().parse().ok(),
        Some(_) => None,
    };
    if first(map, &["callbackPort", "callback_port"]).is_some() && settings.callback_port.is_none()
    {
        return Err(ctx.field_error(server, &port_field, "must be a port number (1-65535)"));
    }
    if settings.callback_port.is_none() {
        if let Some(uri) = ctx.oauth_string(server, map, &["redirectUri", "redirect_uri"])? {
            settings.callback_port = uri
                .split("://")
                .nth(1)
                .and_then(|rest| rest.split('/').next())
                .and_then(|host| host.rsplit_once(':'))
                .and_then(|(_, port)| port.parse().ok());
        }
    }
    if let Some(grant) = ctx.oauth_string(server, map, &["grantType", "grant_type"])? {
        match grant.as_str() {
            "client_credentials" => settings.client_credentials = true,
            "authorization_code" => {}
            other => {
                return Err(ctx.field_error(
                    server,
                    &format!("{field}.grantType"),
                    format!(
                        "must be \"authorization_code\" or \"client_credentials\", not {other:?}"
                    ),
                ))
            }
        }
    }
    Ok(Some(settings))
}

/// The `oauth` object written back for `settings` (camelCase, as Claude Code writes it).
pub(super) fn to_json(settings: &OAuthSettings) -> Value {
    let mut map = Map::new();
    if let Some(id) = &settings.client_id {
        map.insert("clientId".into(), id.clone().into());
    }
    if let Some(secret) = &settings.client_secret {
        map.insert("clientSecret".into(), secret.clone().into());
    }
    if !settings.scopes.is_empty() {
        map.insert("scopes".into(), settings.scopes.clone().into());
    }
    if let Some(port) = settings.callback_port {
        map.insert("callbackPort".into(), port.into());
    }
    if let Some(url) = &settings.client_metadata_url {
        map.insert("clientMetadataUrl".into(), url.clone().into());
    }
    if settings.client_credentials {
        map.insert("grantType".into(), "client_credentials".into());
    }
    Value::Object(map)
}
