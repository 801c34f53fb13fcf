//! The hub: many MCP servers as one tool set, with `server__tool` names.

pub mod naming;

pub use naming::{exposed_name, NameCollision, ToolNames, ToolRoute};
