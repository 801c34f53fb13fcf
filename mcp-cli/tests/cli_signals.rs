//! Ctrl-C and SIGTERM on the `mcp` binary with a long call in flight: `mcp` cancels the call,
//! closes its weather-server child with the close sequence and exits 130, quickly, leaving no
//! server behind; `mcp proxy --stdio` does the same.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{mcp_in, scratch, weather_entry, write_config};
use rustix::process::{kill_process, Pid, Signal};
use serde_json::json;

/// How long `mcp` may take from the signal to its exit. Its close of a server that exits at
/// once takes milliseconds; a server that had to be sent SIGTERM would take over 2 s.
const EXIT_BOUND: Duration = Duration::from_secs(3);

/// How soon the server must be gone. Told that its call was cancelled, it exits as soon as its
/// stdin closes; not told, it would give the call its 1 s grace first.
const SERVER_BOUND: Duration = Duration::from_millis(800);

const WATCH: &str = r#"{"city":"Paris","durationMs":60000}"#;

/// A folder with a config whose one server is weather-server; its path.
fn weather_config(tag: &str) -> (std::path::PathBuf, String) {
    let home = scratch(tag);
    let config = write_config(&home, json!({ "weather": weather_entry() }));
    (home, config.to_string_lossy().into_owned())
}

/// Lines a pipe delivers, read on a thread of their own.
fn lines_of(pipe: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits (bounded) for a line that satisfies `want`; every line seen, for messages.
fn wait_line(
    lines: &mpsc::Receiver<String>,
    secs: u64,
    want: impl Fn(&str) -> bool,
) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => {
                let found = want(&line);
                seen.push(line);
                if found {
                    return seen;
                }
            }
            Err(_) => panic!("no such line within {secs}s; saw {seen:?}"),
        }
    }
}

/// The children of a process, from `/proc/PID/task/*/children`.
fn children(pid: u32) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            );
        }
    }
    out
}

/// The one weather-server `mcp` runs, waiting (bounded) for it to appear.
fn the_server_of(mcp: u32) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let kids = children(mcp);
        if let [one] = kids.as_slice() {
            return *one;
        }
        assert!(
            Instant::now() < deadline,
            "mcp has children {kids:?}, expected one"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a process still runs (a zombie waiting to be reaped has ended).
fn running(pid: i32) -> bool {
    let alive = Pid::from_raw(pid).is_some_and(|p| rustix::process::test_kill_process(p).is_ok());
    let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false);
    alive && !zombie
}

fn send(pid: u32, signal: Signal) {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(Pid::from_raw)
        .expect("a pid");
    kill_process(pid, signal).expect("send the signal");
}

/// What happened after the signal.
#[derive(Debug)]
struct Stopped {
    /// `mcp`'s exit code (`None`: killed by a signal).
    code: Option<i32>,
    /// From the signal to `mcp`'s exit.
    exited_after: Duration,
    /// From the signal to the server being gone.
    server_gone_after: Duration,
}

/// Signals `mcp` and waits (bounded) for it to exit and for `server` to be gone.
fn signal_and_wait(mcp: &mut Child, server: i32, signal: Signal) -> Stopped {
    assert!(running(server), "the server runs before the signal");
    let sent = Instant::now();
    send(mcp.id(), signal);
    let mut server_gone = None;
    let status = loop {
        if server_gone.is_none() && !running(server) {
            server_gone = Some(sent.elapsed());
        }
        if let Some(status) = mcp.try_wait().expect("try_wait") {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(15) {
            let _ = mcp.kill();
            let _ = mcp.wait();
            panic!("mcp still runs 15 s after {signal:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let exited_after = sent.elapsed();
    while server_gone.is_none() {
        if !running(server) {
            server_gone = Some(sent.elapsed());
        } else if sent.elapsed() > Duration::from_secs(15) {
            if let Some(pid) = Pid::from_raw(server) {
                let _ = kill_process(pid, Signal::KILL);
            }
            panic!("weather-server {server} outlived mcp by over 15 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Stopped {
        code: status.code(),
        exited_after,
        server_gone_after: server_gone.unwrap_or_default(),
    }
}

fn check(stopped: &Stopped, what: &str) {
    eprintln!("{what}: {stopped:?}");
    assert_eq!(stopped.code, Some(130), "{what}: {stopped:?}");
    assert!(stopped.exited_after < EXIT_BOUND, "{what}: {stopped:?}");
    assert!(
        stopped.server_gone_after < SERVER_BOUND,
        "{what}: {stopped:?}"
    );
    assert!(
        stopped.server_gone_after <= stopped.exited_after,
        "{what}: the server was gone before mcp exited: {stopped:?}"
    );
}

/// `mcp call` with a 60 s watch in flight (progress seen), its server, and its stderr.
fn call_in_flight(tag: &str) -> (Child, i32, mpsc::Receiver<String>) {
    let (home, config) = weather_config(tag);
    let mut command = mcp_in(
        &home,
        &["--config", &config, "call", "weather__watch_weather", WATCH],
    );
    let mut mcp = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mcp");
    let stderr = lines_of(mcp.stderr.take().expect("stderr"));
    wait_line(&stderr, 60, |l| l.starts_with("progress: "));
    let server = the_server_of(mcp.id());
    (mcp, server, stderr)
}

#[test]
fn ctrl_c_cancels_the_call_closes_the_server_and_exits_130() {
    let (mut mcp, server, stderr) = call_in_flight("sigint");
    let stopped = signal_and_wait(&mut mcp, server, Signal::INT);
    check(&stopped, "SIGINT during mcp call");
    let said: Vec<String> = stderr.try_iter().collect();
    assert!(
        said.iter()
            .any(|l| l.contains("interrupted: closing the servers")),
        "{said:?}"
    );
}

#[test]
fn sigterm_does_the_same() {
    let (mut mcp, server, stderr) = call_in_flight("sigterm");
    let stopped = signal_and_wait(&mut mcp, server, Signal::TERM);
    check(&stopped, "SIGTERM during mcp call");
    let said: Vec<String> = stderr.try_iter().collect();
    assert!(
        said.iter()
            .any(|l| l.contains("terminated: closing the servers")),
        "{said:?}"
    );
}

#[test]
fn proxy_over_stdio_closes_its_servers_on_ctrl_c() {
    let (home, config) = weather_config("sigint-proxy");
    let mut command = mcp_in(&home, &["--config", &config, "proxy", "--stdio"]);
    let mut mcp = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start mcp proxy");
    // Its stdin stays open: the signal, not end of input, must stop it.
    let mut stdin = mcp.stdin.take().expect("stdin");
    let stdout = lines_of(mcp.stdout.take().expect("stdout"));
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "signals-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "weather__watch_weather",
            "arguments": {"city": "Paris", "durationMs": 60000}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}),
    ];
    for message in &messages[..2] {
        writeln!(stdin, "{message}").expect("write");
    }
    stdin.flush().expect("flush");
    wait_line(&stdout, 60, |l| l.contains(r#""id":1"#));
    for message in &messages[2..] {
        writeln!(stdin, "{message}").expect("write");
    }
    stdin.flush().expect("flush");
    // The ping is answered while the watch runs on: the call is in flight.
    let seen = wait_line(&stdout, 20, |l| l.contains(r#""id":3"#));
    assert!(!seen.iter().any(|l| l.contains(r#""id":2"#)), "{seen:?}");
    std::thread::sleep(Duration::from_millis(300));
    let server = the_server_of(mcp.id());
    let stopped = signal_and_wait(&mut mcp, server, Signal::INT);
    check(&stopped, "SIGINT during mcp proxy --stdio");
    drop(stdin);
}

/// Whether any process of the group still runs (zombies have ended), from `/proc/*/stat`.
fn group_running(pgid: i32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        // After the command name: state, ppid, pgrp.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().take(3).collect())
            .unwrap_or_default();
        matches!(fields.as_slice(), [state, _, pgrp] if *state != "Z" && pgrp.parse() == Ok(pgid))
    })
}

/// Kills a process group when the test ends, so a failing test leaves nothing running.
struct KillGroupOnDrop(i32);

impl Drop for KillGroupOnDrop {
    fn drop(&mut self) {
        if let Some(pgid) = Pid::from_raw(self.0) {
            let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
        }
    }
}

#[test]
fn a_second_ctrl_c_kills_at_once() {
    // A server whose process group outlives end of input and ignores SIGTERM holds the first
    // close for 4 s (2 s after closing stdin, 2 s after SIGTERM); a second Ctrl-C must not wait.
    let home = scratch("sigint-twice");
    let stubborn = format!(
        "trap '' TERM; (while :; do sleep 1; done) & exec {} --clock 2026-08-02T07:00:00Z",
        common::weather_server().display()
    );
    let config = write_config(
        &home,
        json!({ "weather": { "command": "sh", "args": ["-c", stubborn] } }),
    );
    let config = config.to_string_lossy().into_owned();
    let mut mcp = mcp_in(
        &home,
        &["--config", &config, "call", "weather__watch_weather", WATCH],
    )
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .expect("start mcp");
    let stderr = lines_of(mcp.stderr.take().expect("stderr"));
    wait_line(&stderr, 60, |l| l.starts_with("progress: "));
    let group = the_server_of(mcp.id());
    let _cleanup = KillGroupOnDrop(group);
    send(mcp.id(), Signal::INT);
    wait_line(&stderr, 5, |l| l.contains("closing the servers"));
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        group_running(group),
        "the stubborn group outlives the first close for now"
    );
    let again = Instant::now();
    send(mcp.id(), Signal::INT);
    let status = loop {
        if let Some(status) = mcp.try_wait().expect("try_wait") {
            break status;
        }
        if again.elapsed() > Duration::from_secs(10) {
            let _ = mcp.kill();
            panic!("mcp still runs 10 s after the second Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = again.elapsed();
    eprintln!("second Ctrl-C: mcp exited {took:?} later with {status}");
    assert_eq!(status.code(), Some(130));
    assert!(took < Duration::from_secs(1), "{took:?}");
    let deadline = Instant::now() + Duration::from_secs(2);
    while group_running(group) {
        assert!(
            Instant::now() < deadline,
            "process group {group} outlived mcp"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
