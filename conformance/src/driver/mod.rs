//! Drivers talk to a server at the wire level: they send exact bytes and report exactly what
//! comes back (or that nothing does). A [`Transport`] moves frames; a [`Connector`] opens fresh
//! sessions to one target; [`Session`] adds request ids, waiting and bookkeeping on top, the same
//! for every transport.
//!
//! [`stdio`] runs a child process; [`http`] POSTs every frame to a Streamable HTTP endpoint and
//! pushes JSON answers and SSE `data` fields into the frame channel; [`sse`] speaks the
//! HTTP+SSE transport (GET the stream, POST to its `endpoint`).

use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;

use crate::error::Error;

pub mod http;
pub mod journal;
pub mod session;
pub mod sse;
pub mod stdio;

pub use http::HttpTarget;
pub use journal::{Exchange, Journal, Stray, StrayKind};
pub use session::{Msg, Reply, RpcError, Session};
pub use sse::SseTarget;
pub use stdio::StdioTarget;

/// A boxed future that can cross tasks; the object-safe form of an `async fn` in a trait.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a transport's reader hands the session.
#[derive(Debug)]
pub enum Frame {
    /// One complete frame (a stdio line without its newline, an HTTP body, an SSE data field).
    Data(Bytes),
    /// A frame longer than the driver's limit; it was skipped.
    TooLong(usize),
}

/// The sending half of a connection to one server; received frames arrive on the channel given
/// to [`Session::new`].
pub trait Transport: Send {
    /// Sends one frame exactly as given (the transport adds its own framing, e.g. the newline).
    fn send_frame<'a>(&'a mut self, frame: &'a [u8]) -> BoxFuture<'a, Result<(), Error>>;
    /// The last few KiB the server wrote to its diagnostics channel (stderr), for failure notes.
    fn diagnostics(&self) -> String;
    /// Ends the connection and releases everything it holds (a child process, sockets).
    fn close(&mut self) -> BoxFuture<'_, ()>;
}

/// Opens fresh, uninitialized sessions to one target.
pub trait Connector: Send + Sync {
    /// A new connection (for stdio: a new child process).
    fn connect(&self, journal: std::sync::Arc<Journal>) -> BoxFuture<'_, Result<Session, Error>>;
    /// The target in words, for reports (`stdio: node server.js`).
    fn describe(&self) -> String;
    /// Which transport the target speaks, with what the transport cases need to reach it.
    fn kind(&self) -> Kind {
        Kind::Stdio
    }
}

/// The transport of a target, as the transport cases see it.
#[derive(Clone, Debug)]
pub enum Kind {
    /// A child process on stdin/stdout.
    Stdio,
    /// Streamable HTTP at one endpoint.
    Http(http::HttpTarget),
    /// The HTTP+SSE transport (2024-11-05).
    Sse(sse::SseTarget),
}

impl Kind {
    /// The short name: `stdio`, `http`, `sse`.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Stdio => "stdio",
            Kind::Http(_) => "http",
            Kind::Sse(_) => "sse",
        }
    }
}
