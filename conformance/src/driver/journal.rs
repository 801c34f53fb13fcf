//! What the server did across the whole run, beyond single replies: output that was not a
//! JSON-RPC message, log notifications, requests it sent us. Cross-cutting cases read it at the
//! end of the run.

use std::sync::Mutex;

use serde_json::Value;

/// The most entries of each kind kept; beyond that only the count grows.
const KEEP: usize = 200;

/// A record shared by every session of one run.
#[derive(Debug, Default)]
pub struct Journal {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    invalid_frames: Vec<String>,
    invalid_count: usize,
    log_messages: Vec<Value>,
    server_requests: Vec<String>,
    strays: Vec<Stray>,
    exchanges: std::collections::HashMap<String, Vec<Exchange>>,
}

/// The most messages kept as evidence for one case, and the most characters of each.
const EVIDENCE_MESSAGES: usize = 16;
const EVIDENCE_CHARS: usize = 600;

/// One message sent or received during a case, kept as evidence for the reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// True for what the runner sent, false for what the server sent.
    pub sent: bool,
    /// The message text, cut to a few hundred characters.
    pub text: String,
}

/// A reply the runner did not attribute to the case that was running when it arrived: a late
/// reply to an earlier case's request, a second reply to one request, or a reply whose id no
/// request of the runner carried.
#[derive(Clone, Debug, PartialEq)]
pub struct Stray {
    /// The case whose request the reply answers (the running case for an unknown id).
    pub case: String,
    /// The case that was running when it arrived.
    pub during: String,
    /// The reply's id as JSON text (`absent` when it had none).
    pub id: String,
    /// The method of the request it answers, if the runner sent one with that id.
    pub method: Option<String>,
    /// What kind of stray it is.
    pub kind: StrayKind,
    /// The reply, shortened.
    pub reply: String,
}

/// Why a reply is a [`Stray`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrayKind {
    /// It arrived after the case that sent the request had ended.
    Late,
    /// Its request had already been answered (more replies than requests with that id).
    Duplicate,
    /// No request of the runner on that connection carried its id.
    UnknownId,
}

impl Journal {
    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        match self.inner.lock() {
            Ok(mut guard) => f(&mut guard),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// Records a frame that was not a valid JSON-RPC message, with the reason.
    pub fn invalid_frame(&self, note: String) {
        self.with(|i| {
            i.invalid_count += 1;
            if i.invalid_frames.len() < KEEP {
                i.invalid_frames.push(note);
            }
        });
    }

    /// Records the params of a `notifications/message`.
    pub fn log_message(&self, params: Value) {
        self.with(|i| {
            if i.log_messages.len() < KEEP {
                i.log_messages.push(params);
            }
        });
    }

    /// Records the method of a request the server sent us.
    pub fn server_request(&self, method: String) {
        self.with(|i| {
            if i.server_requests.len() < KEEP {
                i.server_requests.push(method);
            }
        });
    }

    /// Records a reply not attributed to the running case.
    pub fn stray(&self, stray: Stray) {
        self.with(|i| {
            if i.strays.len() < KEEP {
                i.strays.push(stray);
            }
        });
    }

    /// Records a message of case `case` as evidence (the first few of each case are kept).
    pub fn exchange(&self, case: &str, sent: bool, text: &str) {
        self.with(|i| {
            let list = i.exchanges.entry(case.to_owned()).or_default();
            if list.len() < EVIDENCE_MESSAGES {
                let mut cut: String = text.chars().take(EVIDENCE_CHARS).collect();
                if cut.len() < text.len() {
                    cut.push('…');
                }
                list.push(Exchange { sent, text: cut });
            }
        });
    }

    /// The evidence kept for case `case`.
    pub fn exchanges(&self, case: &str) -> Vec<Exchange> {
        self.with(|i| i.exchanges.get(case).cloned().unwrap_or_default())
    }

    /// The stray replies seen so far.
    pub fn strays(&self) -> Vec<Stray> {
        self.with(|i| i.strays.clone())
    }

    /// The invalid frames seen so far (at most a few hundred) and their total count.
    pub fn invalid_frames(&self) -> (Vec<String>, usize) {
        self.with(|i| (i.invalid_frames.clone(), i.invalid_count))
    }

    /// The `notifications/message` params seen so far.
    pub fn log_messages(&self) -> Vec<Value> {
        self.with(|i| i.log_messages.clone())
    }

    /// The methods of requests the server sent us.
    pub fn server_requests(&self) -> Vec<String> {
        self.with(|i| i.server_requests.clone())
    }
}
