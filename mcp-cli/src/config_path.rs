//! Which config file the `mcp` command uses: `--config PATH`; else `$MCP_CONFIG`; else the
//! first that exists of `./mcp.json`, `~/.config/mcp/mcp.json`, Cline's settings and Claude
//! Desktop's config; else a built-in default that runs the `weather-server` next to `mcp`.

use std::path::{Path, PathBuf};

use mcp_hub::{ConfigFormat, HubConfig, Variables};

/// Where the config came from, for `mcp servers` and for commands that write it.
#[derive(Debug, Clone)]
pub enum ConfigSource {
    /// Named with `--config`.
    Flag(PathBuf),
    /// Named by `$MCP_CONFIG`.
    Env(PathBuf),
    /// Found in one of the usual places.
    Found(PathBuf),
    /// None found: the built-in default.
    BuiltIn,
}

impl ConfigSource {
    /// The file, if there is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            ConfigSource::Flag(p) | ConfigSource::Env(p) | ConfigSource::Found(p) => Some(p),
            ConfigSource::BuiltIn => None,
        }
    }

    /// A line for the user saying which config is in use.
    pub fn describe(&self, format: ConfigFormat) -> String {
        match self {
            ConfigSource::Flag(p) => format!("config: {} ({format}, from --config)", p.display()),
            ConfigSource::Env(p) => format!("config: {} ({format}, from $MCP_CONFIG)", p.display()),
            ConfigSource::Found(p) => format!("config: {} ({format})", p.display()),
            ConfigSource::BuiltIn => format!(
                "config: built-in default (no config file found; runs {})",
                weather_server_path().display()
            ),
        }
    }
}

/// Decides which config to use (the file may not exist for `--config`/`$MCP_CONFIG`).
pub fn locate(flag: Option<&Path>) -> ConfigSource {
    if let Some(path) = flag {
        return ConfigSource::Flag(path.to_owned());
    }
    if let Some(path) = std::env::var_os("MCP_CONFIG").filter(|v| !v.is_empty()) {
        return ConfigSource::Env(PathBuf::from(path));
    }
    candidates()
        .into_iter()
        .find(|p| p.is_file())
        .map_or(ConfigSource::BuiltIn, ConfigSource::Found)
}

/// The usual places, in order.
pub fn candidates() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("mcp.json")];
    let home = home();
    if let Some(home) = &home {
        out.push(home.join(".config/mcp/mcp.json"));
    }
    if let Some(path) = std::env::var_os("CLINE_MCP_SETTINGS_PATH").filter(|v| !v.is_empty()) {
        out.push(PathBuf::from(path));
    } else {
        let data_dir = std::env::var_os("CLINE_DATA_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("CLINE_DIR")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
                    .or_else(|| home.as_ref().map(|h| h.join(".cline")))
                    .map(|d| d.join("data"))
            });
        if let Some(dir) = data_dir {
            out.push(dir.join("settings/cline_mcp_settings.json"));
        }
    }
    if let Some(home) = &home {
        out.push(home.join(".config/Claude/claude_desktop_config.json"));
    }
    out
}

/// Where `mcp add` creates a config when none exists: `~/.config/mcp/mcp.json` (or
/// `./mcp.json` without a home folder).
pub fn default_new_path() -> PathBuf {
    home().map_or_else(
        || PathBuf::from("mcp.json"),
        |h| h.join(".config/mcp/mcp.json"),
    )
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The `weather-server` binary next to the running `mcp`.
pub fn weather_server_path() -> PathBuf {
    let name = if cfg!(windows) {
        "weather-server.exe"
    } else {
        "weather-server"
    };
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(name)))
        .unwrap_or_else(|| PathBuf::from(name))
}

/// The built-in default: one server, `weather`, running `weather-server` next to `mcp`.
pub fn built_in() -> HubConfig {
    let text = serde_json::json!({
        "mcpServers": {
            "weather": {
                "type": "stdio",
                "command": weather_server_path().to_string_lossy(),
                "args": [],
                "autoApprove": ["get_weather", "get_forecast", "list_cities"]
            }
        }
    })
    .to_string();
    HubConfig::parse(&text, "built-in default", &Variables::default())
        .unwrap_or_else(|_| HubConfig::empty(ConfigFormat::Cline, None))
}

/// Why a config could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The named file does not exist.
    #[error(
        "config file {0} does not exist; create it, or run `mcp add NAME -- COMMAND` to start one"
    )]
    Missing(PathBuf),
    /// The file is broken.
    #[error(transparent)]
    Config(#[from] mcp_hub::ConfigError),
}

/// Loads the config `source` points at.
pub fn load(source: &ConfigSource) -> Result<HubConfig, LoadError> {
    match source.path() {
        None => Ok(built_in()),
        Some(path) if !path.exists() => Err(LoadError::Missing(path.to_owned())),
        Some(path) => Ok(HubConfig::load(path, &Variables::default())?),
    }
}

/// Loads the config for writing: a missing file becomes an empty Cline config at that path
/// (or at [`default_new_path`] for the built-in default).
pub fn load_for_write(source: &ConfigSource) -> Result<HubConfig, LoadError> {
    match source.path() {
        None => Ok(HubConfig::empty(
            ConfigFormat::Cline,
            Some(default_new_path()),
        )),
        Some(path) if !path.exists() => {
            Ok(HubConfig::empty(ConfigFormat::Cline, Some(path.to_owned())))
        }
        Some(path) => Ok(HubConfig::load(path, &Variables::default())?),
    }
}
