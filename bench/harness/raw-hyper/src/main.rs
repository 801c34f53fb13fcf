//! raw-hyper-weather: a Streamable HTTP MCP server written by hand on hyper 1 and serde_json, with
//! no SDK and no web framework; the practical limit an HTTP server can reach in Rust here.
//!
//!     raw-hyper-weather PORT [stateful|stateless]      (default stateful; binds 127.0.0.1)
//!
//! POST /mcp carries one JSON-RPC message and is always answered with JSON, never SSE: a request
//! gets 200 and its response, a notification or a client's response 202 and no body. Stateful:
//! `initialize` opens a session (a counter as `Mcp-Session-Id`; predictable, for local benchmarks
//! only), every later POST must name a live one (400 without the header, 404 for an unknown id),
//! and DELETE ends it. Stateless: no sessions at all. Any other method on /mcp gets 405.
//! Both modes also answer 2026-07-28 requests (`_meta["io.modelcontextprotocol/protocolVersion"]`
//! in the params) statelessly, as the least a modern server must do: `MCP-Protocol-Version`,
//! `Mcp-Method` and `Mcp-Name` must equal the body's (400 with -32020 otherwise), the version must
//! be 2026-07-28 (400 with -32022), and results carry `resultType` and `serverInfo`.
//! Connections: hyper-util's automatic HTTP/1.1 (keep-alive) or h2c server, TCP_NODELAY on every
//! accepted socket, a two-worker tokio runtime.

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderName, HeaderValue, ALLOW, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use serde_json::Value;
use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

const BODY_LIMIT: usize = 4 * 1024 * 1024;
const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
const MODERN: &str = "2026-07-28";
const SERVER_INFO: &str = r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"raw-hyper-weather","version":"0.1.0"}}"#;
const TOOLS: &str = r#"{"tools":[{"name":"get_weather","description":"Get the current weather for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}"#;

/// The synthetic weather of every comparison server, as whole answers (nothing to escape).
fn weather(city: &str) -> Option<&'static str> {
    match city {
        "shenzhen" => Some("shenzhen: thunderstorms 30C"),
        "beijing" => Some("beijing: sunny 22C"),
        "london" => Some("london: drizzle 12C"),
        "paris" => Some("paris: cloudy 16C"),
        "tokyo" => Some("tokyo: clear 18C"),
        _ => None,
    }
}

/// Live sessions, or None when stateless.
struct Sessions {
    live: Option<RwLock<HashSet<u64>>>,
    next: AtomicU64,
}

impl Sessions {
    fn open(&self) -> Option<u64> {
        let live = self.live.as_ref()?;
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        live.write().unwrap().insert(id);
        Some(id)
    }

    fn is_live(&self, id: u64) -> bool {
        self.live
            .as_ref()
            .is_some_and(|live| live.read().unwrap().contains(&id))
    }

    fn close(&self, id: u64) -> bool {
        self.live
            .as_ref()
            .is_some_and(|live| live.write().unwrap().remove(&id))
    }
}

type Reply = Response<Full<Bytes>>;

fn bare(status: StatusCode) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::new()));
    *reply.status_mut() = status;
    reply
}

fn json(status: StatusCode, body: Vec<u8>) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::from(body)));
    *reply.status_mut() = status;
    reply
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    reply
}

/// A JSON-RPC response written straight into bytes: `{"jsonrpc":"2.0","id":ID,` then the rest.
struct Envelope(Vec<u8>);

impl Envelope {
    fn new(id: &Value, room: usize) -> Self {
        let mut bytes = Vec::with_capacity(room);
        bytes.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        serde_json::to_writer(&mut bytes, id).expect("a JSON value serializes");
        bytes.push(b',');
        Envelope(bytes)
    }

    fn raw(mut self, part: &str) -> Self {
        self.0.extend_from_slice(part.as_bytes());
        self
    }

    fn string(mut self, value: &str) -> Self {
        serde_json::to_writer(&mut self.0, value).expect("a string serializes");
        self
    }

    fn done(self, status: StatusCode) -> Reply {
        json(status, self.0)
    }
}

fn rpc_error(status: StatusCode, id: &Value, code: i32, message: &str) -> Reply {
    Envelope::new(id, 96)
        .raw(&format!(r#""error":{{"code":{code},"message":"#))
        .string(message)
        .raw("}}")
        .done(status)
}

/// None: no session header; Some(None): one that is not a session id; Some(Some(id)).
fn session_header(request: &Request<Incoming>) -> Option<Option<u64>> {
    let value = request.headers().get(&SESSION_HEADER)?;
    Some(
        value
            .to_str()
            .ok()
            .and_then(|v| u64::from_str_radix(v, 16).ok()),
    )
}

async fn serve(request: Request<Incoming>, sessions: Arc<Sessions>) -> Result<Reply, Infallible> {
    if request.uri().path() != "/mcp" {
        return Ok(bare(StatusCode::NOT_FOUND));
    }
    let stateful = sessions.live.is_some();
    if request.method() == Method::DELETE && stateful {
        return Ok(match session_header(&request) {
            Some(Some(id)) if sessions.close(id) => bare(StatusCode::OK),
            Some(Some(_)) => bare(StatusCode::NOT_FOUND),
            _ => bare(StatusCode::BAD_REQUEST),
        });
    }
    if request.method() != Method::POST {
        let mut reply = bare(StatusCode::METHOD_NOT_ALLOWED);
        let allowed = if stateful { "POST, DELETE" } else { "POST" };
        reply
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static(allowed));
        return Ok(reply);
    }
    let session = session_header(&request);
    let (parts, body) = request.into_parts();
    let headers = parts.headers;
    let body = match Limited::new(body, BODY_LIMIT).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return Ok(rpc_error(
                StatusCode::BAD_REQUEST,
                &Value::Null,
                -32600,
                "Invalid request body",
            ))
        }
    };
    let message = match serde_json::from_slice::<Value>(&body) {
        Ok(message) if message.is_object() => message,
        Ok(_) => {
            return Ok(rpc_error(
                StatusCode::BAD_REQUEST,
                &Value::Null,
                -32600,
                "Invalid Request",
            ))
        }
        Err(_) => {
            return Ok(rpc_error(
                StatusCode::BAD_REQUEST,
                &Value::Null,
                -32700,
                "Parse error",
            ))
        }
    };
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id");
    let params = &message["params"];
    let modern = params["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str();
    if let Some(version) = modern {
        return Ok(serve_modern(&headers, version, method, id, params));
    }

    if let (Some("initialize"), Some(id)) = (method, id) {
        let version = params["protocolVersion"].as_str().unwrap_or("2024-11-05");
        let mut reply = Envelope::new(id, 192)
            .raw(r#""result":{"protocolVersion":"#)
            .string(version)
            .raw(r#","capabilities":{"tools":{}},"serverInfo":{"name":"raw-hyper-weather","version":"0.1.0"}}}"#)
            .done(StatusCode::OK);
        if let Some(session) = sessions.open() {
            let value =
                HeaderValue::from_str(&format!("{session:016x}")).expect("hex is a header value");
            reply.headers_mut().insert(SESSION_HEADER, value);
        }
        return Ok(reply);
    }
    if stateful {
        let id = id.unwrap_or(&Value::Null);
        match session {
            None => {
                let message = "Bad Request: Mcp-Session-Id header is required";
                return Ok(rpc_error(StatusCode::BAD_REQUEST, id, -32000, message));
            }
            Some(Some(session)) if sessions.is_live(session) => {}
            Some(_) => {
                return Ok(rpc_error(
                    StatusCode::NOT_FOUND,
                    id,
                    -32001,
                    "Session not found",
                ))
            }
        }
    }
    let (method, id) = match (method, id) {
        (Some(method), Some(id)) => (method, id),
        (None, None) => {
            return Ok(rpc_error(
                StatusCode::BAD_REQUEST,
                &Value::Null,
                -32600,
                "Invalid Request",
            ))
        }
        // a notification, or a response from the client: taken, nothing to say
        _ => return Ok(bare(StatusCode::ACCEPTED)),
    };
    Ok(match method {
        "tools/call" if params["name"] == "get_weather" => {
            let city = params["arguments"]["city"].as_str().unwrap_or_default();
            let start =
                Envelope::new(id, 128).raw(r#""result":{"content":[{"type":"text","text":"#);
            let with_text = match weather(city) {
                Some(text) => start.raw("\"").raw(text).raw("\""),
                None => start.string(&format!("{city}: unknown")),
            };
            with_text
                .raw(r#"}],"isError":false}}"#)
                .done(StatusCode::OK)
        }
        "tools/call" => rpc_error(StatusCode::OK, id, -32602, "Unknown tool"),
        "tools/list" => Envelope::new(id, 64 + TOOLS.len())
            .raw(r#""result":"#)
            .raw(TOOLS)
            .raw("}")
            .done(StatusCode::OK),
        "ping" => Envelope::new(id, 48)
            .raw(r#""result":{}}"#)
            .done(StatusCode::OK),
        _ => rpc_error(StatusCode::OK, id, -32601, "Method not found"),
    })
}

/// The value of header NAME as text, if present and visible ASCII.
fn header<'h>(headers: &'h hyper::HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// A 2026-07-28 request: the mirrored headers checked, then the answer with `resultType`.
fn serve_modern(
    headers: &hyper::HeaderMap,
    version: &str,
    method: Option<&str>,
    id: Option<&Value>,
    params: &Value,
) -> Reply {
    let (Some(method), Some(id)) = (method, id) else {
        return bare(StatusCode::ACCEPTED);
    };
    let mismatch = |what: &str| rpc_error(StatusCode::BAD_REQUEST, id, -32020, what);
    if header(headers, "mcp-protocol-version") != Some(version) {
        return mismatch("Header mismatch: MCP-Protocol-Version");
    }
    if header(headers, "mcp-method") != Some(method) {
        return mismatch("Header mismatch: Mcp-Method");
    }
    if version != MODERN {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            id,
            -32022,
            "Unsupported protocol version",
        );
    }
    match method {
        "tools/call" => {
            let name = params["name"].as_str().unwrap_or_default();
            if header(headers, "mcp-name") != Some(name) {
                return mismatch("Header mismatch: Mcp-Name");
            }
            if name != "get_weather" {
                return rpc_error(StatusCode::BAD_REQUEST, id, -32602, "Unknown tool");
            }
            let city = params["arguments"]["city"].as_str().unwrap_or_default();
            let start = Envelope::new(id, 224)
                .raw(r#""result":{"resultType":"complete","content":[{"type":"text","text":"#);
            let with_text = match weather(city) {
                Some(text) => start.raw("\"").raw(text).raw("\""),
                None => start.string(&format!("{city}: unknown")),
            };
            with_text
                .raw(r#"}],"isError":false,"#)
                .raw(SERVER_INFO)
                .raw("}}")
                .done(StatusCode::OK)
        }
        _ => rpc_error(StatusCode::NOT_FOUND, id, -32601, "Method not found"),
    }
}

async fn listen(port: u16, sessions: Arc<Sessions>) {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap_or_else(|e| usage(&format!("cannot bind 127.0.0.1:{port}: {e}")));
    let mode = if sessions.live.is_some() {
        "stateful"
    } else {
        "stateless"
    };
    eprintln!("raw-hyper-weather: {mode}, listening on 127.0.0.1:{port}");
    let mut connections = auto::Builder::new(TokioExecutor::new());
    connections.http1().keep_alive(true);
    let connections = Arc::new(connections);
    loop {
        let socket = match listener.accept().await {
            Ok((socket, _)) => socket,
            Err(e) => {
                eprintln!("raw-hyper-weather: accept: {e}");
                continue;
            }
        };
        let _ = socket.set_nodelay(true);
        let sessions = sessions.clone();
        let connections = connections.clone();
        tokio::spawn(async move {
            let service =
                hyper::service::service_fn(move |request| serve(request, sessions.clone()));
            let _ = connections
                .serve_connection(TokioIo::new(socket), service)
                .await;
        });
    }
}

fn usage(problem: &str) -> ! {
    eprintln!("raw-hyper-weather: {problem}\nusage: raw-hyper-weather PORT [stateful|stateless]");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let port = args
        .next()
        .and_then(|p| p.parse::<u16>().ok())
        .unwrap_or_else(|| usage("PORT is missing or bad"));
    let stateful = match args.next().as_deref() {
        None | Some("stateful") => true,
        Some("stateless") => false,
        Some(other) => usage(&format!("unknown mode {other:?}")),
    };
    let sessions = Arc::new(Sessions {
        live: stateful.then(Default::default),
        next: AtomicU64::new(1),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .build()
        .unwrap_or_else(|e| usage(&format!("no runtime: {e}")));
    runtime.block_on(listen(port, sessions));
}
