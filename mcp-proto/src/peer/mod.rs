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

mod context;
mod pending;
mod transport;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::Poll;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use context::RequestContext;
pub use transport::{
    byte_stream, memory_pair, DirectSink, MemorySink, MemorySource, MemoryTransport, MessageSink,
    MessageSource, Outbound, Outgoing, Received, StreamSink, StreamSource, Transport,
};

use crate::jsonrpc::{
    self, ErrorObject, ErrorResponse, Incoming, InvalidMessage, Message, Notification, RawJson,
    Request, RequestId, Response,
};
use crate::schema::{CancelledParams, Initialize, NotificationType, ProgressParams, RequestType};
use crate::version::ProtocolVersion;
use pending::{PendingTable, ProgressTracker};

/// Why a call to the other side failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum PeerError {
    /// The connection is gone; the text says why (end of input, a child's exit status, ...).
    #[error("connection closed: {0}")]
    Closed(String),
    /// No answer within the timeout; `notifications/cancelled` was sent.
    #[error("request {method} timed out after {}", fmt_duration(*.timeout))]
    Timeout {
        /// The method that was called.
        method: String,
        /// The timeout that ran out.
        timeout: Duration,
    },
    /// The caller cancelled the request; `notifications/cancelled` was sent.
    #[error("request {method} was cancelled")]
    Cancelled {
        /// The method that was called.
        method: String,
    },
    /// The other side answered with a JSON-RPC error.
    #[error("{method} failed: {error}")]
    Rpc {
        /// The method that was called.
        method: String,
        /// The error object the other side sent.
        error: ErrorObject,
    },
    /// The answer did not have the shape the method promises.
    #[error("could not decode the result of {method}: {detail}")]
    Decode {
        /// The method that was called.
        method: String,
        /// What serde said.
        detail: String,
    },
    /// Our own params could not be serialized.
    #[error("could not encode the params of {method}: {detail}")]
    Encode {
        /// The method that was called.
        method: String,
        /// What serde said.
        detail: String,
    },
}

impl PeerError {
    /// The JSON-RPC error object, when the other side sent one.
    pub fn rpc_error(&self) -> Option<&ErrorObject> {
        match self {
            PeerError::Rpc { error, .. } => Some(error),
            _ => None,
        }
    }
}

fn fmt_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// One progress update for a request we sent (`notifications/progress`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// How far along; increases with every update.
    pub progress: f64,
    /// The total, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Called with each progress update of a request.
pub type ProgressCallback = Arc<dyn Fn(Progress) + Send + Sync>;

/// How one outgoing request is sent and awaited.
#[derive(Clone, Default)]
pub struct RequestOptions {
    /// Fail the call when no answer came within this time (`None`: the peer's default).
    pub timeout: Option<Duration>,
    /// Start the timeout over whenever progress arrives.
    pub reset_timeout_on_progress: bool,
    /// With resets: the hard cap on the whole call.
    pub max_total_timeout: Option<Duration>,
    /// Receives progress; setting it adds a progress token to the request.
    pub on_progress: Option<ProgressCallback>,
    /// Cancels the call from outside.
    pub cancel: Option<CancellationToken>,
    /// The incoming request this call is made on behalf of (for HTTP stream routing).
    pub related: Option<RequestId>,
}

impl fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestOptions")
            .field("timeout", &self.timeout)
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("max_total_timeout", &self.max_total_timeout)
            .field("on_progress", &self.on_progress.is_some())
            .field("related", &self.related)
            .finish()
    }
}

impl RequestOptions {
    /// Options with a timeout.
    pub fn timeout(timeout: Duration) -> Self {
        RequestOptions {
            timeout: Some(timeout),
            ..Default::default()
        }
    }
}

/// How a peer behaves.
#[derive(Clone, Debug)]
pub struct PeerOptions {
    /// A name for logs and errors (the server's name, say).
    pub name: String,
    /// At most this many incoming requests are handled at once; more wait (backpressure).
    pub max_concurrent_requests: usize,
    /// Capacity of the outgoing queue.
    pub outgoing_queue: usize,
    /// Answer unparsable frames with -32700 / -32600 (servers); else log and skip them (clients
    /// reading a child's stdout, where a banner line is not worth an answer).
    pub reply_to_invalid: bool,
    /// The timeout of outgoing requests that do not set one (`None`: wait forever).
    pub default_timeout: Option<Duration>,
    /// At end of input, how long in-flight handlers may still run before they are cancelled.
    pub shutdown_grace: Duration,
}

impl Default for PeerOptions {
    fn default() -> Self {
        PeerOptions {
            name: "peer".into(),
            max_concurrent_requests: 1024,
            outgoing_queue: 1024,
            reply_to_invalid: true,
            default_timeout: None,
            shutdown_grace: Duration::from_secs(5),
        }
    }
}

/// What a peer does with the messages the other side sends it.
pub trait Handler: Send + Sync + 'static {
    /// Answers one request. Runs concurrently with other requests; if the other side cancels,
    /// the future is dropped and no response goes out.
    fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<RawJson, ErrorObject>> + Send;

    /// Takes one notification, in arrival order. Keep it quick: reading waits for it.
    /// `notifications/cancelled` and progress for our own requests are handled by the peer first.
    fn handle_notification(&self, notification: Notification, peer: &PeerHandle) {
        let _ = (notification, peer);
    }

    /// Whether a JSON-RPC batch may be served now. By default: when the negotiated version
    /// allows batches (2025-03-26 only).
    fn accepts_batches(&self, peer: &PeerHandle) -> bool {
        peer.protocol_version().is_some_and(|v| v.allows_batches())
    }
}

/// Per-connection state in one place: what the two sides agreed on.
#[derive(Default)]
struct ConnectionState {
    /// The negotiated protocol version, as an index into [`ProtocolVersion::ALL`] plus one.
    version: AtomicU8,
}

struct Shared {
    options: PeerOptions,
    next_id: AtomicI64,
    pending: PendingTable,
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

/// A handle to a running peer: send requests and notifications, close it, wait for it.
#[derive(Clone)]
pub struct PeerHandle {
    shared: Arc<Shared>,
}

impl fmt::Debug for PeerHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PeerHandle")
            .field("name", &self.shared.options.name)
            .finish()
    }
}

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
        let permits = Arc::new(Semaphore::new(options.max_concurrent_requests.max(1)));
        let shared = Arc::new(Shared {
            options,
            next_id: AtomicI64::new(1),
            pending: PendingTable::default(),
            outlet,
            writer_done: AtomicBool::new(false),
            in_flight: Mutex::new(HashMap::new()),
            runner: Box::new(Runner(Arc::downgrade(&handler))),
            tracker: TaskTracker::new(),
            permits,
            generation: AtomicU64::new(0),
            state: ConnectionState::default(),
            stop: CancellationToken::new(),
            done: CancellationToken::new(),
            closed: AtomicBool::new(false),
        });
        let handle = PeerHandle {
            shared: shared.clone(),
        };
        source.attach(&handle);
        let writer = match rx {
            Some(rx) => {
                let stop = CancellationToken::new();
                let task = tokio::spawn(write_loop(sink, rx, handle.clone(), stop.clone()));
                Writer::Task { task, stop }
            }
            None => Writer::Direct(sink),
        };
        tokio::spawn(read_loop(source, handler, handle.clone(), writer));
        handle
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Where a peer's outgoing messages go.
enum Outlet {
    /// The writer task's bounded queue.
    Queue(mpsc::Sender<Outgoing>),
    /// The sink itself, which takes messages at once (see [`MessageSink::direct`]). Weak: the
    /// sink may own what owns this peer (an HTTP session keeps its peer), and only the read loop
    /// keeps the sink alive.
    Direct(Weak<dyn DirectSink>),
}

/// Who writes: a task draining the queue, or (for a direct sink) nobody but the read loop,
/// which closes the sink at the end.
enum Writer<S> {
    Task {
        task: tokio::task::JoinHandle<()>,
        stop: CancellationToken,
    },
    Direct(S),
}

async fn write_loop<S: MessageSink>(
    mut sink: S,
    mut rx: mpsc::Receiver<Outgoing>,
    peer: PeerHandle,
    stop: CancellationToken,
) {
    // Grows on the first burst only: an idle peer (one per HTTP session) stays small.
    let mut ready = Vec::new();
    let mut failed = false;
    loop {
        let n = tokio::select! {
            biased;
            n = rx.recv_many(&mut ready, 64) => n,
            _ = stop.cancelled() => {
                while let Ok(m) = rx.try_recv() {
                    ready.push(m);
                }
                if ready.is_empty() { 0 } else { ready.len() }
            }
        };
        if n == 0 {
            break;
        }
        if failed {
            ready.clear();
            continue;
        }
        let mut result = Ok(());
        for message in ready.drain(..) {
            result = sink.send(message).await;
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            result = sink.flush().await;
        }
        if let Err(e) = result {
            failed = true;
            ready.clear();
            tracing::debug!(peer = %peer.shared.options.name, "write failed: {e}");
            peer.shared
                .pending
                .close(&format!("writing to the transport failed: {e}"));
            peer.shared.stop.cancel();
        }
        if stop.is_cancelled() && rx.is_empty() {
            break;
        }
    }
    peer.shared.writer_done.store(true, Ordering::Release);
    if !failed {
        let _ = sink.close().await;
    }
}

/// Messages the read loop handles before it yields. A burst of pipelined requests is answered
/// inline, so without a yield the writer task (on the same thread, under a current-thread runtime)
/// would send nothing until the whole burst is read; yielding lets the answers go out in chunks
/// while the rest is still being handled, so the other side works on them in parallel.
/// 16 was the fastest of 4, 8, 12, 16 and 32 with 64 calls in flight over stdio.
const YIELD_EVERY: usize = 16;

async fn read_loop<S: MessageSource, W: MessageSink, H: Handler>(
    mut source: S,
    handler: Arc<H>,
    peer: PeerHandle,
    writer: Writer<W>,
) {
    let shared = peer.shared.clone();
    let tracker = shared.tracker.clone();
    let mut guard = ReadLoopGuard {
        shared: &shared,
        writer_stop: match &writer {
            Writer::Task { stop, .. } => Some(stop.clone()),
            Writer::Direct(_) => None,
        },
        finished: false,
    };
    // Only a writer task needs the read loop to step aside; a direct sink already has the answers.
    let yields = matches!(writer, Writer::Task { .. });
    let mut read_since_yield = 0usize;
    loop {
        read_since_yield += 1;
        if yields && read_since_yield > YIELD_EVERY {
            read_since_yield = 0;
            tokio::task::yield_now().await;
        }
        let item = tokio::select! {
            biased;
            _ = shared.stop.cancelled() => None,
            item = source.recv() => item,
        };
        let Some(item) = item else { break };
        match item {
            Err(e) => {
                if shared.options.reply_to_invalid {
                    peer.send(Outgoing::new(e.to_error_response())).await;
                } else {
                    tracing::warn!(peer = %shared.options.name, "skipped a line that is not JSON-RPC: {e}");
                }
            }
            Ok(Incoming::Single(message)) => {
                dispatch(message, &handler, &peer).await;
            }
            Ok(Incoming::Batch(items)) => {
                if handler.accepts_batches(&peer) {
                    tracker.spawn(serve_batch(items, handler.clone(), peer.clone()));
                } else {
                    let version = peer
                        .protocol_version()
                        .map_or("this connection".into(), |v| {
                            format!("protocol version {v}")
                        });
                    let error = ErrorObject::invalid_request(format!(
                        "JSON-RPC batches are not supported in {version}"
                    ));
                    peer.send(Outgoing::new(Message::error(None, error))).await;
                }
            }
        }
    }
    let reason = if shared.stop.is_cancelled() {
        shared
            .pending
            .closed_reason()
            .unwrap_or_else(|| "closed locally".into())
    } else {
        source
            .close_reason()
            .await
            .unwrap_or_else(|| "the other side closed the connection".into())
    };
    tracing::debug!(peer = %shared.options.name, "input ended: {reason}");
    shared.closed.store(true, Ordering::Release);
    shared.pending.close(&reason);
    tracker.close();
    if tokio::time::timeout(shared.options.shutdown_grace, tracker.wait())
        .await
        .is_err()
    {
        tracing::warn!(peer = %shared.options.name, "cancelling {} handlers still running after the grace period", tracker.len());
        for (_, token) in lock(&shared.in_flight).values() {
            token.cancel();
        }
        let _ = tokio::time::timeout(Duration::from_secs(1), tracker.wait()).await;
    }
    match writer {
        Writer::Task { task, stop } => {
            stop.cancel();
            let _ = task.await;
        }
        Writer::Direct(mut sink) => {
            shared.writer_done.store(true, Ordering::Release);
            let _ = sink.close().await;
        }
    }
    guard.finished = true;
    shared.done.cancel();
}

/// Ends the peer when the read loop stops without finishing (it panicked, say, in a
/// notification hook or a log call): waiting calls fail, handlers are cancelled, the writer
/// flushes and closes, and [`PeerHandle::closed`] returns, so a server whose reader died still
/// exits instead of hanging.
struct ReadLoopGuard<'a> {
    shared: &'a Shared,
    writer_stop: Option<CancellationToken>,
    finished: bool,
}

impl Drop for ReadLoopGuard<'_> {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let shared = self.shared;
        shared.closed.store(true, Ordering::Release);
        shared
            .pending
            .close("the connection's reader stopped unexpectedly");
        shared.stop.cancel();
        for (_, token) in lock(&shared.in_flight).values() {
            token.cancel();
        }
        if let Some(stop) = &self.writer_stop {
            stop.cancel();
        }
        shared.done.cancel();
    }
}

async fn dispatch<H: Handler>(message: Message, handler: &Arc<H>, peer: &PeerHandle) {
    let shared = &peer.shared;
    match message {
        Message::Request(request) => peer.serve_request(request).await,
        Message::Notification(notification) => {
            match notification.method.as_str() {
                "notifications/cancelled" => peer.on_cancelled(&notification),
                "notifications/progress" => peer.on_progress(&notification),
                _ => {}
            }
            handler.handle_notification(notification, peer);
        }
        Message::Response(Response { id, result }) => peer.on_answer(id, Ok(result)),
        Message::Error(ErrorResponse {
            id: Some(id),
            error,
        }) => peer.on_answer(id, Err(error)),
        Message::Error(ErrorResponse { id: None, error }) => {
            tracing::warn!(peer = %shared.options.name, "the other side reported an error without an id: {error}");
        }
    }
}

/// A handler's answer on its way.
type HandlerFuture = Pin<Box<dyn Future<Output = Result<RawJson, ErrorObject>> + Send>>;

/// Polls a handler; a panic becomes an internal error answer instead of taking the peer down.
fn poll_handler(
    work: &mut HandlerFuture,
    cx: &mut std::task::Context<'_>,
) -> Poll<Result<RawJson, ErrorObject>> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| work.as_mut().poll(cx))) {
        Ok(poll) => poll,
        Err(panic) => {
            let message = panic_message(panic.as_ref());
            tracing::error!("a request handler panicked: {message}");
            Poll::Ready(Err(ErrorObject::internal(format!(
                "the handler panicked: {message}"
            ))))
        }
    }
}

/// The text of a panic payload.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

fn answer(id: RequestId, result: Result<RawJson, ErrorObject>) -> Message {
    match result {
        Ok(result) => Message::Response(Response { id, result }),
        Err(error) => Message::Error(ErrorResponse {
            id: Some(id),
            error,
        }),
    }
}

/// Serves a batch: each request through the same path as a single one (the id check, the panic
/// catch, cancellation), concurrently; the answers leave together, in the batch's order.
async fn serve_batch<H: Handler>(
    items: Vec<Result<Message, InvalidMessage>>,
    handler: Arc<H>,
    peer: PeerHandle,
) {
    let mut answers: Vec<(usize, Message)> = Vec::new();
    let mut requests = JoinSet::new();
    let mut ids = HashSet::new();
    for (index, item) in items.into_iter().enumerate() {
        match item {
            Err(invalid) => answers.push((index, invalid.to_error_response())),
            Ok(Message::Request(request)) => {
                if !ids.insert(request.id.clone()) {
                    let error = ErrorObject::invalid_request(format!(
                        "request id {} appears twice in this batch",
                        request.id
                    ));
                    answers.push((index, Message::error(Some(request.id), error)));
                    continue;
                }
                let Ok(permit) = peer.shared.permits.clone().acquire_owned().await else {
                    return;
                };
                match peer.start_request(request).await {
                    Started::Answered(message) => answers.push((index, message)),
                    Started::Working(working) => {
                        let peer = peer.clone();
                        requests.spawn(async move {
                            let message = working.finish(&peer).await;
                            drop(permit);
                            (index, message)
                        });
                    }
                }
            }
            Ok(Message::Notification(n)) => {
                match n.method.as_str() {
                    "notifications/cancelled" => peer.on_cancelled(&n),
                    "notifications/progress" => peer.on_progress(&n),
                    _ => {}
                }
                handler.handle_notification(n, &peer);
            }
            Ok(Message::Response(Response { id, result })) => peer.on_answer(id, Ok(result)),
            Ok(Message::Error(ErrorResponse {
                id: Some(id),
                error,
            })) => peer.on_answer(id, Err(error)),
            Ok(Message::Error(_)) => {}
        }
    }
    while let Some(done) = requests.join_next().await {
        match done {
            // A cancelled request gets no answer.
            Ok((index, Some(message))) => answers.push((index, message)),
            Ok((_, None)) => {}
            Err(e) => tracing::error!("a batch request's task failed: {e}"),
        }
    }
    if answers.is_empty() {
        return;
    }
    answers.sort_by_key(|(index, _)| *index);
    let body = Outbound::Batch(answers.into_iter().map(|(_, m)| m).collect());
    peer.send(Outgoing {
        body,
        related: None,
    })
    .await;
}

/// A request after its first poll.
enum Started {
    /// Answered at once (or refused).
    Answered(Message),
    /// Still working, registered in flight so that it can be cancelled.
    Working(Working),
}

/// A request whose handler has to wait, with what it needs to finish and be cancelled.
struct Working {
    id: RequestId,
    generation: u64,
    token: CancellationToken,
    work: HandlerFuture,
}

impl Working {
    /// Runs the handler to its answer; `None` when the request was cancelled.
    async fn finish(mut self, peer: &PeerHandle) -> Option<Message> {
        let result = tokio::select! {
            biased;
            _ = self.token.cancelled() => None,
            result = std::future::poll_fn(|cx| poll_handler(&mut self.work, cx)) => Some(result),
        };
        peer.finish_request(&self.id, self.generation);
        result.map(|result| answer(self.id, result))
    }
}

/// Removes the pending entry when a request future is dropped before its answer, and tells the
/// other side with `notifications/cancelled`.
struct PendingGuard<'a> {
    peer: &'a PeerHandle,
    id: i64,
    armed: bool,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if self.armed && self.peer.shared.pending.remove(self.id) {
            let cancel = cancelled_notification(self.id, "the caller stopped waiting");
            self.peer.try_send(Outgoing::new(cancel));
        }
    }
}

fn cancelled_notification(id: i64, reason: &str) -> Message {
    let params = serde_json::json!({ "requestId": id, "reason": reason });
    Message::Notification(Notification {
        method: "notifications/cancelled".into(),
        params: jsonrpc::to_raw(&params).ok(),
    })
}

/// Starts a handler on a request, without knowing the handler's type.
trait RequestRunner: Send + Sync {
    fn start(&self, request: Request, ctx: RequestContext) -> HandlerFuture;
}

/// The handler, weakly: it may own what owns this peer (a server session keeps its peer).
struct Runner<H>(Weak<H>);

impl<H: Handler> RequestRunner for Runner<H> {
    fn start(&self, request: Request, ctx: RequestContext) -> HandlerFuture {
        match self.0.upgrade() {
            Some(handler) => Box::pin(async move { handler.handle_request(request, ctx).await }),
            None => Box::pin(async { Err(ErrorObject::internal("the connection is closed")) }),
        }
    }
}

impl PeerHandle {
    /// Handles one incoming request: polled once at once and answered when it is ready then;
    /// otherwise it goes on in a task of its own, registered as in flight (so it can be cancelled).
    async fn serve_request(&self, request: Request) {
        let Ok(permit) = self.shared.permits.clone().acquire_owned().await else {
            return;
        };
        match self.start_request(request).await {
            Started::Answered(message) => {
                drop(permit);
                let id = message.id().cloned();
                self.send(Outgoing::related(message, id)).await;
            }
            Started::Working(working) => {
                let peer = self.clone();
                self.shared.tracker.spawn(async move {
                    let id = working.id.clone();
                    let message = working.finish(&peer).await;
                    drop(permit);
                    if let Some(message) = message {
                        peer.send(Outgoing::related(message, Some(id))).await;
                    }
                });
            }
        }
    }

    /// Starts a request: refuses an id already in flight, polls the handler once (a panic there
    /// or later becomes its error answer), and registers a handler that has to wait as in flight.
    async fn start_request(&self, request: Request) -> Started {
        let shared = &self.shared;
        let id = request.id.clone();
        if lock(&shared.in_flight).contains_key(&id) {
            let error = ErrorObject::invalid_request(format!(
                "request id {id} is already in use by a request in flight"
            ));
            return Started::Answered(Message::error(Some(id), error));
        }
        let ctx = RequestContext::new(&request, self.clone());
        let own_ctx = ctx.clone();
        let mut work = shared.runner.start(request, ctx);
        // Most requests are answered without waiting on anything: poll once here and answer at
        // once; only a request that has to wait gets a task (and a cancellation token).
        let first = std::future::poll_fn(|cx| Poll::Ready(poll_handler(&mut work, cx))).await;
        if let Poll::Ready(result) = first {
            return Started::Answered(answer(id, result));
        }
        let token = own_ctx.cancellation().clone();
        drop(own_ctx);
        let generation = shared.generation.fetch_add(1, Ordering::Relaxed);
        lock(&shared.in_flight).insert(id.clone(), (generation, token.clone()));
        Started::Working(Working {
            id,
            generation,
            token,
            work,
        })
    }

    /// Handles a request in the calling task, for a transport that received it there (an HTTP
    /// POST, say): no hop through the transport's source and the read loop. The answer goes out
    /// through the sink like any other. Returns the request back when the peer is closed.
    pub async fn serve_inline(&self, request: Request) -> Result<(), Request> {
        if self.is_closed() {
            return Err(request);
        }
        self.serve_request(request).await;
        Ok(())
    }

    /// The peer's name, as given in its options.
    pub fn name(&self) -> &str {
        &self.shared.options.name
    }

    /// Sends a typed request and waits for its typed result.
    pub async fn request<R: RequestType>(
        &self,
        params: &R::Params,
    ) -> Result<R::Result, PeerError> {
        self.request_with::<R>(params, RequestOptions::default())
            .await
    }

    /// Sends a typed request with options (timeout, progress, cancellation).
    pub async fn request_with<R: RequestType>(
        &self,
        params: &R::Params,
        options: RequestOptions,
    ) -> Result<R::Result, PeerError> {
        let params = jsonrpc::to_raw(params).map_err(|e| PeerError::Encode {
            method: R::METHOD.into(),
            detail: e.to_string(),
        })?;
        let raw = self.request_raw(R::METHOD, Some(params), options).await?;
        jsonrpc::from_object(raw.get()).map_err(|e| PeerError::Decode {
            method: R::METHOD.into(),
            detail: e.to_string(),
        })
    }

    /// Sends a request by method name with raw params; the raw path beside the typed one.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<RawJson>,
        options: RequestOptions,
    ) -> Result<RawJson, PeerError> {
        let shared = &self.shared;
        if let Some(reason) = shared.pending.closed_reason() {
            return Err(PeerError::Closed(reason));
        }
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let progress = options
            .on_progress
            .clone()
            .map(|cb| ProgressTracker::new(Some(cb)));
        let params = match (&progress, params) {
            (Some(_), params) => {
                Some(
                    with_progress_token(params, id).map_err(|detail| PeerError::Encode {
                        method: method.into(),
                        detail,
                    })?,
                )
            }
            (None, params) => params,
        };
        // The spec forbids cancelling `initialize`; every other call is cancelled on a local close.
        let cancellable = method != Initialize::METHOD;
        let mut answer = shared.pending.insert(id, progress.clone(), cancellable)?;
        let mut guard = PendingGuard {
            peer: self,
            id,
            armed: true,
        };
        let request = Message::Request(Request {
            id: RequestId::Number(id),
            method: method.into(),
            params,
        });
        if !self
            .send(Outgoing::related(request, options.related.clone()))
            .await
        {
            guard.armed = false;
            shared.pending.remove(id);
            return Err(PeerError::Closed(self.closed_reason()));
        }
        let timeout = options.timeout.or(shared.options.default_timeout);
        let started = Instant::now();
        let deadline = |progress: &Option<Arc<ProgressTracker>>| {
            let timeout = timeout?;
            let base = match progress {
                Some(p) if options.reset_timeout_on_progress => p.last().unwrap_or(started),
                _ => started,
            };
            let mut at = base + timeout;
            if let Some(max) = options.max_total_timeout {
                at = at.min(started + max);
            }
            Some(at)
        };
        let cancel = options.cancel.clone().unwrap_or_default();
        loop {
            let at = deadline(&progress);
            let sleep = async {
                match at {
                    Some(at) => tokio::time::sleep_until(at.into()).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                result = &mut answer => {
                    guard.armed = false;
                    return match result {
                        Ok(Ok(raw)) => Ok(raw),
                        Ok(Err(PeerError::Rpc { error, .. })) => Err(PeerError::Rpc { method: method.into(), error }),
                        Ok(Err(e)) => Err(e),
                        Err(_) => Err(PeerError::Closed(self.closed_reason())),
                    };
                }
                _ = sleep => {
                    if deadline(&progress).is_some_and(|d| d > Instant::now()) {
                        continue;
                    }
                    guard.armed = false;
                    if shared.pending.remove(id) {
                        let waited = started.elapsed();
                        let limit = timeout.unwrap_or(waited);
                        let reason = format!("timed out after {}", fmt_duration(limit));
                        self.send(Outgoing::new(cancelled_notification(id, &reason))).await;
                        let shown = match options.max_total_timeout {
                            Some(max) if options.reset_timeout_on_progress && waited >= max => max,
                            _ => limit,
                        };
                        return Err(PeerError::Timeout { method: method.into(), timeout: shown });
                    }
                }
                _ = cancel.cancelled() => {
                    guard.armed = false;
                    if shared.pending.remove(id) {
                        self.send(Outgoing::new(cancelled_notification(id, "cancelled by the caller"))).await;
                    }
                    return Err(PeerError::Cancelled { method: method.into() });
                }
            }
        }
    }

    /// Sends a typed notification.
    pub async fn notify<N: NotificationType>(&self, params: &N::Params) -> Result<(), PeerError> {
        self.notify_raw(N::METHOD, Some(encode_params(N::METHOD, params)?), None)
            .await
    }

    /// Sends a notification by method name, related to an incoming request if given.
    pub async fn notify_raw(
        &self,
        method: &str,
        params: Option<RawJson>,
        related: Option<RequestId>,
    ) -> Result<(), PeerError> {
        let message = Message::Notification(Notification {
            method: method.into(),
            params,
        });
        if self.send(Outgoing::related(message, related)).await {
            Ok(())
        } else {
            Err(PeerError::Closed(self.closed_reason()))
        }
    }

    /// Queues a message for the writer; false when the peer is closed.
    pub async fn send(&self, message: Outgoing) -> bool {
        match &self.shared.outlet {
            Outlet::Queue(queue) => queue.send(message).await.is_ok(),
            Outlet::Direct(direct) => self.deliver_direct(direct, message),
        }
    }

    /// Sends without waiting; a message that does not fit the queue is dropped.
    fn try_send(&self, message: Outgoing) -> bool {
        match &self.shared.outlet {
            Outlet::Queue(queue) => queue.try_send(message).is_ok(),
            Outlet::Direct(direct) => self.deliver_direct(direct, message),
        }
    }

    fn deliver_direct(&self, direct: &Weak<dyn DirectSink>, message: Outgoing) -> bool {
        if self.shared.writer_done.load(Ordering::Acquire) {
            return false;
        }
        match direct.upgrade() {
            Some(direct) => {
                direct.deliver(message);
                true
            }
            None => false,
        }
    }

    /// The negotiated protocol version, once known.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        match self.shared.state.version.load(Ordering::Acquire) {
            0 => None,
            n => ProtocolVersion::ALL.get(usize::from(n) - 1).copied(),
        }
    }

    /// Records the negotiated protocol version.
    pub fn set_protocol_version(&self, version: ProtocolVersion) {
        let index = ProtocolVersion::ALL
            .iter()
            .position(|v| *v == version)
            .unwrap_or(0);
        self.shared
            .state
            .version
            .store(index as u8 + 1, Ordering::Release);
    }

    /// How many of our requests wait for an answer.
    pub fn pending_requests(&self) -> usize {
        self.shared.pending.len()
    }

    /// How many incoming requests are being handled.
    pub fn requests_in_flight(&self) -> usize {
        lock(&self.shared.in_flight).len()
    }

    /// Stops reading, fails our waiting calls and tells the other side with
    /// `notifications/cancelled` (so it stops working on them; never for `initialize`), lets
    /// handlers finish within the grace period, flushes and closes the transport. Returns at
    /// once; await [`closed`](Self::closed).
    pub fn close(&self) {
        for id in self.shared.pending.close("closed locally") {
            // Best effort: a full queue drops the notice; closing the transport follows anyway.
            self.try_send(Outgoing::new(cancelled_notification(
                id,
                "the connection is closing",
            )));
        }
        self.shared.stop.cancel();
    }

    /// True once input has ended or [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire) || self.shared.stop.is_cancelled()
    }

    /// Waits until the peer has shut down completely (input ended, handlers done, output flushed).
    pub async fn closed(&self) {
        self.shared.done.cancelled().await
    }

    fn closed_reason(&self) -> String {
        self.shared
            .pending
            .closed_reason()
            .unwrap_or_else(|| "the connection is closed".into())
    }

    fn finish_request(&self, id: &RequestId, generation: u64) {
        let mut in_flight = lock(&self.shared.in_flight);
        if in_flight.get(id).is_some_and(|(g, _)| *g == generation) {
            in_flight.remove(id);
        }
    }

    fn on_cancelled(&self, notification: &Notification) {
        match notification.params_as::<CancelledParams>() {
            Ok(CancelledParams {
                request_id: Some(id),
                reason,
                ..
            }) => {
                let entry = lock(&self.shared.in_flight).remove(&id);
                if let Some((_, token)) = entry {
                    tracing::debug!(
                        peer = %self.shared.options.name,
                        "request {id} cancelled by the other side: {}",
                        reason.as_deref().unwrap_or("no reason given")
                    );
                    token.cancel();
                }
            }
            // 2025-11-25 lets a cancellation name no request (task cancellation); nothing to do.
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(peer = %self.shared.options.name, "ignored a malformed cancellation: {e}")
            }
        }
    }

    fn on_progress(&self, notification: &Notification) {
        let Ok(params) = notification.params_as::<ProgressParams>() else {
            return;
        };
        if let RequestId::Number(id) = params.progress_token {
            if let Some(tracker) = self.shared.pending.progress(id) {
                tracker.record(Progress {
                    progress: params.progress,
                    total: params.total,
                    message: params.message,
                });
            }
        }
    }

    fn on_answer(&self, id: RequestId, answer: Result<RawJson, ErrorObject>) {
        let delivered = match &id {
            RequestId::Number(n) => self.shared.pending.complete(
                *n,
                answer.map_err(|error| PeerError::Rpc {
                    method: String::new(),
                    error,
                }),
            ),
            RequestId::String(_) => false,
        };
        if !delivered {
            tracing::warn!(peer = %self.shared.options.name, "dropped a response for unknown request id {id}");
        }
    }
}

fn encode_params<P: Serialize + ?Sized>(method: &str, params: &P) -> Result<RawJson, PeerError> {
    jsonrpc::to_raw(params).map_err(|e| PeerError::Encode {
        method: method.into(),
        detail: e.to_string(),
    })
}

/// Adds `_meta.progressToken` to raw params (creating the object when absent).
fn with_progress_token(params: Option<RawJson>, token: i64) -> Result<RawJson, String> {
    let mut object: serde_json::Map<String, serde_json::Value> = match params {
        Some(raw) => serde_json::from_str(raw.get())
            .map_err(|e| format!("params must be an object to carry a progress token: {e}"))?,
        None => serde_json::Map::new(),
    };
    let meta = object
        .entry("_meta")
        .or_insert_with(|| serde_json::Value::Object(Default::default()));
    match meta {
        serde_json::Value::Object(meta) => {
            meta.insert("progressToken".into(), token.into());
        }
        _ => return Err("params._meta must be an object".into()),
    }
    jsonrpc::to_raw(&object).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests;
