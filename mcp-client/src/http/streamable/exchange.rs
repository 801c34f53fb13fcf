//! One request's exchange over Streamable HTTP: the POST, its answer (a JSON body, or an SSE
//! stream read up to the response and resumed with `Last-Event-ID` when it drops), a retry in a
//! new session when the old one expired, and the failure of the call when none of that works.
//! Notifications and responses are POSTed here too; they are answered with 202.

use std::sync::Arc;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::{Method, Response, StatusCode};
use mcp_proto::jsonrpc::RequestId;
use mcp_proto::sync::lock;
use tokio_util::sync::CancellationToken;

use super::{Shared, EXCERPT_BYTES};
use crate::http::body::{self, BodyKind, EventStream};
use crate::http::error::HttpError;

impl Shared {
    /// After a request's task ends: fail the call on error and forget it.
    pub(super) async fn finish_call(&self, id: &RequestId, result: Result<(), HttpError>) {
        if let Err(e) = result {
            tracing::debug!("request {id} to {} failed: {e}", self.url_text);
            self.inbox.fail_request(id.clone(), &e).await;
            if matches!(e, HttpError::SessionExpired { .. }) {
                // No session to go on with: the transport is done.
                self.inbox.close(e.to_string());
            }
        }
        lock(&self.calls).remove(id);
    }

    /// POSTs a request and reads its answer into the inbox, starting a new session and retrying
    /// once when the old one expired. `is_init`: this is the client's `initialize`, sent without
    /// session headers, whose answer starts the session. `first` is an answer already received
    /// for this body.
    pub(super) async fn exchange(
        self: &Arc<Self>,
        id: &RequestId,
        is_init: bool,
        body: Bytes,
        mut first: Option<Response<Incoming>>,
    ) -> Result<(), HttpError> {
        let mut retried = false;
        loop {
            let (_, generation, had_session) = self.session_headers();
            let response = match first.take() {
                Some(response) => response,
                None => self.post(body.clone(), !is_init).await?,
            };
            let status = response.status();
            if status == StatusCode::NOT_FOUND && had_session && !is_init {
                let error = self.status_error(Method::POST, response).await;
                if self.config.reinit_on_expiry && !retried {
                    retried = true;
                    match self.reinitialize(generation, &error).await {
                        Ok(()) => continue,
                        // The server is unreachable: a later request may try again.
                        Err(e @ (HttpError::Connect { .. } | HttpError::Timeout { .. })) => {
                            return Err(e)
                        }
                        Err(e @ HttpError::SessionExpired { .. }) => return Err(e),
                        Err(other) => {
                            return Err(HttpError::SessionExpired {
                                url: self.url_text.clone(),
                                reason: format!("re-initializing failed: {other}"),
                            })
                        }
                    }
                }
                let expired = HttpError::SessionExpired {
                    url: self.url_text.clone(),
                    reason: if retried {
                        format!("the new session was refused too: {error}")
                    } else {
                        format!("{error} (re-initializing is turned off)")
                    },
                };
                return Err(expired);
            }
            if !status.is_success() {
                return Err(self.status_error(Method::POST, response).await);
            }
            if is_init {
                self.note_session(&response);
            }
            return self.read_answer(id, is_init, response).await;
        }
    }

    /// Reads the answer to request `id`: one JSON body, or an SSE stream up to the response,
    /// resumed with GET and `Last-Event-ID` if it drops first.
    async fn read_answer(
        &self,
        id: &RequestId,
        is_init: bool,
        response: Response<Incoming>,
    ) -> Result<(), HttpError> {
        match body::body_kind(&response) {
            BodyKind::Json => {
                self.deliver_json(id, response, |bytes| {
                    if is_init {
                        self.note_version(bytes);
                    }
                })
                .await
            }
            BodyKind::EventStream => {
                let stream = EventStream::new(response.into_body(), self.config.max_message_size);
                self.read_stream(id, is_init, stream).await
            }
            BodyKind::Other if response.status() == StatusCode::ACCEPTED => {
                // No answer on this request; the server may send it on the GET stream.
                Ok(())
            }
            BodyKind::Other => Err(HttpError::ContentType {
                method: Method::POST,
                url: self.url_text.clone(),
                content_type: body::content_type(&response),
            }),
        }
    }

    /// Reads a JSON answer, shows it to `note`, and delivers it; it must hold the response to
    /// request `id`.
    pub(super) async fn deliver_json(
        &self,
        id: &RequestId,
        response: Response<Incoming>,
        note: impl FnOnce(&[u8]),
    ) -> Result<(), HttpError> {
        let bytes = body::read_limited(response.into_body(), self.config.max_message_size)
            .await
            .map_err(|detail| HttpError::Body {
                url: self.url_text.clone(),
                detail,
            })?;
        note(&bytes);
        let answered = self
            .inbox
            .deliver_frame(&bytes)
            .await
            .is_some_and(|s| s.answers(id));
        if answered {
            Ok(())
        } else {
            Err(HttpError::Body {
                url: self.url_text.clone(),
                detail: format!("the JSON answer does not hold the response to request {id}"),
            })
        }
    }

    /// Delivers the events of a request's SSE answer until its response, resuming the stream
    /// when it drops before that.
    async fn read_stream(
        &self,
        id: &RequestId,
        is_init: bool,
        mut stream: EventStream,
    ) -> Result<(), HttpError> {
        let policy = &self.config.reconnect;
        let mut attempts = 0u32;
        loop {
            match stream.next_message().await {
                Ok(event) => {
                    attempts = 0;
                    if is_init {
                        self.note_version(event.data.as_bytes());
                    }
                    let summary = self.inbox.deliver_frame(event.data.as_bytes()).await;
                    if summary.is_some_and(|s| s.answers(id)) {
                        return Ok(());
                    }
                }
                Err(end) => {
                    let how = match end {
                        body::StreamEnd::Eof => "closed".to_owned(),
                        body::StreamEnd::Error(e) => format!("failed ({e})"),
                    };
                    let Some(last) = stream.last_event_id().map(str::to_owned) else {
                        return Err(HttpError::StreamEnded {
                            url: self.url_text.clone(),
                            reason: format!(
                                "it {how} before the response to request {id}, without an event id to resume from"
                            ),
                        });
                    };
                    loop {
                        if attempts >= policy.max_attempts {
                            return Err(HttpError::StreamEnded {
                                url: self.url_text.clone(),
                                reason: format!(
                                    "it {how} before the response to request {id}; gave up resuming after {attempts} attempts"
                                ),
                            });
                        }
                        let delay = policy.delay(attempts, stream.retry());
                        attempts += 1;
                        tokio::time::sleep(delay).await;
                        tracing::debug!("resuming the stream of request {id} after event {last}");
                        match self.get(Some(&last)).await {
                            Ok(response)
                                if response.status().is_success()
                                    && body::body_kind(&response) == BodyKind::EventStream =>
                            {
                                stream.reconnect(response.into_body());
                                break;
                            }
                            Ok(response)
                                if response.status().is_client_error()
                                    && response.status() != StatusCode::CONFLICT
                                    && response.status() != StatusCode::TOO_MANY_REQUESTS =>
                            {
                                let error = self.status_error(Method::GET, response).await;
                                return Err(HttpError::StreamEnded {
                                    url: self.url_text.clone(),
                                    reason: format!(
                                        "it {how} before the response to request {id}, and resuming failed: {error}"
                                    ),
                                });
                            }
                            Ok(response) => {
                                let error = self.status_error(Method::GET, response).await;
                                tracing::debug!("resuming failed, will retry: {error}");
                            }
                            Err(e) => tracing::debug!("resuming failed, will retry: {e}"),
                        }
                    }
                }
            }
        }
    }

    /// POSTs a notification or response; they are answered with 202 and no body. After
    /// `notifications/initialized` (`initialized`) the GET stream opens.
    pub(super) async fn post_message(
        self: &Arc<Self>,
        initialized: bool,
        body: Bytes,
        accepted: &CancellationToken,
    ) {
        let response = match self.post(body, true).await {
            Ok(response) => response,
            Err(e) => {
                tracing::warn!("could not deliver a message: {e}");
                return;
            }
        };
        let status = response.status();
        if !status.is_success() {
            let error = self.status_error(Method::POST, response).await;
            tracing::warn!("the server refused a message: {error}");
            return;
        }
        accepted.cancel();
        // Drain whatever body came along (normally none).
        let _ = body::read_excerpt(response.into_body(), EXCERPT_BYTES).await;
        if initialized {
            self.start_listener();
        }
    }
}
