//! Input requests under 2026-07-28 (MRTR), the resumption model: **re-run with answers**.
//!
//! A handler asks for input with `ctx.elicit`, `ctx.sample` or `ctx.list_roots`. Each ask gets a
//! key from its place in the handler's run (`elicit-0`, `sample-1`, …). When the request already
//! carries the answer under that key, the ask returns it at once. When it does not, the ask is
//! recorded and never returns: the handler's future is dropped at that await, and the request
//! is answered `input_required` with every ask recorded and a sealed `requestState` holding the
//! answers collected so far. The client's retry runs the handler again from the start with
//! those answers plus the new ones, so each ask up to the next unanswered one returns at once.
//!
//! Consequences for handler authors: work done before an ask runs again on the retry, so keep
//! it idempotent (or cheap), and ask in the same order on every run. No handler state is kept
//! between rounds, so any replica that holds the seal key can serve a retry.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use mcp_proto::schema::{InputRequest, InputRequests, InputResponse, InputResponses};
use mcp_proto::sync::lock;
use tokio::sync::Notify;

use crate::error::ServerError;

/// At most this many input requests in one round (everything that grows is bounded).
const MAX_ASKS_PER_ROUND: usize = 64;

/// One run of a handler that may ask for input: the answers it can use, and what it asked.
#[derive(Debug, Default)]
pub(crate) struct InputRound {
    answers: InputResponses,
    next: AtomicUsize,
    asked: Mutex<InputRequests>,
    asking: Notify,
}

/// How a run ended.
pub(crate) enum Ran<T> {
    /// The handler finished.
    Done(T),
    /// The handler waits for input that the request does not carry.
    Asked {
        /// What it asked for, by key.
        requests: InputRequests,
        /// Every answer known in this round (to seal for the next).
        answers: InputResponses,
    },
}

impl InputRound {
    /// A round that knows `answers` (from the sealed state and the retry's `inputResponses`).
    pub(crate) fn new(answers: InputResponses) -> Self {
        InputRound {
            answers,
            ..InputRound::default()
        }
    }

    /// The answer to this run's next ask, if the request carries it; otherwise records the ask
    /// and returns `Ok(None)`. The ask goes under `name` when given (its key in
    /// `inputRequests`), else under `{kind}-{n}` by its place in the run.
    pub(crate) fn answer_or_ask(
        &self,
        name: Option<&str>,
        kind: &str,
        request: InputRequest,
    ) -> Result<Option<InputResponse>, ServerError> {
        let key = match name {
            Some(name) => name.to_owned(),
            None => format!("{kind}-{}", self.next.fetch_add(1, Ordering::Relaxed)),
        };
        if let Some(answer) = self.answers.get(&key) {
            return Ok(Some(answer.clone()));
        }
        let mut asked = lock(&self.asked);
        if asked.len() >= MAX_ASKS_PER_ROUND {
            return Err(ServerError::handler(format!(
                "a handler asked for more than {MAX_ASKS_PER_ROUND} inputs in one round"
            )));
        }
        asked.insert(key, request);
        self.asking.notify_one();
        Ok(None)
    }

    /// Whether the handler asked for input this round does not carry.
    pub(crate) fn has_asks(&self) -> bool {
        !lock(&self.asked).is_empty()
    }

    /// Runs `work` until it finishes or waits on an ask the request cannot answer.
    ///
    /// The caller pins `work`: taken by value, it would be held twice in this future (once as
    /// the argument, once pinned), and every request that may ask carries this future.
    pub(crate) async fn run<F: Future>(&self, mut work: Pin<&mut F>) -> Ran<F::Output> {
        tokio::select! {
            biased;
            done = work.as_mut() => return Ran::Done(done),
            _ = self.asking.notified() => {}
        }
        // Asks made together (a handler joining several) are all recorded after one more poll.
        if let Ok(done) = tokio::time::timeout(Duration::ZERO, work.as_mut()).await {
            return Ran::Done(done);
        }
        Ran::Asked {
            requests: std::mem::take(&mut *lock(&self.asked)),
            answers: self.answers.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_proto::schema::ListRootsResult;

    #[tokio::test]
    async fn a_named_ask_goes_under_its_name() {
        let round = InputRound::new(InputResponses::new());
        let ran = round
            .run(std::pin::pin!(async {
                let ask =
                    round.answer_or_ask(Some("user_name"), "roots", InputRequest::ListRoots(None));
                assert!(matches!(ask, Ok(None)));
                std::future::pending::<()>().await;
            }))
            .await;
        match ran {
            Ran::Asked { requests, .. } => assert!(requests.contains_key("user_name")),
            Ran::Done(()) => panic!("the run should stop at the ask"),
        }
    }

    #[tokio::test]
    async fn answered_asks_return_and_unanswered_ones_stop_the_run() {
        let round = InputRound::new(InputResponses::new());
        let ran = round
            .run(std::pin::pin!(async {
                let first = round.answer_or_ask(None, "roots", InputRequest::ListRoots(None));
                assert!(matches!(first, Ok(None)));
                std::future::pending::<()>().await;
            }))
            .await;
        match ran {
            Ran::Asked { requests, .. } => assert!(requests.contains_key("roots-0")),
            Ran::Done(()) => panic!("the run should stop at the ask"),
        }

        let mut answers = InputResponses::new();
        answers.insert(
            "roots-0".into(),
            InputResponse::Roots(ListRootsResult::default()),
        );
        let round = InputRound::new(answers);
        let ran = round
            .run(std::pin::pin!(async {
                round
                    .answer_or_ask(None, "roots", InputRequest::ListRoots(None))
                    .map(|a| a.is_some())
            }))
            .await;
        assert!(matches!(ran, Ran::Done(Ok(true))));
    }
}
