//! The three model providers over our own HTTP client, and what they share: where the endpoint
//! is, the API key (from an environment variable), extra headers, timeouts and retries.

mod anthropic;
mod gemini;
mod openai;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

pub use anthropic::Anthropic;
pub use gemini::Gemini;
pub use openai::OpenAiChat;

use crate::error::ModelError;
use crate::http::RetryPolicy;
use crate::model::Model;

/// Which provider's protocol to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI-compatible Chat Completions (OpenAI, Azure OpenAI, DeepSeek, Qwen, Ollama, vLLM,
    /// llama.cpp, LM Studio, LiteLLM, Gemini's OpenAI endpoint).
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini `streamGenerateContent`.
    Gemini,
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        })
    }
}

/// A provider name that is not one of ours.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown provider {0:?}; use openai, anthropic or gemini")]
pub struct UnknownProvider(pub String);

impl FromStr for Provider {
    type Err = UnknownProvider;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "openai" | "openai-compatible" | "chat-completions" => Ok(Provider::OpenAi),
            "anthropic" | "claude" => Ok(Provider::Anthropic),
            "gemini" | "google" => Ok(Provider::Gemini),
            _ => Err(UnknownProvider(s.to_owned())),
        }
    }
}

impl Provider {
    /// The environment variable the API key is read from.
    pub fn key_env(self) -> &'static str {
        match self {
            Provider::OpenAi => "OPENAI_API_KEY",
            Provider::Anthropic => "ANTHROPIC_API_KEY",
            Provider::Gemini => "GEMINI_API_KEY",
        }
    }

    /// The environment variable that may override the base URL.
    pub fn base_url_env(self) -> &'static str {
        match self {
            Provider::OpenAi => "OPENAI_BASE_URL",
            Provider::Anthropic => "ANTHROPIC_BASE_URL",
            Provider::Gemini => "GEMINI_BASE_URL",
        }
    }

    /// The provider's public endpoint.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::OpenAi => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com",
            Provider::Gemini => "https://generativelanguage.googleapis.com",
        }
    }

    /// A model to use when none is named.
    pub fn default_model(self) -> &'static str {
        match self {
            Provider::OpenAi => "gpt-4o-mini",
            Provider::Anthropic => "claude-sonnet-4-5",
            Provider::Gemini => "gemini-2.5-flash",
        }
    }

    /// A model of this provider for `config` (the key is checked now).
    pub fn connect(self, config: ProviderConfig) -> Result<Arc<dyn Model>, ModelError> {
        Ok(match self {
            Provider::OpenAi => Arc::new(OpenAiChat::new(config)?),
            Provider::Anthropic => Arc::new(Anthropic::new(config)?),
            Provider::Gemini => Arc::new(Gemini::new(config)?),
        })
    }
}

/// How to reach a provider's model.
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    /// The model's name.
    pub model: String,
    /// The endpoint's base URL (for OpenAI-compatible servers, up to and including `/v1`).
    pub base_url: String,
    /// The API key; when `None`, read from `api_key_env`.
    pub api_key: Option<String>,
    /// The environment variable the key comes from (named in errors).
    pub api_key_env: String,
    /// Headers sent with every request (after the key's, so they may replace it).
    pub headers: Vec<(String, String)>,
    /// The longest a connection may take.
    pub connect_timeout: Duration,
    /// The longest to wait for the response headers.
    pub response_timeout: Duration,
    /// The longest a stream may go without data.
    pub idle_timeout: Duration,
    /// Retries on 429 and 5xx.
    pub retry: RetryPolicy,
    /// The most tokens one answer may have (Anthropic requires one; default 4096).
    pub max_tokens: u32,
}

impl ProviderConfig {
    /// The provider's defaults for `model`, with the base URL and key from the environment
    /// (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, ...).
    pub fn from_env(provider: Provider, model: impl Into<String>) -> Self {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        ProviderConfig {
            model: model.into(),
            base_url: env(provider.base_url_env())
                .unwrap_or_else(|| provider.default_base_url().to_owned()),
            api_key: env(provider.key_env()),
            api_key_env: provider.key_env().to_owned(),
            headers: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            response_timeout: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(300),
            retry: RetryPolicy::default(),
            max_tokens: 4096,
        }
    }

    /// The same with another base URL.
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// The same with this key.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The same with another retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The key, or the error that names where it should come from.
    fn require_key(&self, provider: &'static str) -> Result<String, ModelError> {
        self.api_key
            .clone()
            .ok_or_else(|| ModelError::MissingApiKey {
                provider,
                env: self.api_key_env.clone(),
            })
    }

    /// The base URL without a trailing slash.
    fn base(&self) -> &str {
        self.base_url.trim_end_matches('/')
    }
}
