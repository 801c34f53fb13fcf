//! The GET stream of a Streamable HTTP session: the server's own requests and notifications,
//! reconnected with backoff and resumed after the last event id, given up on 404 or 405.

use std::sync::Arc;

use hyper::{Method, StatusCode};
use mcp_proto::sync::lock;

use super::Shared;
use crate::http::body::{self, BodyKind, EventStream};
use crate::http::error::HttpError;

impl Shared {
    /// Opens the GET stream of the current session in the background, if configured.
    pub(super) fn start_listener(self: &Arc<Self>) {
        if !self.config.open_get_stream || self.inbox.is_closed() {
            return;
        }
        let token = self.inbox.closed_token().child_token();
        {
            let mut s = lock(&self.session);
            if let Some(old) = s.listener.replace(token.clone()) {
                old.cancel();
            }
        }
        let shared = self.clone();
        self.tasks.spawn(async move {
            tokio::select! {
                _ = token.cancelled() => {}
                _ = shared.listen() => {}
            }
        });
    }

    /// The GET stream: delivers server-initiated messages, reconnects with backoff (resuming
    /// after the last event id), and stops for good on 404 or 405 (no stream offered).
    async fn listen(&self) {
        let policy = &self.config.reconnect;
        let mut stream: Option<EventStream> = None;
        let mut failures = 0u32;
        loop {
            let last = stream
                .as_ref()
                .and_then(|s| s.last_event_id().map(str::to_owned));
            match self.get(last.as_deref()).await {
                Ok(response)
                    if response.status() == StatusCode::METHOD_NOT_ALLOWED
                        || response.status() == StatusCode::NOT_FOUND =>
                {
                    tracing::debug!(
                        "{} offers no GET stream ({})",
                        self.url_text,
                        response.status()
                    );
                    return;
                }
                Ok(response)
                    if response.status().is_success()
                        && body::body_kind(&response) == BodyKind::EventStream =>
                {
                    failures = 0;
                    match stream.as_mut() {
                        Some(s) => s.reconnect(response.into_body()),
                        None => {
                            stream = Some(EventStream::new(
                                response.into_body(),
                                self.config.max_message_size,
                            ))
                        }
                    }
                    let mut events = 0usize;
                    if let Some(s) = stream.as_mut() {
                        while let Ok(event) = s.next().await {
                            events += 1;
                            if event.is_message() && !event.data.is_empty() {
                                self.inbox.deliver_frame(event.data.as_bytes()).await;
                            }
                        }
                    }
                    if events == 0 {
                        // A stream that ends without a single event is no better than a
                        // failure: back off instead of reconnecting in a tight loop.
                        failures += 1;
                    }
                }
                Ok(response) => {
                    failures += 1;
                    let error = if response.status().is_success() {
                        HttpError::ContentType {
                            method: Method::GET,
                            url: self.url_text.clone(),
                            content_type: body::content_type(&response),
                        }
                    } else {
                        self.status_error(Method::GET, response).await
                    };
                    tracing::debug!("the GET stream could not be opened: {error}");
                }
                Err(e) => {
                    failures += 1;
                    tracing::debug!("the GET stream could not be opened: {e}");
                }
            }
            if failures > policy.max_attempts {
                tracing::warn!(
                    "gave up on the GET stream of {} after {} failures",
                    self.url_text,
                    failures - 1
                );
                return;
            }
            let retry = stream.as_ref().and_then(EventStream::retry);
            tokio::time::sleep(policy.delay(failures.saturating_sub(1), retry)).await;
        }
    }
}
