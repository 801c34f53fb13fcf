//! The accept loop both origins of `mcp ui` run: HTTP/1.1 connections on a loopback
//! listener, each request answered by the origin's handler; a failed accept is retried, a
//! failed connection ends alone.

use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;

use super::body::UiBody;

/// Serves `listener` until the task is dropped; it never returns.
pub async fn serve<F, Fut>(listener: TcpListener, handle: F) -> Infallible
where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Response<UiBody>> + Send + 'static,
{
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            Err(e) => {
                eprintln!("mcp ui: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let handle = handle.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let answer = handle(req);
                async move { Ok::<_, Infallible>(answer.await) }
            });
            let mut builder = http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(30));
            let _ = builder.serve_connection(TokioIo::new(tcp), service).await;
        });
    }
}
