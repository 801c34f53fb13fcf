//! Which protocol era a server speaks, how the client finds out, and where it remembers it.
//!
//! The 2025 era (`initialize`, sessions) and the 2026-07-28 era (no handshake, `_meta` on every
//! request) share the same endpoints. [`Negotiation::Auto`] probes with a modern
//! `server/discover` and falls back to `initialize` as the spec's era-detection rules say: any
//! answer that is not a recognised modern error (or no answer within the probe timeout) means a
//! 2025-era server. An [`EraCache`] remembers the outcome per server, so a restart or a second
//! connection skips the probe.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use mcp_proto::jsonrpc::{error_codes, ErrorObject};
use mcp_proto::peer::PeerError;
use mcp_proto::ProtocolVersion;

/// How the client chooses the protocol version and era of a server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Negotiation {
    /// Probe with `server/discover` (2026-07-28); fall back to `initialize` for 2025-era servers.
    #[default]
    Auto,
    /// Only the 2025 era: `initialize` with the client's offered version, no probe.
    Legacy,
    /// Exactly this version: 2026-07-28 talks modern with no fallback, an older one is offered
    /// in `initialize` and must be what the server answers with.
    Pin(ProtocolVersion),
}

impl fmt::Display for Negotiation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Negotiation::Auto => f.write_str("auto"),
            Negotiation::Legacy => f.write_str("legacy"),
            Negotiation::Pin(v) => f.write_str(v.as_str()),
        }
    }
}

/// Why a negotiation mode could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown protocol mode {0:?}: use \"auto\", \"legacy\", or a version to pin \
     (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)"
)]
pub struct NegotiationParseError(pub String);

impl FromStr for Negotiation {
    type Err = NegotiationParseError;

    /// `auto`, `legacy`, or a dated version we speak (pinned).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Negotiation::Auto),
            "legacy" => Ok(Negotiation::Legacy),
            other => ProtocolVersion::parse(other)
                .map(Negotiation::Pin)
                .ok_or_else(|| NegotiationParseError(other.to_owned())),
        }
    }
}

/// The era a server was found to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Era {
    /// The handshake era (2024-11-05 … 2025-11-25): `initialize`, sessions.
    Legacy,
    /// The stateless era (2026-07-28 on): per-request `_meta`, `server/discover`.
    Modern,
}

impl Era {
    /// The era a protocol version belongs to.
    pub fn of(version: ProtocolVersion) -> Era {
        if version.is_stateless_era() {
            Era::Modern
        } else {
            Era::Legacy
        }
    }
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        })
    }
}

/// Remembers, per server key (a URL or a command line), the version a server was last found to
/// speak, so reconnects skip the probe. Cheap to clone; clones share the memory. Bounded: past
/// [`EraCache::CAPACITY`] servers it forgets everything and starts over.
#[derive(Clone, Debug, Default)]
pub struct EraCache {
    known: Arc<Mutex<HashMap<String, ProtocolVersion>>>,
}

impl EraCache {
    /// The most servers remembered at once.
    pub const CAPACITY: usize = 1024;

    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The version last seen for `key`.
    pub fn get(&self, key: &str) -> Option<ProtocolVersion> {
        self.known
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .copied()
    }

    /// Remembers `version` for `key`.
    pub fn set(&self, key: &str, version: ProtocolVersion) {
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        if known.len() >= Self::CAPACITY && !known.contains_key(key) {
            known.clear();
        }
        known.insert(key.to_owned(), version);
    }

    /// Forgets `key` (its server changed, say).
    pub fn forget(&self, key: &str) {
        self.known
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(key);
    }
}

/// What the answer to a `server/discover` probe says about the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProbeVerdict {
    /// A modern server that refused the version we asked for but lists this one (which may be
    /// the same version: a refusal that names it is worth one more try).
    RetryWith(ProtocolVersion),
    /// A modern server that refused the probe for a reason we cannot fix (-32020, -32021, or
    /// -32022 with no version in common); the text says why.
    ModernRefused(String),
    /// Not a modern server (any other error, a transport failure, no answer): use `initialize`.
    Legacy,
}

/// Classifies a failed probe by the spec's era-detection rules: only an error a modern server
/// sends counts as modern; anything else (a -32601, a "not initialized", an HTTP 400 without a
/// modern body, a timeout) means a 2025-era server. A closed connection is passed back as is:
/// a server that hung up cannot take an `initialize` on the same connection.
pub(crate) fn classify_probe(error: &PeerError, asked: ProtocolVersion) -> ProbeVerdict {
    let Some(rpc) = error.rpc_error() else {
        return ProbeVerdict::Legacy;
    };
    match rpc.code {
        error_codes::UNSUPPORTED_PROTOCOL_VERSION => match supported_versions(rpc) {
            Some(supported) => {
                let offered: Vec<ProtocolVersion> = supported
                    .iter()
                    .filter_map(|v| ProtocolVersion::parse(v))
                    .collect();
                // A refusal that lists the version we asked for is worth one more try with it;
                // else the newest modern version the server names.
                let modern = if offered.contains(&asked) {
                    Some(asked)
                } else {
                    offered
                        .iter()
                        .copied()
                        .filter(|v| v.is_stateless_era())
                        .max()
                };
                match modern {
                    Some(v) => ProbeVerdict::RetryWith(v),
                    // Only legacy versions in common: the server is dual-era, take the handshake.
                    None if offered.iter().any(|v| !v.is_stateless_era()) => ProbeVerdict::Legacy,
                    None => ProbeVerdict::ModernRefused(format!(
                        "the server speaks only {} (we asked for {asked})",
                        supported.join(", ")
                    )),
                }
            }
            None => ProbeVerdict::Legacy,
        },
        error_codes::HEADER_MISMATCH | error_codes::MISSING_REQUIRED_CLIENT_CAPABILITY => {
            ProbeVerdict::ModernRefused(format!(
                "server/discover was refused with {}: {}",
                rpc.code, rpc.message
            ))
        }
        _ => ProbeVerdict::Legacy,
    }
}

/// The `data.supported` list of a -32022 error, when it has one.
fn supported_versions(error: &ErrorObject) -> Option<Vec<String>> {
    #[derive(serde::Deserialize)]
    struct Data {
        supported: Vec<String>,
    }
    let data = error.data.as_ref()?;
    serde_json::from_str::<Data>(data.get())
        .ok()
        .map(|d| d.supported)
}

#[cfg(test)]
mod tests {
    use mcp_proto::jsonrpc::raw_json;

    use super::*;

    fn rpc(code: i64, data: Option<&str>) -> PeerError {
        let mut error = ErrorObject::new(code, "x");
        error.data = data.map(raw_json);
        PeerError::Rpc {
            method: "server/discover".into(),
            error,
        }
    }

    #[test]
    fn modes_parse_and_print() {
        assert_eq!("auto".parse(), Ok(Negotiation::Auto));
        assert_eq!("legacy".parse(), Ok(Negotiation::Legacy));
        assert_eq!(
            "2026-07-28".parse(),
            Ok(Negotiation::Pin(ProtocolVersion::V2026_07_28))
        );
        assert!("modern".parse::<Negotiation>().is_err());
        assert_eq!(
            Negotiation::Pin(ProtocolVersion::V2025_06_18).to_string(),
            "2025-06-18"
        );
    }

    #[test]
    fn only_modern_errors_count_as_modern() {
        let v = ProtocolVersion::V2026_07_28;
        assert_eq!(classify_probe(&rpc(-32601, None), v), ProbeVerdict::Legacy);
        assert_eq!(classify_probe(&rpc(-32602, None), v), ProbeVerdict::Legacy);
        assert_eq!(classify_probe(&rpc(-32600, None), v), ProbeVerdict::Legacy);
        let timeout = PeerError::Timeout {
            method: "server/discover".into(),
            timeout: std::time::Duration::from_secs(1),
        };
        assert_eq!(classify_probe(&timeout, v), ProbeVerdict::Legacy);
        assert!(matches!(
            classify_probe(&rpc(-32021, None), v),
            ProbeVerdict::ModernRefused(_)
        ));
        // A -32022 that lists only 2025 versions: a dual-era server, take the handshake.
        let legacy_only = rpc(
            -32022,
            Some(r#"{"supported":["2025-11-25"],"requested":"x"}"#),
        );
        assert_eq!(classify_probe(&legacy_only, v), ProbeVerdict::Legacy);
        let none = rpc(
            -32022,
            Some(r#"{"supported":["2030-01-01"],"requested":"x"}"#),
        );
        assert!(matches!(
            classify_probe(&none, v),
            ProbeVerdict::ModernRefused(_)
        ));
        assert_eq!(classify_probe(&rpc(-32022, None), v), ProbeVerdict::Legacy);
        // A refusal that lists the version asked for: try it once more.
        let same = rpc(
            -32022,
            Some(r#"{"supported":["2026-07-28"],"requested":"2026-07-28"}"#),
        );
        assert_eq!(classify_probe(&same, v), ProbeVerdict::RetryWith(v));
    }

    #[test]
    fn the_cache_remembers_per_key() {
        let cache = EraCache::new();
        cache.set("a", ProtocolVersion::V2026_07_28);
        assert_eq!(cache.clone().get("a"), Some(ProtocolVersion::V2026_07_28));
        assert_eq!(cache.get("b"), None);
        cache.forget("a");
        assert_eq!(cache.get("a"), None);
    }
}
