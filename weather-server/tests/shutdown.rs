//! The stdio shutdown the spec describes, from the server's side: once its input ends, a
//! server with a long call in flight gives the handler a short grace period, cancels it and
//! exits — whether its client is still reading (a client closing it) or gone (a client that
//! died, leaving stdout and stderr broken pipes).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_weather-server");

/// The server's default grace (1 s) plus room for a loaded machine; the old 5 s grace, or a
/// server that never exits, fails it.
const EXIT_BOUND: Duration = Duration::from_secs(3);

/// A weather-server with a 60-second `watch_weather` call in flight (its first progress
/// notification seen), and the lines it writes to stdout from then on.
fn server_watching() -> (Child, ChildStdin, mpsc::Receiver<String>) {
    let mut child = Command::new(BIN)
        .args(["--clock", "2026-08-02T07:00:00Z"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start weather-server");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let messages = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"shutdown-test","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"watch_weather","arguments":{"city":"Paris","durationMs":60000},"_meta":{"progressToken":"watch"}}}"#,
    ];
    for message in messages {
        writeln!(stdin, "{message}").expect("write to the server");
    }
    stdin.flush().expect("flush");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines
            .recv_timeout(left)
            .expect("the watch reports progress");
        if line.contains("notifications/progress") {
            break;
        }
    }
    (child, stdin, lines)
}

/// Waits (bounded) for the child to exit; its status and how long it took.
fn wait_exit(child: &mut Child, bound: Duration) -> (std::process::ExitStatus, Duration) {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return (status, started.elapsed());
        }
        if started.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            panic!("weather-server still runs {bound:?} after its stdin closed");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn end_of_input_cancels_a_long_call_after_the_grace_and_exits() {
    let (mut child, stdin, lines) = server_watching();
    drop(stdin);
    let (status, took) = wait_exit(&mut child, EXIT_BOUND);
    eprintln!("weather-server exited {took:?} after end of input (watch in flight)");
    assert!(status.success(), "{status}");
    assert!(
        took >= Duration::from_millis(500),
        "the handler had its grace: {took:?}"
    );
    // The cancelled call gets no answer; everything written before the exit was progress.
    let rest: Vec<String> = lines.try_iter().collect();
    assert!(
        rest.iter().all(|l| l.contains("notifications/progress")),
        "{rest:?}"
    );
}

#[test]
fn a_dead_client_leaves_no_server_behind() {
    let (mut child, stdin, lines) = server_watching();
    // The client died: its ends of all three pipes close. Writing progress and logs now fails
    // with EPIPE, which must not keep the server alive.
    drop(stdin);
    drop(lines);
    drop(child.stdout.take());
    drop(child.stderr.take());
    let (status, took) = wait_exit(&mut child, EXIT_BOUND);
    eprintln!("weather-server exited {took:?} after its client died");
    assert!(status.success(), "{status}");
}

#[test]
fn a_cancelled_watch_stops_and_the_server_exits_at_once() {
    let (mut child, mut stdin, lines) = server_watching();
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"interrupted"}}"#;
    writeln!(stdin, "{cancel}").expect("write");
    stdin.flush().expect("flush");
    // Progress stops (one already on its way may still arrive).
    std::thread::sleep(Duration::from_millis(300));
    let _: Vec<String> = lines.try_iter().collect();
    let late: Vec<String> = lines
        .recv_timeout(Duration::from_millis(1500))
        .into_iter()
        .collect();
    assert!(
        late.is_empty(),
        "the watch went on after its cancellation: {late:?}"
    );
    drop(stdin);
    // Nothing is in flight, so no grace is needed.
    let (status, took) = wait_exit(&mut child, Duration::from_millis(900));
    eprintln!("weather-server exited {took:?} after end of input (nothing in flight)");
    assert!(status.success(), "{status}");
}
