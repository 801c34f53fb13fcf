//! One stream of SSE events with its bounded replay buffer: a POST's response stream (which
//! may still turn out to be a plain JSON answer) or a session's standalone GET stream.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::Mutex;
use std::task::{Poll, Waker};

use bytes::{Bytes, BytesMut};
use mcp_proto::sse;
use mcp_proto::sync::lock;

/// How a POST's stream answers: not known until the first message arrives.
pub(super) enum Mode {
    /// Nothing sent yet.
    Undecided,
    /// The final answer came first: a plain JSON body (taken once) and its error code, if it
    /// is an error.
    Json(Option<Bytes>, Option<i64>),
    /// Events went out first: an SSE stream.
    Sse,
}

/// What the first message of a POST made of its reply.
pub(crate) enum Reply {
    /// The answer, as a JSON body, with its JSON-RPC error code when it is an error.
    Json(Bytes, Option<i64>),
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
    /// Events carry ids (`<stream>-<seq>`) a client can resume after; 2026-07-28 streams have none.
    event_ids: bool,
    /// No more events will come.
    done: bool,
    /// Recorded in the shared event store (a POST stream of a shared session).
    shared: bool,
    /// Fires once the shared store has recorded the stream: its POST's SSE response waits for
    /// it, so no client holds an event id of a stream another replica cannot find.
    recorded: Option<tokio::sync::oneshot::Receiver<()>>,
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
    pub(super) fn new(id: u64, pending: usize, cap: usize, mode: Mode) -> Self {
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
                event_ids: true,
                done: false,
                shared: false,
                recorded: None,
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

    /// Sends the stream's events without ids (no resumption).
    pub(super) fn without_event_ids(self) -> Self {
        lock(&self.inner).event_ids = false;
        self
    }

    /// Marks the stream as answering a JSON-RPC batch.
    pub(crate) fn set_batch(&self) {
        lock(&self.inner).batch = true;
    }

    pub(super) fn is_batch(&self) -> bool {
        lock(&self.inner).batch
    }

    pub(super) fn is_done(&self) -> bool {
        lock(&self.inner).done
    }

    /// Whether the stream answers with SSE (not a plain JSON body, not yet undecided).
    pub(super) fn is_sse(&self) -> bool {
        matches!(lock(&self.inner).mode, Mode::Sse)
    }

    /// Marks the stream as kept in the shared event store; true the first time only.
    pub(super) fn share(&self) -> bool {
        !std::mem::replace(&mut lock(&self.inner).shared, true)
    }

    /// Before the first event of a stream to be kept in the shared store: what fires once the
    /// store has recorded it (the receiving end stays here for the POST's response).
    pub(super) fn gate(&self) -> Option<tokio::sync::oneshot::Sender<()>> {
        let mut inner = lock(&self.inner);
        if inner.shared || inner.recorded.is_some() {
            return None;
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        inner.recorded = Some(rx);
        Some(tx)
    }

    /// Waits (at most `bound`) until the shared store has recorded the stream, if it is to.
    pub(crate) async fn recorded(&self, bound: std::time::Duration) {
        let recorded = lock(&self.inner).recorded.take();
        if let Some(recorded) = recorded {
            let _ = tokio::time::timeout(bound, recorded).await;
        }
    }

    /// Ends the stream: readers finish after what is buffered.
    pub(crate) fn finish(&self) {
        let mut inner = lock(&self.inner);
        inner.done = true;
        if let Some(waker) = inner.waker.take() {
            waker.wake();
        }
    }

    /// Records the final answer of `answered` requests (usize::MAX: all), with its error code
    /// when it is a single error. Returns true when this turned the stream into SSE.
    pub(super) fn push_answer(
        &self,
        json: Vec<u8>,
        answered: usize,
        error_code: Option<i64>,
    ) -> bool {
        let mut inner = lock(&self.inner);
        inner.pending = inner.pending.saturating_sub(answered);
        let done = inner.pending == 0;
        if done && matches!(inner.mode, Mode::Undecided) {
            inner.mode = Mode::Json(Some(Bytes::from(json)), error_code);
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
    pub(super) fn push_event(&self, event: Option<&str>, json: &[u8], with_id: bool) -> bool {
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

    /// Appends an event read back from the shared event store under its sequence number
    /// there; one already held (or older) is ignored. Returns true if it was new.
    pub(crate) fn push_sequenced(&self, seq: u64, json: &[u8]) -> bool {
        let mut inner = lock(&self.inner);
        if inner.done || seq < inner.next_seq {
            return false;
        }
        inner.next_seq = seq;
        Self::push_locked(&mut inner, self.id, None, json, true);
        if let Some(waker) = inner.waker.take() {
            waker.wake();
        }
        true
    }

    /// Starts a stream that holds nothing yet after event `last` of the shared event store, so
    /// a new connection gets only what comes next.
    pub(crate) fn skip_to(&self, last: u64) {
        let mut inner = lock(&self.inner);
        if inner.next_seq <= last {
            inner.next_seq = last + 1;
            inner.undelivered = inner.undelivered.max(inner.next_seq);
        }
    }

    /// The sequence number of the newest event held (0: none).
    pub(crate) fn last_seq(&self) -> u64 {
        lock(&self.inner).next_seq - 1
    }

    /// Whether a connection is reading the stream now.
    pub(crate) fn has_reader(&self) -> bool {
        lock(&self.inner).live.is_some()
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
        let id = (with_id && inner.event_ids).then(|| event_id(stream, seq));
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
                Mode::Json(body, code) => {
                    let code = *code;
                    Poll::Ready(body.take().map_or(Reply::Closed, |b| Reply::Json(b, code)))
                }
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(!stream.push_answer(b"{}".to_vec(), 1, None));
        assert!(matches!(
            lock(&stream.inner).mode,
            Mode::Json(Some(_), None)
        ));
    }
}
