//! raw-rust-weather: an MCP server over stdio written by hand on std and serde_json, with no SDK
//! and no async runtime. It answers `initialize`, `ping`, `tools/list` and `tools/call get_weather`;
//! it is the practical limit a stdio server can reach in Rust on the same machine.
//!
//! One blocking loop: read a line, parse it, write the answer into a 64 KiB buffer, and flush only
//! when no further complete line is already waiting, so the answers to a burst leave together.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, BufWriter, Write};

/// The synthetic weather every comparison server gives; "shenzhen" is what the driver asks for.
fn weather(city: &str) -> String {
    let report = match city {
        "shenzhen" => "thunderstorms 30C",
        "beijing" => "sunny 22C",
        "london" => "drizzle 12C",
        "paris" => "cloudy 16C",
        "tokyo" => "clear 18C",
        _ => "unknown",
    };
    format!("{city}: {report}")
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn result(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// The answer to one parsed message; None for notifications (no id).
fn answer(message: &Value) -> Option<Value> {
    let id = message.get("id")?.clone();
    let params = &message["params"];
    Some(match message["method"].as_str().unwrap_or_default() {
        "initialize" => result(
            id,
            json!({
                "protocolVersion": params["protocolVersion"].as_str().unwrap_or("2024-11-05"),
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "raw-rust-weather", "version": "0.1.0" },
            }),
        ),
        "ping" => result(id, json!({})),
        "tools/list" => result(
            id,
            json!({ "tools": [{
                "name": "get_weather",
                "description": "Get the current weather for a city",
                "inputSchema": {
                    "type": "object",
                    "properties": { "city": { "type": "string" } },
                    "required": ["city"],
                },
            }] }),
        ),
        "tools/call" if params["name"] == "get_weather" => {
            let city = params["arguments"]["city"].as_str().unwrap_or_default();
            result(
                id,
                json!({ "content": [{ "type": "text", "text": weather(city) }], "isError": false }),
            )
        }
        "tools/call" => error(id, -32602, "Unknown tool"),
        _ => error(id, -32601, "Method not found"),
    })
}

fn main() {
    let mut input = BufReader::with_capacity(64 * 1024, std::io::stdin());
    let mut output = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        if !matches!(input.read_line(&mut line), Ok(n) if n > 0) {
            break;
        }
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Value>(text) {
            Ok(message) => answer(&message),
            Err(_) => Some(error(Value::Null, -32700, "Parse error")),
        };
        if let Some(reply) = reply {
            if serde_json::to_writer(&mut output, &reply).is_err()
                || output.write_all(b"\n").is_err()
            {
                break;
            }
        }
        let more_waiting = input.buffer().contains(&b'\n');
        if !more_waiting && output.flush().is_err() {
            break;
        }
    }
    let _ = output.flush();
}
