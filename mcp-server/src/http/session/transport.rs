//! The [`Transport`] of one HTTP session, as the session factory's peer sees it: a source of
//! the messages POSTed to the session and a sink that routes what the peer sends.

use std::future::poll_fn;
use std::io;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use mcp_proto::peer::{
    DirectSink, MessageSink, MessageSource, Outgoing, PeerHandle, Received, Transport,
};
use mcp_proto::version::ProtocolVersion;

use super::{Session, SessionKind};

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
    /// The transport of `session`.
    pub(super) fn new(session: Arc<Session>) -> Self {
        HttpSessionTransport { session }
    }

    /// The session id (`Mcp-Session-Id`, or the HTTP+SSE `sessionId`); empty in stateless mode.
    pub fn session_id(&self) -> &str {
        &self.session.id
    }

    /// The verified identity of the session's client, when authorization is on (for a custom
    /// session factory; a [`Server`](crate::Server)'s handlers read it from their context).
    pub fn auth_identity(&self) -> Option<Arc<crate::auth::AuthIdentity>> {
        self.session.identity().get()
    }

    /// Where the session's identity lives, read afresh at each request.
    pub(crate) fn identity_cell(&self) -> Arc<crate::auth::IdentityCell> {
        self.session.identity().clone()
    }

    /// The session's tie to the shared session store, if replicas share sessions.
    pub(crate) fn store_link(&self) -> Option<Arc<crate::session_store::StoreLink>> {
        self.session.store_link().cloned()
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
        poll_fn(|cx| self.session.inbox.poll_recv(cx)).await
    }

    async fn close_reason(&mut self) -> Option<String> {
        Some("the HTTP session ended".into())
    }

    fn attach(&mut self, peer: &PeerHandle) {
        let _ = self.session.peer.set(peer.clone());
    }

    /// POSTs push into the session's inbox from their own tasks, and a cancellation acts as it
    /// is pushed (`Session::push`), so the read loop reads the inbox without a pump task.
    fn fed_by_other_tasks(&self) -> bool {
        true
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
        self.session.inbox.close_quietly();
        self.session.close_streams();
        Ok(())
    }
}
