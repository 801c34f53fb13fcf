//! What the Streamable HTTP transport knows about its session: the `Mcp-Session-Id` and the
//! negotiated version it sends on every request, how a new session starts when the server
//! forgets the old one (replaying the client's `initialize`), and the DELETE that ends it.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue};
use hyper::{Method, Response};
use mcp_proto::jsonrpc::{Message, Notification, RawJson, Request, RequestId};
use mcp_proto::schema::{Initialize, Initialized, NotificationType, RequestType};
use mcp_proto::sync::lock;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::{Shared, EXCERPT_BYTES, PROTOCOL_VERSION, SESSION_ID};
use crate::http::body::{self, BodyKind, EventStream};
use crate::http::error::HttpError;

/// What the transport knows about the current session.
#[derive(Default)]
pub(super) struct Session {
    /// The `Mcp-Session-Id` the server assigned, if any.
    pub(super) id: Option<HeaderValue>,
    /// The negotiated protocol version, once the `initialize` answer was seen.
    pub(super) version: Option<HeaderValue>,
    /// The params of the client's `initialize`, replayed to start a new session.
    pub(super) init_params: Option<String>,
    /// The params of `notifications/initialized`, once the client sent it.
    pub(super) initialized: Option<Option<String>>,
    /// Bumped at every new session, so concurrent 404s re-initialize only once.
    pub(super) generation: u64,
    /// Stops the GET stream of this session.
    pub(super) listener: Option<CancellationToken>,
}

impl Shared {
    /// The headers of the current session: session id and protocol version, when known.
    pub(super) fn session_headers(&self) -> (Vec<(HeaderName, HeaderValue)>, u64, bool) {
        let s = lock(&self.session);
        let mut headers = Vec::with_capacity(2);
        if let Some(id) = &s.id {
            headers.push((SESSION_ID, id.clone()));
        }
        if let Some(version) = &s.version {
            headers.push((PROTOCOL_VERSION, version.clone()));
        }
        (headers, s.generation, s.id.is_some())
    }

    /// Takes the session id from the answer to an `initialize`: a new session starts.
    pub(super) fn note_session(&self, response: &Response<Incoming>) {
        let mut s = lock(&self.session);
        s.id = response.headers().get(SESSION_ID).cloned();
        s.generation += 1;
        if let Some(listener) = s.listener.take() {
            listener.cancel();
        }
    }

    /// Learns the negotiated version from the answer to `initialize`.
    pub(super) fn note_version(&self, frame: &[u8]) {
        #[derive(Deserialize)]
        struct Answer {
            result: Option<InitResult>,
        }
        #[derive(Deserialize)]
        struct InitResult {
            #[serde(rename = "protocolVersion")]
            protocol_version: String,
        }
        if let Ok(Answer {
            result: Some(result),
        }) = serde_json::from_slice::<Answer>(frame)
        {
            if let Ok(value) = HeaderValue::from_str(&result.protocol_version) {
                lock(&self.session).version = Some(value);
            }
        }
    }

    /// Starts a new session after the one of `generation` expired: replays the client's
    /// `initialize` and `notifications/initialized`. Concurrent callers re-initialize once.
    pub(super) async fn reinitialize(
        self: &Arc<Self>,
        generation: u64,
        cause: &HttpError,
    ) -> Result<(), HttpError> {
        let _guard = self.reinit.lock().await;
        let (params, initialized) = {
            let s = lock(&self.session);
            if s.generation != generation {
                return Ok(());
            }
            (s.init_params.clone(), s.initialized.clone())
        };
        let expired = |reason: String| HttpError::SessionExpired {
            url: self.url_text.clone(),
            reason,
        };
        let Some(params) = params else {
            return Err(expired(format!("{cause}; no initialize request to replay")));
        };
        tracing::info!(
            "session at {} expired ({cause}); starting a new one",
            self.url_text
        );
        let n = self.reinit_count.fetch_add(1, Ordering::Relaxed) + 1;
        let init_id = RequestId::from(format!("mcp-client-reinitialize-{n}"));
        let raw = RawJson::from_string(params)
            .map_err(|e| expired(format!("the initialize params cannot be replayed: {e}")))?;
        let request = Message::Request(Request {
            id: init_id.clone(),
            method: Initialize::METHOD.into(),
            params: Some(raw),
        });
        let response = self.post(Bytes::from(request.to_json()), false).await?;
        if !response.status().is_success() {
            let error = self.status_error(Method::POST, response).await;
            return Err(expired(format!("re-initializing failed: {error}")));
        }
        self.note_session(&response);
        let answer = self.read_private_answer(&init_id, response).await?;
        #[derive(Deserialize)]
        struct Answer {
            result: Option<serde_json::Value>,
            error: Option<serde_json::Value>,
        }
        let answer: Answer = serde_json::from_slice(&answer)
            .map_err(|e| expired(format!("the new initialize answer is unreadable: {e}")))?;
        if let Some(error) = answer.error {
            return Err(expired(format!(
                "the server refused the new initialize: {error}"
            )));
        }
        if answer.result.is_none() {
            return Err(expired("the new initialize answer has no result".into()));
        }
        if let Some(params) = initialized {
            let raw = params.and_then(|p| RawJson::from_string(p).ok());
            let note = Message::Notification(Notification {
                method: Initialized::METHOD.into(),
                params: raw,
            });
            let response = self.post(Bytes::from(note.to_json()), true).await?;
            if !response.status().is_success() {
                let error = self.status_error(Method::POST, response).await;
                return Err(expired(format!(
                    "the new session refused notifications/initialized: {error}"
                )));
            }
            let _ = body::read_excerpt(response.into_body(), EXCERPT_BYTES).await;
            self.start_listener();
        }
        Ok(())
    }

    /// Reads the answer to a request the transport made itself (the replayed `initialize`):
    /// returns its response frame and passes anything else on to the inbox.
    async fn read_private_answer(
        &self,
        id: &RequestId,
        response: Response<Incoming>,
    ) -> Result<Vec<u8>, HttpError> {
        let url = self.url_text.clone();
        let is_ours = |frame: &[u8]| {
            #[derive(Deserialize)]
            struct Id {
                id: Option<RequestId>,
                method: Option<serde::de::IgnoredAny>,
            }
            serde_json::from_slice::<Id>(frame)
                .is_ok_and(|m| m.method.is_none() && m.id.as_ref() == Some(id))
        };
        match body::body_kind(&response) {
            BodyKind::Json => {
                let bytes = body::read_limited(response.into_body(), self.config.max_message_size)
                    .await
                    .map_err(|detail| HttpError::Body { url, detail })?;
                self.note_version(&bytes);
                Ok(bytes.to_vec())
            }
            BodyKind::EventStream => {
                let mut stream =
                    EventStream::new(response.into_body(), self.config.max_message_size);
                while let Ok(event) = stream.next_message().await {
                    let frame = event.data.as_bytes();
                    if is_ours(frame) {
                        self.note_version(frame);
                        return Ok(frame.to_vec());
                    }
                    self.inbox.deliver_frame(frame).await;
                }
                Err(HttpError::StreamEnded {
                    url,
                    reason: "it closed before the answer to the new initialize".into(),
                })
            }
            BodyKind::Other => Err(HttpError::ContentType {
                method: Method::POST,
                url,
                content_type: body::content_type(&response),
            }),
        }
    }

    /// Ends the session with a DELETE (bounded by the close timeout); 405 means the server does
    /// not let clients end sessions, which is fine.
    pub(super) async fn end_session(&self) {
        let (headers, _, had_session) = self.session_headers();
        if !had_session {
            return;
        }
        let request = self
            .conn
            .request(Method::DELETE, &self.url, &headers, Bytes::new());
        match tokio::time::timeout(self.config.close_timeout, self.conn.send(request)).await {
            Ok(Ok(response)) => {
                tracing::debug!("DELETE {} answered {}", self.url_text, response.status())
            }
            Ok(Err(e)) => tracing::debug!("DELETE failed: {e}"),
            Err(_) => tracing::debug!(
                "DELETE {} timed out after {:?}",
                self.url_text,
                self.config.close_timeout
            ),
        }
    }
}
