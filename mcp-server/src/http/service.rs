//! MCP over HTTP as a tower [`Service`]: what [`bind`](super::bind) serves on its own listener,
//! for a host app to mount beside its own routes (axum's `Router::nest_service`, or any
//! tower/hyper stack).
//!
//! The service checks `Host` and `Origin` (DNS-rebinding protection), bounds request bodies in
//! size and time, verifies bearer tokens when an [`AuthConfig`](super::AuthConfig) is set, and
//! expires idle sessions, mounted or not. The host app provides what belongs to a listener: TCP
//! (or TLS) and its accept loop, the time allowed for request headers, and connection limits.
//! A per-request timeout layer must not cover it: an SSE response lasts as long as its stream.
//!
//! Shutdown: [`HttpService::shutdown`] (or cancelling [`HttpService::shutdown_token`]) ends the
//! standalone SSE streams at once, answers new requests 503, lets requests in flight finish
//! within [`HttpConfig::shutdown_grace`](super::HttpConfig::shutdown_grace), then closes every
//! session and stream, so the host's own graceful shutdown, which waits for open responses,
//! completes.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::Body;
use hyper::{Request, Response};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tower_service::Service;

use super::body::ResponseBody;
use super::modern::ConnectionSession;
use super::request_body::{BoxError, RequestBody};
use super::{App, HttpConfig, HttpError, SessionFactory};

/// Streamable HTTP (both eras, with sessions or stateless) and the HTTP+SSE transport as
/// one tower [`Service`] over `http::Request<B>` for any request body `B`. Clones share
/// everything (sessions, limits, shutdown); it is `Send + Sync`. It assumes nothing of the
/// host's connections (HTTP/1.1 or HTTP/2 alike): each 2026-07-28 request borrows an idle
/// session of the principal it comes from, or starts one, and gives it back when its response
/// is over.
///
/// Mounted under a prefix that the host strips (axum's `nest_service("/mcp", …)`), build it
/// from [`HttpConfig::nested`] so the endpoint is the mount point itself and the URLs the
/// server announces carry the prefix. A host's middleware may authenticate requests itself and
/// insert an [`AuthIdentity`](crate::auth::AuthIdentity) into the request's extensions:
/// handlers then read it from [`Context::auth`](crate::Context::auth), and a 2025 session stays
/// bound to the identity that opened it, as with [`HttpConfig::auth`](super::HttpConfig::auth)
/// (which, when set, takes precedence).
///
/// ```no_run
/// # fn demo(server: mcp_server::Server) -> Result<(), mcp_server::http::HttpError> {
/// use mcp_server::http::HttpConfig;
/// let mcp = server.http_service(HttpConfig::nested("/mcp"))?;
/// // axum: Router::new().route("/", get(home)).nest_service("/mcp", mcp.clone())
/// # let _ = mcp; Ok(()) }
/// ```
#[derive(Clone)]
pub struct HttpService {
    app: Arc<App>,
    /// The standalone server's connection this clone serves (its 2026-07-28 session); a
    /// mounted service sees no connections, and its requests borrow sessions from a pool.
    connection: Option<Arc<ConnectionSession>>,
}

impl std::fmt::Debug for HttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpService")
            .field("endpoint", &self.app.public_endpoint)
            .field("sessions", &self.app.sessions.len())
            .finish_non_exhaustive()
    }
}

/// MCP over HTTP as a [`HttpService`] to mount, one session per client via `factory`. Spawns
/// the session sweeper on the current tokio runtime. DNS-rebinding protection is on unless
/// `config.dns_rebinding_protection` says otherwise (the service cannot see the address the
/// host listens on): list the names clients reach the host by in `allowed_hosts` (and
/// `allowed_origins` for browsers), or turn it off behind a proxy that checks them.
pub fn service(config: HttpConfig, factory: impl SessionFactory) -> Result<HttpService, HttpError> {
    let app = App::start(config, Arc::new(factory), true)?;
    Ok(HttpService {
        app,
        connection: None,
    })
}

impl HttpService {
    /// The service `serve` runs on its listener, with protection defaulting by the bind address.
    pub(crate) fn for_listener(
        config: HttpConfig,
        factory: impl SessionFactory,
        loopback: bool,
    ) -> Result<Self, HttpError> {
        let app = App::start(config, Arc::new(factory), loopback)?;
        Ok(HttpService {
            app,
            connection: None,
        })
    }

    /// A clone serving one connection of the standalone server.
    pub(crate) fn for_connection(&self) -> Self {
        HttpService {
            app: self.app.clone(),
            connection: Some(Arc::new(ConnectionSession::default())),
        }
    }

    /// The configuration it serves by.
    pub(crate) fn config(&self) -> &HttpConfig {
        &self.app.config
    }

    /// Closes every session now (the standalone server's last step, after its connections).
    pub(crate) fn close_sessions(&self) {
        self.app.sessions.close_all();
    }

    /// How many sessions are open now (Streamable HTTP and HTTP+SSE).
    pub fn session_count(&self) -> usize {
        self.app.sessions.len()
    }

    /// A token that starts the shutdown when cancelled (from the host's signal handler, say).
    pub fn shutdown_token(&self) -> CancellationToken {
        self.app.lifecycle.stop.clone()
    }

    /// Ends the standalone streams, lets requests in flight finish within the grace period,
    /// closes every session and stream, and waits until that is done. New requests get 503.
    /// Call it when the host starts its own graceful shutdown.
    pub async fn shutdown(&self) {
        self.app.lifecycle.stop.cancel();
        self.app.lifecycle.stopped.cancelled().await;
    }

    /// Answers one request; the response body keeps what the request needs until it is over.
    pub(crate) async fn answer(&self, req: Request<RequestBody>) -> Response<ResponseBody> {
        let mut guard = RequestGuard::new(&self.app.lifecycle.in_flight);
        let own;
        let connection = match &self.connection {
            Some(connection) => connection,
            None => {
                // Given back when the response is over (or closed, when its client gave up).
                own = Arc::new(ConnectionSession::borrowing(self.app.modern_pool.clone()));
                guard.connection = Some(own.clone());
                &own
            }
        };
        let response = self.app.clone().handle(req, connection).await;
        response.map(|body| body.guarded(guard))
    }
}

impl<B> Service<Request<B>> for HttpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<ResponseBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let service = self.clone();
        let req = req.map(RequestBody::new);
        Box::pin(async move { Ok(service.answer(req).await) })
    }
}

/// Held by a request until its response is over: counts it in flight, and keeps the 2026-07-28
/// session a mounted request borrowed.
pub(crate) struct RequestGuard {
    in_flight: Arc<InFlight>,
    connection: Option<Arc<ConnectionSession>>,
}

impl RequestGuard {
    fn new(in_flight: &Arc<InFlight>) -> Self {
        in_flight.count.fetch_add(1, Ordering::AcqRel);
        RequestGuard {
            in_flight: in_flight.clone(),
            connection: None,
        }
    }
}

impl Drop for RequestGuard {
    fn drop(&mut self) {
        if self.in_flight.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.in_flight.idle.notify_waiters();
        }
    }
}

/// Requests whose responses are not over yet.
#[derive(Default)]
pub(crate) struct InFlight {
    count: AtomicUsize,
    idle: Notify,
}

impl InFlight {
    /// Waits until no request is in flight, at most `limit`; true when none is.
    async fn drained(&self, limit: Duration) -> bool {
        tokio::time::timeout(limit, async {
            loop {
                let idle = self.idle.notified();
                tokio::pin!(idle);
                idle.as_mut().enable();
                if self.count.load(Ordering::Acquire) == 0 {
                    return;
                }
                idle.await;
            }
        })
        .await
        .is_ok()
    }
}

/// The shutdown of one service and what it waits for.
#[derive(Default)]
pub(crate) struct Lifecycle {
    /// Cancelled to start the shutdown.
    pub(crate) stop: CancellationToken,
    /// Cancelled when it is done.
    stopped: CancellationToken,
    in_flight: Arc<InFlight>,
}

impl Lifecycle {
    /// True once the shutdown has started.
    pub(crate) fn stopping(&self) -> bool {
        self.stop.is_cancelled()
    }
}

/// Sweeps expired sessions until the shutdown starts, then runs it: the standalone streams end
/// (they never end by themselves), requests in flight get the grace period, and whatever is
/// left is closed.
pub(crate) async fn keep(app: std::sync::Weak<App>, every: Duration) {
    let Some((stop, stopped)) = app
        .upgrade()
        .map(|a| (a.lifecycle.stop.clone(), a.lifecycle.stopped.clone()))
    else {
        return;
    };
    let mut sweep = tokio::time::interval(every);
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = sweep.tick() => match app.upgrade() {
                Some(app) => app.sweep(),
                None => return,
            },
        }
    }
    if let Some(app) = app.upgrade() {
        app.sessions.end_standalone_streams();
        let in_flight = &app.lifecycle.in_flight;
        in_flight.drained(app.config.shutdown_grace).await;
        app.sessions.close_all();
        app.modern_pool.close();
        in_flight.drained(Duration::from_millis(500)).await;
        // Sessions a request still in flight made after the first close.
        app.sessions.close_all();
    }
    stopped.cancel();
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use http_body_util::{BodyExt, Full};

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

    fn post(path: &str, body: &'static str) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(Bytes::from_static(body.as_bytes())));
        *request.method_mut() = hyper::Method::POST;
        *request.uri_mut() = hyper::Uri::try_from(path).expect("path");
        for (name, value) in [
            ("host", "localhost:8080"),
            ("accept", "application/json, text/event-stream"),
            ("content-type", "application/json"),
        ] {
            request
                .headers_mut()
                .insert(name, hyper::header::HeaderValue::from_static(value));
        }
        request
    }

    #[tokio::test]
    async fn any_body_is_served_until_the_shutdown() {
        let server = crate::Server::builder("t", "1.0.0").build();
        let mut mcp = server
            .http_service(HttpConfig::nested("/mcp"))
            .expect("a service");
        let answer = mcp.call(post("/", INITIALIZE)).await.expect("infallible");
        assert_eq!(answer.status(), hyper::StatusCode::OK);
        assert!(answer.headers().contains_key("mcp-session-id"));
        let body = answer.into_body().collect().await.expect("body").to_bytes();
        assert!(body.starts_with(br#"{"jsonrpc":"2.0","id":1,"result""#));
        assert_eq!(mcp.session_count(), 1);

        let elsewhere = mcp
            .call(post("/mcp", INITIALIZE))
            .await
            .expect("infallible");
        assert_eq!(elsewhere.status(), hyper::StatusCode::NOT_FOUND);
        // A response counts as in flight until it is dropped (sent, for a host).
        drop(elsewhere);

        // Nothing in flight: the shutdown does not wait out its grace period.
        tokio::time::timeout(Duration::from_secs(2), mcp.shutdown())
            .await
            .expect("the shutdown ends at once");
        assert_eq!(mcp.session_count(), 0);
        let late = mcp.call(post("/", INITIALIZE)).await.expect("infallible");
        assert_eq!(late.status(), hyper::StatusCode::SERVICE_UNAVAILABLE);
    }

    /// A request's response, read whole.
    async fn read(response: Response<ResponseBody>) -> (hyper::StatusCode, String) {
        let status = response.status();
        let body = response.into_body().collect().await.expect("body");
        (
            status,
            String::from_utf8_lossy(&body.to_bytes()).into_owned(),
        )
    }

    #[tokio::test]
    async fn requests_in_flight_finish_within_the_grace_period() {
        let server = crate::Server::builder("t", "1.0.0")
            .tool(
                crate::Tool::new("slow", "Answers after 300 ms"),
                |_: crate::Context| async {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    "finished"
                },
            )
            .build();
        let mut mcp = server
            .http_service(HttpConfig::nested("/mcp"))
            .expect("a service");
        let opened = mcp.call(post("/", INITIALIZE)).await.expect("infallible");
        let session = opened.headers()["mcp-session-id"].clone();
        drop(opened);
        const CALL: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#;
        let mut call = post("/", CALL);
        call.headers_mut().insert("mcp-session-id", session);
        let mut caller = mcp.clone();
        let in_flight =
            tokio::spawn(async move { read(caller.call(call).await.expect("infallible")).await });
        // The call has reached the tool before the shutdown starts.
        tokio::time::sleep(Duration::from_millis(100)).await;
        tokio::time::timeout(Duration::from_secs(3), mcp.shutdown())
            .await
            .expect("the shutdown ends when the call has");
        let (status, body) = in_flight.await.expect("the call's task");
        assert_eq!(status, hyper::StatusCode::OK, "{body}");
        assert!(body.contains("finished"), "{body}");
        assert_eq!(mcp.session_count(), 0);
    }

    /// A 2026-07-28 `tools/call` of `whoami`, as `subject` when given.
    fn modern_whoami(subject: Option<&str>) -> Request<Full<Bytes>> {
        const CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let mut request = post("/", CALL);
        for (name, value) in [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "whoami"),
        ] {
            request
                .headers_mut()
                .insert(name, hyper::header::HeaderValue::from_static(value));
        }
        if let Some(subject) = subject {
            let identity = crate::auth::AuthIdentity::new(subject, "https://issuer.invalid");
            request.extensions_mut().insert(identity);
        }
        request
    }

    #[tokio::test]
    async fn modern_requests_borrow_idle_sessions_of_their_own_principal() {
        let server = crate::Server::builder("t", "1.0.0")
            .tool(
                crate::Tool::new("whoami", "Names the caller"),
                |ctx: crate::Context| async move {
                    let subject = ctx.auth().and_then(|i| i.subject.clone());
                    subject.unwrap_or_else(|| "nobody".into())
                },
            )
            .build();
        let started = Arc::new(AtomicUsize::new(0));
        let count = started.clone();
        let mut mcp = service(HttpConfig::nested("/mcp"), move |transport| {
            count.fetch_add(1, Ordering::SeqCst);
            crate::http::serve_session(&server, transport)
        })
        .expect("a service");
        let mut expect = |who: Option<&'static str>, sessions: usize| {
            let call = mcp.call(modern_whoami(who));
            let started = started.clone();
            async move {
                let (status, body) = read(call.await.expect("infallible")).await;
                assert_eq!(status, hyper::StatusCode::OK, "{body}");
                assert!(body.contains(who.unwrap_or("nobody")), "{who:?}: {body}");
                assert_eq!(started.load(Ordering::SeqCst), sessions, "{who:?}");
            }
        };
        expect(Some("alice"), 1).await;
        expect(Some("alice"), 1).await;
        expect(Some("bob"), 2).await;
        expect(Some("alice"), 2).await;
        expect(None, 3).await;
        expect(Some("bob"), 3).await;
        assert_eq!(mcp.app.modern_pool.len(), 3);
        mcp.shutdown().await;
        assert_eq!(mcp.app.modern_pool.len(), 0);
    }

    #[test]
    fn announced_urls_carry_the_mount_path() {
        let endpoint = |mount: &str, endpoint: &str| {
            HttpConfig {
                mount_path: mount.into(),
                endpoint: endpoint.into(),
                ..HttpConfig::default()
            }
            .public_endpoint()
        };
        assert_eq!(endpoint("", "/mcp"), "/mcp");
        assert_eq!(endpoint("/mcp", "/"), "/mcp");
        assert_eq!(endpoint("/mcp/", "/"), "/mcp");
        assert_eq!(endpoint("/tenant", "/mcp"), "/tenant/mcp");
        let relative = HttpConfig {
            mount_path: "mcp".into(),
            ..HttpConfig::nested("")
        };
        assert!(matches!(relative.check(), Err(HttpError::Config(_))));
    }
}
