//! What a handler gets with each incoming request: its id, its progress token, its
//! cancellation signal, and a way to talk back to the other side on the request's behalf.

use std::sync::{Arc, Mutex};

use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::{PeerError, PeerHandle, RequestOptions};
use crate::jsonrpc::{self, RawJson, Request, RequestId};
use crate::schema::{NotificationType, RequestType};

/// The context of one incoming request.
#[derive(Clone)]
pub struct RequestContext {
    id: RequestId,
    progress_token: Option<RequestId>,
    cancellation: CancellationToken,
    peer: PeerHandle,
    last_progress: Arc<Mutex<Option<f64>>>,
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext")
            .field("id", &self.id)
            .field("progress_token", &self.progress_token)
            .field("cancelled", &self.cancellation.is_cancelled())
            .finish()
    }
}

#[derive(Deserialize)]
struct MetaOnly {
    #[serde(rename = "_meta", default)]
    meta: Option<ProgressMeta>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProgressMeta {
    #[serde(default)]
    progress_token: Option<RequestId>,
}

/// Reads `_meta.progressToken` from raw params. Params without the word are not parsed at all.
pub(crate) fn progress_token(params: Option<&RawJson>) -> Option<RequestId> {
    let raw = params?.get();
    memchr::memmem::find(raw.as_bytes(), b"progressToken")?;
    serde_json::from_str::<MetaOnly>(raw)
        .ok()?
        .meta?
        .progress_token
}

impl RequestContext {
    pub(crate) fn new(
        request: &Request,
        cancellation: CancellationToken,
        peer: PeerHandle,
    ) -> Self {
        RequestContext {
            id: request.id.clone(),
            progress_token: progress_token(request.params.as_ref()),
            cancellation,
            peer,
            last_progress: Arc::new(Mutex::new(None)),
        }
    }

    /// The id of the request being handled.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The progress token the other side sent, if any.
    pub fn progress_token(&self) -> Option<&RequestId> {
        self.progress_token.as_ref()
    }

    /// The peer this request came from.
    pub fn peer(&self) -> &PeerHandle {
        &self.peer
    }

    /// Cancelled when the other side cancels the request (or the connection shuts down).
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// True once the request has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Sends `notifications/progress` when the request carried a progress token and `progress`
    /// is greater than the last value sent. Returns whether a notification went out.
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> bool {
        let Some(token) = &self.progress_token else {
            return false;
        };
        {
            let mut last = self.last_progress.lock().unwrap_or_else(|p| p.into_inner());
            if last.is_some_and(|l| progress <= l) || !progress.is_finite() {
                return false;
            }
            *last = Some(progress);
        }
        let mut params = serde_json::json!({ "progressToken": token, "progress": progress });
        if let Some(total) = total {
            params["total"] = total.into();
        }
        if let Some(message) = message {
            params["message"] = message.into();
        }
        let Ok(raw) = jsonrpc::to_raw(&params) else {
            return false;
        };
        self.peer
            .notify_raw("notifications/progress", Some(raw), Some(self.id.clone()))
            .await
            .is_ok()
    }

    /// Sends a notification on behalf of this request (it travels on the request's stream).
    pub async fn notify<N: NotificationType>(&self, params: &N::Params) -> Result<(), PeerError> {
        let raw = super::encode_params(N::METHOD, params)?;
        self.peer
            .notify_raw(N::METHOD, Some(raw), Some(self.id.clone()))
            .await
    }

    /// Sends a raw notification on behalf of this request.
    pub async fn notify_raw(&self, method: &str, params: Option<RawJson>) -> Result<(), PeerError> {
        self.peer
            .notify_raw(method, params, Some(self.id.clone()))
            .await
    }

    /// Calls the other side on behalf of this request; cancelled with it.
    pub async fn request<R: RequestType>(
        &self,
        params: &R::Params,
    ) -> Result<R::Result, PeerError> {
        self.request_with::<R>(params, RequestOptions::default())
            .await
    }

    /// Calls the other side on behalf of this request with options; cancelled with it.
    pub async fn request_with<R: RequestType>(
        &self,
        params: &R::Params,
        mut options: RequestOptions,
    ) -> Result<R::Result, PeerError> {
        options.related = Some(self.id.clone());
        if options.cancel.is_none() {
            options.cancel = Some(self.cancellation.child_token());
        }
        self.peer.request_with::<R>(params, options).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_token_is_read_only_when_present() {
        let raw = jsonrpc::raw_json(r#"{"name":"x","_meta":{"progressToken":"abc","other":1}}"#);
        assert_eq!(progress_token(Some(&raw)), Some(RequestId::from("abc")));
        let raw = jsonrpc::raw_json(r#"{"_meta":{"progressToken":7}}"#);
        assert_eq!(progress_token(Some(&raw)), Some(RequestId::Number(7)));
        let raw = jsonrpc::raw_json(r#"{"name":"progressToken"}"#);
        assert_eq!(progress_token(Some(&raw)), None);
        assert_eq!(progress_token(None), None);
    }
}
