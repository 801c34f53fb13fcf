//! Running as one of several replicas: where shared state lives (`--redis`, `MCP_REDIS_URL`)
//! and the key every replica seals MRTR request states with (`--state-key`, `MCP_STATE_KEY`).
//! Without them, everything stays in this process.

use std::time::Duration;

use mcp_server::ServerBuilder;
#[cfg(feature = "redis")]
use mcp_server_redis::RedisConfig;

/// The shortest state key accepted, in bytes.
const MIN_KEY_BYTES: usize = 32;

/// What the command line and environment say about sharing state.
#[derive(Debug, Default)]
pub struct ReplicaArgs {
    redis_url: Option<String>,
    redis_prefix: Option<String>,
    redis_timeout: Option<Duration>,
    session_lease: Option<Duration>,
    state_key: Option<String>,
}

impl ReplicaArgs {
    /// Takes `arg` (reading its value with `value`) if it is one of ours; `Ok(false)` if not.
    pub fn take(
        &mut self,
        arg: &str,
        value: impl FnOnce() -> Result<String, String>,
    ) -> Result<bool, String> {
        match arg {
            "--redis" => self.redis_url = Some(value()?),
            "--redis-prefix" => self.redis_prefix = Some(value()?),
            "--redis-timeout" => {
                let v = value()?;
                let secs: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| format!("--redis-timeout {v:?}: expected positive seconds"))?;
                self.redis_timeout = Some(Duration::from_secs_f64(secs));
            }
            "--session-lease" => {
                let v = value()?;
                let secs: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| {
                        format!("--session-lease {v:?}: expected seconds (0 or more)")
                    })?;
                self.session_lease = Some(Duration::from_secs_f64(secs));
            }
            "--state-key" => self.state_key = Some(value()?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Fills what the command line left out from `MCP_REDIS_URL`, `MCP_REDIS_PREFIX` and
    /// `MCP_STATE_KEY`, as read by `env`.
    pub fn with_env(mut self, env: impl Fn(&str) -> Option<String>) -> Self {
        let nonempty = |name: &str| env(name).filter(|v| !v.is_empty());
        self.redis_url = self.redis_url.or_else(|| nonempty("MCP_REDIS_URL"));
        self.redis_prefix = self.redis_prefix.or_else(|| nonempty("MCP_REDIS_PREFIX"));
        self.state_key = self.state_key.or_else(|| nonempty("MCP_STATE_KEY"));
        self
    }

    /// `builder` with the shared state the arguments ask for: the Redis a URL was given for (with
    /// the `redis` feature), else the builder as it was (state in this process).
    pub fn share_state(&self, builder: ServerBuilder) -> Result<ServerBuilder, String> {
        if self.redis_url.is_none() {
            return Ok(builder);
        }
        #[cfg(feature = "redis")]
        {
            let config = self.redis().ok_or("no Redis URL")?;
            let backend =
                mcp_server_redis::RedisBackend::open(config).map_err(|e| e.to_string())?;
            Ok(builder.shared_state(backend))
        }
        #[cfg(not(feature = "redis"))]
        {
            let _ = builder;
            Err(
                "--redis (or MCP_REDIS_URL) needs Redis support, which this build leaves out; \
                 build with `cargo build --release -p weather-server --features redis`"
                    .into(),
            )
        }
    }

    /// Where shared state lives: the Redis a URL was given for, else (`None`) this process.
    #[cfg(feature = "redis")]
    pub fn redis(&self) -> Option<RedisConfig> {
        let url = self.redis_url.as_ref()?;
        let mut config = RedisConfig::new(url.clone())
            .key_prefix(self.redis_prefix.as_deref().unwrap_or("mcp:weather:"));
        if let Some(timeout) = self.redis_timeout {
            config = config.command_timeout(timeout);
        }
        if let Some(lease) = self.session_lease {
            config = config.session_lease(lease);
        }
        Some(config)
    }

    /// The request-state key, if one was given: hex, or the path of a file holding hex or raw
    /// bytes (a mounted secret).
    pub fn state_key(&self) -> Result<Option<Vec<u8>>, String> {
        let Some(given) = &self.state_key else {
            return Ok(None);
        };
        let key = match decode_hex(given.trim()) {
            Some(key) => key,
            None => {
                let bytes = std::fs::read(given).map_err(|e| {
                    format!("--state-key: {given:?} is neither hex nor a readable file: {e}")
                })?;
                let text = std::str::from_utf8(&bytes).map(str::trim).unwrap_or("");
                decode_hex(text).unwrap_or(bytes)
            }
        };
        if key.len() < MIN_KEY_BYTES {
            return Err(format!(
                "--state-key: the key has {} bytes; use at least {MIN_KEY_BYTES} random bytes (e.g. `openssl rand -hex 32`)",
                key.len()
            ));
        }
        Ok(Some(key))
    }
}

/// `text` as bytes if it is a non-empty, even-length run of hex digits.
fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if text.is_empty() || text.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    text.as_bytes()
        .chunks(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_come_as_hex_or_files() {
        let hex = "00ff".repeat(16);
        let args = ReplicaArgs {
            state_key: Some(hex.clone()),
            ..Default::default()
        };
        let key = args.state_key().unwrap().unwrap();
        assert_eq!(key.len(), 32);
        assert_eq!(&key[..2], &[0, 255]);
        let short = ReplicaArgs {
            state_key: Some("abcd".into()),
            ..Default::default()
        };
        assert!(short.state_key().unwrap_err().contains("at least 32"));
        let path = std::env::temp_dir().join(format!("state-key-{}", std::process::id()));
        std::fs::write(&path, format!("{hex}\n")).unwrap();
        let file = ReplicaArgs {
            state_key: Some(path.display().to_string()),
            ..Default::default()
        };
        assert_eq!(file.state_key().unwrap().unwrap(), key);
        std::fs::remove_file(&path).unwrap();
    }

    #[cfg(feature = "redis")]
    #[test]
    fn the_session_lease_is_seconds_and_zero_turns_it_off() {
        let mut args = ReplicaArgs::default();
        assert!(args.take("--redis", || Ok("redis://a:1".into())).unwrap());
        assert!(args.take("--session-lease", || Ok("0".into())).unwrap());
        let c = args.redis().expect("redis expected");
        assert_eq!(c.session_lease, Duration::ZERO);
        let bad = args.take("--session-lease", || Ok("-1".into()));
        assert!(bad.unwrap_err().contains("--session-lease"));
        let c = ReplicaArgs::default()
            .with_env(|_| Some("redis://a:1".into()))
            .redis()
            .expect("redis expected");
        assert_eq!(c.session_lease, Duration::from_secs(1));
    }

    #[cfg(feature = "redis")]
    #[test]
    fn the_command_line_wins_over_the_environment() {
        let mut args = ReplicaArgs::default();
        assert!(args.take("--redis", || Ok("redis://a:1".into())).unwrap());
        assert!(!args.take("--other", || Ok(String::new())).unwrap());
        let args = args.with_env(|name| match name {
            "MCP_REDIS_URL" => Some("redis://b:2".into()),
            "MCP_REDIS_PREFIX" => Some("p:".into()),
            _ => None,
        });
        let c = args.redis().expect("redis expected");
        assert_eq!(c.url, "redis://a:1");
        assert_eq!(c.key_prefix, "p:");
        assert!(ReplicaArgs::default().with_env(|_| None).redis().is_none());
    }

    /// Without the `redis` feature, asking for Redis is a clear error, not a silent
    /// in-process server.
    #[cfg(not(feature = "redis"))]
    #[test]
    fn redis_without_the_feature_says_how_to_build_it() {
        let mut args = ReplicaArgs::default();
        assert!(args.take("--redis", || Ok("redis://a:1".into())).unwrap());
        let builder = mcp_server::Server::builder("w", "1");
        let error = args.share_state(builder).err().expect("refused");
        assert!(error.contains("--features redis"), "{error}");
        let builder = mcp_server::Server::builder("w", "1");
        assert!(ReplicaArgs::default().share_state(builder).is_ok());
    }
}
