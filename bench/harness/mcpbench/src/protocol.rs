//! The few JSON-RPC messages the driver sends, and the check of every answer.

use serde_json::Value;

pub const INITIALIZE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","#,
    r#""capabilities":{},"clientInfo":{"name":"mcpbench","version":"0.1.0"}}}"#
);
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The tool every call names: `get_weather`, or what `--tool` says (`weather__get_weather`
/// through `mcp proxy`).
pub static TOOL: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn tool() -> &'static str {
    TOOL.get().map_or("get_weather", String::as_str)
}

/// Appends the `tools/call get_weather {"city":"shenzhen"}` request with ID to OUT.
pub fn push_call(out: &mut Vec<u8>, id: u64) {
    use std::io::Write;
    let tool = tool();
    write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"city":"shenzhen"}}}}}}"#
    )
    .expect("writing to a Vec");
}

pub fn call(id: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    push_call(&mut out, id);
    out
}

/// The 2026-07-28 version sent in `_meta` and `MCP-Protocol-Version` by `--era modern`.
pub const MODERN: &str = "2026-07-28";

/// The same call as a 2026-07-28 request: no session, the era and capabilities in `_meta`.
pub fn modern_call(id: u64) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::with_capacity(320);
    write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_weather","arguments":{{"city":"shenzhen"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{MODERN}","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"mcpbench","version":"0.1.0"}}}}}}}}"#
    )
    .expect("writing to a Vec");
    out
}

/// Like [`check_call`], and the result must say `"resultType":"complete"`.
pub fn check_modern_call(answer: &Value) -> Result<u64, String> {
    let id = check_call(answer)?;
    match answer["result"].get("resultType").and_then(Value::as_str) {
        Some("complete") => Ok(id),
        other => Err(format!("call {id}: resultType {other:?}, not \"complete\"")),
    }
}

/// True for a response (an id and no method), false for notifications and server requests.
pub fn is_response(message: &Value) -> bool {
    message.get("id").is_some() && message.get("method").is_none()
}

/// The id of a good answer to a call: a result, not `isError`, first text with "thunderstorms".
pub fn check_call(answer: &Value) -> Result<u64, String> {
    let id = answer
        .get("id")
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("an answer without a numeric id: {answer}"))?;
    if let Some(error) = answer.get("error") {
        return Err(format!("call {id} failed: {error}"));
    }
    let result = answer
        .get("result")
        .ok_or_else(|| format!("call {id}: no result: {answer}"))?;
    if result.get("isError") == Some(&Value::Bool(true)) {
        return Err(format!("call {id}: isError: {result}"));
    }
    let text = result
        .get("content")
        .and_then(|content| content.get(0))
        .and_then(|first| first.get("text"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if text.contains("thunderstorms") {
        Ok(id)
    } else {
        Err(format!("call {id}: not the expected weather: {result}"))
    }
}

/// B without leading and trailing ASCII whitespace.
pub fn trim(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    &b[start..end]
}
