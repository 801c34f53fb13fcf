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
