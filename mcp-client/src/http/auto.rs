//! The automatic choice between Streamable HTTP and HTTP+SSE, as the spec's
//! backwards-compatibility section describes: POST the `initialize` request to the URL; if the
//! server answers 400, 404 or 405, GET the same URL, expect an `endpoint` event and carry on
//! (initialize included) over the legacy transport.
//!
//! The choice is made when the client's own `initialize` passes through the sink, not at
//! connect time: the handshake belongs to the client, and probing with an `initialize` of our
//! own would open a session on the server that nobody uses.

use std::io;
use std::sync::{Arc, OnceLock};

use mcp_proto::peer::{Intent, MessageSink, Outgoing, Transport};

use super::error::HttpError;
use super::http_sse::HttpSseSink;
use super::inbox::{HttpSource, Inbox};
use super::outgoing::{encode, Kind};
use super::streamable::{Probe, StreamableHttpSink, StreamableHttpTransport};
use super::HttpClientConfig;

/// Which HTTP transport a server turned out to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpFlavor {
    /// Streamable HTTP (2025-03-26 and later).
    Streamable,
    /// The HTTP+SSE transport (2024-11-05).
    HttpSse,
}

/// A transport that speaks Streamable HTTP, or HTTP+SSE when the server turns out to be old.
pub struct AutoTransport {
    source: HttpSource,
    sink: AutoSink,
}

/// Tells which transport an [`AutoTransport`] settled on, after the handshake.
#[derive(Clone, Debug)]
pub struct FlavorHandle(Arc<OnceLock<HttpFlavor>>);

impl FlavorHandle {
    /// The transport chosen, once the answer to `initialize` decided it.
    pub fn get(&self) -> Option<HttpFlavor> {
        self.0.get().copied()
    }
}

/// Prepares a transport for `config.url` that picks Streamable HTTP or HTTP+SSE when the
/// client's `initialize` goes out. Fails only on an unusable URL or header.
pub async fn connect_auto(config: HttpClientConfig) -> Result<AutoTransport, HttpError> {
    let (source, streamable) = StreamableHttpTransport::parts(config.clone())?;
    Ok(AutoTransport {
        source,
        sink: AutoSink {
            mode: Mode::Undecided(streamable),
            config,
            flavor: Arc::new(OnceLock::new()),
        },
    })
}

impl AutoTransport {
    /// A handle that tells, after `initialize`, which transport was chosen.
    pub fn flavor(&self) -> FlavorHandle {
        FlavorHandle(self.sink.flavor.clone())
    }
}

impl Transport for AutoTransport {
    type Source = HttpSource;
    type Sink = AutoSink;
    fn split(self) -> (HttpSource, AutoSink) {
        (self.source, self.sink)
    }
}

enum Mode {
    /// Nothing decided: the first `initialize` will tell.
    Undecided(StreamableHttpSink),
    /// Streamable HTTP it is.
    Streamable(StreamableHttpSink),
    /// HTTP+SSE; the streamable sink is kept only because it shares the inbox.
    Legacy {
        sink: HttpSseSink,
        _inbox_owner: StreamableHttpSink,
    },
    /// Between two modes (only while a send is switching).
    Switching,
}

/// The writing half of [`AutoTransport`].
pub struct AutoSink {
    mode: Mode,
    config: HttpClientConfig,
    flavor: Arc<OnceLock<HttpFlavor>>,
}

impl AutoSink {
    fn inbox(streamable: &StreamableHttpSink) -> Arc<Inbox> {
        streamable.inbox().clone()
    }
}

impl MessageSink for AutoSink {
    async fn send(&mut self, message: Outgoing) -> io::Result<()> {
        match &mut self.mode {
            Mode::Streamable(sink) => return sink.send(message).await,
            Mode::Legacy { sink, .. } => return sink.send(message).await,
            Mode::Switching => {
                return Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "the HTTP transport failed while choosing between Streamable HTTP and SSE",
                ))
            }
            Mode::Undecided(_) => {}
        }
        let Mode::Undecided(mut streamable) = std::mem::replace(&mut self.mode, Mode::Switching)
        else {
            return Ok(());
        };
        let encoded = encode(message);
        if encoded.intent != Intent::Initialize {
            streamable.note_and_dispatch(encoded);
            self.mode = Mode::Undecided(streamable);
            return Ok(());
        }
        match streamable.probe_initialize(encoded).await {
            Probe::Streamable => {
                let _ = self.flavor.set(HttpFlavor::Streamable);
                self.mode = Mode::Streamable(streamable);
            }
            Probe::Fallback { status, message } => {
                tracing::info!(
                    "{} answered initialize with {status}; falling back to HTTP+SSE",
                    self.config.url
                );
                let inbox = Self::inbox(&streamable);
                match HttpSseSink::connect(self.config.clone(), inbox.clone()).await {
                    Ok(mut sse) => {
                        let _ = self.flavor.set(HttpFlavor::HttpSse);
                        sse.dispatch(message);
                        self.mode = Mode::Legacy {
                            sink: sse,
                            _inbox_owner: streamable,
                        };
                    }
                    Err(e) => {
                        if let Kind::Request { id, .. } = message.kind {
                            let error = HttpError::Endpoint {
                                url: self.config.url.clone(),
                                reason: format!(
                                    "Streamable HTTP initialize got {status}, and HTTP+SSE failed too: {e}"
                                ),
                            };
                            inbox.fail_request(id, &error).await;
                        }
                        self.mode = Mode::Streamable(streamable);
                    }
                }
            }
        }
        Ok(())
    }

    async fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }

    async fn close(&mut self) -> io::Result<()> {
        match &mut self.mode {
            Mode::Undecided(sink) | Mode::Streamable(sink) => sink.close().await,
            Mode::Legacy { sink, .. } => sink.close().await,
            Mode::Switching => Ok(()),
        }
    }
}
