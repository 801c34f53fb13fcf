//! One session of the HTTP transports: the queue its peer reads from, the routes of its
//! in-flight requests, and its SSE streams.
//!
//! The peer writes every outgoing message through [`HttpSink`], which routes it by
//! `Outgoing::related` (see `delivery`): to the stream of the POST that carried the request (a
//! JSON reply if the final answer is the first thing that POST gets, an SSE stream otherwise), or
//! to the session's standalone GET stream for messages related to no request.

mod delivery;
mod inbox;
mod shared_events;
mod stream;
mod table;
mod transport;

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use mcp_proto::jsonrpc::{Incoming, Message, Notification, Request, RequestId};
use mcp_proto::peer::{PeerHandle, Received};
use mcp_proto::schema::{Cancelled, CancelledParams, NotificationType};
use mcp_proto::sync::lock;
use mcp_proto::version::ProtocolVersion;

pub(crate) use stream::{event_id, parse_event_id, Next, Reply, Stream};
pub(crate) use table::{new_session_id, CreateError, SessionTable};
pub use transport::{HttpSessionTransport, HttpSink, HttpSource};

use crate::auth::IdentityCell;
use crate::session_store::StoreLink;
use inbox::{Inbox, Refused};
use stream::Mode;

/// The id of the standalone (GET) stream of a session; POST streams count up from 1.
pub(crate) const STANDALONE: u64 = 0;

/// How many finished-but-unread streams a session keeps for resumption.
const RETAINED_STREAMS: usize = 16;

/// What kind of transport a session serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SessionKind {
    /// Streamable HTTP with `Mcp-Session-Id`.
    Streamable,
    /// Streamable HTTP in stateless mode: one POST, one short-lived session.
    Stateless,
    /// One 2026-07-28 POST: stateless, its SSE events carry no ids, and closing its response
    /// stream cancels its request.
    Modern,
    /// The 2024-11-05 HTTP+SSE transport: every message travels on the GET stream.
    Legacy,
}

/// One session: the queue the peer reads from, the routes of in-flight requests and the streams.
pub(crate) struct Session {
    id: Box<str>,
    kind: SessionKind,
    inbox: Inbox,
    state: Mutex<State>,
    /// Milliseconds since the table's epoch at the last request.
    last_active: AtomicU64,
    /// The protocol version the session negotiated (index into `ProtocolVersion::ALL` plus
    /// one; 0 while unknown).
    version: AtomicU8,
    /// Set once the session was closed from either side (checked on every request).
    closed: AtomicBool,
    /// The length of the last message the session wrote: the next one's buffer starts this big,
    /// so an answer is written without growing and leaves as one exact allocation.
    message_size: AtomicU32,
    /// In-flight POSTs plus live SSE connections; an attached session never expires.
    attached: AtomicUsize,
    replay: usize,
    /// Whatever the session factory returned (a peer handle, say), kept alive with the session.
    keep: OnceLock<Box<dyn Any + Send + Sync>>,
    /// The peer serving this session, when one attached: POSTed requests are served inline.
    peer: OnceLock<PeerHandle>,
    /// Whom the session serves, when authorization is on: bound at its start, and every later
    /// request must carry a token of the same principal.
    identity: Arc<IdentityCell>,
    /// The session's record in a shared session store, when replicas share sessions.
    link: OnceLock<Arc<StoreLink>>,
    /// The standalone stream's home in a shared event store, when replicas share sessions.
    events: OnceLock<shared_events::SharedEvents>,
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
            inbox: Inbox::default(),
            state: Mutex::default(),
            last_active: AtomicU64::new(now),
            version: AtomicU8::new(0),
            closed: AtomicBool::new(false),
            message_size: AtomicU32::new(128),
            attached: AtomicUsize::new(0),
            replay: replay.max(1),
            keep: OnceLock::new(),
            peer: OnceLock::new(),
            identity: Arc::default(),
            link: OnceLock::new(),
            events: OnceLock::new(),
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
        HttpSessionTransport::new(self.clone())
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

    /// Whom the session serves (empty without authorization).
    pub(crate) fn identity(&self) -> &Arc<IdentityCell> {
        &self.identity
    }

    /// Ties the session to its record in the shared session store (before it starts).
    pub(crate) fn link(&self, link: StoreLink) {
        let _ = self.link.set(Arc::new(link));
    }

    /// The session's tie to the shared session store, if replicas share sessions.
    pub(crate) fn store_link(&self) -> Option<&Arc<StoreLink>> {
        self.link.get()
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

    /// Registers a POST's requests on `stream`, then queues the frame for the peer. A
    /// cancellation stops its request at once, not when the peer's read loop reaches it (which
    /// a handler's synchronous start may hold up; see [`HttpSource`](transport::HttpSource)).
    pub(crate) fn push(
        &self,
        item: Received,
        routes: &[RequestId],
        stream: Option<&Arc<Stream>>,
    ) -> Result<(), PushError> {
        if let (Ok(Incoming::Single(Message::Notification(n))), Some(peer)) =
            (&item, self.peer.get())
        {
            peer.cancel_on_arrival(n);
        }
        if let Some(stream) = stream {
            self.route(routes, stream)?;
        }
        if let Err(refused) = self.inbox.push(item) {
            self.unroute(routes, stream);
            return Err(match refused {
                Refused::Closed => PushError::Closed,
                Refused::Full => PushError::Full,
            });
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
        // Shared sessions: stream ids are unique across replicas (this process's tag above
        // the count), so a stream resumed on another replica is found in the store by its id.
        let id = if self.events.get().is_some() {
            replica_stream_tag() | (id & u64::from(u32::MAX))
        } else {
            id
        };
        let stream = Stream::new(id, pending, self.replay, Mode::Undecided);
        Arc::new(if self.kind == SessionKind::Modern {
            stream.without_event_ids()
        } else {
            stream
        })
    }

    /// The standalone stream (created on first use), for the GET stream or the HTTP+SSE stream.
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
        state.streams.insert(stream.id(), stream.clone());
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

    /// Ends the session: the peer sees end of input; every stream ends. A 2026-07-28 request
    /// still unanswered is cancelled (its client closed the response stream), so its handler
    /// stops at once and nothing more is sent for it.
    pub(crate) fn close(&self) {
        if self.kind == SessionKind::Modern {
            self.cancel_unanswered();
        }
        self.closed.store(true, Ordering::Release);
        self.inbox.close();
        self.close_streams();
    }

    /// Ends the standalone stream's connection (on shutdown), leaving POST streams running.
    pub(crate) fn end_standalone(&self) {
        let stream = lock(&self.state).streams.get(&STANDALONE).cloned();
        if let Some(stream) = stream {
            stream.finish();
        }
    }

    /// Queues `notifications/cancelled` for every request still routed, ahead of the end of
    /// input, so the peer cancels their handlers instead of waiting out its grace period.
    fn cancel_unanswered(&self) {
        let unanswered: Vec<RequestId> = lock(&self.state).routes.keys().cloned().collect();
        for id in unanswered {
            let params = CancelledParams {
                request_id: Some(id),
                reason: Some("the client closed the response stream".into()),
                meta: None,
                extra: Default::default(),
            };
            match Notification::new(Cancelled::METHOD, &params) {
                Ok(n) => {
                    let _ = self
                        .inbox
                        .push(Ok(Incoming::Single(Message::Notification(n))));
                }
                Err(e) => tracing::error!("cannot encode a cancellation: {e}"),
            }
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
}

/// This process's tag in the high 32 bits of its POST stream ids on shared sessions: random,
/// never zero (stream 0 is the standalone stream).
pub(super) fn replica_stream_tag() -> u64 {
    static TAG: OnceLock<u64> = OnceLock::new();
    *TAG.get_or_init(|| {
        let random = new_session_id()
            .ok()
            .and_then(|id| u32::from_str_radix(id.get(..8)?, 16).ok())
            .unwrap_or_else(std::process::id);
        u64::from(random.max(1)) << 32
    })
}

/// Keeps a session counted as attached (never idle-expired) while it lives.
pub(crate) struct AttachGuard(Arc<Session>);

impl Drop for AttachGuard {
    fn drop(&mut self) {
        self.0.attached.fetch_sub(1, Ordering::AcqRel);
    }
}
