//! The server the integration and interop tests spawn over stdio: a few tools, resources,
//! a template, a prompt with completion, progress and logging.

#![forbid(unsafe_code)]

use std::time::Duration;

use mcp_server::schema::{CreateMessageParams, SamplingMessage};
use mcp_server::{
    complete_from, CompletionRequest, Context, Json, LoggingLevel, Prompt, PromptArguments,
    Resource, ResourceRequest, ResourceTemplate, Server, ServerError, Tool,
};
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, schemars::JsonSchema)]
struct Echo {
    text: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Add {
    a: f64,
    b: f64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Slow {
    #[serde(default = "three")]
    steps: u32,
    #[serde(default = "fifty")]
    delay_ms: u64,
}

fn three() -> u32 {
    3
}

fn fifty() -> u64 {
    50
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Greet {
    name: String,
    #[serde(default)]
    style: Option<String>,
}

async fn slow(args: Slow, ctx: Context) -> Result<String, ServerError> {
    for step in 1..=args.steps {
        tokio::select! {
            _ = ctx.cancelled() => return Err("cancelled".into()),
            _ = tokio::time::sleep(Duration::from_millis(args.delay_ms)) => {}
        }
        ctx.progress(
            f64::from(step),
            Some(f64::from(args.steps)),
            Some(format!("step {step}")),
        )
        .await;
        ctx.log(
            LoggingLevel::Info,
            format!("slow: step {step} of {}", args.steps),
        )
        .await;
    }
    Ok(format!("done after {} steps", args.steps))
}

fn server() -> Server {
    let object = |props: serde_json::Value, required: &[&str]| json!({"type": "object", "properties": props, "required": required});
    Server::builder("mcp-test-server", "0.1.0")
        .title("Test server")
        .instructions("A server for tests.")
        .tool(
            Tool::new("echo", "Echoes text back")
                .input_schema(object(json!({"text": {"type": "string"}}), &["text"])),
            |args: Echo, _ctx: Context| async move { args.text },
        )
        .tool(
            Tool::new("add", "Adds two numbers")
                .input_schema(object(
                    json!({"a": {"type": "number"}, "b": {"type": "number"}}),
                    &["a", "b"],
                ))
                .output_schema(object(json!({"sum": {"type": "number"}}), &["sum"])),
            |args: Add, _ctx: Context| async move { Json(json!({"sum": args.a + args.b})) },
        )
        .tool(
            Tool::new("slow", "Works in steps, reporting progress and logging").input_schema(
                object(
                    json!({"steps": {"type": "integer"}, "delay_ms": {"type": "integer"}}),
                    &[],
                ),
            ),
            slow,
        )
        .tool(
            Tool::new("log", "Logs a message at a level").input_schema(object(
                json!({"level": {"type": "string"}, "message": {"type": "string"}}),
                &["message"],
            )),
            |args: serde_json::Value, ctx: Context| async move {
                let level = args["level"]
                    .as_str()
                    .and_then(|l| l.parse().ok())
                    .unwrap_or(LoggingLevel::Info);
                let sent = ctx.log(level, args["message"].clone()).await;
                format!("sent: {sent}")
            },
        )
        .tool(
            Tool::new("fail", "Always fails"),
            |_: serde_json::Value, _ctx: Context| async move {
                Err::<String, _>("the tool failed on purpose")
            },
        )
        .tool(
            Tool::new("sample", "Asks the client's model"),
            |_: serde_json::Value, ctx: Context| async move {
                let params = CreateMessageParams::new(vec![SamplingMessage::user_text("hi")], 10);
                ctx.sample(params)
                    .await
                    .map(|r| format!("model said: {:?}", r.content))
            },
        )
        .resource(
            Resource::new("test://static", "static").mime_type("text/plain"),
            |_req: ResourceRequest, _ctx: Context| async { "hello from a static resource" },
        )
        .resource_template(
            ResourceTemplate::new("test://item/{id}", "item").mime_type("text/plain"),
            |req: ResourceRequest, _ctx: Context| async move {
                format!("item {}", req.var("id").unwrap_or_default())
            },
        )
        .prompt(
            Prompt::new("greet", "Greets someone")
                .argument("name", "Who to greet", true)
                .argument("style", "How", false),
            |args: Greet, _ctx: Context| async move {
                let style = args.style.unwrap_or_else(|| "plain".into());
                format!("Say hello to {} in a {style} way.", args.name)
            },
        )
        .prompt(
            Prompt::new("raw", "Shows its arguments"),
            |args: PromptArguments, _ctx: Context| async move { format!("{args:?}") },
        )
        .prompt_completion(
            "greet",
            "name",
            |req: CompletionRequest, _ctx: Context| async move {
                complete_from(&["alice", "albert", "bob"], &req.value)
            },
        )
        .build()
}

#[tokio::main]
async fn main() {
    server().serve_stdio().await;
}
