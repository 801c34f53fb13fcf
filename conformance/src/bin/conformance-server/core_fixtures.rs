//! The fixtures of the 2025-era scenarios: tools (content types, logging, progress, sampling,
//! elicitation, SSE reconnection), resources and templates, prompts and completions.

use std::time::Duration;

use mcp_server::schema::{
    BlobResourceContents, CallToolResult, Content, CreateMessageParams, ElicitParams,
    GetPromptResult, PromptMessage, Role, SamplingMessage, TextResourceContents,
};
use mcp_server::{
    complete_from, CompletionRequest, Context, LoggingLevel, Prompt, PromptArguments, Resource,
    ResourceRequest, ResourceTemplate, Tool, ToolOutput,
};
use mcp_server::{schemars, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::input_requests::sampled_text;

/// A 1x1 red PNG.
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/// Eight samples of 8-bit mono silence at 8 kHz.
const WAV: &str = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// How long `test_reconnection` works before it answers. The HTTP layer switches its answer to
/// SSE after [`SSE_AFTER`] and closes that connection after [`SSE_CLOSE_AFTER`], so the result
/// is written about 100 ms after the close and reaches the client by replay (GET + `Last-Event-ID`).
const RECONNECTION_DELAY: Duration = Duration::from_millis(450);
/// A quiet request's answer becomes an SSE stream (priming event first) after this long.
pub(crate) const SSE_AFTER: Duration = Duration::from_millis(50);
/// A POST's SSE connection is closed after this long; longer than every other fixture takes.
pub(crate) const SSE_CLOSE_AFTER: Duration = Duration::from_millis(300);
/// The `retry` the server asks of reconnecting clients.
pub(crate) const SSE_RETRY: Duration = Duration::from_millis(500);

/// The URI of the resource whose URI is percent-encoded UTF-8 ("café ☕").
const UNICODE_URI: &str = "test://unicode/caf%C3%A9%20%E2%98%95";
/// The text of the Unicode-named resource and prompt.
const UNICODE_TEXT: &str = "Café ☕ — ünïcödé 日本語 😀";

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    message: String,
}

#[derive(Deserialize, JsonSchema)]
struct SamplingArgs {
    prompt: String,
}

#[derive(Deserialize, JsonSchema)]
struct ElicitationArgs {
    message: String,
}

#[derive(Deserialize, JsonSchema)]
struct PromptArgs {
    arg1: String,
    arg2: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EmbeddedPromptArgs {
    resource_uri: String,
}

/// A tool without arguments.
pub(crate) fn no_args_tool(name: &str, description: &str) -> Tool {
    Tool::new(name, description).input_schema(json!({"type": "object", "properties": {}}))
}

pub(crate) fn text_resource(uri: &str, mime_type: &str, text: impl Into<String>) -> Content {
    let mut contents = TextResourceContents::new(uri, text);
    contents.mime_type = Some(mime_type.to_owned());
    Content::resource(contents)
}

async fn with_logging(ctx: Context) -> String {
    ctx.log(LoggingLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LoggingLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LoggingLevel::Info, "Tool execution completed")
        .await;
    "Tool with logging executed successfully".to_owned()
}

async fn with_progress(ctx: Context) -> String {
    for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.progress(step, Some(100.0), None).await;
    }
    "Tool with progress executed successfully".to_owned()
}

async fn sampling(args: SamplingArgs, ctx: Context) -> ToolOutput {
    let params = CreateMessageParams::new(vec![SamplingMessage::user_text(args.prompt)], 100);
    match ctx.sample(params).await {
        Ok(result) => ToolOutput::text(format!("LLM response: {}", sampled_text(&result))),
        Err(e) => ToolOutput::error(format!("Sampling failed: {e}")),
    }
}

/// Asks the client with `schema`; the result as text, or an error result.
async fn elicit(ctx: &Context, message: String, schema: Value, prefix: &str) -> ToolOutput {
    match ctx.elicit(ElicitParams::form(message, schema)).await {
        Ok(result) => {
            let action = serde_json::to_value(result.action).unwrap_or(Value::Null);
            let content = Value::Object(result.content.unwrap_or_default());
            let action = action.as_str().unwrap_or("unknown").to_owned();
            ToolOutput::text(format!("{prefix}action={action}, content={content}"))
        }
        Err(e) => ToolOutput::error(format!("Elicitation failed: {e}")),
    }
}

async fn elicitation(args: ElicitationArgs, ctx: Context) -> ToolOutput {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    elicit(&ctx, args.message, schema, "User response: ").await
}

async fn elicitation_defaults(ctx: Context) -> ToolOutput {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        }
    });
    let message = "Please review and update the form fields with defaults".to_owned();
    elicit(&ctx, message, schema, "Elicitation completed: ").await
}

async fn elicitation_enums(ctx: Context) -> ToolOutput {
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Untitled single-select",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Titled single-select",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]
            },
            "legacyEnum": {
                "type": "string",
                "description": "Legacy titled enum",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Untitled multi-select",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "description": "Titled multi-select",
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"}
                    ]
                }
            }
        }
    });
    let message = "Please choose from the enum fields".to_owned();
    elicit(&ctx, message, schema, "Elicitation completed: ").await
}

async fn reconnection(_ctx: Context) -> String {
    tokio::time::sleep(RECONNECTION_DELAY).await;
    "Reconnection test completed successfully".to_owned()
}

pub(crate) fn tools(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    builder
        .tool(
            no_args_tool("test_simple_text", "Returns a simple text response"),
            || async { "This is a simple text response for testing." },
        )
        .tool(
            no_args_tool("test_image_content", "Returns a 1x1 PNG image"),
            || async { Content::image(PNG, "image/png") },
        )
        .tool(
            no_args_tool("test_audio_content", "Returns a short WAV clip"),
            || async { Content::audio(WAV, "audio/wav") },
        )
        .tool(
            no_args_tool("test_embedded_resource", "Returns an embedded text resource"),
            || async {
                text_resource(
                    "test://embedded-resource",
                    "text/plain",
                    "This is an embedded resource content.",
                )
            },
        )
        .tool(
            no_args_tool(
                "test_multiple_content_types",
                "Returns text, an image and an embedded resource",
            ),
            || async {
                vec![
                    Content::text("Multiple content types test:"),
                    Content::image(PNG, "image/png"),
                    text_resource(
                        "test://mixed-content-resource",
                        "application/json",
                        r#"{"test":"data","value":123}"#,
                    ),
                ]
            },
        )
        .tool(
            no_args_tool(
                "test_tool_with_logging",
                "Sends three log messages while it runs",
            ),
            with_logging,
        )
        .tool(
            no_args_tool(
                "test_tool_with_progress",
                "Reports progress 0, 50 and 100 of 100",
            ),
            with_progress,
        )
        .tool(
            no_args_tool("test_error_handling", "Always fails with an error result"),
            || async {
                CallToolResult::error("This tool intentionally returns an error for testing")
            },
        )
        .tool(
            Tool::new("test_sampling", "Asks the client's model to answer a prompt").input_schema(
                json!({
                    "type": "object",
                    "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
                    "required": ["prompt"]
                }),
            ),
            sampling,
        )
        .tool(
            Tool::new("test_elicitation", "Asks the user for a username and an email")
                .input_schema(json!({
                    "type": "object",
                    "properties": {"message": {"type": "string", "description": "The message to show the user"}},
                    "required": ["message"]
                })),
            elicitation,
        )
        .tool(
            no_args_tool(
                "test_elicitation_sep1034_defaults",
                "Elicits fields of every primitive type, each with a default (SEP-1034)",
            ),
            elicitation_defaults,
        )
        .tool(
            no_args_tool(
                "test_elicitation_sep1330_enums",
                "Elicits every kind of enum field (SEP-1330)",
            ),
            elicitation_enums,
        )
        .tool(
            Tool::new(
                "json_schema_2020_12_tool",
                "Tool with JSON Schema 2020-12 features",
            )
            .input_schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {
                    "address": {
                        "$anchor": "addressDef",
                        "type": "object",
                        "properties": {
                            "street": {"type": "string"},
                            "city": {"type": "string"}
                        }
                    }
                },
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {
                    "properties": {"contactMethod": {"const": "phone"}},
                    "required": ["contactMethod"]
                },
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            })),
            |_: Value, _: Context| async { "JSON Schema 2020-12 tool called" },
        )
        .tool(
            Tool::new(
                "test_custom_header",
                "Echoes a string parameter that 2026-07-28 HTTP clients mirror in Mcp-Param-Region (SEP-2243)",
            )
            .input_schema(json!({
                "type": "object",
                "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"}
                },
                "required": ["region"]
            })),
            |args: Value, _: Context| async move {
                format!("region: {}", args["region"].as_str().unwrap_or_default())
            },
        )
        .tool(
            Tool::new("echo", "Echoes its message back")
                .input_schema(json!({
                    "type": "object",
                    "properties": {"message": {"type": "string"}},
                    "required": ["message"]
                }))
                .read_only(),
            |args: EchoArgs, _: Context| async move { format!("Echo: {}", args.message) },
        )
        .tool(
            no_args_tool(
                "test_reconnection",
                "Answers after its SSE stream was closed, for replay after reconnection (SEP-1699)",
            ),
            reconnection,
        )
}

pub(crate) fn resources(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    builder
        .resource(
            Resource::new("test://static-text", "static-text")
                .description("A static text resource")
                .mime_type("text/plain"),
            |_: ResourceRequest, _: Context| async {
                "This is the content of the static text resource."
            },
        )
        .resource(
            Resource::new("test://static-binary", "static-binary")
                .description("A static binary resource (a PNG image)")
                .mime_type("image/png"),
            |req: ResourceRequest, _: Context| async move {
                BlobResourceContents::new(req.uri, PNG).with_mime_type("image/png")
            },
        )
        .resource(
            Resource::new("test://watched-resource", "watched-resource")
                .description("A resource clients may subscribe to")
                .mime_type("text/plain"),
            |_: ResourceRequest, _: Context| async { "Watched resource content." },
        )
        .resource(
            Resource::new(UNICODE_URI, "unicode-uri")
                .description("A resource whose URI is percent-encoded UTF-8 (café ☕)")
                .mime_type("text/plain"),
            |_: ResourceRequest, _: Context| async { UNICODE_TEXT },
        )
        .resource_template(
            ResourceTemplate::new("test://template/{id}/data", "template-data")
                .description("JSON data for an id")
                .mime_type("application/json"),
            |req: ResourceRequest, _: Context| async move {
                let id = req.var("id").unwrap_or_default().to_owned();
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")})
                    .to_string()
            },
        )
}

pub(crate) fn prompts(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    builder
        .prompt(
            Prompt::new("test_simple_prompt", "A simple prompt without arguments"),
            |_: PromptArguments, _: Context| async {
                "This is a simple prompt for testing.".to_owned()
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_arguments", "A prompt with two arguments")
                .argument("arg1", "First test argument", true)
                .argument("arg2", "Second test argument", true),
            |args: PromptArgs, _: Context| async move {
                format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    args.arg1, args.arg2
                )
            },
        )
        .prompt(
            Prompt::new(
                "test_prompt_with_embedded_resource",
                "A prompt that embeds a resource",
            )
            .argument("resourceUri", "URI of the resource to embed", true),
            |args: EmbeddedPromptArgs, _: Context| async move {
                GetPromptResult::new(vec![
                    PromptMessage::new(
                        Role::User,
                        text_resource(
                            &args.resource_uri,
                            "text/plain",
                            "Embedded resource content for testing.",
                        ),
                    ),
                    PromptMessage::user("Please process the embedded resource above."),
                ])
            },
        )
        .prompt(
            Prompt::new("test_prompt_ünïcödé", "A prompt whose name is not ASCII"),
            |_: PromptArguments, _: Context| async { UNICODE_TEXT.to_owned() },
        )
        .prompt(
            Prompt::new("test_prompt_with_image", "A prompt with an image"),
            |_: PromptArguments, _: Context| async {
                GetPromptResult::new(vec![
                    PromptMessage::new(Role::User, Content::image(PNG, "image/png")),
                    PromptMessage::user("Please analyze the image above."),
                ])
            },
        )
        .prompt_completion(
            "test_prompt_with_arguments",
            "arg1",
            |req: CompletionRequest, _: Context| async move {
                complete_from(&["paris", "park", "party"], &req.value)
            },
        )
        .prompt_completion(
            "test_prompt_with_arguments",
            "arg2",
            |req: CompletionRequest, _: Context| async move {
                complete_from(&["hello", "world"], &req.value)
            },
        )
}
