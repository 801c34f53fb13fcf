//! Sessions of the HTTP transports: the table (id → session, with a cap and idle expiry), the
//! per-session [`Transport`] handed to the session factory, and the SSE streams with their
//! bounded replay buffers.
//!
//! The peer writes every outgoing message through [`HttpSink`], which routes it by
//! `Outgoing::related`: to the stream of the POST that carried the request (a JSON reply if the
//! final answer is the first thing that POST gets, an SSE stream otherwise), or to the session's
//! standalone GET stream for messages related to no request.

use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::future::poll_fn;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use mcp_proto::jsonrpc::{Batch, Incoming, Message, Request, RequestId};
use mcp_proto::peer::{
    DirectSink, MessageSink, MessageSource, Outbound, Outgoing, PeerHandle, Received, Transport,
};
use mcp_proto::sse;
use mcp_proto::version::ProtocolVersion;

/// The id of the standalone (GET) stream of a session; POST streams count up from 1.
pub(crate) const STANDALONE: u64 = 0;

/// How many finished-but-unread streams a session keeps for resumption.
const RETAINED_STREAMS: usize = 16;

/// How many incoming messages may wait for the peer to read them before POSTs get 503.
const INBOX_LIMIT: usize = 1024;

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What kind of transport a session serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SessionKind {
    /// Streamable HTTP with `Mcp-Session-Id`.
    Streamable,
    /// Streamable HTTP in stateless mode: one POST, one short-lived session.
    Stateless,
    /// The 2024-11-05 HTTP+SSE transport: every message travels on the GET stream.
    Legacy,
}

/// One session: the queue the peer reads from, the routes of in-flight requests and the streams.
pub(crate) struct Session {
    id: Box<str>,
    kind: SessionKind,
    inbox: Mutex<Inbox>,
    state: Mutex<State>,
    /// Milliseconds since the table's epoch at the last request.
    last_active: AtomicU64,
    /// The protocol version the session negotiated (index into `ProtocolVersion::ALL` plus
    /// one; 0 while unknown).
    version: AtomicU8,
    /// Set once the session was closed from either side (checked on every request).
    closed: AtomicBool,
    /// In-flight POSTs plus live SSE connections; an attached session never expires.
    attached: AtomicUsize,
    replay: usize,
    /// Whatever the session factory returned (a peer handle, say), kept alive with the session.
    keep: OnceLock<Box<dyn Any + Send + Sync>>,
    /// The peer serving this session, when one attached: POSTed requests are served inline.
    peer: OnceLock<PeerHandle>,
}

#[derive(Default)]
struct Inbox {
    queue: VecDeque<Received>,
    waker: Option<Waker>,
    closed: bool,
}

#[derive(Default)]
struct State {
    /// Request id → the stream of the POST that carried it.
    routes: HashMap<RequestId, Arc<Stream>>,
    /// Streams that speak SSE and may be resumed, by stream id.
    streams: HashMap<u64, Arc<Stream>>,
    next_stream: u64,
    closed: bool,
}

/// Why a message could not be handed to the session.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum PushError {
    /// The session has ended.
    Closed,
    /// Too many messages wait for the peer.
    Full,
    /// A request with this id is still in flight.
    DuplicateId(RequestId),
}

impl Session {
    fn new(id: Box<str>, kind: SessionKind, replay: usize, now: u64) -> Self {
        Session {
            id,
            kind,
            inbox: Mutex::default(),
            state: Mutex::default(),
            last_active: AtomicU64::new(now),
            version: AtomicU8::new(0),
            closed: AtomicBool::new(false),
            attached: AtomicUsize::new(0),
            replay: replay.max(1),
            keep: OnceLock::new(),
            peer: OnceLock::new(),
        }
    }

    /// A session outside any table (stateless mode).
    pub(crate) fn detached(kind: SessionKind, replay: usize) -> Arc<Self> {
        Arc::new(Session::new("".into(), kind, replay, 0))
    }

    /// The session id (empty in stateless mode).
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// The transport the session factory gets.
    pub(crate) fn transport(self: &Arc<Self>) -> HttpSessionTransport {
        HttpSessionTransport {
            session: self.clone(),
        }
    }

    /// Keeps the factory's return value for as long as the session lives.
    pub(crate) fn keep(&self, value: Box<dyn Any + Send + Sync>) {
        let _ = self.keep.set(value);
    }

    /// Records the version the session negotiated.
    pub(crate) fn set_version(&self, version: ProtocolVersion) {
        if let Some(i) = ProtocolVersion::ALL.iter().position(|v| *v == version) {
            self.version.store(i as u8 + 1, Ordering::Release);
        }
    }

    /// The version the session negotiated, once known.
    pub(crate) fn version(&self) -> Option<ProtocolVersion> {
        match self.version.load(Ordering::Acquire) {
            0 => None,
            n => ProtocolVersion::ALL.get(usize::from(n) - 1).copied(),
        }
    }

    /// What kind of session this is.
    pub(crate) fn kind(&self) -> SessionKind {
        self.kind
    }

    /// True once the session was closed from either side.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Counts an in-flight request or a live connection until the guard is dropped.
    pub(crate) fn attach(self: &Arc<Self>) -> AttachGuard {
        self.attached.fetch_add(1, Ordering::AcqRel);
        AttachGuard(self.clone())
    }

    /// Registers a POST's requests on `stream`: their answers (and what is sent on their
    /// behalf) go there.
    pub(crate) fn route(
        &self,
        routes: &[RequestId],
        stream: &Arc<Stream>,
    ) -> Result<(), PushError> {
        let mut state = lock(&self.state);
        if state.closed {
            return Err(PushError::Closed);
        }
        if let Some(id) = routes.iter().find(|id| state.routes.contains_key(*id)) {
            return Err(PushError::DuplicateId(id.clone()));
        }
        for id in routes {
            state.routes.insert(id.clone(), stream.clone());
        }
        Ok(())
    }

    /// Registers a POST's one request on `stream` and serves it in the calling task when a peer
    /// is attached; otherwise queues it for the peer like [`push`](Self::push).
    pub(crate) async fn serve(
        &self,
        request: Request,
        routes: &[RequestId],
        stream: &Arc<Stream>,
    ) -> Result<(), PushError> {
        let Some(peer) = self.peer.get() else {
            let frame = Incoming::Single(Message::Request(request));
            return self.push(Ok(frame), routes, Some(stream));
        };
        self.route(routes, stream)?;
        if peer.serve_inline(request).await.is_err() {
            self.unroute(routes, Some(stream));
            return Err(PushError::Closed);
        }
        Ok(())
    }

    /// Registers a POST's requests on `stream`, then queues the frame for the peer.
    pub(crate) fn push(
        &self,
        item: Received,
        routes: &[RequestId],
        stream: Option<&Arc<Stream>>,
    ) -> Result<(), PushError> {
        if let Some(stream) = stream {
            self.route(routes, stream)?;
        }
        let mut inbox = lock(&self.inbox);
        let refused = if inbox.closed {
            Some(PushError::Closed)
        } else if inbox.queue.len() >= INBOX_LIMIT {
            Some(PushError::Full)
        } else {
            None
        };
        if let Some(error) = refused {
            drop(inbox);
            self.unroute(routes, stream);
            return Err(error);
        }
        inbox.queue.push_back(item);
        if let Some(waker) = inbox.waker.take() {
            waker.wake();
        }
        Ok(())
    }

    /// Forgets the routes of a POST whose client went away before its answer.
    pub(crate) fn unroute(&self, routes: &[RequestId], stream: Option<&Arc<Stream>>) {
        let Some(stream) = stream else { return };
        let mut state = lock(&self.state);
        for id in routes {
            if state.routes.get(id).is_some_and(|s| Arc::ptr_eq(s, stream)) {
                state.routes.remove(id);
            }
        }
    }

    /// A new stream for a POST awaiting `pending` answers.
    pub(crate) fn new_post_stream(&self, pending: usize) -> Arc<Stream> {
        let id = {
            let mut state = lock(&self.state);
            state.next_stream += 1;
            state.next_stream
        };
        Arc::new(Stream::new(id, pending, self.replay, Mode::Undecided))
    }

    /// The standalone stream (created on first use), for the GET stream or the legacy stream.
    pub(crate) fn standalone(&self) -> Option<Arc<Stream>> {
        let mut state = lock(&self.state);
        if state.closed {
            return None;
        }
        Some(self.standalone_locked(&mut state).clone())
    }

    fn standalone_locked<'a>(&self, state: &'a mut State) -> &'a Arc<Stream> {
        let replay = self.replay;
        state
            .streams
            .entry(STANDALONE)
            .or_insert_with(|| Arc::new(Stream::new(STANDALONE, 0, replay, Mode::Sse)))
    }

    /// The stream with this id, for resumption.
    pub(crate) fn stream(&self, id: u64) -> Option<Arc<Stream>> {
        let state = lock(&self.state);
        if id == STANDALONE && !state.streams.contains_key(&STANDALONE) {
            drop(state);
            return self.standalone();
        }
        state.streams.get(&id).cloned()
    }

    /// Makes a POST stream resumable once it speaks SSE; evicts the oldest finished streams.
    fn retain(&self, state: &mut State, stream: &Arc<Stream>) {
        if self.kind != SessionKind::Streamable {
            return;
        }
        state.streams.insert(stream.id, stream.clone());
        if state.streams.len() > RETAINED_STREAMS {
            let oldest = state
                .streams
                .iter()
                .filter(|(id, s)| **id != STANDALONE && s.is_done())
                .map(|(id, _)| *id)
                .min();
            if let Some(id) = oldest {
                state.streams.remove(&id);
            }
        }
    }

    /// Makes a POST stream resumable after it was switched to SSE from outside the sink.
    pub(crate) fn retain_stream(&self, stream: &Arc<Stream>) {
        let mut state = lock(&self.state);
        if !state.closed {
            self.retain(&mut state, stream);
        }
    }

    /// Drops a finished stream whose every event has been delivered.
    pub(crate) fn forget_stream(&self, id: u64) {
        if id != STANDALONE {
            lock(&self.state).streams.remove(&id);
        }
    }

    /// Ends the session: the peer sees end of input; every stream ends.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        {
            let mut inbox = lock(&self.inbox);
            inbox.closed = true;
            if let Some(waker) = inbox.waker.take() {
                waker.wake();
            }
        }
        self.close_streams();
    }

    /// Ends the standalone stream's connection (on shutdown), leaving POST streams running.
    pub(crate) fn end_standalone(&self) {
        let stream = lock(&self.state).streams.get(&STANDALONE).cloned();
        if let Some(stream) = stream {
            stream.finish();
        }
    }

    fn close_streams(&self) {
        let (routes, streams) = {
            let mut state = lock(&self.state);
            state.closed = true;
            (
                std::mem::take(&mut state.routes),
                std::mem::take(&mut state.streams),
            )
        };
        for stream in routes.into_values().chain(streams.into_values()) {
            stream.finish();
        }
    }

    /// Routes one outgoing message from the peer.
    fn deliver(&self, out: Outgoing) {
        let mut json = Vec::with_capacity(128);
        // The ids this message answers: one for a single answer, several for a batch.
        let mut single: Option<RequestId> = None;
        let mut many: Vec<RequestId> = Vec::new();
        let is_answer = match &out.body {
            Outbound::Single(m) => {
                m.write_json(&mut json);
                match m {
                    Message::Response(r) => single = Some(r.id.clone()),
                    Message::Error(e) => single = e.id.clone(),
                    _ => {}
                }
                matches!(m, Message::Response(_) | Message::Error(_))
            }
            Outbound::Batch(ms) => {
                let _ = serde_json::to_writer(&mut json, &Batch(ms));
                many.extend(ms.iter().filter_map(|m| match m {
                    Message::Response(r) => Some(r.id.clone()),
                    Message::Error(e) => e.id.clone(),
                    _ => None,
                }));
                true
            }
        };
        let finals: &[RequestId] = match &single {
            Some(id) => std::slice::from_ref(id),
            None => &many,
        };
        let mut state = lock(&self.state);
        if state.closed {
            return;
        }
        if self.kind == SessionKind::Legacy {
            let stream = self.standalone_locked(&mut state).clone();
            drop(state);
            stream.push_event(Some("message"), &json, false);
            return;
        }
        if is_answer {
            let mut target: Option<Arc<Stream>> = None;
            let mut answered = 0;
            for id in finals {
                if let Some(stream) = state.routes.remove(id) {
                    answered += 1;
                    target.get_or_insert(stream);
                }
            }
            if target.is_none() && finals.is_empty() {
                // An error without an id (a refused batch): it answers a waiting batch POST.
                let batch = state
                    .routes
                    .iter()
                    .find(|(_, s)| s.is_batch())
                    .map(|(id, s)| (id.clone(), s.clone()));
                if let Some((_, stream)) = batch {
                    state.routes.retain(|_, s| !Arc::ptr_eq(s, &stream));
                    answered = usize::MAX;
                    target = Some(stream);
                }
            }
            let Some(stream) = target else {
                tracing::debug!(session = %self.id, "dropped an answer nobody waits for");
                return;
            };
            let became_sse = stream.push_answer(json, answered);
            if became_sse {
                self.retain(&mut state, &stream);
            }
            return;
        }
        let route = out.related.as_ref().and_then(|id| state.routes.get(id));
        let stream = match route {
            Some(stream) => stream.clone(),
            None if self.kind == SessionKind::Streamable => {
                self.standalone_locked(&mut state).clone()
            }
            None => {
                tracing::debug!(session = %self.id, "dropped a message with no stream to carry it");
                return;
            }
        };
        let became_sse = stream.push_event(None, &json, true);
        if became_sse {
            self.retain(&mut state, &stream);
        }
    }
}

impl DirectSink for Session {
    fn deliver(&self, message: Outgoing) {
        Session::deliver(self, message);
    }
}

/// Keeps a session counted as attached (never idle-expired) while it lives.
pub(crate) struct AttachGuard(Arc<Session>);

impl Drop for AttachGuard {
    fn drop(&mut self) {
        self.0.attached.fetch_sub(1, Ordering::AcqRel);
    }
}

/// How a POST's stream answers: not known until the first message arrives.
enum Mode {
    /// Nothing sent yet.
    Undecided,
    /// The final answer came first: a plain JSON body (taken once).
    Json(Option<Bytes>),
    /// Events went out first: an SSE stream.
    Sse,
}

/// What the first message of a POST made of its reply.
pub(crate) enum Reply {
    /// The answer, as a JSON body.
    Json(Bytes),
    /// Notifications or requests came first: the reply is an SSE stream.
    Sse,
    /// The session ended before any answer.
    Closed,
}

/// One stream of events with its bounded replay buffer: a POST's response stream or the
/// standalone GET stream. Event ids are `<stream>-<seq>`, unique within the session.
pub(crate) struct Stream {
    id: u64,
    inner: Mutex<StreamInner>,
}

struct StreamInner {
    mode: Mode,
    /// The last `cap` events, with their sequence numbers (ascending, from 1).
    events: VecDeque<(u64, Bytes)>,
    next_seq: u64,
    /// The first sequence number no connection has been given yet.
    undelivered: u64,
    cap: usize,
    /// Answers still due on this stream.
    pending: usize,
    batch: bool,
    /// No more events will come.
    done: bool,
    /// The generation of the connection currently reading, if any.
    live: Option<u64>,
    generation: u64,
    waker: Option<Waker>,
}

/// What a connection reading a stream gets next.
pub(crate) enum Next {
    /// Events to send.
    Data(Bytes),
    /// The stream is over (or this connection was replaced or fell too far behind).
    End,
    /// Nothing yet; the waker is registered.
    Pending,
}

impl Stream {
    fn new(id: u64, pending: usize, cap: usize, mode: Mode) -> Self {
        Stream {
            id,
            inner: Mutex::new(StreamInner {
                mode,
                events: VecDeque::new(),
                next_seq: 1,
                undelivered: 1,
                cap,
                pending,
                batch: false,
                done: false,
                live: None,
                generation: 0,
                waker: None,
            }),
        }
    }

    /// The stream's id within its session.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Marks the stream as answering a JSON-RPC batch.
    pub(crate) fn set_batch(&self) {
        lock(&self.inner).batch = true;
    }

    fn is_batch(&self) -> bool {
        lock(&self.inner).batch
    }

    fn is_done(&self) -> bool {
        lock(&self.inner).done
    }

    /// Ends the stream: readers finish after what is buffered.
    pub(crate) fn finish(&self) {
        let mut inner = lock(&self.inner);
        inner.done = true;
        if let Some(waker) = inner.waker.take() {
            waker.wake();
        }
    }

    /// Records the final answer of `answered` requests (usize::MAX: all). Returns true when
    /// this turned the stream into SSE.
    fn push_answer(&self, json: Vec<u8>, answered: usize) -> bool {
        let mut inner = lock(&self.inner);
        inner.pending = inner.pending.saturating_sub(answered);
        let done = inner.pending == 0;
        if done && matches!(inner.mode, Mode::Undecided) {
            inner.mode = Mode::Json(Some(Bytes::from(json)));
            inner.done = true;
            if let Some(waker) = inner.waker.take() {
                waker.wake();
            }
            return false;
        }
        let became = Self::push_locked(&mut inner, self.id, None, &json, true);
        if done {
            inner.done = true;
        }
        if let Some(waker) = inner.waker.take() {
            waker.wake();
        }
        became
    }

    /// Appends one event. Returns true when this turned the stream into SSE.
    fn push_event(&self, event: Option<&str>, json: &[u8], with_id: bool) -> bool {
        let mut inner = lock(&self.inner);
        if inner.done {
            return false;
        }
        let became = Self::push_locked(&mut inner, self.id, event, json, with_id);
        if let Some(waker) = inner.waker.take() {
            waker.wake();
        }
        became
    }

    fn push_locked(
        inner: &mut StreamInner,
        stream: u64,
        event: Option<&str>,
        json: &[u8],
        with_id: bool,
    ) -> bool {
        let became = matches!(inner.mode, Mode::Undecided);
        inner.mode = Mode::Sse;
        let seq = inner.next_seq;
        inner.next_seq += 1;
        let data = String::from_utf8_lossy(json);
        let mut buf = BytesMut::with_capacity(json.len() + 48);
        let id = with_id.then(|| event_id(stream, seq));
        // Our ids and event names never hold line breaks, so writing cannot fail.
        let _ = sse::write_event(&mut buf, event, id.as_deref(), &data);
        inner.events.push_back((seq, buf.freeze()));
        if inner.events.len() > inner.cap {
            inner.events.pop_front();
        }
        became
    }

    /// Turns a stream that has sent nothing yet into SSE; false if it was already decided.
    pub(crate) fn force_sse(&self) -> bool {
        let mut inner = lock(&self.inner);
        if matches!(inner.mode, Mode::Undecided) && !inner.done {
            inner.mode = Mode::Sse;
            return true;
        }
        false
    }

    /// Waits for the first outcome of a POST: its JSON answer, or SSE.
    pub(crate) async fn first_reply(&self) -> Reply {
        poll_fn(|cx| {
            let mut inner = lock(&self.inner);
            let done = inner.done;
            match &mut inner.mode {
                Mode::Json(body) => Poll::Ready(body.take().map_or(Reply::Closed, Reply::Json)),
                Mode::Sse => Poll::Ready(Reply::Sse),
                Mode::Undecided if done => Poll::Ready(Reply::Closed),
                Mode::Undecided => {
                    inner.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
    }

    /// Makes a new connection the stream's reader, replacing any earlier one. `after` is the
    /// last sequence number the client saw (resumption); `None` starts at the first event no
    /// connection has been given. Returns the generation and the first sequence number to send,
    /// or `None` when a connection is already reading and `exclusive` forbids replacing it.
    pub(crate) fn connect(&self, after: Option<u64>, exclusive: bool) -> Option<(u64, u64)> {
        let mut inner = lock(&self.inner);
        if exclusive && inner.live.is_some() && !inner.done {
            return None;
        }
        inner.generation += 1;
        let generation = inner.generation;
        inner.live = Some(generation);
        if let Some(waker) = inner.waker.take() {
            waker.wake();
        }
        let cursor = match after {
            Some(seen) => seen.saturating_add(1).min(inner.next_seq),
            None => inner.undelivered,
        };
        Some((generation, cursor))
    }

    /// The next events for the connection of `generation` from `cursor` on.
    pub(crate) fn poll_next(&self, generation: u64, cursor: &mut u64, waker: &Waker) -> Next {
        let mut inner = lock(&self.inner);
        if inner.live != Some(generation) {
            return Next::End;
        }
        let Some(&(first, _)) = inner.events.front() else {
            if inner.done {
                return Next::End;
            }
            inner.waker = Some(waker.clone());
            return Next::Pending;
        };
        if *cursor < first {
            if inner.undelivered > *cursor {
                // Events this connection was owed have been overwritten: end it, so the client
                // reconnects instead of silently missing messages.
                tracing::debug!(
                    stream = self.id,
                    "an SSE reader fell behind the replay buffer"
                );
                return Next::End;
            }
            *cursor = first;
        }
        let start = (*cursor - first) as usize;
        if start < inner.events.len() {
            let out = if start + 1 == inner.events.len() {
                inner.events[start].1.clone()
            } else {
                let mut buf = BytesMut::new();
                for (_, bytes) in inner.events.range(start..) {
                    buf.extend_from_slice(bytes);
                }
                buf.freeze()
            };
            *cursor = inner.next_seq;
            inner.undelivered = inner.undelivered.max(*cursor);
            return Next::Data(out);
        }
        if inner.done {
            return Next::End;
        }
        inner.waker = Some(waker.clone());
        Next::Pending
    }

    /// A connection went away. Returns true when the stream is finished and fully delivered,
    /// so the session may forget it.
    pub(crate) fn disconnect(&self, generation: u64, cursor: u64) -> bool {
        let mut inner = lock(&self.inner);
        if inner.live == Some(generation) {
            inner.live = None;
            inner.waker = None;
        }
        inner.done && cursor >= inner.next_seq
    }
}

/// The SSE event id of event `seq` on stream `stream`.
pub(crate) fn event_id(stream: u64, seq: u64) -> String {
    format!("{stream}-{seq}")
}

/// Reads a `Last-Event-ID` back into stream and sequence number.
pub(crate) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.trim().split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

/// The transport of one HTTP session, handed to the session factory: the peer reads the
/// messages POSTed to the session and writes messages that the transport routes to the right
/// HTTP response or SSE stream.
pub struct HttpSessionTransport {
    session: Arc<Session>,
}

impl std::fmt::Debug for HttpSessionTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSessionTransport")
            .field("session", &self.session.id)
            .field("kind", &self.session.kind)
            .finish()
    }
}

impl HttpSessionTransport {
    /// The session id (`Mcp-Session-Id`, or the legacy `sessionId`); empty in stateless mode.
    pub fn session_id(&self) -> &str {
        &self.session.id
    }

    /// In stateless mode, the protocol version of the one POST this session serves (from its
    /// `MCP-Protocol-Version` header): no `initialize` ever reaches such a session.
    pub fn stateless_version(&self) -> Option<ProtocolVersion> {
        (self.session.kind == SessionKind::Stateless)
            .then(|| self.session.version())
            .flatten()
    }
}

/// The reading half of an [`HttpSessionTransport`]: messages POSTed to the session.
pub struct HttpSource {
    session: Arc<Session>,
}

/// The writing half of an [`HttpSessionTransport`]: routes each message to its stream.
pub struct HttpSink {
    session: Arc<Session>,
}

impl Transport for HttpSessionTransport {
    type Source = HttpSource;
    type Sink = HttpSink;
    fn split(self) -> (HttpSource, HttpSink) {
        (
            HttpSource {
                session: self.session.clone(),
            },
            HttpSink {
                session: self.session,
            },
        )
    }
}

impl MessageSource for HttpSource {
    async fn recv(&mut self) -> Option<Received> {
        poll_fn(|cx| {
            let mut inbox = lock(&self.session.inbox);
            if let Some(item) = inbox.queue.pop_front() {
                return Poll::Ready(Some(item));
            }
            if inbox.closed {
                return Poll::Ready(None);
            }
            inbox.waker = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }

    async fn close_reason(&mut self) -> Option<String> {
        Some("the HTTP session ended".into())
    }

    fn attach(&mut self, peer: &PeerHandle) {
        let _ = self.session.peer.set(peer.clone());
    }
}

impl MessageSink for HttpSink {
    async fn send(&mut self, message: Outgoing) -> io::Result<()> {
        self.session.deliver(message);
        Ok(())
    }

    fn direct(&self) -> Option<Arc<dyn DirectSink>> {
        Some(self.session.clone())
    }

    async fn close(&mut self) -> io::Result<()> {
        self.session.closed.store(true, Ordering::Release);
        lock(&self.session.inbox).closed = true;
        self.session.close_streams();
        Ok(())
    }
}

/// Why a new session could not be created.
#[derive(Debug)]
pub(crate) enum CreateError {
    /// The table is at its cap.
    Full,
    /// No randomness for the id.
    Random(io::Error),
}

/// The sessions of one server: id → session, at most `max` of them, idle ones expire.
pub(crate) struct SessionTable {
    sessions: RwLock<HashMap<Box<str>, Arc<Session>>>,
    epoch: Instant,
    max: usize,
    idle: Duration,
    replay: usize,
}

impl SessionTable {
    /// An empty table.
    pub(crate) fn new(max: usize, idle: Duration, replay: usize) -> Self {
        SessionTable {
            sessions: RwLock::default(),
            epoch: Instant::now(),
            max: max.max(1),
            idle,
            replay,
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn expired(&self, session: &Session, now: u64) -> bool {
        let idle_ms = self.idle.as_millis() as u64;
        session.attached.load(Ordering::Acquire) == 0
            && now.saturating_sub(session.last_active.load(Ordering::Acquire)) > idle_ms
    }

    /// The live session with this id, marked active now.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        let session = self
            .sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()?;
        let now = self.now();
        if session.is_closed() || self.expired(&session, now) {
            self.remove(id);
            return None;
        }
        session.last_active.store(now, Ordering::Release);
        Some(session)
    }

    /// A new session with a fresh random id.
    pub(crate) fn create(&self, kind: SessionKind) -> Result<Arc<Session>, CreateError> {
        let id = new_session_id().map_err(CreateError::Random)?;
        let now = self.now();
        let mut sessions = self.sessions.write().unwrap_or_else(|p| p.into_inner());
        if sessions.len() >= self.max {
            sessions.retain(|_, s| {
                let dead = s.is_closed() || self.expired(s, now);
                if dead {
                    s.close();
                }
                !dead
            });
            if sessions.len() >= self.max {
                return Err(CreateError::Full);
            }
        }
        let session = Arc::new(Session::new(id.clone(), kind, self.replay, now));
        sessions.insert(id, session.clone());
        Ok(session)
    }

    /// Removes and closes a session; true if it existed.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let removed = self
            .sessions
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        match removed {
            Some(session) => {
                session.close();
                true
            }
            None => false,
        }
    }

    /// Closes and removes every expired or closed session.
    pub(crate) fn sweep(&self) {
        let now = self.now();
        let mut dead = Vec::new();
        self.sessions
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, s| {
                let gone = s.is_closed() || self.expired(s, now);
                if gone {
                    dead.push(s.clone());
                }
                !gone
            });
        for session in dead {
            session.close();
        }
    }

    /// How many sessions the table holds.
    pub(crate) fn len(&self) -> usize {
        self.sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }

    /// Ends every standalone stream (shutdown, first step).
    pub(crate) fn end_standalone_streams(&self) {
        let all: Vec<_> = self
            .sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect();
        for session in all {
            session.end_standalone();
        }
    }

    /// Closes and removes every session.
    pub(crate) fn close_all(&self) {
        let all = std::mem::take(&mut *self.sessions.write().unwrap_or_else(|p| p.into_inner()));
        for session in all.into_values() {
            session.close();
        }
    }
}

/// A new session id: 16 bytes from the operating system's CSPRNG, hex-encoded (32 visible
/// ASCII characters).
pub(crate) fn new_session_id() -> io::Result<Box<str>> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    let mut id = String::with_capacity(32);
    for b in bytes {
        id.push(char::from(HEX[usize::from(b >> 4)]));
        id.push(char::from(HEX[usize::from(b & 15)]));
    }
    Ok(id.into())
}

const HEX: &[u8; 16] = b"0123456789abcdef";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_random_visible_ascii() {
        let a = new_session_id().expect("urandom");
        let b = new_session_id().expect("urandom");
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert!(a.bytes().all(|c| (0x21..=0x7e).contains(&c)));
    }

    #[test]
    fn event_ids_round_trip() {
        assert_eq!(parse_event_id(&event_id(3, 17)), Some((3, 17)));
        assert_eq!(parse_event_id("x-1"), None);
        assert_eq!(parse_event_id("12"), None);
    }

    #[test]
    fn replay_buffer_is_bounded_and_resumes_after_an_id() {
        let stream = Stream::new(1, 1, 3, Mode::Undecided);
        for i in 0..5 {
            stream.push_event(None, format!("{{\"n\":{i}}}").as_bytes(), true);
        }
        assert_eq!(lock(&stream.inner).events.len(), 3);
        let (generation, mut cursor) = stream.connect(Some(3), false).expect("connect");
        let waker = Waker::noop().clone();
        match stream.poll_next(generation, &mut cursor, &waker) {
            Next::Data(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                assert!(text.contains("id: 1-4"), "{text}");
                assert!(text.contains("id: 1-5"), "{text}");
                assert!(!text.contains("id: 1-3"), "{text}");
            }
            _ => panic!("expected data"),
        }
        assert!(matches!(
            stream.poll_next(generation, &mut cursor, &waker),
            Next::Pending
        ));
    }

    #[test]
    fn answer_first_is_json() {
        let stream = Stream::new(1, 1, 8, Mode::Undecided);
        assert!(!stream.push_answer(b"{}".to_vec(), 1));
        assert!(matches!(lock(&stream.inner).mode, Mode::Json(Some(_))));
    }
}
