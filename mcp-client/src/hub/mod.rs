//! The hub: many MCP servers as one tool set, with `server__tool` names, from the config files
//! users already have.

pub mod config;
pub mod naming;

pub use config::{ConfigError, ConfigFormat, HubConfig, ServerConfig, TransportConfig, Variables};
pub use naming::{exposed_name, NameCollision, ToolNames, ToolRoute};
