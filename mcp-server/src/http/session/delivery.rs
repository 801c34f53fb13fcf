//! Routing of the peer's outgoing messages: each answer to the stream of the POST that carried
//! its request, everything else to its request's stream or the session's standalone stream.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use mcp_proto::jsonrpc::{Batch, Message, RequestId};
use mcp_proto::peer::{DirectSink, Outbound, Outgoing};
use mcp_proto::sync::lock;
use tokio::sync::oneshot;

use super::{Session, SessionKind, Stream};

/// The smallest and largest buffer a message starts with (the last message's size, clamped).
const MIN_MESSAGE_SIZE: usize = 64;
const MAX_MESSAGE_SIZE: usize = 16 * 1024;

impl Session {
    /// Routes one outgoing message from the peer.
    fn deliver(&self, out: Outgoing) {
        let mut json = Vec::with_capacity(self.message_size.load(Ordering::Relaxed) as usize);
        // The ids this message answers: one for a single answer, several for a batch.
        let mut single: Option<RequestId> = None;
        let mut many: Vec<RequestId> = Vec::new();
        let mut error_code = None;
        let is_answer = match &out.body {
            Outbound::Single(m) => {
                if self.kind == SessionKind::Modern && matches!(m, Message::Request(_)) {
                    // 2026-07-28: a server never sends a JSON-RPC request to the client.
                    tracing::warn!(
                        "dropped a request to a 2026-07-28 client: {}",
                        m.method().unwrap_or_default()
                    );
                    return;
                }
                m.write_json(&mut json);
                match m {
                    Message::Response(r) => single = Some(r.id.clone()),
                    Message::Error(e) => {
                        single = e.id.clone();
                        error_code = Some(e.error.code);
                    }
                    _ => {}
                }
                matches!(m, Message::Response(_) | Message::Error(_))
            }
            Outbound::Batch(ms) => {
                Batch(ms).write_json(&mut json);
                many.extend(ms.iter().filter_map(|m| match m {
                    Message::Response(r) => Some(r.id.clone()),
                    Message::Error(e) => e.id.clone(),
                    _ => None,
                }));
                true
            }
        };
        let size = json.len().clamp(MIN_MESSAGE_SIZE, MAX_MESSAGE_SIZE) as u32;
        self.message_size.store(size, Ordering::Relaxed);
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
            // Kept in the shared store only on SSE: a stream that already is, or a batch's,
            // which a partial answer turns into SSE. A plain JSON answer copies nothing.
            let copy = (self.shared_post(&stream) && (stream.is_sse() || stream.is_batch()))
                .then(|| json.clone());
            let gate = if copy.is_some() { stream.gate() } else { None };
            let became_sse = stream.push_answer(json, answered, error_code);
            if became_sse {
                self.retain(&mut state, &stream);
            }
            if let Some(json) = copy {
                self.mirror(&state, &stream, &json, gate);
            }
            return;
        }
        let route = out.related.as_ref().and_then(|id| state.routes.get(id));
        let stream = match route {
            Some(stream) => stream.clone(),
            None if self.kind == SessionKind::Streamable => {
                if let Some(events) = self.events.get() {
                    // Shared: through the event store, to whichever replica holds the GET.
                    drop(state);
                    events.send(json);
                    return;
                }
                self.standalone_locked(&mut state).clone()
            }
            None => {
                tracing::debug!(session = %self.id, "dropped a message with no stream to carry it");
                return;
            }
        };
        let shared = self.shared_post(&stream);
        let gate = if shared { stream.gate() } else { None };
        let became_sse = stream.push_event(None, &json, true);
        if became_sse {
            self.retain(&mut state, &stream);
        }
        if shared {
            self.mirror(&state, &stream, &json, gate);
        }
    }

    /// Whether `stream` is a POST stream of a session whose streams live in a shared store.
    fn shared_post(&self, stream: &Stream) -> bool {
        self.kind == SessionKind::Streamable
            && stream.id() != super::STANDALONE
            && self.events.get().is_some()
    }

    /// Copies an event just pushed on POST stream `stream` to the shared store, if the stream
    /// speaks SSE (a plain JSON answer is not resumable, nothing to keep); `recorded` fires
    /// once the store has recorded the stream.
    fn mirror(
        &self,
        state: &super::State,
        stream: &Arc<Stream>,
        json: &[u8],
        recorded: Option<oneshot::Sender<()>>,
    ) {
        let Some(events) = self.events.get() else {
            return;
        };
        if !stream.is_sse() {
            return;
        }
        events.send_post(stream, json, recorded, || {
            let ids: Vec<&RequestId> = state
                .routes
                .iter()
                .filter(|(_, s)| Arc::ptr_eq(s, stream))
                .map(|(id, _)| id)
                .collect();
            serde_json::to_vec(&ids).unwrap_or_else(|_| b"[]".to_vec())
        });
    }
}

impl DirectSink for Session {
    fn deliver(&self, message: Outgoing) {
        Session::deliver(self, message);
    }
}
