//! `raw-proxy PREFIX CMD [ARGS...]`: an MCP proxy over stdio for one server, written by hand on
//! std and serde_json like raw-rust-weather, with no SDK and no async runtime. It runs CMD and
//! offers its tools as `PREFIX` + name: every message from the client and from the server is
//! parsed into a `serde_json::Value` and written again; a `tools/call` has its name's prefix taken
//! off, and a result listing tools has it put on. Nothing else is looked at (the client's
//! protocol version goes through as it is, so the server speaks the client's era).
//!
//! `bench/proxy.sh` measures it beside `mcp proxy` and byte-relay: the practical limit of a
//! proxy that reads every message once, where byte-relay is the limit of any process at all.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::process::exit;
use std::thread;

use proxy_floor::spawn_piped;
use serde_json::Value;

/// Reads `from` line by line, hands each message to `rewrite`, and writes it to `to`, flushing
/// only when no further complete line is already waiting (a burst leaves together).
fn pump(from: impl Read, to: impl Write, mut rewrite: impl FnMut(&mut Value)) {
    let mut input = BufReader::with_capacity(64 * 1024, from);
    let mut output = BufWriter::with_capacity(64 * 1024, to);
    let mut line = String::new();
    loop {
        line.clear();
        if !matches!(input.read_line(&mut line), Ok(n) if n > 0) {
            break;
        }
        let Ok(mut message) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        rewrite(&mut message);
        if serde_json::to_writer(&mut output, &message).is_err() || output.write_all(b"\n").is_err()
        {
            break;
        }
        if !input.buffer().contains(&b'\n') && output.flush().is_err() {
            break;
        }
    }
    let _ = output.flush();
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(prefix), Some(program)) = (args.next(), args.next()) else {
        eprintln!("usage: raw-proxy PREFIX CMD [ARGS...]");
        exit(2);
    };
    let (mut child, child_in, child_out) = spawn_piped("raw-proxy", &program, args);
    let strip = prefix.clone();
    thread::spawn(move || {
        pump(std::io::stdin(), child_in, |message| {
            if message["method"] == "tools/call" {
                if let Some(Value::String(name)) = message["params"].get_mut("name") {
                    if let Some(bare) = name.strip_prefix(&strip) {
                        *name = bare.to_owned();
                    }
                }
            }
        })
    });
    pump(child_out, std::io::stdout().lock(), |message| {
        if let Some(Value::Array(tools)) =
            message.get_mut("result").and_then(|r| r.get_mut("tools"))
        {
            for tool in tools {
                if let Some(Value::String(name)) = tool.get_mut("name") {
                    *name = format!("{prefix}{name}");
                }
            }
        }
    });
    exit(child.wait().map(|s| s.code().unwrap_or(1)).unwrap_or(1));
}
