//! The request scope: what a request is served under, in one place (not MRTR's `requestState`,
//! which `modern/sealed_state.rs` seals): the negotiated protocol version, both sides'
//! capabilities and infos, and the least severe log level the client wants. Handlers read it
//! through their [`Context`](crate::Context) and never care which era filled it: the 2025 era
//! fills it once per connection (`initialize`, or a stateless HTTP request's header); the
//! 2026-07-28 era fills it from each request's `_meta`.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use mcp_proto::schema::{ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities};
use mcp_proto::ProtocolVersion;

use crate::auth::AuthIdentity;
use crate::modern::InputRound;
use crate::router::Advertised;
use crate::tasks::TaskSlot;

/// What the two sides agreed on: the version, and each side's capabilities and info.
#[derive(Debug)]
pub(crate) struct Negotiated {
    pub(crate) version: ProtocolVersion,
    pub(crate) client_capabilities: ClientCapabilities,
    pub(crate) client_info: Implementation,
    /// Shared by every session negotiated on the same version and offers.
    pub(crate) server_capabilities: Arc<ServerCapabilities>,
    /// Which list-changed notifications the client was promised.
    pub(crate) advertised: Advertised,
}

/// The least severe level of log messages a client wants, changeable while requests run
/// (`logging/setLevel`).
#[derive(Debug)]
pub(crate) struct LogLevel(AtomicU8);

impl LogLevel {
    pub(crate) fn new(level: LoggingLevel) -> Self {
        LogLevel(AtomicU8::new(level_index(level)))
    }

    /// No messages at all: a 2026-07-28 request that named no `logLevel`.
    pub(crate) fn off() -> Self {
        LogLevel(AtomicU8::new(u8::MAX))
    }

    pub(crate) fn set(&self, level: LoggingLevel) {
        self.0.store(level_index(level), Ordering::Relaxed);
    }

    /// Whether a message at `level` is sent.
    pub(crate) fn allows(&self, level: LoggingLevel) -> bool {
        level_index(level) >= self.0.load(Ordering::Relaxed)
    }
}

fn level_index(level: LoggingLevel) -> u8 {
    LoggingLevel::ALL
        .iter()
        .position(|l| *l == level)
        .unwrap_or(0) as u8
}

/// The state one request is served under.
#[derive(Clone, Debug)]
pub(crate) struct RequestScope {
    negotiated: Arc<Negotiated>,
    log_level: Arc<LogLevel>,
    /// The input round of a 2026-07-28 request that may ask the client for input.
    input: Option<Arc<InputRound>>,
    /// The verified identity of the client (HTTP with authorization).
    identity: Option<Arc<AuthIdentity>>,
    /// The task side of a task-eligible `tools/call`.
    task: Option<Arc<TaskSlot>>,
    /// A key unique to the connection (2025) the request came on; empty under 2026-07-28.
    connection: Option<Arc<str>>,
}

impl RequestScope {
    /// A request served under what its connection negotiated, logging at the connection's level.
    pub(crate) fn new(negotiated: Arc<Negotiated>, log_level: Arc<LogLevel>) -> Self {
        RequestScope {
            negotiated,
            log_level,
            input: None,
            identity: None,
            task: None,
            connection: None,
        }
    }

    /// The same state, serving the client `identity`.
    pub(crate) fn with_identity(mut self, identity: Option<Arc<AuthIdentity>>) -> Self {
        self.identity = identity;
        self
    }

    /// The verified identity of the client, if any.
    pub(crate) fn identity(&self) -> Option<&AuthIdentity> {
        self.identity.as_deref()
    }

    /// The same state, on the connection known by `key`.
    pub(crate) fn on_connection(mut self, key: Arc<str>) -> Self {
        self.connection = Some(key);
        self
    }

    /// The same state, with the task side of a task-eligible `tools/call`.
    pub(crate) fn with_task(mut self, task: Arc<TaskSlot>) -> Self {
        self.task = Some(task);
        self
    }

    /// The task side, if the request is a task-eligible `tools/call`.
    pub(crate) fn task(&self) -> Option<&TaskSlot> {
        self.task.as_deref()
    }

    /// The connection's key.
    pub(crate) fn connection(&self) -> &str {
        self.connection.as_deref().unwrap_or_default()
    }

    /// The same state, able (with `Some`) to ask the client for input through MRTR.
    pub(crate) fn with_input(mut self, input: Option<Arc<InputRound>>) -> Self {
        self.input = input;
        self
    }

    /// The input round, for a 2026-07-28 `tools/call`, `prompts/get` or `resources/read`.
    pub(crate) fn input(&self) -> Option<&InputRound> {
        self.input.as_deref()
    }

    pub(crate) fn version(&self) -> ProtocolVersion {
        self.negotiated.version
    }

    pub(crate) fn client_capabilities(&self) -> &ClientCapabilities {
        &self.negotiated.client_capabilities
    }

    pub(crate) fn client_info(&self) -> &Implementation {
        &self.negotiated.client_info
    }

    pub(crate) fn server_capabilities(&self) -> &ServerCapabilities {
        &self.negotiated.server_capabilities
    }

    pub(crate) fn logs(&self, level: LoggingLevel) -> bool {
        self.log_level.allows(level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_levels_order_by_severity() {
        let level = LogLevel::new(LoggingLevel::Warning);
        assert!(level.allows(LoggingLevel::Error));
        assert!(level.allows(LoggingLevel::Warning));
        assert!(!level.allows(LoggingLevel::Info));
        level.set(LoggingLevel::Debug);
        assert!(level.allows(LoggingLevel::Info));
        assert!(!LogLevel::off().allows(LoggingLevel::Emergency));
    }
}
