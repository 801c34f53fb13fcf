//! Measurements of a Streamable HTTP server: C keep-alive connections, each its own MCP session
//! (or, with `--era modern`, no session: stateless 2026-07-28 POSTs), each making sequential
//! calls, started together after their warm-up.

use crate::line::Line;
use crate::procfs::{self, CpuWindow};
use crate::protocol::{self, INITIALIZE, INITIALIZED};
use crate::stats::Latencies;
use crate::{bounded, fatal, Options};
use serde_json::Value;
use std::cell::Cell;
use std::io::Write;
use std::rc::Rc;
use std::time::Instant;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::{watch, Notify};

/// Where to POST: the socket address and what goes into the request line and `Host`.
struct Endpoint {
    socket: String,
    host: String,
    path: String,
}

impl Endpoint {
    /// Accepts http://127.0.0.1[:PORT][/PATH] and http://localhost[...] only.
    fn parse(url: &str) -> Self {
        let rest = url
            .strip_prefix("http://")
            .unwrap_or_else(|| fatal("the URL must start with http://"));
        let (authority, path) = rest.find('/').map_or((rest, "/"), |i| rest.split_at(i));
        let (name, port) = match authority.rsplit_once(':') {
            Some((name, port)) => (
                name,
                port.parse::<u16>()
                    .unwrap_or_else(|_| fatal("bad port in URL")),
            ),
            None => (authority, 80),
        };
        if name != "127.0.0.1" && name != "localhost" {
            fatal("only loopback URLs (127.0.0.1 or localhost) are measured");
        }
        Endpoint {
            socket: format!("127.0.0.1:{port}"),
            host: authority.to_owned(),
            path: path.to_owned(),
        }
    }
}

/// One HTTP answer, as much of it as the driver needs.
struct Answer {
    status: u16,
    event_stream: bool,
    body: Vec<u8>,
}

/// A keep-alive connection carrying one MCP session.
struct Session {
    endpoint: Rc<Endpoint>,
    stream: Option<BufReader<TcpStream>>,
    session_id: Option<String>,
    protocol_version: Option<String>,
    /// 2026-07-28: every POST is a `tools/call` with its mirrored headers.
    modern: bool,
    connects: u64,
    request: Vec<u8>,
    line: Vec<u8>,
}

impl Session {
    fn new(endpoint: Rc<Endpoint>, modern: bool) -> Self {
        Session {
            endpoint,
            stream: None,
            session_id: None,
            protocol_version: None,
            modern,
            connects: 0,
            request: Vec::with_capacity(512),
            line: Vec::with_capacity(256),
        }
    }

    /// The open connection, connecting (with TCP_NODELAY) when there is none.
    async fn connection(&mut self) -> Result<&mut BufReader<TcpStream>, String> {
        if self.stream.is_none() {
            let tcp = TcpStream::connect(&self.endpoint.socket)
                .await
                .map_err(|e| format!("connect to {}: {e}", self.endpoint.socket))?;
            let _ = tcp.set_nodelay(true);
            self.stream = Some(BufReader::with_capacity(64 * 1024, tcp));
            self.connects += 1;
        }
        Ok(self.stream.as_mut().expect("just connected"))
    }

    async fn post(&mut self, body: &[u8]) -> Result<Answer, String> {
        let request = &mut self.request;
        request.clear();
        write!(
            request,
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.endpoint.path,
            self.endpoint.host,
            body.len()
        )
        .expect("writing to a Vec");
        if let Some(id) = &self.session_id {
            write!(request, "Mcp-Session-Id: {id}\r\n").expect("writing to a Vec");
        }
        if let Some(version) = &self.protocol_version {
            write!(request, "MCP-Protocol-Version: {version}\r\n").expect("writing to a Vec");
        }
        if self.modern {
            write!(
                request,
                "MCP-Protocol-Version: {}\r\nMcp-Method: tools/call\r\nMcp-Name: get_weather\r\n",
                protocol::MODERN
            )
            .expect("writing to a Vec");
        }
        request.extend_from_slice(b"\r\n");
        request.extend_from_slice(body);
        let request = std::mem::take(&mut self.request);
        let mut line = std::mem::take(&mut self.line);
        let result = self.exchange(&request, &mut line).await;
        self.request = request;
        self.line = line;
        if result.is_err() {
            self.stream = None;
        }
        result
    }

    /// Writes REQUEST and reads the answer: status line, headers, then a body by Content-Length,
    /// by chunks or up to the end of the connection.
    async fn exchange(&mut self, request: &[u8], line: &mut Vec<u8>) -> Result<Answer, String> {
        let stream = self.connection().await?;
        stream
            .get_mut()
            .write_all(request)
            .await
            .map_err(|e| format!("send: {e}"))?;
        if read_line(stream, line, "receive").await? == 0 {
            return Err("the server closed the connection before answering".into());
        }
        let status_line = String::from_utf8_lossy(line).into_owned();
        let status: u16 = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("not an HTTP status line: {status_line:?}"))?;
        let mut keep_alive = !status_line.starts_with("HTTP/1.0");
        let (mut length, mut chunked, mut event_stream, mut session_id) =
            (None, false, false, None);
        loop {
            if read_line(stream, line, "receive").await? == 0 {
                return Err("the connection ended inside the headers".into());
            }
            let header = protocol::trim(line);
            if header.is_empty() {
                break;
            }
            let header = String::from_utf8_lossy(header);
            let Some((name, value)) = header.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
                "content-type" => {
                    event_stream = value.to_ascii_lowercase().starts_with("text/event-stream")
                }
                "mcp-session-id" => session_id = Some(value.to_owned()),
                "connection" => {
                    let value = value.to_ascii_lowercase();
                    if value.contains("close") {
                        keep_alive = false;
                    } else if value.contains("keep-alive") {
                        keep_alive = true;
                    }
                }
                _ => {}
            }
        }
        let mut body = Vec::new();
        let bodyless = status == 204 || status == 304 || (100..200).contains(&status);
        if bodyless {
        } else if chunked {
            loop {
                read_line(stream, line, "chunk size").await?;
                let size_text = String::from_utf8_lossy(protocol::trim(line)).into_owned();
                let size_hex = size_text.split(';').next().unwrap_or_default().trim();
                let size = usize::from_str_radix(size_hex, 16)
                    .map_err(|_| format!("bad chunk size {size_text:?}"))?;
                if size == 0 {
                    // trailers, up to the blank line
                    loop {
                        let read = read_line(stream, line, "trailer").await?;
                        if read == 0 || protocol::trim(line).is_empty() {
                            break;
                        }
                    }
                    break;
                }
                let start = body.len();
                body.resize(start + size, 0);
                stream
                    .read_exact(&mut body[start..])
                    .await
                    .map_err(|e| format!("chunk: {e}"))?;
                read_line(stream, line, "chunk end").await?;
            }
        } else if let Some(length) = length {
            body.resize(length, 0);
            stream
                .read_exact(&mut body)
                .await
                .map_err(|e| format!("body: {e}"))?;
        } else {
            stream
                .read_to_end(&mut body)
                .await
                .map_err(|e| format!("body: {e}"))?;
            keep_alive = false;
        }
        if let Some(id) = session_id {
            self.session_id = Some(id);
        }
        if !keep_alive {
            self.stream = None;
        }
        Ok(Answer {
            status,
            event_stream,
            body,
        })
    }

    /// POSTs a request and returns its JSON-RPC response, from a JSON body or an SSE stream.
    async fn call(&mut self, message: &[u8]) -> Result<Value, String> {
        let answer = self.post(message).await?;
        if answer.status != 200 {
            return Err(format!(
                "HTTP {}: {}",
                answer.status,
                String::from_utf8_lossy(&answer.body)
            ));
        }
        if answer.event_stream {
            response_in_events(&answer.body)
        } else {
            serde_json::from_slice(&answer.body).map_err(|e| {
                format!(
                    "body is not JSON ({e}): {}",
                    String::from_utf8_lossy(&answer.body)
                )
            })
        }
    }

    /// initialize (keeping the session id and the protocol version), then notifications/initialized.
    async fn open(&mut self) -> Result<(), String> {
        let answer = self.call(INITIALIZE.as_bytes()).await?;
        let result = answer
            .get("result")
            .ok_or_else(|| format!("initialize failed: {answer}"))?;
        self.protocol_version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let status = self.post(INITIALIZED.as_bytes()).await?.status;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(format!("notifications/initialized got HTTP {status}"))
        }
    }
}

/// The first JSON-RPC response among the `data` of the events of an SSE body.
fn response_in_events(body: &[u8]) -> Result<Value, String> {
    let text = String::from_utf8_lossy(body);
    let mut data = String::new();
    let mut events = Vec::new();
    for line in text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)) {
        if line.is_empty() {
            events.push(std::mem::take(&mut data));
        } else if let Some(value) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    events.push(data);
    events
        .iter()
        .filter(|d| !d.is_empty())
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .find(protocol::is_response)
        .ok_or_else(|| format!("no JSON-RPC response in the event stream: {text}"))
}

/// Checks an answer to a call and returns its id.
type Check = fn(&Value) -> Result<u64, String>;

/// What the workers of one concurrency level share.
struct Level {
    endpoint: Rc<Endpoint>,
    modern: bool,
    ready: Cell<usize>,
    all_ready: Notify,
    go: watch::Receiver<Option<Instant>>,
}

/// One connection of a level: opens its session, warms up, waits for the start, then makes up
/// to QUOTA calls until the deadline. Returns its latencies and how often it connected.
async fn worker(level: Rc<Level>, number: usize, quota: usize, warmup: usize) -> (Vec<u64>, u64) {
    let mut session = Session::new(level.endpoint.clone(), level.modern);
    let (message, check): (fn(u64) -> Vec<u8>, Check) = if level.modern {
        (protocol::modern_call, protocol::check_modern_call)
    } else {
        session
            .open()
            .await
            .unwrap_or_else(|e| fatal(format!("connection {number}: {e}")));
        (protocol::call, protocol::check_call)
    };
    let mut id = 1u64;
    for _ in 0..warmup {
        let answer = session
            .call(&message(id))
            .await
            .unwrap_or_else(|e| fatal(format!("warm-up: {e}")));
        check(&answer).unwrap_or_else(|e| fatal(e));
        id += 1;
    }
    level.ready.set(level.ready.get() + 1);
    level.all_ready.notify_one();
    let mut go = level.go.clone();
    let deadline = *go
        .wait_for(Option::is_some)
        .await
        .expect("the level outlives its workers");
    let deadline = deadline.expect("waited for Some");
    let mut samples = Vec::with_capacity(quota);
    for _ in 0..quota {
        let sent = Instant::now();
        let answer = session
            .call(&message(id))
            .await
            .unwrap_or_else(|e| fatal(format!("call: {e}")));
        samples.push(sent.elapsed().as_micros() as u64);
        match check(&answer) {
            Ok(got) if got == id => {}
            Ok(got) => fatal(format!("sent id {id}, the answer has id {got}")),
            Err(e) => fatal(e),
        }
        id += 1;
        if Instant::now() > deadline {
            break;
        }
    }
    (samples, session.connects)
}

/// One concurrency level: C connections share http_n calls.
async fn level(o: &Options, endpoint: Rc<Endpoint>, connections: usize) {
    let quota = (o.http_n / connections).max(1);
    let warmup = (o.warmup / connections).max(5);
    let (start, go) = watch::channel(None);
    let shared = Rc::new(Level {
        endpoint,
        modern: o.modern,
        ready: Cell::new(0),
        all_ready: Notify::new(),
        go,
    });
    let workers: Vec<_> = (0..connections)
        .map(|n| tokio::task::spawn_local(worker(shared.clone(), n, quota, warmup)))
        .collect();
    while shared.ready.get() < connections {
        shared.all_ready.notified().await;
    }
    let cpu = CpuWindow::open(o.server_pid);
    let started = Instant::now();
    start.send_replace(Some(started + o.cap()));
    let mut samples = Vec::with_capacity(quota * connections);
    let mut connects = 0;
    for handle in workers {
        let (mine, count) = handle.await.expect("a worker panicked");
        samples.extend(mine);
        connects += count;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let latencies = Latencies::sorted(samples);
    let done = latencies.len();
    Line::new(&o.label)
        .text("transport", "http")
        .text("metric", &format!("http_c{connections}"))
        .text("era", if o.modern { "2026-07-28" } else { "legacy" })
        .int("c", connections as u64)
        .int("n", done as u64)
        .int("n_requested", (quota * connections) as u64)
        .real("elapsed_s", elapsed, 3)
        .real("calls_per_s", done as f64 / elapsed, 1)
        .with(|l| latencies.fields(l))
        .int("tcp_connects", connects)
        .with(|l| cpu.close(done, l))
        .int("errors", 0)
        .print();
}

pub async fn run(o: Options, rest: Vec<String>) {
    let url = rest.first().unwrap_or_else(|| fatal("http needs a URL"));
    let endpoint = Rc::new(Endpoint::parse(url));
    let local = tokio::task::LocalSet::new();
    local
        .run_until(async {
            for &connections in &o.levels {
                let phase = format!("http_c{connections}");
                bounded(&o, &phase, level(&o, endpoint.clone(), connections)).await;
            }
        })
        .await;
    if let Some(pid) = o.server_pid {
        procfs::print_memory(&o.label, "http", pid);
    }
}

/// Reads one line (LF included) into `line`, replacing what it held; 0 at the end of the stream.
async fn read_line(
    stream: &mut BufReader<TcpStream>,
    line: &mut Vec<u8>,
    what: &str,
) -> Result<usize, String> {
    line.clear();
    stream
        .read_until(b'\n', line)
        .await
        .map_err(|e| format!("{what}: {e}"))
}
