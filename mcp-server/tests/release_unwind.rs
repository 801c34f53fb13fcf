//! The release profile unwinds: a tool that panics in a binary built with `--release` fails its
//! own request (-32603) and the next call on the same connection is answered. `scripts/test-all.sh`
//! builds the binary first, beside the static weather-server we ship
//! (`scripts/build-static.sh --with-panic-isolation`), and names it in `MCP_PANIC_ISOLATION_BIN`;
//! without that variable the test looks for `cargo build --release -p mcp-server --example
//! panic_isolation`'s. With neither, it is skipped with a note, unless `MCP_INTEROP_REQUIRED=1`
//! makes it fail.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// `MCP_PANIC_ISOLATION_BIN`, else `target/release/examples/panic_isolation` next to this test's
/// own `target/<profile>`.
fn release_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("MCP_PANIC_ISOLATION_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the test's own path");
    // target/<profile>/deps/<test> -> target
    let target = exe
        .ancestors()
        .nth(3)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"));
    target.join("release/examples/panic_isolation")
}

#[test]
fn a_panicking_tool_fails_only_its_request_in_a_release_build() {
    let binary = release_binary();
    if !binary.exists() {
        let hint = "build it with `cargo build --release -p mcp-server --example panic_isolation`";
        assert!(
            std::env::var_os("MCP_INTEROP_REQUIRED").is_none(),
            "{} is missing; {hint}",
            binary.display()
        );
        eprintln!("skipped: {} is missing; {hint}", binary.display());
        return;
    }
    let mut child = Command::new(&binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the release binary");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (lines_tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let script = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"explode","arguments":{}}}"#,
        r#"[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"explode","arguments":{}}}]"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}"#,
    ];
    for line in script {
        writeln!(stdin, "{line}").expect("write to the server");
    }
    stdin.flush().expect("flush");
    let mut answers = std::collections::HashMap::new();
    while answers.len() < 3 {
        let line = lines
            .recv_timeout(Duration::from_secs(20))
            .expect("the server answered within 20 s (did it die?)");
        let message: Value = serde_json::from_str(&line).expect("a JSON line");
        // The batch of one (id 3, batches are 2025-03-26's) is answered with a batch of one.
        let message = match message {
            Value::Array(mut items) if items.len() == 1 => items.remove(0),
            other => other,
        };
        let key = message["id"].to_string();
        if key != "1" {
            answers.insert(key, message);
        }
    }
    for id in ["2", "3"] {
        let exploded = &answers[id];
        assert_eq!(exploded["error"]["code"], -32603, "{exploded}");
        assert!(
            exploded["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("index out of bounds")),
            "{exploded}"
        );
    }
    let echoed = &answers["4"];
    assert_eq!(
        echoed["result"]["content"][0]["text"], "still here",
        "{echoed}"
    );
    drop(stdin);
    let _ = child.wait();
}
