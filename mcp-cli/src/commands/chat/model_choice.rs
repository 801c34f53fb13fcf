//! Which model `mcp chat` talks to: the flags (`--provider`, `--model`, `--base-url`) over the
//! conventional environment variables (`OPENAI_API_KEY`/`OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`,
//! `GEMINI_API_KEY`) over the config file's optional `model` section:
//!
//! ```json
//! {"mcpServers": {...}, "model": {"provider": "anthropic", "model": "claude-sonnet-4-5",
//!   "baseUrl": "https://...", "apiKeyEnv": "MY_KEY", "headers": {"X-Team": "a"}, "maxTokens": 4096}}
//! ```

use std::path::Path;
use std::sync::Arc;

use mcp_agent::{Model, Provider, ProviderConfig};
use serde_json::Value;

use crate::commands::Failure;

/// What the command line says about the model.
#[derive(Debug, Clone, Default)]
pub struct ModelFlags {
    /// `--provider`.
    pub provider: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
}

/// The config file's `model` section, if the file has one.
fn config_section(path: Option<&Path>) -> Value {
    path.and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|v| v.get("model").cloned())
        .unwrap_or(Value::Null)
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The provider: the flag, the config, else the one whose key is set (OpenAI first).
fn provider(flags: &ModelFlags, section: &Value) -> Result<Provider, Failure> {
    let named = flags.provider.clone().or_else(|| {
        section
            .get("provider")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    if let Some(name) = named {
        return name.parse().map_err(|e| Failure::usage(format!("{e}")));
    }
    let keyed = [Provider::OpenAi, Provider::Anthropic, Provider::Gemini]
        .into_iter()
        .find(|p| env(p.key_env()).is_some());
    Ok(keyed.unwrap_or(Provider::OpenAi))
}

/// The model to chat with, its key checked (a missing key is one clear line).
pub fn choose(flags: &ModelFlags, config_file: Option<&Path>) -> Result<Arc<dyn Model>, Failure> {
    let section = config_section(config_file);
    let provider = provider(flags, &section)?;
    let text = |key: &str| section.get(key).and_then(Value::as_str).map(str::to_owned);
    let model = flags
        .model
        .clone()
        .or_else(|| text("model"))
        .unwrap_or_else(|| provider.default_model().to_owned());
    let mut config = ProviderConfig::from_env(provider, model);
    if let Some(key_env) = text("apiKeyEnv") {
        config.api_key = env(&key_env);
        config.api_key_env = key_env;
    }
    // The flag, then the environment (already in `config`), then the config file.
    if let Some(url) = flags.base_url.clone() {
        config.base_url = url;
    } else if env(provider.base_url_env()).is_none() {
        if let Some(url) = text("baseUrl") {
            config.base_url = url;
        }
    }
    if let Some(headers) = section.get("headers").and_then(Value::as_object) {
        for (name, value) in headers {
            if let Some(value) = value.as_str() {
                config.headers.push((name.clone(), value.to_owned()));
            }
        }
    }
    if let Some(max) = section
        .get("maxTokens")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
    {
        config.max_tokens = max;
    }
    provider
        .connect(config)
        .map_err(|e| Failure::usage(e.to_string()))
}
