//! Logging: severity levels, `logging/setLevel` and `notifications/message`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::empty::EmptyResult;
use super::{JsonObject, Meta, NotificationType, RequestType};

/// A syslog severity (RFC 5424), ordered from least to most severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// General informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// Every level, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    /// The wire name, e.g. `"warning"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error for a string that names no logging level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLoggingLevel(pub String);

impl fmt::Display for UnknownLoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown logging level {:?}", self.0)
    }
}

impl std::error::Error for UnknownLoggingLevel {}

impl FromStr for LoggingLevel {
    type Err = UnknownLoggingLevel;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|level| level.as_str() == s)
            .ok_or_else(|| UnknownLoggingLevel(s.to_owned()))
    }
}

/// Params of `logging/setLevel`: the least severe level the client wants to receive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetLevelParams {
    /// The threshold.
    pub level: LoggingLevel,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SetLevelParams {
    /// Ask for messages at `level` and above.
    pub fn new(level: LoggingLevel) -> Self {
        SetLevelParams {
            level,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// `logging/setLevel`: set the server's log threshold (removed in 2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetLevel;

impl RequestType for SetLevel {
    const METHOD: &'static str = "logging/setLevel";
    type Params = SetLevelParams;
    type Result = EmptyResult;
}

/// Params of `notifications/message`: one log entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageParams {
    /// Its severity.
    pub level: LoggingLevel,
    /// The logger's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The payload: a string or any JSON.
    pub data: Value,
    /// Reserved metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields we do not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl LoggingMessageParams {
    /// A log entry at `level` carrying `data`.
    pub fn new(level: LoggingLevel, data: impl Into<Value>) -> Self {
        LoggingMessageParams {
            level,
            logger: None,
            data: data.into(),
            meta: None,
            extra: JsonObject::new(),
        }
    }

    /// Sets the logger name.
    pub fn with_logger(mut self, logger: impl Into<String>) -> Self {
        self.logger = Some(logger.into());
        self
    }
}

/// `notifications/message`: a log entry from the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoggingMessage;

impl NotificationType for LoggingMessage {
    const METHOD: &'static str = "notifications/message";
    type Params = LoggingMessageParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn levels_are_ordered_by_severity() {
        let mut sorted = LoggingLevel::ALL;
        sorted.sort();
        assert_eq!(sorted, LoggingLevel::ALL);
        assert!(LoggingLevel::Debug < LoggingLevel::Info);
        assert!(LoggingLevel::Warning < LoggingLevel::Error);
        assert!(LoggingLevel::Alert < LoggingLevel::Emergency);
        for level in LoggingLevel::ALL {
            assert_eq!(serde_json::to_value(level).unwrap(), json!(level.as_str()));
            assert_eq!(level.as_str().parse::<LoggingLevel>(), Ok(level));
        }
        assert!("verbose".parse::<LoggingLevel>().is_err());
    }

    #[test]
    fn message_round_trip() {
        let v = json!({"level": "error", "logger": "db", "data": {"e": "x"}, "z": 0});
        let p: LoggingMessageParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(p.level, LoggingLevel::Error);
        assert_eq!(serde_json::to_value(&p).unwrap(), v);
    }
}
