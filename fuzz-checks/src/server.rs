//! A whole server fed lines through the in-memory transport.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Once;
use std::time::Duration;

use mcp_proto::codec::FrameError;
use mcp_proto::jsonrpc::{self, Incoming, Message, RequestId};
use mcp_proto::peer::{memory_pair, MessageSource, Transport};
use mcp_server::schema::GetPromptResult;
use mcp_server::schema::PromptMessage;
use mcp_server::{
    complete_from, Context, Json, LoggingLevel, Prompt, Resource, ResourceRequest,
    ResourceTemplate, Server, ServerError, Tool,
};
use serde_json::{json, Value};

use crate::reference::{self, Frame, Shape};

/// At most this many lines of an input are sent.
const MAX_LINES: usize = 256;
/// The whole conversation must end within this (the slowest tool takes 20 ms).
const DEADLINE: Duration = Duration::from_secs(20);

/// The message of the one panic the server under test is meant to have.
const DELIBERATE_PANIC: &str = "the panic tool panicked, as it should";

thread_local! {
    /// Panics on this thread other than the deliberate one, caught or not.
    static STRAY_PANICS: Cell<usize> = const { Cell::new(0) };
}

/// Installs (once) a panic hook that silences the deliberate panic and counts every other one
/// before handing it to the previous hook (libFuzzer's aborts): the peer catches handler panics,
/// so without this a panic inside the server's own code would go unseen.
fn watch_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<&str>() == Some(&DELIBERATE_PANIC) {
                return;
            }
            STRAY_PANICS.with(|n| n.set(n.get() + 1));
            previous(info);
        }));
    });
}

/// The server under test: tools that answer, fail, panic, sleep (cancellably, with progress) and
/// log; a resource, a template, a prompt with completion; lists paged two at a time.
fn server() -> Server {
    Server::builder("fuzz-server", "0.0.1")
        .instructions("A server for fuzzing.")
        .page_size(2)
        .shutdown_grace(Duration::from_secs(2))
        .tool(
            Tool::new("add", "Adds two integers").input_schema(json!({
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"]
            })),
            |args: Value, _ctx: Context| async move {
                let (a, b) = (args["a"].as_i64(), args["b"].as_i64());
                match (a, b) {
                    (Some(a), Some(b)) => Ok(Json(json!({"sum": a.wrapping_add(b)}))),
                    _ => Err("a and b must be integers"),
                }
            },
        )
        .tool(
            Tool::new("echo", "Echoes text").read_only(),
            |args: Value, _ctx: Context| async move {
                args["text"].as_str().unwrap_or_default().to_owned()
            },
        )
        .tool(
            Tool::new("fail", "Always fails"),
            |_: Value, _ctx: Context| async move { Err::<String, _>("this tool always fails") },
        )
        .tool(
            Tool::new("panic", "Panics"),
            |args: Value, _ctx: Context| async move {
                if args.get("calm").is_none() {
                    std::panic::panic_any(DELIBERATE_PANIC);
                }
                String::new()
            },
        )
        .tool(
            Tool::new("slow", "Sleeps up to 20 ms"),
            |args: Value, ctx: Context| async move {
                let ms = args["ms"].as_u64().unwrap_or(5).min(20);
                ctx.progress(1.0, Some(2.0), Some("started".into())).await;
                tokio::select! {
                    _ = ctx.cancelled() => "cancelled".to_owned(),
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => {
                        ctx.progress(2.0, Some(2.0), None).await;
                        format!("slept {ms} ms")
                    }
                }
            },
        )
        .tool(
            Tool::new("log", "Logs at every level"),
            |_: Value, ctx: Context| async move {
                for level in LoggingLevel::ALL {
                    ctx.log(level, json!({"level": level.as_str()})).await;
                }
                "logged"
            },
        )
        .resource(
            Resource::new("fuzz://static", "static").mime_type("text/plain"),
            |_req: ResourceRequest, _ctx: Context| async { "static text" },
        )
        .resource_template(
            ResourceTemplate::new("fuzz://item/{id}", "item"),
            |req: ResourceRequest, _ctx: Context| async move {
                match req.var("id") {
                    Some("missing") => Err(ServerError::ResourceNotFound(req.uri.clone())),
                    id => Ok(format!("item {}", id.unwrap_or_default())),
                }
            },
        )
        .prompt(
            Prompt::new("greet", "Greets").argument("name", "Who", true),
            |args: Value, _ctx: Context| async move {
                let name = args["name"].as_str().unwrap_or("nobody").to_owned();
                GetPromptResult::new(vec![PromptMessage::user(format!("Hello {name}"))])
            },
        )
        .prompt_completion(
            "greet",
            "name",
            |req: mcp_server::CompletionRequest, _ctx: Context| async move {
                complete_from(&["alice", "albert", "bob"], &req.value)
            },
        )
        .build()
}

/// How many answers an id may get: at least `min`, at most `max`.
#[derive(Default, Debug)]
struct Expected {
    /// Sent in a frame of its own: answered exactly once each, unless cancelled.
    single: usize,
    /// Sent inside a batch: answered once each, or not at all when the batch is refused.
    in_batch: usize,
}

/// What the client sent, read by the reference.
#[derive(Default)]
struct Sent {
    ids: HashMap<RequestId, Expected>,
    cancelled: Vec<RequestId>,
    frames: usize,
    elements: usize,
}

impl Sent {
    fn note(&mut self, shape: &Shape, in_batch: bool) {
        self.elements += 1;
        if let Some(id) = shape.id_to_answer() {
            let e = self.ids.entry(id.clone()).or_default();
            if in_batch {
                e.in_batch += 1;
            } else {
                e.single += 1;
            }
        }
        if let Shape::Notification {
            method,
            params: Some(params),
        } = shape
        {
            if method == "notifications/cancelled" {
                let params: Value = serde_json::from_str(params).unwrap_or_default();
                if let Ok(id) = serde_json::from_value::<RequestId>(params["requestId"].clone()) {
                    self.cancelled.push(id);
                }
            }
        }
    }
}

/// What the server sent.
#[derive(Default)]
struct Received {
    answers: HashMap<RequestId, usize>,
    null_errors: usize,
    messages: usize,
}

impl Received {
    /// Checks one message from the server: valid JSON-RPC by the reference, and counted.
    fn take(&mut self, m: &Message, in_batch: bool) {
        self.messages += 1;
        let text = m.to_json();
        let shape = reference::message(&text);
        match shape {
            Shape::Response { id, .. } | Shape::Error { id: Some(id), .. } => {
                *self.answers.entry(id).or_default() += 1;
            }
            Shape::Error { id: None, .. } => self.null_errors += 1,
            Shape::Request { .. } | Shape::Notification { .. } if !in_batch => {}
            other => panic!("the server sent {text}, which reads as {other:?}"),
        }
    }
}

/// Serves a fresh server, sends it the lines of `data` (each parsed as the stdio transport
/// would, unparsable ones as frame errors), closes the input, and checks: the conversation ends
/// in time and no panic escapes; every message out is valid JSON-RPC; every answer carries an id
/// that was sent; each request sent in a frame of its own with an id is answered exactly once per
/// time it was sent (unless it was cancelled); a request in a batch at most once; and the number
/// of messages out is bounded by what came in.
pub fn check_server(data: &[u8]) {
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .take(MAX_LINES)
        .collect();
    watch_panics();
    let stray_before = STRAY_PANICS.with(Cell::get);
    let mut builder = tokio::runtime::Builder::new_current_thread();
    builder.enable_time();
    #[cfg(feature = "paused-time")]
    builder.start_paused(true);
    let runtime = builder.build().expect("a tokio runtime");
    let (sent, received, opaque) = runtime.block_on(async {
        tokio::time::timeout(DEADLINE, converse(&lines))
            .await
            .unwrap_or_else(|_| panic!("the conversation did not end within {DEADLINE:?}"))
    });

    assert_eq!(
        STRAY_PANICS.with(Cell::get),
        stray_before,
        "a panic other than the panic tool's happened inside the server (see above)"
    );
    for (id, count) in &received.answers {
        let Some(expected) = sent.ids.get(id) else {
            if opaque {
                continue;
            }
            panic!("the server answered id {id} {count} time(s), but no request had it");
        };
        let cancelled = sent.cancelled.contains(id);
        let min = if cancelled { 0 } else { expected.single };
        // A frame that is not UTF-8 has ids the reference does not read (the parser may).
        let max = if opaque {
            usize::MAX
        } else {
            expected.single + expected.in_batch
        };
        assert!(
            (min..=max).contains(count),
            "id {id} answered {count} time(s), expected {min}..={max} ({expected:?}, cancelled: {cancelled})"
        );
    }
    for (id, expected) in &sent.ids {
        if expected.single > 0 && !sent.cancelled.contains(id) {
            assert!(
                received.answers.contains_key(id),
                "request {id} was never answered ({expected:?})"
            );
        }
    }
    assert!(
        received.null_errors <= sent.frames + sent.elements,
        "{} errors with a null id for {} frames",
        received.null_errors,
        sent.frames
    );
    let bound = 16 + 4 * (sent.frames + sent.elements);
    assert!(
        received.messages <= bound,
        "{} messages out for {} frames in",
        received.messages,
        sent.frames
    );
}

/// Runs one conversation; returns what was sent, what came back, and whether some frame could
/// not be read by the reference (so an answer's id cannot be checked against it).
async fn converse(lines: &[&[u8]]) -> (Sent, Received, bool) {
    let server = server();
    let (client, server_end) = memory_pair(16);
    let session = server.serve(server_end);
    let (mut source, sink) = client.split();

    // Read everything the server sends while sending, so neither side blocks the other.
    let reader = tokio::spawn(async move {
        let mut received = Received::default();
        while let Some(item) = source.recv().await {
            match item {
                Ok(Incoming::Single(m)) => received.take(&m, false),
                Ok(Incoming::Batch(items)) => {
                    assert!(!items.is_empty(), "the server sent an empty batch");
                    for item in items {
                        let m = item.unwrap_or_else(|e| panic!("a bad batch item: {e}"));
                        received.take(&m, true);
                    }
                }
                Err(e) => panic!("the server sent a frame that is not JSON-RPC: {e}"),
            }
        }
        received
    });

    let mut sent = Sent::default();
    let mut opaque = false;
    for line in lines {
        sent.frames += 1;
        match reference::frame(line) {
            Frame::Single(Shape::NotUtf8) => opaque = true,
            Frame::Single(shape) => sent.note(&shape, false),
            Frame::Batch(shapes) => {
                for shape in &shapes {
                    sent.note(shape, true);
                }
            }
        }
        let item = jsonrpc::parse(line).map_err(FrameError::from);
        if !sink.inject(item).await {
            break;
        }
    }
    drop(sink);
    let received = match reader.await {
        Ok(received) => received,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => panic!("the reader task failed: {e}"),
    };
    session.closed().await;
    (sent, received, opaque)
}
