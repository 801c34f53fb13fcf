//! What a handler gets with each incoming request: its id, its progress token, its
//! cancellation signal, and a way to talk back to the other side on the request's behalf.

use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::{PeerError, PeerHandle, RequestOptions};
use crate::json_text::KeySearch;
use crate::jsonrpc::{self, RawJson, Request, RequestId};
use crate::schema::{NotificationType, RequestType};

/// The context of one incoming request. Cloning it is cheap (one shared allocation).
#[derive(Clone)]
pub struct RequestContext {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    id: RequestId,
    progress_token: Option<RequestId>,
    /// Made on first use: a request answered at once never needs one.
    cancellation: OnceLock<CancellationToken>,
    peer: PeerHandle,
    last_progress: Mutex<Option<f64>>,
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext")
            .field("id", &self.inner.id)
            .field("progress_token", &self.inner.progress_token)
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

#[derive(Deserialize)]
struct MetaOnly {
    #[serde(rename = "_meta", default)]
    meta: Option<jsonrpc::Object<ProgressMeta>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProgressMeta {
    #[serde(default)]
    progress_token: Option<RequestId>,
}

/// Reads `_meta.progressToken` from raw params. A fast path: params that certainly have no
/// `progressToken` key (see [`KeySearch`]) are not parsed at all; its slow twin is
/// [`progress_token_parsed`], and `fuzz-checks` requires both to agree.
pub(crate) fn progress_token(params: Option<&RawJson>) -> Option<RequestId> {
    let raw = params?.get();
    // Built once: building a searcher costs more than a search of a small request.
    static KEY: LazyLock<KeySearch> = LazyLock::new(|| KeySearch::new("progressToken"));
    if KEY.certainly_absent(raw) {
        return None;
    }
    progress_token_parsed(raw)
}

/// `_meta.progressToken` of params read in full: the slow twin of [`progress_token`].
pub(crate) fn progress_token_parsed(params: &str) -> Option<RequestId> {
    jsonrpc::from_object::<MetaOnly>(params)
        .ok()?
        .meta?
        .0
        .progress_token
}

impl RequestContext {
    /// A context whose cancellation token is made when first asked for.
    pub(crate) fn new(request: &Request, peer: PeerHandle) -> Self {
        RequestContext {
            inner: Arc::new(ContextInner {
                id: request.id.clone(),
                progress_token: progress_token(request.params.as_ref()),
                cancellation: OnceLock::new(),
                peer,
                last_progress: Mutex::new(None),
            }),
        }
    }

    /// The id of the request being handled.
    pub fn id(&self) -> &RequestId {
        &self.inner.id
    }

    /// The progress token the other side sent, if any.
    pub fn progress_token(&self) -> Option<&RequestId> {
        self.inner.progress_token.as_ref()
    }

    /// The peer this request came from.
    pub fn peer(&self) -> &PeerHandle {
        &self.inner.peer
    }

    /// Cancelled when the other side cancels the request (or the connection shuts down).
    pub fn cancellation(&self) -> &CancellationToken {
        self.inner.cancellation.get_or_init(CancellationToken::new)
    }

    /// True once the request has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner
            .cancellation
            .get()
            .is_some_and(CancellationToken::is_cancelled)
    }

    /// Sends `notifications/progress` when the request carried a progress token and `progress`
    /// is greater than the last value sent. Returns whether a notification went out.
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> bool {
        let Some(token) = &self.inner.progress_token else {
            return false;
        };
        {
            let mut last = crate::sync::lock(&self.inner.last_progress);
            if last.is_some_and(|l| progress <= l) || !progress.is_finite() {
                return false;
            }
            *last = Some(progress);
        }
        let params = crate::schema::ProgressParams {
            progress_token: token.clone(),
            progress,
            total,
            message,
            meta: None,
            extra: Default::default(),
        };
        let Ok(raw) = jsonrpc::to_raw(&params) else {
            return false;
        };
        self.inner
            .peer
            .notify_raw(
                "notifications/progress",
                Some(raw),
                Some(self.inner.id.clone()),
            )
            .await
            .is_ok()
    }

    /// Sends a notification on behalf of this request (it travels on the request's stream).
    pub async fn notify<N: NotificationType>(&self, params: &N::Params) -> Result<(), PeerError> {
        let raw = super::call::encode_params(N::METHOD, params)?;
        self.inner
            .peer
            .notify_raw(N::METHOD, Some(raw), Some(self.inner.id.clone()))
            .await
    }

    /// Sends a raw notification on behalf of this request.
    pub async fn notify_raw(&self, method: &str, params: Option<RawJson>) -> Result<(), PeerError> {
        self.inner
            .peer
            .notify_raw(method, params, Some(self.inner.id.clone()))
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
        options.related = Some(self.inner.id.clone());
        if options.cancel.is_none() {
            options.cancel = Some(self.cancellation().child_token());
        }
        self.inner.peer.request_with::<R>(params, options).await
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
        // `_meta` is an object: an array is not read by position (found by fuzz-checks).
        assert_eq!(progress_token_parsed(r#"{"_meta":[0]}"#), None);
    }

    #[test]
    fn an_escaped_progress_token_key_is_the_same_key() {
        for text in [
            r#"{"_meta":{"\u0070rogressToken":"abc"}}"#,
            r#"{"\u005fmeta":{"progress\u0054oken":"abc"}}"#,
        ] {
            let raw = jsonrpc::raw_json(text);
            assert_eq!(
                progress_token(Some(&raw)),
                Some(RequestId::from("abc")),
                "{text}"
            );
        }
        // The key's text as user data, or a progress token below another member, is no token.
        for text in [
            r#"{"arguments":{"_meta":{"progressToken":1}}}"#,
            r#"{"arguments":{"k":"\"_meta\":{\"progressToken\":1}"}}"#,
        ] {
            assert_eq!(
                progress_token(Some(&jsonrpc::raw_json(text))),
                None,
                "{text}"
            );
        }
    }
}
