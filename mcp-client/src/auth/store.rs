//! Where OAuth credentials live between runs: a [`TokenStore`] trait embedders can implement,
//! an in-memory store, and a file store (one JSON file per user, mode 0600, written atomically).
//!
//! Entries are keyed by MCP server URL plus issuer, so a token from one authorization server is
//! never offered to another; client registrations are kept per issuer and survive a logout of
//! the tokens and a failed refresh.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::AuthError;

/// A client registration at one authorization server.
#[derive(Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ClientRegistration {
    /// The `client_id`.
    pub client_id: String,
    /// The `client_secret`, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint (`none`, `client_secret_basic`,
    /// `client_secret_post`), when the registration said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// The redirect URI the client was registered with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
}

impl fmt::Debug for ClientRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientRegistration")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field(
                "token_endpoint_auth_method",
                &self.token_endpoint_auth_method,
            )
            .finish()
    }
}

/// Tokens from one authorization server for one MCP server.
#[derive(Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct TokenSet {
    /// The bearer access token.
    pub access_token: String,
    /// The refresh token, when one was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// When it was issued (seconds since the Unix epoch), so a short-lived token is not
    /// refreshed at every use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_at: Option<u64>,
    /// The scopes granted (or asked for, when the server did not say).
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl fmt::Debug for TokenSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenSet")
            .field("access_token", &"…")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "…"))
            .field("expires_at", &self.expires_at)
            .field("issued_at", &self.issued_at)
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// What is stored for one MCP server at one issuer.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct StoredLogin {
    /// The MCP server URL.
    pub server: String,
    /// The authorization server's issuer.
    pub issuer: String,
    /// The tokens, when logged in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenSet>,
}

/// Persistent OAuth state. Implementations must be cheap to call (they are called under a lock,
/// from async code): keep I/O small.
pub trait TokenStore: Send + Sync {
    /// The logins stored for `server` (any issuer), most recently saved last.
    fn logins(&self, server: &str) -> Result<Vec<StoredLogin>, AuthError>;
    /// Saves (replaces) the login of `login.server` at `login.issuer`.
    fn save_login(&self, login: &StoredLogin) -> Result<(), AuthError>;
    /// Forgets the logins of `server` (every issuer); registrations stay.
    fn remove_logins(&self, server: &str) -> Result<(), AuthError>;
    /// The client registration at `issuer`, if any.
    fn registration(&self, issuer: &str) -> Result<Option<ClientRegistration>, AuthError>;
    /// Saves the client registration at `issuer`.
    fn save_registration(
        &self,
        issuer: &str,
        registration: &ClientRegistration,
    ) -> Result<(), AuthError>;
}

/// The whole content of a store.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct StoreData {
    #[serde(default)]
    logins: Vec<StoredLogin>,
    #[serde(default)]
    registrations: BTreeMap<String, ClientRegistration>,
}

impl StoreData {
    fn logins(&self, server: &str) -> Vec<StoredLogin> {
        self.logins
            .iter()
            .filter(|l| l.server == server)
            .cloned()
            .collect()
    }
    fn save_login(&mut self, login: &StoredLogin) {
        self.logins
            .retain(|l| !(l.server == login.server && l.issuer == login.issuer));
        self.logins.push(login.clone());
    }
}

/// A store that forgets everything when dropped (tests, one-shot runs).
#[derive(Default)]
pub struct MemoryTokenStore {
    data: Mutex<StoreData>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl TokenStore for MemoryTokenStore {
    fn logins(&self, server: &str) -> Result<Vec<StoredLogin>, AuthError> {
        Ok(locked(&self.data).logins(server))
    }
    fn save_login(&self, login: &StoredLogin) -> Result<(), AuthError> {
        locked(&self.data).save_login(login);
        Ok(())
    }
    fn remove_logins(&self, server: &str) -> Result<(), AuthError> {
        locked(&self.data).logins.retain(|l| l.server != server);
        Ok(())
    }
    fn registration(&self, issuer: &str) -> Result<Option<ClientRegistration>, AuthError> {
        Ok(locked(&self.data).registrations.get(issuer).cloned())
    }
    fn save_registration(&self, issuer: &str, r: &ClientRegistration) -> Result<(), AuthError> {
        locked(&self.data)
            .registrations
            .insert(issuer.to_owned(), r.clone());
        Ok(())
    }
}

/// A JSON file readable by its owner only, rewritten atomically (temporary file + rename).
pub struct FileTokenStore {
    path: PathBuf,
    /// Serializes read-modify-write within this process.
    lock: Mutex<()>,
}

impl FileTokenStore {
    /// A store in `path` (created on first save, with its directory).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTokenStore {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    /// The default file: `$XDG_CONFIG_HOME/mcp/oauth.json`, else `~/.config/mcp/oauth.json`.
    pub fn default_path() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
        Some(base.join("mcp").join("oauth.json"))
    }

    /// The file this store uses.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, detail: impl fmt::Display) -> AuthError {
        AuthError::Store {
            path: self.path.display().to_string(),
            detail: detail.to_string(),
        }
    }

    fn read(&self) -> Result<StoreData, AuthError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| self.error(format!("not a token store file: {e}"))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(StoreData::default()),
            Err(e) => Err(self.error(e)),
        }
    }

    fn write(&self, data: &StoreData) -> Result<(), AuthError> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| self.error(e))?;
        let tmp = dir.join(format!(
            ".{}.{}.tmp",
            self.path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            std::process::id()
        ));
        let bytes = serde_json::to_vec_pretty(data).map_err(|e| self.error(e))?;
        {
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create(true).truncate(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            let mut file = options.open(&tmp).map_err(|e| self.error(e))?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                file.set_permissions(std::fs::Permissions::from_mode(0o600))
                    .map_err(|e| self.error(e))?;
            }
            file.write_all(&bytes).map_err(|e| self.error(e))?;
            file.sync_all().map_err(|e| self.error(e))?;
        }
        std::fs::rename(&tmp, &self.path).map_err(|e| self.error(e))
    }

    fn update(&self, f: impl FnOnce(&mut StoreData)) -> Result<(), AuthError> {
        let _guard = locked(&self.lock);
        let mut data = self.read()?;
        f(&mut data);
        self.write(&data)
    }
}

impl TokenStore for FileTokenStore {
    fn logins(&self, server: &str) -> Result<Vec<StoredLogin>, AuthError> {
        let _guard = locked(&self.lock);
        Ok(self.read()?.logins(server))
    }
    fn save_login(&self, login: &StoredLogin) -> Result<(), AuthError> {
        self.update(|d| d.save_login(login))
    }
    fn remove_logins(&self, server: &str) -> Result<(), AuthError> {
        self.update(|d| d.logins.retain(|l| l.server != server))
    }
    fn registration(&self, issuer: &str) -> Result<Option<ClientRegistration>, AuthError> {
        let _guard = locked(&self.lock);
        Ok(self.read()?.registrations.get(issuer).cloned())
    }
    fn save_registration(&self, issuer: &str, r: &ClientRegistration) -> Result<(), AuthError> {
        self.update(|d| {
            d.registrations.insert(issuer.to_owned(), r.clone());
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_store_round_trips_with_owner_only_mode() {
        let dir = std::env::temp_dir().join(format!("mcp-oauth-store-{}", std::process::id()));
        let store = FileTokenStore::new(dir.join("oauth.json"));
        let login = StoredLogin {
            server: "http://s/mcp".into(),
            issuer: "http://as".into(),
            tokens: Some(TokenSet {
                access_token: "at".into(),
                ..TokenSet::default()
            }),
        };
        store.save_login(&login).expect("save");
        store
            .save_registration(
                "http://as",
                &ClientRegistration {
                    client_id: "c".into(),
                    ..Default::default()
                },
            )
            .expect("save");
        assert_eq!(store.logins("http://s/mcp").expect("load"), vec![login]);
        store.remove_logins("http://s/mcp").expect("remove");
        assert!(store.logins("http://s/mcp").expect("load").is_empty());
        assert_eq!(
            store
                .registration("http://as")
                .expect("reg")
                .map(|r| r.client_id),
            Some("c".into())
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(store.path())
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn debug_hides_secrets() {
        let t = TokenSet {
            access_token: "s3cret".into(),
            refresh_token: Some("r3fresh".into()),
            ..TokenSet::default()
        };
        let r = ClientRegistration {
            client_id: "id".into(),
            client_secret: Some("cl1ent".into()),
            ..Default::default()
        };
        let text = format!("{t:?} {r:?}");
        assert!(!text.contains("s3cret") && !text.contains("r3fresh") && !text.contains("cl1ent"));
    }
}
