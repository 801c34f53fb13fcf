//! The stdio transport: the server's own stdin and stdout, without a thread-pool hop per read
//! or write.
//!
//! On Unix, when stdin and stdout are pipes or sockets (as they are under any MCP client), both
//! are switched to non-blocking mode and driven by tokio's reactor; reads land in one reused
//! buffer and every ready message is written with one `write` call. Where the descriptors cannot
//! be polled (a regular file, say), it falls back to tokio's own stdin and stdout. The flags are
//! restored when the transport is dropped. stdout carries protocol messages only.

use std::io;

use mcp_proto::peer::{MessageSink, MessageSource, Outgoing, Received, StreamSink, StreamSource};

/// The server's stdin and stdout as a transport.
pub struct StdioTransport {
    source: StdinSource,
    sink: StdoutSink,
}

/// The reading half of [`StdioTransport`].
pub struct StdinSource(SourceKind);

/// The writing half of [`StdioTransport`].
pub struct StdoutSink(SinkKind);

enum SourceKind {
    #[cfg(unix)]
    Polled(unix::PolledStdin),
    Tokio(StreamSource<tokio::io::Stdin>),
}

enum SinkKind {
    #[cfg(unix)]
    Polled(unix::PolledStdout),
    Tokio(StreamSink<tokio::io::Stdout>),
}

impl StdioTransport {
    /// The process's stdin and stdout, with messages up to `max_message_size` bytes.
    /// Must be called inside a tokio runtime with I/O enabled.
    pub fn new(max_message_size: usize) -> Self {
        #[cfg(unix)]
        let source = match unix::PolledStdin::new(max_message_size) {
            Ok(stdin) => SourceKind::Polled(stdin),
            Err(e) => {
                tracing::debug!("stdin cannot be polled ({e}); using tokio's stdin");
                SourceKind::Tokio(StreamSource::with_max_message_size(
                    tokio::io::stdin(),
                    max_message_size,
                ))
            }
        };
        #[cfg(not(unix))]
        let source = SourceKind::Tokio(StreamSource::with_max_message_size(
            tokio::io::stdin(),
            max_message_size,
        ));
        #[cfg(unix)]
        let sink = match unix::PolledStdout::new() {
            Ok(stdout) => SinkKind::Polled(stdout),
            Err(e) => {
                tracing::debug!("stdout cannot be polled ({e}); using tokio's stdout");
                SinkKind::Tokio(StreamSink::new(tokio::io::stdout()))
            }
        };
        #[cfg(not(unix))]
        let sink = SinkKind::Tokio(StreamSink::new(tokio::io::stdout()));
        StdioTransport {
            source: StdinSource(source),
            sink: StdoutSink(sink),
        }
    }
}

impl mcp_proto::peer::Transport for StdioTransport {
    type Source = StdinSource;
    type Sink = StdoutSink;
    fn split(self) -> (StdinSource, StdoutSink) {
        (self.source, self.sink)
    }
}

impl MessageSource for StdinSource {
    async fn recv(&mut self) -> Option<Received> {
        match &mut self.0 {
            #[cfg(unix)]
            SourceKind::Polled(s) => s.recv().await,
            SourceKind::Tokio(s) => s.recv().await,
        }
    }

    async fn close_reason(&mut self) -> Option<String> {
        match &mut self.0 {
            #[cfg(unix)]
            SourceKind::Polled(s) => s.close_reason(),
            SourceKind::Tokio(s) => s.close_reason().await,
        }
    }
}

impl MessageSink for StdoutSink {
    async fn send(&mut self, message: Outgoing) -> io::Result<()> {
        match &mut self.0 {
            #[cfg(unix)]
            SinkKind::Polled(s) => {
                s.send(message);
                Ok(())
            }
            SinkKind::Tokio(s) => s.send(message).await,
        }
    }

    async fn flush(&mut self) -> io::Result<()> {
        match &mut self.0 {
            #[cfg(unix)]
            SinkKind::Polled(s) => s.flush().await,
            SinkKind::Tokio(s) => s.flush().await,
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        match &mut self.0 {
            #[cfg(unix)]
            SinkKind::Polled(s) => s.flush().await,
            SinkKind::Tokio(s) => s.flush().await,
        }
    }
}

#[cfg(unix)]
mod unix {
    use std::io;
    use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};

    use bytes::BytesMut;
    use mcp_proto::codec::JsonRpcCodec;
    use mcp_proto::peer::{Outgoing, Received};
    use rustix::fs::OFlags;
    use tokio::io::unix::AsyncFd;
    use tokio_util::codec::Decoder;

    /// A duplicate of a standard descriptor, switched to non-blocking mode; the old flags come
    /// back on drop. Flags belong to the shared open file description, so this also affects the
    /// original descriptor, which nobody else reads or writes while the server runs.
    struct NonBlocking {
        fd: OwnedFd,
        old: OFlags,
    }

    impl NonBlocking {
        fn new(fd: BorrowedFd<'_>) -> io::Result<Self> {
            let fd = fd.try_clone_to_owned()?;
            let old = rustix::fs::fcntl_getfl(&fd)?;
            rustix::fs::fcntl_setfl(&fd, old | OFlags::NONBLOCK)?;
            Ok(NonBlocking { fd, old })
        }
    }

    impl AsRawFd for NonBlocking {
        fn as_raw_fd(&self) -> RawFd {
            self.fd.as_raw_fd()
        }
    }

    impl Drop for NonBlocking {
        fn drop(&mut self) {
            let _ = rustix::fs::fcntl_setfl(&self.fd, self.old);
        }
    }

    /// Registers a standard descriptor with the reactor, or says why it cannot be (regular
    /// files and some character devices cannot be polled).
    fn polled(fd: BorrowedFd<'_>) -> io::Result<AsyncFd<NonBlocking>> {
        let nb = NonBlocking::new(fd)?;
        // SAFETY: `nb` owns its descriptor (a dup), which stays open and refers to the same file
        // description until `nb` is dropped, and `as_raw_fd` always returns that descriptor.
        #[allow(unsafe_code)] // The crate's one `unsafe`; the crate denies every other.
        unsafe { AsyncFd::register(nb) }.map_err(io::Error::from)
    }

    /// The first read size, and the largest (a pipe holds 64 KiB).
    const FIRST_READ: usize = 4 * 1024;
    const MAX_READ: usize = 64 * 1024;

    pub(super) struct PolledStdin {
        fd: AsyncFd<NonBlocking>,
        buf: BytesMut,
        /// Where `read` puts bytes: small at first (a quiet session never touches more), twice
        /// as large each time a read fills it, up to `MAX_READ`.
        scratch: Vec<u8>,
        codec: JsonRpcCodec,
        /// Stdin is a pipe or a socket, where a read shorter than asked means nothing is left
        /// (a terminal hands out one line per read, however many wait).
        short_read_drains: bool,
        eof: bool,
        error: Option<io::Error>,
    }

    impl PolledStdin {
        pub(super) fn new(max_message_size: usize) -> io::Result<Self> {
            let short_read_drains = rustix::fs::fstat(io::stdin().as_fd()).is_ok_and(|stat| {
                matches!(
                    rustix::fs::FileType::from_raw_mode(stat.st_mode),
                    rustix::fs::FileType::Fifo | rustix::fs::FileType::Socket
                )
            });
            Ok(PolledStdin {
                fd: polled(io::stdin().as_fd())?,
                short_read_drains,
                buf: BytesMut::with_capacity(64 * 1024),
                scratch: vec![0u8; FIRST_READ],
                codec: JsonRpcCodec::new(max_message_size),
                eof: false,
                error: None,
            })
        }

        pub(super) async fn recv(&mut self) -> Option<Received> {
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
                let mut guard = match self.fd.readable().await {
                    Ok(guard) => guard,
                    Err(e) => {
                        self.error = Some(e);
                        self.eof = true;
                        continue;
                    }
                };
                let scratch = &mut self.scratch;
                match guard.try_io(|fd| {
                    rustix::io::read(&fd.get_ref().fd, &mut scratch[..]).map_err(io::Error::from)
                }) {
                    Ok(Ok(0)) => self.eof = true,
                    Ok(Ok(n)) => {
                        self.buf.extend_from_slice(&scratch[..n]);
                        if n == scratch.len() && n < MAX_READ {
                            scratch.resize(2 * n, 0);
                        } else if n < scratch.len() && self.short_read_drains {
                            // The pipe is empty: wait for the reactor instead of a read that
                            // would only say so (one system call less per message). Readiness
                            // that arrived since the read is kept.
                            guard.clear_ready();
                        }
                    }
                    Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                    Ok(Err(e)) => {
                        self.error = Some(e);
                        self.eof = true;
                    }
                    Err(_would_block) => {}
                }
            }
        }

        pub(super) fn close_reason(&mut self) -> Option<String> {
            self.error
                .take()
                .map(|e| format!("reading stdin failed: {e}"))
        }
    }

    pub(super) struct PolledStdout {
        fd: AsyncFd<NonBlocking>,
        buf: BytesMut,
    }

    impl PolledStdout {
        pub(super) fn new() -> io::Result<Self> {
            Ok(PolledStdout {
                fd: polled(io::stdout().as_fd())?,
                buf: BytesMut::with_capacity(64 * 1024),
            })
        }

        pub(super) fn send(&mut self, message: Outgoing) {
            message.encode_line(&mut self.buf);
        }

        pub(super) async fn flush(&mut self) -> io::Result<()> {
            let mut written = 0;
            while written < self.buf.len() {
                // Try the write first: a pipe with room takes it at once, without a poll.
                match rustix::io::write(&self.fd.get_ref().fd, &self.buf[written..]) {
                    Ok(n) => written += n,
                    Err(rustix::io::Errno::INTR) => {}
                    Err(rustix::io::Errno::AGAIN) => {
                        let mut guard = self.fd.writable().await?;
                        guard.clear_ready();
                    }
                    Err(e) => {
                        self.buf.clear();
                        return Err(e.into());
                    }
                }
            }
            self.buf.clear();
            Ok(())
        }
    }
}
