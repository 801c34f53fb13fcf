//! What a conformance case is: its metadata (id, title, versions, spec section, level) and its
//! outcome (pass, fail with expected and got, skip with why).

use std::fmt;

use mcp_proto::ProtocolVersion;

use crate::context::Ctx;
use crate::driver::BoxFuture;
use crate::error::Error;

/// How binding the requirement a case checks is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// MUST / MUST NOT: a failure makes the run fail.
    Must,
    /// SHOULD / SHOULD NOT: reported, but the exit status stays 0.
    Should,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
        })
    }
}

/// The protocol versions a case applies to: `since` up to (not including) `until`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Versions {
    /// The first version the requirement appears in.
    pub since: ProtocolVersion,
    /// The version that removed it, if any.
    pub until: Option<ProtocolVersion>,
}

impl Versions {
    /// Every handshake version from `since` on.
    pub const fn since(since: ProtocolVersion) -> Self {
        Versions { since, until: None }
    }

    /// Every handshake version.
    pub const ALL: Versions = Versions::since(ProtocolVersion::V2024_11_05);

    /// Every handshake version (2026-07-28 removed the feature).
    pub const fn until_modern() -> Self {
        Versions {
            since: ProtocolVersion::V2024_11_05,
            until: Some(ProtocolVersion::V2026_07_28),
        }
    }

    /// Exactly one version.
    pub const fn only(v: ProtocolVersion) -> Self {
        let until = match v {
            ProtocolVersion::V2024_11_05 => ProtocolVersion::V2025_03_26,
            ProtocolVersion::V2025_03_26 => ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2025_06_18 => ProtocolVersion::V2025_11_25,
            ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28 => {
                ProtocolVersion::V2026_07_28
            }
        };
        Versions {
            since: v,
            until: Some(until),
        }
    }

    /// True if `v` is in the range.
    pub fn contains(&self, v: ProtocolVersion) -> bool {
        v >= self.since && self.until.is_none_or(|u| v < u)
    }
}

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.until {
            None => write!(f, "{}+", self.since.as_str()),
            Some(u) if Versions::only(self.since).until == Some(u) => {
                write!(f, "{} only", self.since.as_str())
            }
            Some(u) => {
                let last = ProtocolVersion::ALL
                    .iter()
                    .copied()
                    .filter(|v| *v < u)
                    .max()
                    .unwrap_or(self.since);
                write!(f, "{}..{}", self.since.as_str(), last.as_str())
            }
        }
    }
}

/// Which session a case runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionUse {
    /// The shared session, initialized at the latest version; the runner skips the case when
    /// the negotiated version is outside [`Case::versions`].
    Shared,
    /// The case opens its own sessions (uninitialized or at a chosen version).
    Own,
}

/// The transports a case applies to; the runner leaves a case out of a run on another one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transports {
    /// Every transport (the protocol cases).
    Any,
    /// Streamable HTTP targets only.
    Http,
    /// Legacy HTTP+SSE targets only.
    Sse,
    /// Every transport but Streamable HTTP, where requests outside an initialized session
    /// (before `initialize`, a second `initialize`) meet the transport's session rules
    /// (`http.*` cases) instead of JSON-RPC replies.
    NotHttp,
}

impl Transports {
    /// True if the case applies to a target of kind `name` (`stdio`, `http`, `sse`).
    pub fn applies_to(self, name: &str) -> bool {
        match self {
            Transports::Any => true,
            Transports::Http => name == "http",
            Transports::Sse => name == "sse",
            Transports::NotHttp => name != "http",
        }
    }
}

impl fmt::Display for Transports {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Transports::Any => "any",
            Transports::Http => "http",
            Transports::Sse => "sse",
            Transports::NotHttp => "stdio, sse",
        })
    }
}

/// The result of one case.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The server did what the specification asks.
    Pass,
    /// It did not.
    Fail {
        /// What the specification asks for.
        expected: String,
        /// What the server did.
        got: String,
    },
    /// The case does not apply to this server.
    Skip {
        /// Why (capability not declared, fixture missing, version not spoken).
        why: String,
    },
}

impl Outcome {
    /// A failure.
    pub fn fail(expected: impl Into<String>, got: impl Into<String>) -> Self {
        Outcome::Fail {
            expected: expected.into(),
            got: got.into(),
        }
    }

    /// A skip.
    pub fn skip(why: impl Into<String>) -> Self {
        Outcome::Skip { why: why.into() }
    }

    /// The short word for reports: `pass`, `fail`, `skip`.
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail { .. } => "fail",
            Outcome::Skip { .. } => "skip",
        }
    }
}

/// What a case body returns; an [`Error`] becomes a failure with the error as what came.
pub type CaseResult = Result<Outcome, Error>;

/// The body of a case.
pub type CaseFn = for<'a> fn(&'a mut Ctx) -> BoxFuture<'a, CaseResult>;

/// One conformance case.
#[derive(Clone, Copy)]
pub struct Case {
    /// A stable dotted id, `area.name`; `--only`/`--skip` match its prefix.
    pub id: &'static str,
    /// One line saying what is checked.
    pub title: &'static str,
    /// The versions the requirement applies to.
    pub versions: Versions,
    /// The specification section (page and heading) it comes from.
    pub section: &'static str,
    /// MUST or SHOULD.
    pub level: Level,
    /// Which session it runs on.
    pub session: SessionUse,
    /// The transports it applies to.
    pub transports: Transports,
    /// The body.
    pub run: CaseFn,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Case")
            .field("id", &self.id)
            .field("level", &self.level)
            .field("versions", &self.versions)
            .finish_non_exhaustive()
    }
}

/// Builds a [`Case`] from an `async fn(&mut Ctx) -> CaseResult`.
#[macro_export]
macro_rules! case {
    ($id:expr, $level:ident, $versions:expr, $session:ident, $transports:ident, $section:expr, $title:expr, $body:path) => {
        $crate::case::Case {
            id: $id,
            title: $title,
            versions: $versions,
            section: $section,
            level: $crate::case::Level::$level,
            session: $crate::case::SessionUse::$session,
            transports: $crate::case::Transports::$transports,
            run: |cx| Box::pin($body(cx)),
        }
    };
    ($id:expr, $level:ident, $versions:expr, $session:ident, $section:expr, $title:expr, $body:path) => {
        $crate::case!($id, $level, $versions, $session, Any, $section, $title, $body)
    };
}
