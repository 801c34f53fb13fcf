//! The last bytes a child wrote to stderr (16 KiB by default), so errors can quote why a server
//! died and users can read its recent complaints, without holding an unbounded log in memory.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::io::{AsyncRead, AsyncReadExt};

/// The default size of the ring: 16 KiB.
pub const DEFAULT_STDERR_CAPACITY: usize = 16 * 1024;

/// A bounded buffer of the most recent stderr bytes; cheap to clone (shared).
#[derive(Clone, Debug)]
pub struct StderrRing {
    inner: Arc<Mutex<Ring>>,
}

#[derive(Debug)]
struct Ring {
    bytes: VecDeque<u8>,
    capacity: usize,
    /// Whether older bytes were dropped to make room.
    truncated: bool,
}

impl Default for StderrRing {
    fn default() -> Self {
        Self::new(DEFAULT_STDERR_CAPACITY)
    }
}

impl StderrRing {
    /// A ring keeping the last `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        StderrRing {
            inner: Arc::new(Mutex::new(Ring {
                bytes: VecDeque::with_capacity(capacity.min(4096)),
                capacity: capacity.max(1),
                truncated: false,
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Ring> {
        mcp_proto::sync::lock(&self.inner)
    }

    /// Appends bytes, dropping the oldest ones beyond the capacity.
    pub fn push(&self, data: &[u8]) {
        let mut ring = self.lock();
        let cap = ring.capacity;
        let data = if data.len() > cap {
            ring.truncated = true;
            &data[data.len() - cap..]
        } else {
            data
        };
        let overflow = (ring.bytes.len() + data.len()).saturating_sub(cap);
        if overflow > 0 {
            ring.truncated = true;
            ring.bytes.drain(..overflow);
        }
        ring.bytes.extend(data);
    }

    /// Everything kept, as text (invalid UTF-8 replaced).
    pub fn contents(&self) -> String {
        let ring = self.lock();
        let (a, b) = ring.bytes.as_slices();
        let mut all = Vec::with_capacity(a.len() + b.len());
        all.extend_from_slice(a);
        all.extend_from_slice(b);
        String::from_utf8_lossy(&all).into_owned()
    }

    /// The last `n` non-empty lines, joined by newlines (the first may be cut if the ring wrapped).
    pub fn tail_lines(&self, n: usize) -> String {
        let text = self.contents();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }

    /// Forgets everything kept.
    pub fn clear(&self) {
        let mut ring = self.lock();
        ring.bytes.clear();
        ring.truncated = false;
    }

    /// Reads `reader` to its end into the ring, logging each complete line at debug level.
    pub(crate) async fn collect<R: AsyncRead + Unpin>(&self, mut reader: R, server: &str) {
        let mut buf = vec![0u8; 4096];
        let mut line = Vec::new();
        loop {
            let n = match reader.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            self.push(&buf[..n]);
            for &b in &buf[..n] {
                if b == b'\n' {
                    log_line(server, &line);
                    line.clear();
                } else if line.len() < 4096 {
                    line.push(b);
                }
            }
        }
        if !line.is_empty() {
            log_line(server, &line);
        }
    }
}

fn log_line(server: &str, line: &[u8]) {
    tracing::debug!(server = %server, "stderr: {}", String::from_utf8_lossy(line).trim_end());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_last_bytes() {
        let ring = StderrRing::new(8);
        ring.push(b"hello ");
        ring.push(b"world\n");
        assert_eq!(ring.contents(), "o world\n");
        ring.push(b"0123456789abcdef");
        assert_eq!(ring.contents(), "89abcdef");
    }

    #[test]
    fn tail_lines_skips_blank_lines() {
        let ring = StderrRing::new(1024);
        ring.push(b"one\ntwo\n\nthree\nfour\n");
        assert_eq!(ring.tail_lines(2), "three\nfour");
        assert_eq!(ring.tail_lines(10), "one\ntwo\nthree\nfour");
        ring.clear();
        assert_eq!(ring.tail_lines(3), "");
    }

    #[tokio::test]
    async fn collect_reads_to_the_end() {
        let ring = StderrRing::new(1024);
        ring.collect(&b"a\nb\nc"[..], "test").await;
        assert_eq!(ring.contents(), "a\nb\nc");
    }
}
