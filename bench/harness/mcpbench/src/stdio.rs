//! Measurements of a server spoken to over its stdin and stdout.

use crate::line::Line;
use crate::procfs::{self, CpuWindow};
use crate::protocol::{self, INITIALIZE, INITIALIZED};
use crate::stats::Latencies;
use crate::{bounded, fatal, Options};
use serde_json::Value;
use std::process::Stdio;
use std::rc::Rc;
use std::time::Instant;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Semaphore;

/// A server child process and the two pipes to it.
struct Server {
    child: Child,
    pid: u32,
    /// Taken by the pipelined writer task while it runs.
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    line: Vec<u8>,
    outgoing: Vec<u8>,
}

impl Server {
    fn spawn(command: &[String]) -> Self {
        let stderr = match std::env::var("MCPBENCH_STDERR").as_deref() {
            Ok("inherit") => Stdio::inherit(),
            _ => Stdio::null(),
        };
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| fatal(format!("cannot start {command:?}: {e}")));
        Server {
            pid: child.id().unwrap_or(0),
            input: child.stdin.take(),
            output: BufReader::with_capacity(
                64 * 1024,
                child.stdout.take().expect("stdout is piped"),
            ),
            child,
            line: Vec::with_capacity(4096),
            outgoing: Vec::with_capacity(256),
        }
    }

    /// Writes one message and a newline, then flushes.
    async fn send(&mut self, message: &[u8]) -> Result<(), String> {
        self.outgoing.clear();
        self.outgoing.extend_from_slice(message);
        self.outgoing.push(b'\n');
        let input = self.input.as_mut().expect("stdin is back from the writer");
        input
            .write_all(&self.outgoing)
            .await
            .map_err(|e| format!("write to server: {e}"))?;
        input
            .flush()
            .await
            .map_err(|e| format!("flush to server: {e}"))
    }

    async fn response(&mut self) -> Result<Value, String> {
        next_response(&mut self.output, &mut self.line).await
    }

    async fn initialize(&mut self) -> Result<(), String> {
        self.send(INITIALIZE.as_bytes()).await?;
        let answer = self.response().await?;
        if answer.get("id").and_then(Value::as_u64) == Some(0) && answer.get("result").is_some() {
            Ok(())
        } else {
            Err(format!("unexpected answer to initialize: {answer}"))
        }
    }

    /// Closes stdin, kills the process by its PID and reaps it (waiting at most 5 s).
    async fn stop(self) {
        let Server {
            mut child, input, ..
        } = self;
        drop(input);
        let _ = child.start_kill();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), child.wait()).await;
    }
}

/// The next response on OUTPUT; blank lines, notifications and server requests are passed over.
async fn next_response(
    output: &mut BufReader<ChildStdout>,
    line: &mut Vec<u8>,
) -> Result<Value, String> {
    loop {
        line.clear();
        let read = output
            .read_until(b'\n', line)
            .await
            .map_err(|e| format!("read from server: {e}"))?;
        if read == 0 {
            return Err("the server closed its stdout".into());
        }
        let text = protocol::trim(line);
        if text.is_empty() {
            continue;
        }
        let message: Value = serde_json::from_slice(text).map_err(|e| {
            format!(
                "not JSON from the server ({e}): {}",
                String::from_utf8_lossy(text)
            )
        })?;
        if protocol::is_response(&message) {
            return Ok(message);
        }
    }
}

/// Start-up: spawn to the answer to `initialize`, for each of `spawns` fresh processes.
async fn startup(o: &Options, command: &[String]) {
    let mut times = Vec::with_capacity(o.spawns);
    let mut errors = 0u64;
    for _ in 0..o.spawns {
        let started = Instant::now();
        let mut server = Server::spawn(command);
        match server.initialize().await {
            Ok(()) => times.push(started.elapsed().as_micros() as u64),
            Err(e) => {
                eprintln!("startup: {e}");
                errors += 1;
            }
        }
        server.stop().await;
    }
    let times = Latencies::sorted(times);
    let ms = |us: u64| us as f64 / 1000.0;
    Line::new(&o.label)
        .text("transport", "stdio")
        .text("metric", "startup")
        .int("spawns", o.spawns as u64)
        .real("p50_ms", ms(times.quantile(0.5)), 2)
        .real("min_ms", ms(times.min()), 2)
        .real("max_ms", ms(times.max()), 2)
        .real("mean_ms", times.mean() / 1000.0, 2)
        .int("errors", errors)
        .print();
    if errors > 0 {
        fatal("start-up failed");
    }
}

/// N calls one after the other, ids from NEXT_ID on; prints the line when REPORT. Returns calls/s.
async fn sequential(
    o: &Options,
    server: &mut Server,
    next_id: &mut u64,
    n: usize,
    report: bool,
) -> f64 {
    let mut samples = Vec::with_capacity(n);
    let cpu = CpuWindow::open(Some(server.pid));
    let started = Instant::now();
    let cap = o.cap();
    for _ in 0..n {
        let id = *next_id;
        *next_id += 1;
        let sent = Instant::now();
        server
            .send(&protocol::call(id))
            .await
            .unwrap_or_else(|e| fatal(e));
        let answer = server.response().await.unwrap_or_else(|e| fatal(e));
        samples.push(sent.elapsed().as_micros() as u64);
        match protocol::check_call(&answer) {
            Ok(got) if got == id => {}
            Ok(got) => fatal(format!("sequential: sent id {id}, the answer has id {got}")),
            Err(e) => fatal(format!("sequential: {e}")),
        }
        if started.elapsed() > cap {
            break;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let done = samples.len();
    let rate = done as f64 / elapsed;
    if report {
        let latencies = Latencies::sorted(samples);
        Line::new(&o.label)
            .text("transport", "stdio")
            .text("metric", "seq")
            .int("n", done as u64)
            .int("n_requested", n as u64)
            .real("elapsed_s", elapsed, 3)
            .real("calls_per_s", rate, 1)
            .with(|l| latencies.fields(l))
            .with(|l| cpu.close(done, l))
            .int("errors", 0)
            .print();
    }
    rate
}

/// N calls with up to K in flight: a writer task sends requests whenever answers free slots,
/// putting every request whose slot is free into one write, while this task reads and checks the
/// answers (in any order, each id exactly once).
async fn pipelined(o: &Options, server: &mut Server, next_id: &mut u64, n: usize) {
    let first = *next_id;
    let end = first + n as u64;
    *next_id = end;
    let slots = Rc::new(Semaphore::new(o.in_flight));
    let mut input = server.input.take().expect("stdin is with the server");
    let cpu = CpuWindow::open(Some(server.pid));
    let started = Instant::now();

    let writer_slots = slots.clone();
    let room = o.in_flight * 128;
    let writer = tokio::task::spawn_local(async move {
        let mut batch: Vec<u8> = Vec::with_capacity(room);
        let mut id = first;
        let mut outcome = Ok(());
        while id < end {
            let Ok(permit) = writer_slots.acquire().await else {
                break;
            };
            permit.forget();
            batch.clear();
            loop {
                protocol::push_call(&mut batch, id);
                batch.push(b'\n');
                id += 1;
                match writer_slots.try_acquire() {
                    Ok(permit) if id < end => permit.forget(),
                    _ => break,
                }
            }
            if let Err(e) = async {
                input.write_all(&batch).await?;
                input.flush().await
            }
            .await
            {
                outcome = Err(format!("pipelined write: {e}"));
                break;
            }
        }
        (input, outcome)
    });

    let mut answered = vec![false; n];
    let mut max_reorder = 0u64;
    for position in first..end {
        let answer = server
            .response()
            .await
            .unwrap_or_else(|e| fatal(format!("pipelined: {e}")));
        let id = protocol::check_call(&answer).unwrap_or_else(|e| fatal(format!("pipelined: {e}")));
        if !(first..end).contains(&id)
            || std::mem::replace(&mut answered[(id - first) as usize], true)
        {
            fatal(format!("pipelined: unexpected or repeated id {id}"));
        }
        max_reorder = max_reorder.max(id.abs_diff(position));
        slots.add_permits(1);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let (input, outcome) = writer.await.expect("the writer task panicked");
    server.input = Some(input);
    outcome.unwrap_or_else(|e| fatal(e));
    Line::new(&o.label)
        .text("transport", "stdio")
        .text("metric", "pipe")
        .int("n", n as u64)
        .int("k", o.in_flight as u64)
        .real("elapsed_s", elapsed, 3)
        .real("calls_per_s", n as f64 / elapsed, 1)
        .int("max_reorder", max_reorder)
        .with(|l| cpu.close(n, l))
        .int("errors", 0)
        .print();
}

pub async fn run(o: Options, command: Vec<String>) {
    if command.is_empty() {
        fatal("stdio needs a server command after --");
    }
    if o.wants("startup") {
        bounded(&o, "startup", startup(&o, &command)).await;
    }
    if !(o.wants("seq") || o.wants("pipe") || o.wants("rss")) {
        return;
    }
    // One process serves the warm-up, the sequential and the pipelined calls; its peak RSS is
    // read after all of them.
    let mut server = Server::spawn(&command);
    bounded(&o, "initialize", async {
        server.initialize().await.unwrap_or_else(|e| fatal(e));
        server
            .send(INITIALIZED.as_bytes())
            .await
            .unwrap_or_else(|e| fatal(e));
    })
    .await;
    let mut next_id = 1;
    if o.warmup > 0 {
        bounded(
            &o,
            "warmup",
            sequential(&o, &mut server, &mut next_id, o.warmup, false),
        )
        .await;
    }
    let mut sequential_rate = f64::INFINITY;
    if o.wants("seq") {
        sequential_rate = bounded(
            &o,
            "seq",
            sequential(&o, &mut server, &mut next_id, o.seq_n, true),
        )
        .await;
    }
    if o.wants("pipe") {
        // Plan no more than about max_secs of work at twice the sequential rate (1000 at least).
        let affordable = (sequential_rate * 2.0 * o.max_secs).min(usize::MAX as f64) as usize;
        let n = o.pipe_n.min(affordable.max(1000));
        // The writer is a task of its own beside this one, on this same thread.
        let tasks = tokio::task::LocalSet::new();
        let run = pipelined(&o, &mut server, &mut next_id, n);
        tasks.run_until(bounded(&o, "pipe", run)).await;
    }
    if o.wants("rss") {
        procfs::print_memory(&o.label, "stdio", server.pid);
    }
    server.stop().await;
}
