//! The MCP protocol versions we speak, the negotiation rule, and what each version allows.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A dated MCP protocol version. Ordered by date.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// The first published version (HTTP+SSE transport).
    V2024_11_05,
    /// Streamable HTTP, JSON-RPC batches, tool annotations, audio.
    V2025_03_26,
    /// Structured tool output, elicitation, resource links; batches removed.
    V2025_06_18,
    /// Tasks, URL elicitation, icons, sampling with tools; input-validation errors as tool results.
    V2025_11_25,
    /// The stateless era: no `initialize`, per-request `_meta`, `input_required` results.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every version we speak, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The versions negotiated through `initialize` (2026-07-28 has no handshake), oldest first.
    pub const HANDSHAKE: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];

    /// The newest version negotiated through `initialize`: what we offer and fall back to.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The version a Streamable HTTP server assumes when `MCP-Protocol-Version` is missing.
    pub const HTTP_DEFAULT: ProtocolVersion = ProtocolVersion::V2025_03_26;

    /// The date string, e.g. `"2025-06-18"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a date string; `None` for any version we do not speak.
    pub fn parse(s: &str) -> Option<ProtocolVersion> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// JSON-RPC batches (arrays) are allowed only in 2025-03-26.
    pub fn allows_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }

    /// HTTP requests after `initialize` carry `MCP-Protocol-Version` from 2025-06-18 on.
    pub fn has_version_header(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Tool arguments that fail validation are reported as `isError` results (2025-11-25 on),
    /// not as JSON-RPC error -32602.
    pub fn tool_input_errors_as_results(self) -> bool {
        self >= ProtocolVersion::V2025_11_25
    }

    /// Structured tool output (`outputSchema`, `structuredContent`) exists from 2025-06-18 on.
    pub fn has_structured_output(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Elicitation (`elicitation/create`) exists from 2025-06-18 on.
    pub fn has_elicitation(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Streamable HTTP replaced HTTP+SSE in 2025-03-26.
    pub fn has_streamable_http(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// The stateless era: no `initialize`, every request carries its version in `_meta`.
    pub fn is_stateless_era(self) -> bool {
        self >= ProtocolVersion::V2026_07_28
    }

    /// "Resource not found" is -32002 up to 2025-11-25 and -32602 from 2026-07-28.
    pub fn resource_not_found_code(self) -> i64 {
        if self.is_stateless_era() {
            crate::jsonrpc::error_codes::INVALID_PARAMS
        } else {
            crate::jsonrpc::error_codes::RESOURCE_NOT_FOUND
        }
    }
}

/// The lifecycle rule, seen from the server: answer with the client's version when we speak it,
/// else with our latest. `supported` must not be empty; it is searched as given.
pub fn negotiate(requested: &str, supported: &[ProtocolVersion]) -> ProtocolVersion {
    match ProtocolVersion::parse(requested) {
        Some(v) if supported.contains(&v) => v,
        _ => supported
            .iter()
            .copied()
            .max()
            .unwrap_or(ProtocolVersion::LATEST),
    }
}

/// The client's side of the rule: accept the server's answer only if we speak it.
pub fn accept(
    answer: &str,
    supported: &[ProtocolVersion],
) -> Result<ProtocolVersion, UnsupportedVersion> {
    match ProtocolVersion::parse(answer) {
        Some(v) if supported.contains(&v) => Ok(v),
        _ => Err(UnsupportedVersion {
            requested: answer.to_owned(),
            supported: supported
                .iter()
                .map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// A version string we do not speak.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unsupported protocol version {requested:?}; supported: {supported}")]
pub struct UnsupportedVersion {
    /// The version that was asked for or answered.
    pub requested: String,
    /// The versions we speak, comma-separated.
    pub supported: String,
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProtocolVersion {
    type Err = UnsupportedVersion;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        accept(s, &Self::ALL)
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;

    #[test]
    fn parse_display_order() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
            assert_eq!(v.to_string(), v.as_str());
        }
        assert!(V2024_11_05 < V2025_03_26 && V2025_03_26 < V2025_06_18);
        assert!(V2025_06_18 < V2025_11_25 && V2025_11_25 < V2026_07_28);
        assert_eq!(ProtocolVersion::parse("2099-01-01"), None);
        assert_eq!(ProtocolVersion::parse(""), None);
        let v: ProtocolVersion = serde_json::from_str("\"2025-06-18\"").unwrap();
        assert_eq!(v, V2025_06_18);
        assert!(serde_json::from_str::<ProtocolVersion>("\"1.0\"").is_err());
    }

    /// Every pair (server supports a set, client asks for a version): the server's answer.
    #[test]
    fn negotiation_table_for_every_pair() {
        let sets: Vec<Vec<ProtocolVersion>> = (0..ProtocolVersion::HANDSHAKE.len())
            .map(|i| ProtocolVersion::HANDSHAKE[..=i].to_vec())
            .chain([vec![V2024_11_05], vec![V2025_06_18, V2025_11_25]])
            .collect();
        for server in &sets {
            for client in ProtocolVersion::ALL {
                let answer = negotiate(client.as_str(), server);
                if server.contains(&client) {
                    assert_eq!(answer, client, "server {server:?} must echo {client}");
                } else {
                    assert_eq!(
                        answer,
                        *server.iter().max().unwrap(),
                        "server {server:?} vs {client}"
                    );
                }
                // The client accepts the answer iff it speaks it.
                let client_speaks = [client];
                assert_eq!(
                    accept(answer.as_str(), &client_speaks).is_ok(),
                    answer == client
                );
            }
            for unknown in ["2023-01-01", "draft", "", "2025-13-40"] {
                assert_eq!(negotiate(unknown, server), *server.iter().max().unwrap());
            }
        }
        assert_eq!(
            negotiate("2024-11-05", &ProtocolVersion::HANDSHAKE),
            V2024_11_05
        );
        assert_eq!(
            negotiate("2026-07-28", &ProtocolVersion::HANDSHAKE),
            V2025_11_25
        );
    }

    #[test]
    fn rejection_names_both_sides() {
        let err = accept("1999-01-01", &[V2025_06_18, V2025_11_25]).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("1999-01-01") && text.contains("2025-06-18, 2025-11-25"),
            "{text}"
        );
    }

    #[test]
    fn what_each_version_allows() {
        let batches: Vec<_> = ProtocolVersion::ALL
            .into_iter()
            .filter(|v| v.allows_batches())
            .collect();
        assert_eq!(batches, vec![V2025_03_26]);
        assert!(!V2025_03_26.has_version_header() && V2025_06_18.has_version_header());
        assert!(
            !V2025_06_18.tool_input_errors_as_results()
                && V2025_11_25.tool_input_errors_as_results()
        );
        assert_eq!(V2025_11_25.resource_not_found_code(), -32002);
        assert_eq!(V2026_07_28.resource_not_found_code(), -32602);
    }
}
