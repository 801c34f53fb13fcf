//! The scripted model server's streams are faithful: the providers' official Python SDKs
//! (`openai`, `anthropic`, `google-genai`, pinned in interop/requirements-providers.txt and
//! installed by scripts/interop-setup.sh) read the same bytes and find the same tool calls,
//! text and token counts as our providers do.

mod common;

use std::time::Duration;

use common::model_at;
use common::scripted_model::{call, Call, Say, ScriptedModel, Wire};
use mcp_agent::{Message, ModelRequest};
use serde_json::{json, Value};

/// What the model says in the two answers read: two calls (one with nested, non-ASCII
/// arguments, cut mid-token), then text.
fn script() -> Vec<Say> {
    vec![
        Say::Calls(vec![
            call("call_a1", "weather__get_weather", json!({"city": "深圳"})),
            Call {
                id: "call_b2".into(),
                name: "weather__get_forecast".into(),
                arguments: json!({"city": "Paris", "days": 3, "units": {"temp": "C", "wind": ["kmh", "ms"]}})
                    .to_string(),
            },
        ]),
        Say::Text("Shenzhen is warm and Paris is mild, with \"quotes\" and\nlines.".into()),
    ]
}

/// The provider's python, or `None` (skipped) without the interop setup.
fn python() -> Option<String> {
    match std::env::var("MCP_PROVIDER_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            assert_ne!(
                std::env::var("MCP_INTEROP_REQUIRED").as_deref(),
                Ok("1"),
                "MCP_PROVIDER_PYTHON is not set; run scripts/interop-setup.sh"
            );
            eprintln!(
                "skipped: MCP_PROVIDER_PYTHON is not set (eval \"$(scripts/interop-setup.sh)\")"
            );
            None
        }
    }
}

/// Each answer as the official SDK read it.
async fn sdk_answers(python: &str, wire: Wire, says: &[Say]) -> Vec<Value> {
    let server = ScriptedModel::speaking(wire, says).await;
    let provider = match wire {
        Wire::OpenAi => "openai",
        Wire::Anthropic => "anthropic",
        Wire::Gemini => "gemini",
    };
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/provider_sdks.py"
    );
    let output = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new(python)
            .args([
                script,
                provider,
                &server.base_url(wire),
                &says.len().to_string(),
            ])
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the SDK script finishes")
    .expect("run the SDK script");
    assert!(
        output.status.success(),
        "{provider} SDK failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// Each answer as our provider reads it, in the same shape.
async fn our_answers(wire: Wire, says: &[Say]) -> Vec<Value> {
    let server = ScriptedModel::speaking(wire, says).await;
    let model = model_at(&server, wire);
    let mut answers = Vec::new();
    for _ in says {
        let messages = [Message::user("hi")];
        let request = ModelRequest {
            system: "",
            messages: &messages,
            tools: &Value::Null,
            max_tokens: Some(100),
        };
        let reply = model
            .stream(request)
            .await
            .expect("stream")
            .collect()
            .await
            .expect("a whole answer");
        let calls: Vec<Value> = reply
            .tool_calls
            .iter()
            .map(|c| {
                let id = if wire == Wire::Gemini { Value::Null } else { c.id.clone().into() };
                json!({"id": id, "name": c.name,
                       "arguments": serde_json::from_str::<Value>(&c.arguments).expect("JSON arguments")})
            })
            .collect();
        answers.push(json!({
            "text": reply.text,
            "calls": calls,
            "input_tokens": reply.usage.input_tokens,
            "output_tokens": reply.usage.output_tokens,
        }));
    }
    answers
}

async fn same_reading(wire: Wire) {
    let Some(python) = python() else { return };
    let says = script();
    let theirs = sdk_answers(&python, wire, &says).await;
    let ours = our_answers(wire, &says).await;
    assert_eq!(theirs.len(), 2, "{theirs:?}");
    assert_eq!(theirs[0]["calls"].as_array().map(Vec::len), Some(2));
    assert_eq!(theirs[0]["calls"][0]["arguments"]["city"], "深圳");
    assert_eq!(theirs, ours, "{wire:?}: the SDK and our provider differ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_sdk_reads_the_same_calls() {
    same_reading(Wire::OpenAi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_sdk_reads_the_same_calls() {
    same_reading(Wire::Anthropic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_sdk_reads_the_same_calls() {
    same_reading(Wire::Gemini).await;
}
