//! How the client connects (`ClientOptions`) and how one call is made (`CallOptions`), with the
//! timeout rule: 60 s by default, clamped to 1..=3600 s as Cline does, so a typo in a config
//! can neither fire every call at once nor wait for a day.

use std::sync::Arc;
use std::time::Duration;

use mcp_proto::peer::{Progress, ProgressCallback, RequestOptions};
use mcp_proto::schema::Implementation;
use mcp_proto::ProtocolVersion;
use tokio_util::sync::CancellationToken;

use crate::era::{EraCache, Negotiation};
use crate::handler::Callbacks;

/// The timeout of a call that sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The shortest timeout a call may have.
pub const MIN_TIMEOUT: Duration = Duration::from_secs(1);
/// The longest timeout a call may have; also the hard cap of a call whose timeout restarts on
/// progress when no cap is given.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);
/// How many pages a `list_*` call follows before it gives up.
pub const DEFAULT_MAX_LIST_PAGES: usize = 100;
/// How long [`Negotiation::Auto`] waits for the answer to its `server/discover` probe before it
/// takes the server for a 2025-era one (which may ignore a request it does not know).
pub const DEFAULT_DISCOVER_TIMEOUT: Duration = Duration::from_secs(10);

/// Brings a timeout into `MIN_TIMEOUT..=MAX_TIMEOUT`.
pub fn clamp_timeout(timeout: Duration) -> Duration {
    timeout.clamp(MIN_TIMEOUT, MAX_TIMEOUT)
}

/// How one call is made: timeout, progress, cancellation.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// The timeout (clamped to 1..=3600 s); `None` takes the client's request timeout.
    pub timeout: Option<Duration>,
    /// Start the timeout over whenever progress arrives (long-running tools).
    pub reset_timeout_on_progress: bool,
    /// With resets: the hard cap on the whole call (clamped; default [`MAX_TIMEOUT`]).
    pub max_total_timeout: Option<Duration>,
    /// Receives `notifications/progress` for this call; setting it sends a progress token.
    pub on_progress: Option<ProgressCallback>,
    /// Cancels the call from outside; the server gets `notifications/cancelled`.
    pub cancel: Option<CancellationToken>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("max_total_timeout", &self.max_total_timeout)
            .field("on_progress", &self.on_progress.is_some())
            .field("cancel", &self.cancel.is_some())
            .finish()
    }
}

impl CallOptions {
    /// Options with this timeout.
    pub fn timeout(timeout: Duration) -> Self {
        CallOptions {
            timeout: Some(timeout),
            ..Default::default()
        }
    }

    /// Restarts the timeout on each progress update, but never runs past `cap` in total.
    pub fn reset_on_progress(mut self, cap: Duration) -> Self {
        self.reset_timeout_on_progress = true;
        self.max_total_timeout = Some(cap);
        self
    }

    /// Calls `f` with every progress update of the call.
    pub fn on_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(f));
        self
    }

    /// Cancels the call when `token` is cancelled.
    pub fn cancel_with(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// The engine's options, with the clamp rule applied and `default` as the fallback timeout.
    pub(crate) fn to_request_options(&self, default: Duration) -> RequestOptions {
        let timeout = clamp_timeout(self.timeout.unwrap_or(default));
        let max_total_timeout = if self.reset_timeout_on_progress {
            Some(clamp_timeout(self.max_total_timeout.unwrap_or(MAX_TIMEOUT)).max(timeout))
        } else {
            None
        };
        // Progress is only tracked for calls that ask for it (a progress token is sent), so
        // resets need a callback even when the caller has none.
        let on_progress = match (&self.on_progress, self.reset_timeout_on_progress) {
            (None, true) => Some(Arc::new(|_: Progress| {}) as ProgressCallback),
            (callback, _) => callback.clone(),
        };
        RequestOptions {
            timeout: Some(timeout),
            reset_timeout_on_progress: self.reset_timeout_on_progress,
            max_total_timeout,
            on_progress,
            cancel: self.cancel.clone(),
            related: None,
        }
    }
}

/// How a client connects and behaves. Build with [`ClientOptions::new`] and the `with_*` methods.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// The server's name in errors and logs (default: the command of a stdio server, else "server").
    pub name: Option<String>,
    /// Who we are, sent in `initialize`.
    pub client_info: Implementation,
    /// The version we offer in `initialize` (default: our latest; pin it to talk to old servers).
    pub protocol_version: ProtocolVersion,
    /// How the era and version are chosen (default [`Negotiation::Auto`]).
    pub negotiation: Negotiation,
    /// How long the `server/discover` probe of [`Negotiation::Auto`] waits (clamped to
    /// 1..=3600 s; default 10 s).
    pub discover_timeout: Duration,
    /// Where the era found for this server is remembered, and under which key (a URL or a
    /// command line), so a reconnect skips the probe.
    pub era_cache: Option<(EraCache, String)>,
    /// The timeout of calls that set none (clamped to 1..=3600 s; default 60 s).
    pub request_timeout: Duration,
    /// The timeout of the `initialize` handshake (clamped likewise; default 60 s).
    pub initialize_timeout: Duration,
    /// How many pages `list_*` follows through `nextCursor` before failing.
    pub max_list_pages: usize,
    /// How many server notifications a slow subscriber may fall behind before it loses some.
    pub notification_capacity: usize,
    /// The user's handlers for server-to-client requests.
    pub(crate) callbacks: Callbacks,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            name: None,
            client_info: Implementation::new("mcp-rs-client", env!("CARGO_PKG_VERSION")),
            protocol_version: ProtocolVersion::LATEST,
            negotiation: Negotiation::Auto,
            discover_timeout: DEFAULT_DISCOVER_TIMEOUT,
            era_cache: None,
            request_timeout: DEFAULT_TIMEOUT,
            initialize_timeout: DEFAULT_TIMEOUT,
            max_list_pages: DEFAULT_MAX_LIST_PAGES,
            notification_capacity: 256,
            callbacks: Callbacks::default(),
        }
    }
}

impl ClientOptions {
    /// The defaults: latest version, 60 s timeouts, no server-to-client handlers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Names the server in errors and logs.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Offers `version` in the handshake instead of our latest (2025-era versions; to talk
    /// 2026-07-28 only, use [`with_negotiation`](Self::with_negotiation) with a pin).
    pub fn with_protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol_version = version;
        self
    }

    /// Chooses how the era and version are negotiated: auto (probe, then fall back), legacy
    /// (`initialize` only) or pinned to one version.
    pub fn with_negotiation(mut self, negotiation: Negotiation) -> Self {
        self.negotiation = negotiation;
        self
    }

    /// Sets how long the auto mode's `server/discover` probe waits for an answer.
    pub fn with_discover_timeout(mut self, timeout: Duration) -> Self {
        self.discover_timeout = timeout;
        self
    }

    /// Remembers the era found for this server in `cache` under `key` (its URL or command).
    pub fn with_era_cache(mut self, cache: EraCache, key: impl Into<String>) -> Self {
        self.era_cache = Some((cache, key.into()));
        self
    }

    /// Sets the default call timeout (clamped to 1..=3600 s when used).
    pub fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets the handshake timeout (clamped to 1..=3600 s when used).
    pub fn with_initialize_timeout(mut self, timeout: Duration) -> Self {
        self.initialize_timeout = timeout;
        self
    }

    /// Sets how many pages `list_*` follows before failing.
    pub fn with_max_list_pages(mut self, pages: usize) -> Self {
        self.max_list_pages = pages;
        self
    }

    /// Sets how far a notification subscriber may fall behind before it loses events.
    pub fn with_notification_capacity(mut self, capacity: usize) -> Self {
        self.notification_capacity = capacity;
        self
    }

    /// Sets who we say we are in `initialize`.
    pub fn with_client_info(mut self, info: Implementation) -> Self {
        self.client_info = info;
        self
    }

    /// Declares the extension `name` with `settings` under `capabilities.extensions`, in both
    /// eras (`initialize`, and every 2026-07-28 request's `clientCapabilities`): e.g. MCP Apps,
    /// `io.modelcontextprotocol/ui` with `{"mimeTypes": ["text/html;profile=mcp-app"]}`, for a
    /// client that renders app views or passes them on.
    pub fn with_extension(mut self, name: impl Into<String>, settings: serde_json::Value) -> Self {
        self.callbacks
            .extensions
            .get_or_insert_with(Default::default)
            .insert(name.into(), settings);
        self
    }

    /// Handles `sampling/createMessage`; declares the `sampling` capability.
    pub fn with_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(mcp_proto::schema::CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<
                Output = Result<mcp_proto::schema::CreateMessageResult, mcp_proto::ErrorObject>,
            > + Send
            + 'static,
    {
        self.callbacks.sampling = Some(Arc::new(move |p| Box::pin(f(p))));
        self
    }

    /// Handles `roots/list`; declares the `roots` capability (with `listChanged`).
    pub fn with_roots<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<
                Output = Result<mcp_proto::schema::ListRootsResult, mcp_proto::ErrorObject>,
            > + Send
            + 'static,
    {
        self.callbacks.roots = Some(Arc::new(move || Box::pin(f())));
        self
    }

    /// Handles `elicitation/create`; declares the `elicitation` capability (form mode).
    pub fn with_elicitation<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(mcp_proto::schema::ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<
                Output = Result<mcp_proto::schema::ElicitResult, mcp_proto::ErrorObject>,
            > + Send
            + 'static,
    {
        self.callbacks.elicitation = Some(Arc::new(move |p| Box::pin(f(p))));
        self
    }

    /// Declares URL-mode elicitation too (`elicitation: {form, url}`), for an elicitation
    /// handler that can send its user to a URL (`ElicitParams::Url`).
    pub fn with_url_elicitation(mut self) -> Self {
        self.callbacks.elicitation_url = true;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_declared_beside_the_callbacks() {
        let options = ClientOptions::new().with_extension(
            "io.modelcontextprotocol/ui",
            serde_json::json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
        );
        let caps = options.callbacks.capabilities();
        let extensions = caps.extensions.expect("extensions");
        assert_eq!(
            extensions["io.modelcontextprotocol/ui"]["mimeTypes"][0],
            "text/html;profile=mcp-app"
        );
        assert!(ClientOptions::new()
            .callbacks
            .capabilities()
            .extensions
            .is_none());
    }

    #[test]
    fn timeouts_are_clamped() {
        assert_eq!(clamp_timeout(Duration::ZERO), MIN_TIMEOUT);
        assert_eq!(clamp_timeout(Duration::from_millis(10)), MIN_TIMEOUT);
        assert_eq!(
            clamp_timeout(Duration::from_secs(90)),
            Duration::from_secs(90)
        );
        assert_eq!(clamp_timeout(Duration::from_secs(86_400)), MAX_TIMEOUT);
    }

    #[test]
    fn call_options_fall_back_and_cap() {
        let o = CallOptions::default().to_request_options(DEFAULT_TIMEOUT);
        assert_eq!(o.timeout, Some(DEFAULT_TIMEOUT));
        assert_eq!(o.max_total_timeout, None);
        let o = CallOptions::timeout(Duration::from_secs(5))
            .reset_on_progress(Duration::from_secs(100_000))
            .to_request_options(DEFAULT_TIMEOUT);
        assert_eq!(o.timeout, Some(Duration::from_secs(5)));
        assert!(o.reset_timeout_on_progress);
        assert_eq!(o.max_total_timeout, Some(MAX_TIMEOUT));
        let o = CallOptions {
            reset_timeout_on_progress: true,
            ..Default::default()
        }
        .to_request_options(Duration::from_secs(7));
        assert_eq!(o.max_total_timeout, Some(MAX_TIMEOUT));
        assert!(o.on_progress.is_some(), "resets need a progress token");
    }
}
