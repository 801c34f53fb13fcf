//! The body of a request as the transports read it: hyper's own `Incoming` as it is (the
//! standalone server's connections), or any other `http_body::Body` a host app hands the
//! mounted service (axum's, tower-http's wrappers), boxed once with its chunks as `Bytes`.

use std::any::Any;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};

/// What a host's body may fail with.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A request body of any origin, read by `body::read_body`.
pub(crate) enum RequestBody {
    /// hyper's connection body, unboxed.
    Incoming(Incoming),
    /// Anything else.
    Boxed(UnsyncBoxBody<Bytes, BoxError>),
}

impl RequestBody {
    /// Takes `body` as it is when it is hyper's `Incoming`, else boxes it.
    pub(crate) fn new<B>(body: B) -> Self
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        let mut slot = Some(body);
        if let Some(incoming) = (&mut slot as &mut dyn Any).downcast_mut::<Option<Incoming>>() {
            if let Some(incoming) = incoming.take() {
                return RequestBody::Incoming(incoming);
            }
        }
        let boxed = slot.map(|body| {
            body.map_frame(|frame| frame.map_data(|mut data| data.copy_to_bytes(data.remaining())))
                .map_err(Into::into)
                .boxed_unsync()
        });
        match boxed {
            Some(body) => RequestBody::Boxed(body),
            // Only the `Incoming` arm above empties the slot, and it returned.
            None => RequestBody::Boxed(
                http_body_util::Empty::new()
                    .map_err(|e| match e {})
                    .boxed_unsync(),
            ),
        }
    }
}

impl Body for RequestBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match self.get_mut() {
            RequestBody::Incoming(body) => Pin::new(body)
                .poll_frame(cx)
                .map(|frame| frame.map(|f| f.map_err(Into::into))),
            RequestBody::Boxed(body) => Pin::new(body).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            RequestBody::Incoming(body) => body.is_end_stream(),
            RequestBody::Boxed(body) => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            RequestBody::Incoming(body) => body.size_hint(),
            RequestBody::Boxed(body) => body.size_hint(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn any_body_reads_as_bytes() {
        let chunks = http_body_util::Full::new(&b"{\"jsonrpc\":\"2.0\"}"[..]);
        let body = RequestBody::new(chunks);
        assert!(matches!(body, RequestBody::Boxed(_)));
        let bytes = body.collect().await.expect("read").to_bytes();
        assert_eq!(&bytes[..], b"{\"jsonrpc\":\"2.0\"}");
    }
}
