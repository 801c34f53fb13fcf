//! The peer over the in-memory pair: concurrency, ordering, timeouts, cancellation, closing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::reader::YIELD_EVERY;
use super::*;
use crate::codec::FrameError;
use crate::jsonrpc::{
    self, raw_json, ErrorObject, Incoming, InvalidMessage, Message, Notification, ParseError,
    RawJson, Request, RequestId, Response,
};
use crate::schema::CancelledParams;
use crate::sync::lock;
use crate::ProtocolVersion;

/// A handler with a few methods for tests.
#[derive(Default)]
struct TestHandler {
    /// Handlers of `slow` that were dropped or saw cancellation.
    slow_stopped: AtomicUsize,
    notifications: Mutex<Vec<String>>,
    /// What `wait_for_cancel` and `burn` did, in order.
    events: Mutex<Vec<&'static str>>,
}

struct DropFlag<'a>(&'a AtomicUsize);
impl Drop for DropFlag<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Logs its event when dropped.
struct Event<'a>(&'a Mutex<Vec<&'static str>>, &'static str);
impl Drop for Event<'_> {
    fn drop(&mut self) {
        lock(self.0).push(self.1);
    }
}

impl Handler for TestHandler {
    async fn handle_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<RawJson, ErrorObject> {
        match request.method.as_str() {
            "echo" => {
                let params: Value = request.params_as().map_err(ErrorObject::invalid_params)?;
                let delay = params["delay_ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(delay)).await;
                Ok(jsonrpc::to_raw(&params).map_err(ErrorObject::internal)?)
            }
            "slow" => {
                let _flag = DropFlag(&self.slow_stopped);
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok(jsonrpc::empty_object())
            }
            "progress" => {
                for i in 1..=3 {
                    ctx.progress(f64::from(i), Some(3.0), Some(format!("step {i}")))
                        .await;
                    // Going backwards is never sent.
                    ctx.progress(0.5, None, None).await;
                    tokio::time::sleep(Duration::from_millis(40)).await;
                }
                Ok(jsonrpc::empty_object())
            }
            "fail" => Err(ErrorObject::new(-32000, "it failed")),
            "wait_for_cancel" => {
                // Dropped by the peer when the request is cancelled.
                let _stopped = Event(&self.events, "stopped by its cancellation");
                std::future::pending::<()>().await;
                Ok(jsonrpc::empty_object())
            }
            "burn" => {
                // 200 ms of CPU before the first `.await`.
                let start = std::time::Instant::now();
                let mut spins = 0u64;
                while start.elapsed() < Duration::from_millis(200) {
                    spins = std::hint::black_box(spins + 1);
                }
                lock(&self.events).push("burnt");
                tokio::task::yield_now().await;
                Ok(jsonrpc::empty_object())
            }
            "ask_back" => {
                let answer = ctx
                    .peer()
                    .request_raw(
                        "echo",
                        Some(raw_json(r#"{"back":true}"#)),
                        RequestOptions::default(),
                    )
                    .await;
                match answer {
                    Ok(raw) => Ok(raw),
                    Err(e) => Err(ErrorObject::internal(e)),
                }
            }
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    fn handle_notification(&self, notification: Notification, _peer: &PeerHandle) {
        if notification.method == "test/panic" {
            panic!("a notification hook panicked");
        }
        lock(&self.notifications).push(notification.method);
    }
}

fn options(name: &str) -> PeerOptions {
    PeerOptions {
        name: name.into(),
        shutdown_grace: Duration::from_millis(200),
        ..Default::default()
    }
}

fn pair() -> (PeerHandle, Arc<TestHandler>, PeerHandle, Arc<TestHandler>) {
    let (a, b) = memory_pair(64);
    let (ha, hb) = (
        Arc::new(TestHandler::default()),
        Arc::new(TestHandler::default()),
    );
    let pa = Peer::start(a, ha.clone(), options("a"));
    let pb = Peer::start(b, hb.clone(), options("b"));
    (pa, ha, pb, hb)
}

/// A peer on one end; the test drives the other end by hand.
fn raw_peer(handler: Arc<TestHandler>) -> (PeerHandle, MemorySource, MemorySink) {
    let (a, b) = memory_pair(64);
    let peer = Peer::start(b, handler, options("b"));
    let (source, sink) = a.split();
    (peer, source, sink)
}

async fn recv(source: &mut MemorySource) -> Message {
    match tokio::time::timeout(Duration::from_secs(5), source.recv()).await {
        Ok(Some(Ok(Incoming::Single(m)))) => m,
        other => panic!("expected one message, got {other:?}"),
    }
}

fn request(id: i64, method: &str, params: Value) -> Outgoing {
    Outgoing::new(Message::Request(Request {
        id: RequestId::Number(id),
        method: method.into(),
        params: Some(jsonrpc::to_raw(&params).unwrap()),
    }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousand_concurrent_requests_both_ways_out_of_order() {
    let (pa, _, pb, _) = pair();
    let mut calls = JoinSet::new();
    for i in 0..1000u64 {
        for (from, tag) in [(pa.clone(), "a"), (pb.clone(), "b")] {
            calls.spawn(async move {
                let params = json!({ "n": i, "from": tag, "delay_ms": (1000 - i) % 17 });
                let raw = from
                    .request_raw(
                        "echo",
                        Some(jsonrpc::to_raw(&params).unwrap()),
                        RequestOptions::default(),
                    )
                    .await;
                let back: Value = serde_json::from_str(raw.unwrap().get()).unwrap();
                assert_eq!(back, params);
            });
        }
    }
    let mut done = 0;
    while let Some(r) = calls.join_next().await {
        r.unwrap();
        done += 1;
    }
    assert_eq!(done, 2000);
    assert_eq!(pa.pending_requests(), 0);
    assert_eq!(pb.pending_requests(), 0);
}

#[tokio::test]
async fn typed_errors_and_server_to_client_calls() {
    let (pa, _, _pb, _) = pair();
    let err = pa
        .request_raw("fail", None, RequestOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.rpc_error().map(|e| e.code), Some(-32000));
    assert!(
        err.to_string().contains("fail") && err.to_string().contains("it failed"),
        "{err}"
    );
    let err = pa
        .request_raw("nope", None, RequestOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.rpc_error().map(|e| e.code), Some(-32601));
    // b's handler calls back into a while answering a.
    let raw = pa
        .request_raw("ask_back", None, RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(raw.get(), r#"{"back":true}"#);
}

#[tokio::test]
async fn timeout_sends_cancelled_and_names_the_method() {
    let (pa, _, pb, hb) = pair();
    let err = pa
        .request_raw(
            "slow",
            None,
            RequestOptions::timeout(Duration::from_millis(50)),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, PeerError::Timeout { .. }), "{err:?}");
    assert_eq!(err.to_string(), "request slow timed out after 50ms");
    // The cancellation reaches b and stops its handler.
    for _ in 0..200 {
        if hb.slow_stopped.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(hb.slow_stopped.load(Ordering::SeqCst), 1);
    assert_eq!(pb.requests_in_flight(), 0);
    assert_eq!(pa.pending_requests(), 0);
}

#[tokio::test]
async fn timeout_is_reset_by_progress_up_to_the_cap() {
    let (pa, _, _pb, _) = pair();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let options = RequestOptions {
        timeout: Some(Duration::from_millis(90)),
        reset_timeout_on_progress: true,
        max_total_timeout: Some(Duration::from_secs(5)),
        on_progress: Some(Arc::new(move |p: Progress| lock(&seen2).push(p))),
        ..Default::default()
    };
    // Takes about 120 ms in all, but progress arrives every 40 ms.
    pa.request_raw("progress", None, options).await.unwrap();
    let seen = lock(&seen).clone();
    assert_eq!(
        seen.iter().map(|p| p.progress).collect::<Vec<_>>(),
        vec![1.0, 2.0, 3.0]
    );
    assert_eq!(seen[0].total, Some(3.0));
    assert_eq!(seen[2].message.as_deref(), Some("step 3"));
    // With a hard cap below the run time, the call fails at the cap.
    let options = RequestOptions {
        timeout: Some(Duration::from_millis(90)),
        reset_timeout_on_progress: true,
        max_total_timeout: Some(Duration::from_millis(60)),
        on_progress: Some(Arc::new(|_| {})),
        ..Default::default()
    };
    let err = pa.request_raw("progress", None, options).await.unwrap_err();
    assert!(matches!(err, PeerError::Timeout { .. }), "{err:?}");
}

#[tokio::test]
async fn cancel_from_the_other_side_stops_the_handler_and_suppresses_the_response() {
    let handler = Arc::new(TestHandler::default());
    let (peer, mut source, sink) = raw_peer(handler.clone());
    sink.send_ok(request(1, "slow", json!({}))).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(peer.requests_in_flight(), 1);
    let cancel = Notification::new(
        "notifications/cancelled",
        &json!({"requestId": 1, "reason": "no longer needed"}),
    )
    .unwrap();
    sink.send_ok(Outgoing::new(Message::Notification(cancel)))
        .await;
    sink.send_ok(request(2, "echo", json!({"x": 1}))).await;
    let reply = recv(&mut source).await;
    assert_eq!(
        reply.id(),
        Some(&RequestId::Number(2)),
        "only the ping is answered: {reply:?}"
    );
    assert_eq!(handler.slow_stopped.load(Ordering::SeqCst), 1);
    assert!(
        tokio::time::timeout(Duration::from_millis(100), source.recv())
            .await
            .is_err(),
        "no response for the cancelled request"
    );
}

/// A handler's synchronous start (200 ms of CPU before its first `.await`) does not hold up the
/// cancellation of another request on the same connection: the cancelled handler is stopped
/// while the other still burns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_burning_cpu_before_its_first_await_does_not_delay_a_cancellation() {
    let handler = Arc::new(TestHandler::default());
    let (peer, mut source, sink) = raw_peer(handler.clone());
    sink.send_ok(request(1, "wait_for_cancel", json!({}))).await;
    tokio::time::timeout(Duration::from_secs(5), async {
        while peer.requests_in_flight() == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("request 1 in flight");
    sink.send_ok(request(2, "burn", json!({}))).await;
    let cancel = Notification::new("notifications/cancelled", &json!({"requestId": 1})).unwrap();
    sink.send_ok(Outgoing::new(Message::Notification(cancel)))
        .await;
    let reply = recv(&mut source).await;
    assert_eq!(reply.id(), Some(&RequestId::Number(2)), "{reply:?}");
    assert_eq!(
        *lock(&handler.events),
        ["stopped by its cancellation", "burnt"],
        "the cancellation waited for the other handler's synchronous start"
    );
    assert_eq!(
        lock(&handler.notifications).as_slice(),
        ["notifications/cancelled"],
        "the handler hears of the cancellation once"
    );
}

#[tokio::test]
async fn caller_cancellation_sends_cancelled() {
    let (pa, _, _pb, hb) = pair();
    let cancel = CancellationToken::new();
    let options = RequestOptions {
        cancel: Some(cancel.clone()),
        ..Default::default()
    };
    let call = tokio::spawn({
        let pa = pa.clone();
        async move { pa.request_raw("slow", None, options).await }
    });
    tokio::time::sleep(Duration::from_millis(30)).await;
    cancel.cancel();
    let err = call.await.unwrap().unwrap_err();
    assert!(matches!(err, PeerError::Cancelled { .. }), "{err:?}");
    for _ in 0..200 {
        if hb.slow_stopped.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(hb.slow_stopped.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn closing_the_transport_fails_pending_calls() {
    let (a, b) = memory_pair(8);
    let pa = Peer::start(a, Arc::new(TestHandler::default()), options("a"));
    let (source_b, sink_b) = b.split();
    let call = tokio::spawn({
        let pa = pa.clone();
        async move {
            pa.request_raw("echo", None, RequestOptions::default())
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(pa.pending_requests(), 1);
    drop(sink_b);
    drop(source_b);
    let err = tokio::time::timeout(Duration::from_secs(2), call)
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert!(matches!(err, PeerError::Closed(_)), "{err:?}");
    assert!(err.to_string().contains("closed"), "{err}");
    tokio::time::timeout(Duration::from_secs(2), pa.closed())
        .await
        .unwrap();
    // Later calls fail at once.
    let err = pa
        .request_raw("echo", None, RequestOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, PeerError::Closed(_)));
}

#[tokio::test]
async fn local_close_fails_pending_and_finishes() {
    let (pa, _, _pb, _) = pair();
    let call = tokio::spawn({
        let pa = pa.clone();
        async move {
            pa.request_raw("slow", None, RequestOptions::default())
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    pa.close();
    let err = call.await.unwrap().unwrap_err();
    assert_eq!(err.to_string(), "connection closed: closed locally");
    tokio::time::timeout(Duration::from_secs(2), pa.closed())
        .await
        .unwrap();
}

#[tokio::test]
async fn local_close_tells_the_other_side_to_stop_but_never_cancels_initialize() {
    let (peer, mut source, _sink) = raw_peer(Arc::new(TestHandler::default()));
    let calls: Vec<_> = ["initialize", "slow"]
        .into_iter()
        .map(|method| {
            let peer = peer.clone();
            tokio::spawn(async move {
                peer.request_raw(method, None, RequestOptions::default())
                    .await
            })
        })
        .collect();
    let mut ids = HashMap::new();
    for _ in 0..2 {
        match recv(&mut source).await {
            Message::Request(r) => ids.insert(r.method.clone(), r.id.clone()),
            other => panic!("expected a request, got {other:?}"),
        };
    }
    peer.close();
    for call in calls {
        let err = call.await.unwrap().unwrap_err();
        assert!(matches!(err, PeerError::Closed(_)), "{err:?}");
    }
    let Message::Notification(cancel) = recv(&mut source).await else {
        panic!("expected notifications/cancelled");
    };
    assert_eq!(cancel.method, "notifications/cancelled");
    let params: CancelledParams = cancel.params_as().unwrap();
    assert_eq!(params.request_id.as_ref(), ids.get("slow"));
    // Nothing for `initialize`: the transport closes next.
    let rest = tokio::time::timeout(Duration::from_secs(2), source.recv()).await;
    assert!(matches!(rest, Ok(None)), "{rest:?}");
    tokio::time::timeout(Duration::from_secs(2), peer.closed())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_panicking_read_loop_still_ends_the_peer() {
    let (peer, mut source, sink) = raw_peer(Arc::new(TestHandler::default()));
    sink.send_ok(request(1, "slow", json!({}))).await;
    let call = tokio::spawn({
        let peer = peer.clone();
        async move {
            peer.request_raw("echo", None, RequestOptions::default())
                .await
        }
    });
    let _ = recv(&mut source).await;
    let boom = Notification::new("test/panic", &json!({})).unwrap();
    sink.send_ok(Outgoing::new(Message::Notification(boom)))
        .await;
    tokio::time::timeout(Duration::from_secs(2), peer.closed())
        .await
        .expect("closed() returns after the read loop panicked");
    let err = call.await.unwrap().unwrap_err();
    assert!(matches!(err, PeerError::Closed(_)), "{err:?}");
    assert!(peer.is_closed());
}

#[tokio::test]
async fn bad_frames_get_error_responses_and_the_session_goes_on() {
    let (peer, mut source, sink) = raw_peer(Arc::new(TestHandler::default()));
    sink.inject(Err(FrameError::Parse(ParseError::Json("oops".into()))))
        .await;
    let reply = recv(&mut source).await;
    let Message::Error(e) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!((e.id, e.error.code), (None, -32700));
    sink.inject(Err(FrameError::TooLong { limit: 10 })).await;
    let Message::Error(e) = recv(&mut source).await else {
        panic!()
    };
    assert_eq!(e.error.code, -32600);
    sink.send_ok(request(5, "echo", json!({"ok": true}))).await;
    let reply = recv(&mut source).await;
    assert_eq!(reply.id(), Some(&RequestId::Number(5)));
    assert!(!peer.is_closed());
}

#[tokio::test]
async fn repeated_in_flight_id_is_refused_without_disturbing_the_first() {
    let (_peer, mut source, sink) = raw_peer(Arc::new(TestHandler::default()));
    sink.send_ok(request(1, "echo", json!({"delay_ms": 100, "first": true})))
        .await;
    sink.send_ok(request(1, "echo", json!({"second": true})))
        .await;
    let Message::Error(e) = recv(&mut source).await else {
        panic!()
    };
    assert_eq!(e.error.code, -32600);
    assert!(e.error.message.contains("already"), "{}", e.error.message);
    let Message::Response(r) = recv(&mut source).await else {
        panic!()
    };
    assert!(r.result.get().contains("first"));
}

#[tokio::test]
async fn batches_follow_the_negotiated_version() {
    let (peer, mut source, sink) = raw_peer(Arc::new(TestHandler::default()));
    let batch = || {
        Ok(Incoming::Batch(vec![
            Ok(Message::Request(Request {
                id: 1.into(),
                method: "echo".into(),
                params: Some(raw_json(r#"{"delay_ms":30}"#)),
            })),
            Ok(Message::Notification(Notification {
                method: "notifications/x".into(),
                params: None,
            })),
            Err(InvalidMessage {
                id: Some(3.into()),
                reason: "bad".into(),
            }),
            Ok(Message::Request(Request {
                id: 2.into(),
                method: "echo".into(),
                params: None,
            })),
        ]))
    };
    sink.inject(batch()).await;
    let Message::Error(e) = recv(&mut source).await else {
        panic!()
    };
    assert!(
        e.error.message.contains("batches are not supported"),
        "{}",
        e.error.message
    );
    peer.set_protocol_version(ProtocolVersion::V2025_03_26);
    sink.inject(batch()).await;
    let reply = tokio::time::timeout(Duration::from_secs(2), source.recv())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let Incoming::Batch(items) = reply else {
        panic!("{reply:?}")
    };
    let ids: Vec<_> = items
        .iter()
        .map(|m| m.as_ref().unwrap().id().cloned())
        .collect();
    assert_eq!(ids, vec![Some(1.into()), Some(3.into()), Some(2.into())]);
}

#[tokio::test]
async fn notifications_reach_the_handler_and_unknown_responses_are_dropped() {
    let handler = Arc::new(TestHandler::default());
    let (peer, mut source, sink) = raw_peer(handler.clone());
    sink.send_ok(Outgoing::new(Message::Notification(Notification {
        method: "notifications/initialized".into(),
        params: None,
    })))
    .await;
    sink.send_ok(Outgoing::new(Message::Response(Response {
        id: 999.into(),
        result: jsonrpc::empty_object(),
    })))
    .await;
    sink.send_ok(request(1, "echo", json!({}))).await;
    recv(&mut source).await;
    assert_eq!(
        lock(&handler.notifications).as_slice(),
        ["notifications/initialized"]
    );
    assert!(!peer.is_closed());
}

#[tokio::test]
async fn end_of_input_lets_in_flight_handlers_finish_and_flushes() {
    let (a, b) = memory_pair(8);
    let peer = Peer::start(b, Arc::new(TestHandler::default()), options("b"));
    let (mut source, sink) = a.split();
    sink.send_ok(request(1, "echo", json!({"delay_ms": 80})))
        .await;
    drop(sink);
    let reply = recv(&mut source).await;
    assert_eq!(reply.id(), Some(&RequestId::Number(1)));
    tokio::time::timeout(Duration::from_secs(2), peer.closed())
        .await
        .unwrap();
    assert!(
        source.recv().await.is_none(),
        "the sink is closed after the flush"
    );
}

impl MemorySink {
    async fn send_ok(&self, message: Outgoing) {
        let item = match message.body {
            Outbound::Single(m) => Incoming::Single(m),
            Outbound::Batch(ms) => Incoming::Batch(ms.into_iter().map(Ok).collect()),
        };
        assert!(self.inject(Ok(item)).await);
    }
}

/// A source that has a whole burst of requests ready at once, then ends.
struct BurstSource(std::collections::VecDeque<Received>);

impl MessageSource for BurstSource {
    async fn recv(&mut self) -> Option<Received> {
        self.0.pop_front()
    }
}

/// A sink that records how many messages each flush pushed out.
struct FlushLog {
    pending: usize,
    flushes: Arc<Mutex<Vec<usize>>>,
}

impl MessageSink for FlushLog {
    async fn send(&mut self, _message: Outgoing) -> std::io::Result<()> {
        self.pending += 1;
        Ok(())
    }
    async fn flush(&mut self) -> std::io::Result<()> {
        lock(&self.flushes).push(std::mem::take(&mut self.pending));
        Ok(())
    }
}

#[tokio::test]
async fn answers_to_a_burst_go_out_while_the_rest_is_still_read() {
    const BURST: i64 = 64;
    let burst = (1..=BURST)
        .map(|id| {
            Ok(Incoming::Single(Message::Request(Request {
                id: RequestId::Number(id),
                method: "fail".into(),
                params: None,
            })))
        })
        .collect();
    let flushes = Arc::new(Mutex::new(Vec::new()));
    let sink = FlushLog {
        pending: 0,
        flushes: flushes.clone(),
    };
    let peer = Peer::start(
        (BurstSource(burst), sink),
        Arc::new(TestHandler::default()),
        options("burst"),
    );
    tokio::time::timeout(Duration::from_secs(5), peer.closed())
        .await
        .expect("the peer finishes");
    let flushes = lock(&flushes).clone();
    assert_eq!(flushes.iter().sum::<usize>(), BURST as usize, "{flushes:?}");
    // Without the read loop's yields the writer would run only once the burst is read.
    assert!(
        flushes.len() >= BURST as usize / YIELD_EVERY && flushes[0] <= YIELD_EVERY,
        "answers went out in chunks of about {YIELD_EVERY}: {flushes:?}"
    );
    assert!(flushes.len() > 1, "{flushes:?}");
}

#[tokio::test]
async fn a_full_pending_table_fails_the_next_call_at_once() {
    let (a, b) = memory_pair(8);
    let options = PeerOptions {
        max_pending_requests: 2,
        ..options("a")
    };
    let pa = Peer::start(a, Arc::new(TestHandler::default()), options);
    // The other end reads nothing and answers nothing: both calls stay pending.
    let _silent_other_end = b.split();
    let waiting: Vec<_> = (0..2)
        .map(|_| {
            let pa = pa.clone();
            tokio::spawn(async move {
                pa.request_raw("slow", None, RequestOptions::default())
                    .await
            })
        })
        .collect();
    for _ in 0..200 {
        if pa.pending_requests() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(pa.pending_requests(), 2);
    let refused = tokio::time::timeout(
        Duration::from_millis(500),
        pa.request_raw("tools/call", None, RequestOptions::default()),
    )
    .await
    .expect("a full table refuses at once")
    .unwrap_err();
    assert!(
        matches!(&refused, PeerError::TooManyPending { method, limit: 2 } if method == "tools/call"),
        "{refused:?}"
    );
    assert!(
        refused.to_string().contains("max_pending_requests"),
        "{refused}"
    );
    assert_eq!(pa.pending_requests(), 2, "the refused call left no entry");
    pa.close();
    for call in waiting {
        assert!(matches!(call.await.unwrap(), Err(PeerError::Closed(_))));
    }
}

#[tokio::test]
async fn a_transport_failure_fails_that_call_and_nothing_else() {
    let (a, b) = memory_pair(8);
    let pa = Peer::start(a, Arc::new(TestHandler::default()), options("a"));
    let (mut source_b, _sink_b) = b.split();
    let call = tokio::spawn({
        let pa = pa.clone();
        async move {
            pa.request_raw("tools/call", None, RequestOptions::default())
                .await
        }
    });
    let Message::Request(sent) = recv(&mut source_b).await else {
        panic!("expected the request");
    };
    assert!(pa.fail_request(
        &sent.id,
        "HTTP 502 from POST http://127.0.0.1/mcp: bad gateway"
    ));
    let err = call.await.unwrap().unwrap_err();
    match &err {
        PeerError::Transport { method, detail } => {
            assert_eq!(method, "tools/call");
            assert!(detail.contains("HTTP 502"), "{detail}");
        }
        other => panic!("expected a transport error, got {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "tools/call failed in the transport: HTTP 502 from POST http://127.0.0.1/mcp: bad gateway"
    );
    assert!(!pa.fail_request(&sent.id, "again"), "nobody waits any more");
    assert!(!pa.is_closed(), "the connection goes on");
    assert_eq!(pa.pending_requests(), 0);
}

/// A sink that records what each outgoing message means to a transport.
struct IntentLog(Arc<Mutex<Vec<Intent>>>);

impl MessageSink for IntentLog {
    async fn send(&mut self, message: Outgoing) -> std::io::Result<()> {
        lock(&self.0).push(message.intent);
        Ok(())
    }
}

#[tokio::test]
async fn outgoing_messages_carry_what_they_mean() {
    let (a, _b) = memory_pair(8);
    let (source, _) = a.split();
    let intents = Arc::new(Mutex::new(Vec::new()));
    let peer = Peer::start(
        (source, IntentLog(intents.clone())),
        Arc::new(TestHandler::default()),
        options("intents"),
    );
    let initialize = tokio::spawn({
        let peer = peer.clone();
        async move {
            peer.request_raw("initialize", None, RequestOptions::default())
                .await
        }
    });
    peer.notify_raw("notifications/initialized", None, None)
        .await
        .unwrap();
    let cancel = CancellationToken::new();
    let call = tokio::spawn({
        let peer = peer.clone();
        let options = RequestOptions {
            cancel: Some(cancel.clone()),
            ..Default::default()
        };
        async move { peer.request_raw("tools/call", None, options).await }
    });
    for _ in 0..200 {
        if peer.pending_requests() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    cancel.cancel();
    assert!(matches!(
        call.await.unwrap(),
        Err(PeerError::Cancelled { .. })
    ));
    peer.close();
    assert!(matches!(
        initialize.await.unwrap(),
        Err(PeerError::Closed(_))
    ));
    tokio::time::timeout(Duration::from_secs(2), peer.closed())
        .await
        .unwrap();
    let intents = lock(&intents).clone();
    assert!(intents.contains(&Intent::Initialize), "{intents:?}");
    assert!(intents.contains(&Intent::Initialized), "{intents:?}");
    // The initialize call has id 1; the cancelled call id 2. Closing never cancels initialize.
    let cancels: Vec<_> = intents
        .iter()
        .filter(|i| matches!(i, Intent::Cancel(_)))
        .collect();
    assert_eq!(
        cancels,
        [&Intent::Cancel(RequestId::Number(2))],
        "{intents:?}"
    );
}
