//! The engine both halves run on, over any [`Transport`].
//!
//! It owns request-id allocation, the table of our requests waiting for answers, concurrent
//! dispatch of incoming requests to a [`Handler`] (bounded), cancellation in both directions
//! (`notifications/cancelled`), progress tokens, timeouts, and one writer task that drains a
//! bounded queue and writes every ready message before one flush (a sink that never waits, such
//! as an HTTP session, takes messages directly instead). A request is polled once as it is read
//! and answered at once when it can be; only one that has to wait gets a task of its own. Server
//! and client are two handlers on this same engine: neither re-implements correlation, timeouts
//! or cancellation.
//!
//! One concept a file: `error`, `options`, `handler` (the trait and how it is run), `handle`
//! (what users hold), `call` (our requests and notifications), `deadlines` (their timeouts, on
//! one timer), `inbound` (serving theirs), `reader` (the read loop), `writer` (the outgoing
//! queue), `pending` (the table of our waiting calls), `context`, and `transport` (the contract a
//! transport meets). This file starts a peer and holds the state its tasks share.

mod call;
mod context;
mod deadlines;
mod error;
mod handle;
mod handler;
mod inbound;
mod options;
mod pending;
mod reader;
mod transport;
mod writer;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicU8};
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use context::RequestContext;
pub(crate) use context::{progress_token, progress_token_parsed};
pub use error::PeerError;
pub use handle::PeerHandle;
pub use handler::Handler;
pub use options::{PeerOptions, Progress, ProgressCallback, RequestOptions};
pub use transport::{
    byte_stream, memory_pair, DirectSink, Intent, MemorySink, MemorySource, MemoryTransport,
    MessageSink, MessageSource, Outbound, Outgoing, Received, StreamSink, StreamSource, Transport,
};

use crate::jsonrpc::RequestId;
use handler::{RequestRunner, Runner};
use pending::PendingTable;
use writer::{Outlet, Writer};

/// Starts peers.
pub struct Peer;

impl Peer {
    /// Starts a peer over `transport`, handing incoming messages to `handler`. Spawns its tasks
    /// on the current tokio runtime; returns at once.
    pub fn start<T: Transport, H: Handler>(
        transport: T,
        handler: Arc<H>,
        options: PeerOptions,
    ) -> PeerHandle {
        let (mut source, sink) = transport.split();
        // A direct sink needs no queue and no writer task (an idle HTTP session stays small).
        let (outlet, rx) = match sink.direct() {
            Some(direct) => (Outlet::Direct(Arc::downgrade(&direct)), None),
            None => {
                let (tx, rx) = mpsc::channel(options.outgoing_queue.max(1));
                (Outlet::Queue(tx), Some(rx))
            }
        };
        let runner = Box::new(Runner(Arc::downgrade(&handler)));
        let handle = PeerHandle {
            shared: Arc::new(Shared::new(options, outlet, runner)),
        };
        source.attach(&handle);
        let writer = match rx {
            Some(rx) => {
                let stop = CancellationToken::new();
                let task = tokio::spawn(writer::write_loop(sink, rx, handle.clone(), stop.clone()));
                Writer::Task { task, stop }
            }
            None => Writer::Direct(sink),
        };
        tokio::spawn(reader::read_loop(source, handler, handle.clone(), writer));
        handle
    }
}

/// Per-connection state in one place: what the two sides agreed on.
#[derive(Default)]
struct ConnectionState {
    /// The negotiated protocol version, as an index into
    /// [`ProtocolVersion::ALL`](crate::version::ProtocolVersion::ALL) plus one.
    version: AtomicU8,
}

/// Everything the tasks of one peer share.
struct Shared {
    options: PeerOptions,
    next_id: AtomicI64,
    pending: PendingTable,
    /// The timeouts of our waiting calls.
    deadlines: Arc<deadlines::Deadlines>,
    /// Where outgoing messages go.
    outlet: Outlet,
    /// Set when the writer has stopped: nothing more goes out.
    writer_done: AtomicBool,
    /// Incoming requests being handled: id -> (generation, cancellation).
    in_flight: Mutex<HashMap<RequestId, (u64, CancellationToken)>>,
    /// Starts the handler on a request, wherever the request was received.
    runner: Box<dyn RequestRunner>,
    /// The handlers still running, waited for at shutdown.
    tracker: TaskTracker,
    /// Bounds how many incoming requests are handled at once.
    permits: Arc<Semaphore>,
    generation: AtomicU64,
    state: ConnectionState,
    /// Cancelled to stop reading (local close or a write failure).
    stop: CancellationToken,
    /// Cancelled once everything is closed and flushed.
    done: CancellationToken,
    closed: AtomicBool,
}

impl Shared {
    /// Fresh state for a peer with `options`, writing to `outlet`, running `runner`.
    fn new(options: PeerOptions, outlet: Outlet, runner: Box<dyn RequestRunner>) -> Self {
        let permits = Arc::new(Semaphore::new(options.max_concurrent_requests.max(1)));
        Shared {
            pending: PendingTable::new(options.max_pending_requests),
            deadlines: deadlines::Deadlines::new(),
            options,
            next_id: AtomicI64::new(1),
            outlet,
            writer_done: AtomicBool::new(false),
            in_flight: Mutex::new(HashMap::new()),
            runner,
            tracker: TaskTracker::new(),
            permits,
            generation: AtomicU64::new(0),
            state: ConnectionState::default(),
            stop: CancellationToken::new(),
            done: CancellationToken::new(),
            closed: AtomicBool::new(false),
        }
    }
}

#[cfg(test)]
mod tests;
