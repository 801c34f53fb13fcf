//! The client against a scripted server on the in-memory transport: capabilities follow the
//! registered handlers, unhandled server requests get -32601, pagination is followed and
//! bounded, notifications reach subscribers, and version negotiation refuses what we do not speak.

mod common;

use std::sync::{Arc, Mutex};

use common::bounded;
use mcp_client::{Client, ClientError, ClientOptions, ServerEvent};
use mcp_proto::jsonrpc::{self, ErrorObject, RawJson, Request};
use mcp_proto::peer::{memory_pair, Handler, Peer, PeerHandle, PeerOptions, RequestContext};
use mcp_proto::schema::{
    CreateMessage, CreateMessageParams, EmptyParams, Implementation, InitializeParams,
    InitializeResult, ListRoots, ListRootsResult, ListToolsResult, LoggingLevel,
    LoggingMessageParams, Root, SamplingMessage, ServerCapabilities, Tool, ToolListChanged,
    ToolsCapability,
};
use mcp_proto::ProtocolVersion;

/// A scripted server: answers `initialize` with `version`, pages `tools/list` (`pages` pages,
/// or forever when `None`), and remembers the initialize params it got.
struct FakeServer {
    version: String,
    pages: Option<usize>,
    seen: Mutex<Option<InitializeParams>>,
    /// Set when a `slow` request was cancelled by the client.
    cancelled: std::sync::atomic::AtomicBool,
    /// The notifications the server received, by method.
    notifications: Mutex<Vec<String>>,
}

impl Handler for FakeServer {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<RawJson, ErrorObject> {
        let raw = |v: serde_json::Value| jsonrpc::to_raw(&v).map_err(ErrorObject::internal);
        match request.method.as_str() {
            "initialize" if self.version == "hang" => std::future::pending().await,
            "initialize" => {
                let params: InitializeParams =
                    request.params_as().map_err(ErrorObject::invalid_params)?;
                *self.seen.lock().unwrap() = Some(params);
                let mut result = InitializeResult::new(
                    self.version.clone(),
                    ServerCapabilities {
                        tools: Some(ToolsCapability::default()),
                        ..Default::default()
                    },
                    Implementation::new("fake", "0.1"),
                );
                result.instructions = Some("be nice".into());
                jsonrpc::to_raw(&result).map_err(ErrorObject::internal)
            }
            "tools/list" => {
                let params: serde_json::Value = request.params_as().unwrap_or_default();
                let page: usize = params["cursor"]
                    .as_str()
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0);
                let mut result =
                    ListToolsResult::new(vec![Tool::new(format!("t{page}"), "a tool")]);
                if self.pages.is_none_or(|n| page + 1 < n) {
                    result.next_cursor = Some((page + 1).to_string());
                }
                jsonrpc::to_raw(&result).map_err(ErrorObject::internal)
            }
            "ping" => raw(serde_json::json!({})),
            "slow" => {
                // The engine drops this future when the client cancels; the guard notices.
                struct SetOnDrop<'a>(&'a std::sync::atomic::AtomicBool);
                impl Drop for SetOnDrop<'_> {
                    fn drop(&mut self) {
                        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
                    }
                }
                let _guard = SetOnDrop(&self.cancelled);
                ctx.cancellation().cancelled().await;
                Err(ErrorObject::internal("cancelled"))
            }
            m => Err(ErrorObject::method_not_found(m)),
        }
    }

    fn handle_notification(&self, n: mcp_proto::jsonrpc::Notification, _peer: &PeerHandle) {
        self.notifications.lock().unwrap().push(n.method);
    }
}

fn fake(
    version: &str,
    pages: Option<usize>,
) -> (
    mcp_proto::peer::MemoryTransport,
    PeerHandle,
    Arc<FakeServer>,
) {
    let (client_end, server_end) = memory_pair(64);
    let server = Arc::new(FakeServer {
        version: version.into(),
        pages,
        seen: Mutex::new(None),
        cancelled: Default::default(),
        notifications: Mutex::new(Vec::new()),
    });
    let peer_options = PeerOptions {
        shutdown_grace: std::time::Duration::from_millis(100),
        ..Default::default()
    };
    let peer = Peer::start(server_end, server.clone(), peer_options);
    (client_end, peer, server)
}

fn options() -> ClientOptions {
    ClientOptions::new().with_name("fake")
}

#[tokio::test]
async fn handshake_exposes_the_server_and_declares_no_capability_without_handlers() {
    let (transport, _server_peer, server) = fake("2025-06-18", Some(1));
    let client = bounded(5, "connect", Client::connect(transport, options()))
        .await
        .expect("connect");
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
    assert_eq!(client.server_info().name, "fake");
    assert_eq!(client.instructions().as_deref(), Some("be nice"));
    assert!(client.server_capabilities().tools.is_some());
    let seen = server
        .seen
        .lock()
        .unwrap()
        .clone()
        .expect("initialize seen");
    assert_eq!(seen.protocol_version, ProtocolVersion::LATEST.as_str());
    assert_eq!(
        serde_json::to_value(&seen.capabilities).unwrap(),
        serde_json::json!({})
    );
    client.close().await;
}

#[tokio::test]
async fn server_requests_reach_handlers_or_get_method_not_found() {
    let (transport, server_peer, server) = fake("2024-11-05", Some(1));
    let options = options()
        .with_protocol_version(ProtocolVersion::V2024_11_05)
        .with_roots(|| async { Ok(ListRootsResult::new(vec![Root::new("file:///work", None)])) });
    let client = bounded(5, "connect", Client::connect(transport, options))
        .await
        .expect("connect");
    let seen = server
        .seen
        .lock()
        .unwrap()
        .clone()
        .expect("initialize seen");
    assert_eq!(seen.protocol_version, "2024-11-05");
    assert_eq!(
        serde_json::to_value(&seen.capabilities).unwrap(),
        serde_json::json!({"roots": {"listChanged": true}})
    );

    let roots = bounded(
        5,
        "roots/list",
        server_peer.request::<ListRoots>(&EmptyParams::default()),
    )
    .await
    .expect("roots");
    assert_eq!(roots.roots[0].uri, "file:///work");

    let params = CreateMessageParams::new(vec![SamplingMessage::user_text("hi")], 10);
    let err = bounded(5, "sampling", server_peer.request::<CreateMessage>(&params))
        .await
        .expect_err("no sampling handler");
    assert_eq!(err.rpc_error().map(|e| e.code), Some(-32601));

    let pong = bounded(
        5,
        "ping",
        server_peer.request_raw("ping", None, Default::default()),
    )
    .await
    .expect("the client answers ping");
    assert_eq!(pong.get(), "{}");
    client.close().await;
}

#[tokio::test]
async fn notifications_reach_subscribers() {
    let (transport, server_peer, _server) = fake("2025-11-25", Some(1));
    let client = bounded(5, "connect", Client::connect(transport, options()))
        .await
        .expect("connect");
    let mut events = client.notifications();
    server_peer
        .notify::<ToolListChanged>(&EmptyParams::default())
        .await
        .expect("notify");
    server_peer
        .notify::<mcp_proto::schema::LoggingMessage>(&LoggingMessageParams::new(
            LoggingLevel::Warning,
            "careful",
        ))
        .await
        .expect("notify");
    server_peer
        .notify_raw(
            "notifications/custom",
            Some(jsonrpc::raw_json(r#"{"x":1}"#)),
            None,
        )
        .await
        .expect("notify");
    let first = bounded(5, "event", events.recv()).await.expect("event");
    assert!(matches!(first, ServerEvent::ToolsListChanged), "{first:?}");
    match bounded(5, "event", events.recv()).await.expect("event") {
        ServerEvent::Log(entry) => {
            assert_eq!(entry.level, LoggingLevel::Warning);
            assert_eq!(entry.data, serde_json::json!("careful"));
        }
        other => panic!("{other:?}"),
    }
    match bounded(5, "event", events.recv()).await.expect("event") {
        ServerEvent::Other { method, params } => {
            assert_eq!(method, "notifications/custom");
            assert_eq!(params, Some(serde_json::json!({"x": 1})));
        }
        other => panic!("{other:?}"),
    }
    client.close().await;
}

#[tokio::test]
async fn lists_follow_cursors_up_to_the_bound() {
    let (transport, _peer, _server) = fake("2025-11-25", Some(3));
    let client = bounded(5, "connect", Client::connect(transport, options()))
        .await
        .expect("connect");
    let tools = bounded(5, "list", client.list_tools())
        .await
        .expect("tools");
    let names: Vec<String> = tools.into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["t0", "t1", "t2"]);
    client.close().await;

    let (transport, _peer, _server) = fake("2025-11-25", None);
    let options = options().with_max_list_pages(5);
    let client = bounded(5, "connect", Client::connect(transport, options))
        .await
        .expect("connect");
    let err = bounded(5, "endless list", client.list_tools())
        .await
        .expect_err("endless cursors are cut off");
    assert!(
        matches!(err, ClientError::TooManyPages { pages: 5, .. }),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "server fake: tools/list returned more than 5 pages; stopped following nextCursor"
    );
    client.close().await;
}

#[tokio::test]
async fn unknown_version_is_refused_and_the_connection_closed() {
    let (transport, server_peer, _server) = fake("2099-01-01", Some(1));
    let err = bounded(5, "connect", Client::connect(transport, options()))
        .await
        .expect_err("refused");
    assert_eq!(
        err.to_string(),
        "server fake: we offered protocol version 2025-11-25 and the server answered \
         \"2099-01-01\", which we do not speak (we speak 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25)"
    );
    bounded(5, "the server sees the end", server_peer.closed()).await;
}

#[tokio::test]
async fn calls_after_close_fail_with_the_server_name() {
    let (transport, _peer, _server) = fake("2025-11-25", Some(1));
    let client = bounded(5, "connect", Client::connect(transport, options()))
        .await
        .expect("connect");
    client.ping().await.expect("ping");
    bounded(5, "close", client.close()).await;
    let err = client.ping().await.expect_err("closed");
    assert_eq!(
        err.to_string(),
        "server fake: connection closed: the client was closed"
    );
}

#[tokio::test]
async fn a_panicking_handler_answers_with_an_internal_error() {
    let (transport, server_peer, _server) = fake("2025-11-25", Some(1));
    let options = options().with_sampling(|_| async { panic!("the model exploded") });
    let client = bounded(5, "connect", Client::connect(transport, options))
        .await
        .expect("connect");
    let params = CreateMessageParams::new(vec![SamplingMessage::user_text("hi")], 10);
    let err = bounded(5, "sampling", server_peer.request::<CreateMessage>(&params))
        .await
        .expect_err("the handler panicked");
    assert_eq!(err.rpc_error().map(|e| e.code), Some(-32603), "{err}");
    client.ping().await.expect("the client still works");
    client.close().await;
}

#[tokio::test]
async fn a_timeout_sends_cancelled_and_names_server_method_and_timeout() {
    let (transport, _peer, server) = fake("2025-11-25", Some(1));
    let client = bounded(5, "connect", Client::connect(transport, options()))
        .await
        .expect("connect");
    let err = bounded(
        5,
        "slow",
        client.request(
            "slow",
            None,
            mcp_client::CallOptions::timeout(std::time::Duration::from_millis(10)),
        ),
    )
    .await
    .expect_err("times out");
    // 10 ms is clamped to the 1 s minimum.
    assert_eq!(
        err.to_string(),
        "server fake: request slow timed out after 1s"
    );
    bounded(5, "the server sees the cancellation", async {
        while !server.cancelled.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    })
    .await;
    client.close().await;
}

#[tokio::test]
async fn initialize_timeout_closes_without_cancelling_initialize() {
    let (transport, server_peer, server) = fake("hang", None);
    let options = options().with_initialize_timeout(std::time::Duration::from_secs(1));
    let err = bounded(5, "connect", Client::connect(transport, options))
        .await
        .expect_err("never answered");
    assert_eq!(
        err.to_string(),
        "server fake: request initialize timed out after 1s"
    );
    bounded(5, "the server sees the end", server_peer.closed()).await;
    let seen = server.notifications.lock().unwrap().clone();
    assert!(
        seen.is_empty(),
        "the spec forbids cancelling initialize: {seen:?}"
    );
}

#[tokio::test]
async fn the_handshake_sends_initialized() {
    let (transport, _server_peer, server) = fake("2025-11-25", Some(1));
    let client = bounded(5, "connect", Client::connect(transport, options()))
        .await
        .expect("connect");
    client.ping().await.expect("ping");
    let seen = server.notifications.lock().unwrap().clone();
    assert_eq!(seen, ["notifications/initialized"]);
    client.close().await;
}
