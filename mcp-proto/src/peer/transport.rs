//! What the peer talks to: a transport is a pair of a message source and a message sink, so
//! reading and writing run concurrently. Byte streams (stdio, child pipes) use the NDJSON codec;
//! the in-memory pair passes messages without serializing them, for tests.

use std::future::Future;
use std::io;

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::codec::Decoder;

use crate::codec::{
    encode_batch_line, encode_message_line, FrameError, JsonRpcCodec, DEFAULT_MAX_MESSAGE_SIZE,
};
use crate::jsonrpc::{Incoming, Message, RequestId};

/// The body of an outgoing message: one message or a batch answer.
#[derive(Debug)]
pub enum Outbound {
    /// One message.
    Single(Message),
    /// A batch of responses, sent as one JSON array.
    Batch(Vec<Message>),
}

/// A message on its way out, with the id of the request it relates to (if any), so an HTTP
/// transport can put progress and logging for a request on that request's own stream.
#[derive(Debug)]
pub struct Outgoing {
    /// What to send.
    pub body: Outbound,
    /// The incoming request this message belongs to: a response answers it, a notification or
    /// request was sent while handling it.
    pub related: Option<RequestId>,
    /// What the peer knows this message means, for a transport that acts on it (a new session
    /// starts, a request's exchange may stop) without parsing the message again.
    pub intent: Intent,
}

/// What an outgoing message means to a transport, as the peer that wrote it knows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Intent {
    /// Nothing a transport needs to act on.
    #[default]
    Plain,
    /// Our `initialize` request: its answer starts a session.
    Initialize,
    /// Our `notifications/initialized`: the session is ready for normal operation.
    Initialized,
    /// A `notifications/cancelled` for our request with this id: nobody waits for its answer
    /// any more, so a transport may stop carrying it.
    Cancel(RequestId),
}

impl Outgoing {
    /// A single message, related to nothing.
    pub fn new(message: Message) -> Self {
        Self::related(message, None)
    }
    /// A single message related to an incoming request.
    pub fn related(message: Message, related: Option<RequestId>) -> Self {
        Outgoing {
            body: Outbound::Single(message),
            related,
            intent: Intent::Plain,
        }
    }
    /// The same message, marked with what it means to a transport.
    pub fn with_intent(mut self, intent: Intent) -> Self {
        self.intent = intent;
        self
    }
    /// Appends the message as one NDJSON line to `dst`.
    pub fn encode_line(&self, dst: &mut BytesMut) {
        match &self.body {
            Outbound::Single(m) => encode_message_line(m, dst),
            Outbound::Batch(ms) => encode_batch_line(ms, dst),
        }
    }
}

/// What a transport delivers: a message, a batch, or a frame that could not be parsed.
pub type Received = Result<Incoming, FrameError>;

/// The reading half of a transport.
pub trait MessageSource: Send + 'static {
    /// The next frame; `None` when the other side has closed.
    fn recv(&mut self) -> impl Future<Output = Option<Received>> + Send;
    /// After `recv` returned `None`: why the stream ended, when the transport knows more than
    /// "closed" (a child's exit status and the tail of its stderr, say).
    fn close_reason(&mut self) -> impl Future<Output = Option<String>> + Send {
        async { None }
    }
    /// Called once when a peer starts on this source, with the peer's handle: a transport that
    /// receives requests in tasks of its own (an HTTP server) may serve them there with
    /// [`PeerHandle::serve_inline`](super::PeerHandle::serve_inline), and one that can fail a
    /// single request of ours without an answer from the other side (an HTTP POST refused, say)
    /// reports it with [`PeerHandle::fail_request`](super::PeerHandle::fail_request), in order
    /// with the frames it delivers.
    fn attach(&mut self, peer: &super::PeerHandle) {
        let _ = peer;
    }
    /// True when the frames reach this source from tasks of the transport's own that never
    /// wait for the read loop (an HTTP server's), and the transport hands each
    /// `notifications/cancelled` to
    /// [`PeerHandle::cancel_on_arrival`](super::PeerHandle::cancel_on_arrival) as it receives it.
    /// The read loop then reads such a source itself, instead of through a task that reads
    /// ahead of a handler's synchronous start: one task and one queue less per connection,
    /// which counts when a server holds thousands of idle HTTP sessions.
    fn fed_by_other_tasks(&self) -> bool {
        false
    }
}

/// A sink that takes a message at once, from any task, without ever waiting (an HTTP session
/// that routes each message to the stream of the request it belongs to, say).
pub trait DirectSink: Send + Sync + 'static {
    /// Takes one message.
    fn deliver(&self, message: Outgoing);
}

/// The writing half of a transport.
pub trait MessageSink: Send + 'static {
    /// Queues one message; it may stay buffered until [`flush`](Self::flush).
    fn send(&mut self, message: Outgoing) -> impl Future<Output = io::Result<()>> + Send;
    /// Pushes every buffered message out.
    fn flush(&mut self) -> impl Future<Output = io::Result<()>> + Send {
        async { Ok(()) }
    }
    /// Flushes and closes the sink; the other side sees end of input.
    fn close(&mut self) -> impl Future<Output = io::Result<()>> + Send {
        async { Ok(()) }
    }
    /// When this sink never waits: a handle the peer hands messages to directly, skipping its
    /// writer queue and task (one task switch less per message).
    fn direct(&self) -> Option<std::sync::Arc<dyn DirectSink>> {
        None
    }
}

/// A duplex of messages that splits into its two halves.
pub trait Transport: Send + 'static {
    /// The reading half.
    type Source: MessageSource;
    /// The writing half.
    type Sink: MessageSink;
    /// Splits the transport so reading and writing run concurrently.
    fn split(self) -> (Self::Source, Self::Sink);
}

impl<A: MessageSource, B: MessageSink> Transport for (A, B) {
    type Source = A;
    type Sink = B;
    fn split(self) -> (A, B) {
        self
    }
}

/// Reads NDJSON messages from any async byte stream.
pub struct StreamSource<R> {
    reader: R,
    buf: BytesMut,
    codec: JsonRpcCodec,
    eof: bool,
    error: Option<io::Error>,
}

impl<R: AsyncRead + Unpin + Send + 'static> StreamSource<R> {
    /// A source with the default maximum message size.
    pub fn new(reader: R) -> Self {
        Self::with_max_message_size(reader, DEFAULT_MAX_MESSAGE_SIZE)
    }
    /// A source that skips (and reports) messages over `max` bytes.
    pub fn with_max_message_size(reader: R, max: usize) -> Self {
        StreamSource {
            reader,
            buf: BytesMut::with_capacity(64 * 1024),
            codec: JsonRpcCodec::new(max),
            eof: false,
            error: None,
        }
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> MessageSource for StreamSource<R> {
    async fn recv(&mut self) -> Option<Received> {
        loop {
            let item = if self.eof {
                self.codec.decode_eof(&mut self.buf)
            } else {
                self.codec.decode(&mut self.buf)
            };
            match item {
                Ok(Some(item)) => return Some(item),
                Ok(None) if self.eof => return None,
                Ok(None) => {}
                Err(e) => {
                    self.error = Some(e);
                    return None;
                }
            }
            if self.buf.capacity() - self.buf.len() < 4096 {
                self.buf.reserve(64 * 1024);
            }
            match self.reader.read_buf(&mut self.buf).await {
                Ok(0) => self.eof = true,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.error = Some(e);
                    self.eof = true;
                }
            }
        }
    }

    async fn close_reason(&mut self) -> Option<String> {
        self.error.take().map(|e| format!("read failed: {e}"))
    }
}

/// Writes NDJSON messages to any async byte stream, several messages per write.
pub struct StreamSink<W> {
    writer: W,
    buf: BytesMut,
}

impl<W: AsyncWrite + Unpin + Send + 'static> StreamSink<W> {
    /// A sink over `writer`.
    pub fn new(writer: W) -> Self {
        StreamSink {
            writer,
            buf: BytesMut::with_capacity(64 * 1024),
        }
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> MessageSink for StreamSink<W> {
    async fn send(&mut self, message: Outgoing) -> io::Result<()> {
        message.encode_line(&mut self.buf);
        if self.buf.len() >= 256 * 1024 {
            self.writer.write_all(&self.buf).await?;
            self.buf.clear();
        }
        Ok(())
    }

    async fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            self.writer.write_all(&self.buf).await?;
            self.buf.clear();
        }
        self.writer.flush().await
    }

    async fn close(&mut self) -> io::Result<()> {
        self.flush().await?;
        self.writer.shutdown().await
    }
}

/// A byte-stream transport speaking newline-delimited JSON, e.g. a child's stdout and stdin.
pub fn byte_stream<R, W>(reader: R, writer: W) -> (StreamSource<R>, StreamSink<W>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    (StreamSource::new(reader), StreamSink::new(writer))
}

/// One end of an in-memory transport; messages cross without being serialized.
pub struct MemoryTransport {
    tx: mpsc::Sender<Received>,
    rx: mpsc::Receiver<Received>,
}

/// The reading half of a [`MemoryTransport`].
pub struct MemorySource(mpsc::Receiver<Received>);

/// The writing half of a [`MemoryTransport`].
pub struct MemorySink(Option<mpsc::Sender<Received>>);

/// Two connected in-memory transport ends, each with a queue of `capacity` messages.
pub fn memory_pair(capacity: usize) -> (MemoryTransport, MemoryTransport) {
    let (a_tx, a_rx) = mpsc::channel(capacity.max(1));
    let (b_tx, b_rx) = mpsc::channel(capacity.max(1));
    (
        MemoryTransport { tx: a_tx, rx: b_rx },
        MemoryTransport { tx: b_tx, rx: a_rx },
    )
}

impl MemorySink {
    /// Delivers a raw frame to the other side as if it had arrived on the wire (for tests of
    /// malformed input).
    pub async fn inject(&self, item: Received) -> bool {
        match &self.0 {
            Some(tx) => tx.send(item).await.is_ok(),
            None => false,
        }
    }
}

impl Transport for MemoryTransport {
    type Source = MemorySource;
    type Sink = MemorySink;
    fn split(self) -> (MemorySource, MemorySink) {
        (MemorySource(self.rx), MemorySink(Some(self.tx)))
    }
}

impl MessageSource for MemorySource {
    async fn recv(&mut self) -> Option<Received> {
        self.0.recv().await
    }
}

impl MessageSink for MemorySink {
    async fn send(&mut self, message: Outgoing) -> io::Result<()> {
        let item = match message.body {
            Outbound::Single(m) => Incoming::Single(m),
            Outbound::Batch(ms) => Incoming::Batch(ms.into_iter().map(Ok).collect()),
        };
        let closed = || io::Error::new(io::ErrorKind::BrokenPipe, "the other end is closed");
        let tx = self.0.as_ref().ok_or_else(closed)?;
        tx.send(Ok(item)).await.map_err(|_| closed())
    }

    async fn close(&mut self) -> io::Result<()> {
        self.0 = None;
        Ok(())
    }
}
