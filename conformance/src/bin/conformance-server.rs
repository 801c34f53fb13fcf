//! The fixture server the official suite `@modelcontextprotocol/conformance` drives: every tool,
//! resource, template and prompt its server scenarios use, over Streamable HTTP with sessions on
//! 127.0.0.1 (`--port P`, default 3000), endpoint `/mcp`; `--stdio` serves the same fixtures on
//! stdin/stdout instead (for `mcp-conformance stdio`).
//!
//! The 2026-07-28 scenarios (suite 0.2.0, requirement set `2026-07-28`) add the fixtures in
//! [`input_tools`] and [`input_prompts`]: tools and a prompt that ask the client for input
//! through `ctx.elicit`, `ctx.sample` and `ctx.list_roots` (server-to-client requests under
//! 2025, `input_required` results under 2026-07-28), one that needs `sampling`, one that logs, and
//! two that change the tool and prompt lists. `conformance/RESULTS.md` lists what each scenario
//! expects of them.

use std::process::ExitCode;
use std::time::Duration;

use mcp_server::http::HttpConfig;
use mcp_server::schema::{
    BlobResourceContents, CallToolResult, Content, CreateMessageParams, CreateMessageResult,
    ElicitParams, ElicitResult, GetPromptResult, PromptMessage, Role, SamplingMessage, TaskSupport,
    TextResourceContents,
};
use mcp_server::{
    complete_from, CompletionRequest, Context, LoggingLevel, NoArgs, Prompt, PromptArguments,
    Resource, ResourceRequest, ResourceTemplate, Server, ServerError, Tool, ToolError, ToolOutput,
};
use mcp_server::{schemars, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Value};

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
const SSE_AFTER: Duration = Duration::from_millis(50);
/// A POST's SSE connection is closed after this long; longer than every other fixture takes.
const SSE_CLOSE_AFTER: Duration = Duration::from_millis(300);
/// The `retry` the server asks of reconnecting clients.
const SSE_RETRY: Duration = Duration::from_millis(500);

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
fn no_args_tool(name: &str, description: &str) -> Tool {
    Tool::new(name, description).input_schema(json!({"type": "object", "properties": {}}))
}

fn text_resource(uri: &str, mime_type: &str, text: impl Into<String>) -> Content {
    let mut contents = TextResourceContents::new(uri, text);
    contents.mime_type = Some(mime_type.to_owned());
    Content::resource(contents)
}

async fn with_logging(_: NoArgs, ctx: Context) -> String {
    ctx.log(LoggingLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LoggingLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LoggingLevel::Info, "Tool execution completed")
        .await;
    "Tool with logging executed successfully".to_owned()
}

async fn with_progress(_: NoArgs, ctx: Context) -> String {
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

async fn elicitation_defaults(_: NoArgs, ctx: Context) -> ToolOutput {
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

async fn elicitation_enums(_: NoArgs, ctx: Context) -> ToolOutput {
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

async fn reconnection(_: NoArgs, _ctx: Context) -> String {
    tokio::time::sleep(RECONNECTION_DELAY).await;
    "Reconnection test completed successfully".to_owned()
}

fn tools(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    builder
        .tool(
            no_args_tool("test_simple_text", "Returns a simple text response"),
            |_: NoArgs, _: Context| async { "This is a simple text response for testing." },
        )
        .tool(
            no_args_tool("test_image_content", "Returns a 1x1 PNG image"),
            |_: NoArgs, _: Context| async { Content::image(PNG, "image/png") },
        )
        .tool(
            no_args_tool("test_audio_content", "Returns a short WAV clip"),
            |_: NoArgs, _: Context| async { Content::audio(WAV, "audio/wav") },
        )
        .tool(
            no_args_tool("test_embedded_resource", "Returns an embedded text resource"),
            |_: NoArgs, _: Context| async {
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
            |_: NoArgs, _: Context| async {
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
            |_: NoArgs, _: Context| async {
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
                        "type": "object",
                        "properties": {
                            "street": {"type": "string"},
                            "city": {"type": "string"}
                        }
                    }
                },
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"}
                },
                "additionalProperties": false
            })),
            |_: Value, _: Context| async { "JSON Schema 2020-12 tool called" },
        )
        .tool(
            no_args_tool(
                "test_reconnection",
                "Answers after its SSE stream was closed, for replay after reconnection (SEP-1699)",
            ),
            reconnection,
        )
}

fn resources(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
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

fn prompts(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
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

/// A form elicitation of one required field `field` of JSON type `kind`.
fn ask(message: &str, field: &str, kind: &str) -> ElicitParams {
    let schema = json!({
        "type": "object",
        "properties": {field: {"type": kind}},
        "required": [field]
    });
    ElicitParams::form(message, schema)
}

/// A sampling request of one user message.
fn sample_request(text: &str, max_tokens: u64) -> CreateMessageParams {
    CreateMessageParams::new(vec![SamplingMessage::user_text(text)], max_tokens)
}

/// Field `field` of an accepted elicitation, as text (`"?"` when absent).
fn answer(result: &ElicitResult, field: &str) -> String {
    match result.content.as_ref().and_then(|c| c.get(field)) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => "?".to_owned(),
    }
}

/// The text of a sampling answer.
fn sampled_text(result: &CreateMessageResult) -> String {
    let text: Vec<&str> = result
        .content
        .blocks()
        .iter()
        .filter_map(Content::as_text)
        .collect();
    text.join("")
}

/// Asking the client for input failed: the request is refused with the protocol error (under
/// 2026-07-28 this is also how an `input_required` answer leaves the handler).
fn refused(error: ServerError) -> ToolError {
    ToolError::protocol(error)
}

/// The suite wants this ask under the key `user_name` (and answers it without a requestState).
async fn mrtr_elicitation(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    let name = ctx
        .elicit_as("user_name", ask("What is your name?", "name", "string"))
        .await
        .map_err(refused)?;
    Ok(format!("Hello, {}!", answer(&name, "name")))
}

async fn mrtr_sampling(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    let result = ctx
        .sample(sample_request("What is the capital of France?", 100))
        .await
        .map_err(refused)?;
    Ok(format!("Sampling result: {}", sampled_text(&result)))
}

async fn mrtr_list_roots(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    let roots = ctx.list_roots().await.map_err(refused)?;
    Ok(format!("Found {} root(s)", roots.roots.len()))
}

async fn mrtr_request_state(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    let confirm = ctx
        .elicit(ask("Please confirm", "ok", "boolean"))
        .await
        .map_err(refused)?;
    let ok = confirm.content.as_ref().and_then(|c| c.get("ok")) == Some(&Value::Bool(true));
    Ok(if ok {
        "state-ok: requestState validated".to_owned()
    } else {
        "state-not-confirmed".to_owned()
    })
}

/// Three questions at once: joined, so under 2026-07-28 they leave in one `input_required`.
async fn mrtr_multiple(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    let (name, greeting, roots) = tokio::join!(
        ctx.elicit(ask("What is your name?", "name", "string")),
        ctx.sample(sample_request("Generate a greeting", 50)),
        ctx.list_roots(),
    );
    let (name, greeting, roots) = (
        name.map_err(refused)?,
        greeting.map_err(refused)?,
        roots.map_err(refused)?,
    );
    Ok(format!(
        "Name: {}; Greeting: {}; Roots: {}",
        answer(&name, "name"),
        sampled_text(&greeting),
        roots.roots.len()
    ))
}

async fn mrtr_multi_round(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    let name = ctx
        .elicit(ask("Step 1: What is your name?", "name", "string"))
        .await
        .map_err(refused)?;
    let color = ctx
        .elicit(ask(
            "Step 2: What is your favorite color?",
            "color",
            "string",
        ))
        .await
        .map_err(refused)?;
    Ok(format!(
        "Multi-round complete for {} who likes {}",
        answer(&name, "name"),
        answer(&color, "color")
    ))
}

async fn mrtr_tampered_state(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    ctx.elicit(ask("Please confirm", "ok", "boolean"))
        .await
        .map_err(refused)?;
    Ok("integrity-ok: state verified".to_owned())
}

/// Asks only for what the client declared: elicitation and/or sampling.
async fn mrtr_capabilities(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    let caps = ctx.client_capabilities();
    let can_elicit = caps.is_some_and(|c| c.elicitation.is_some());
    let can_sample = caps.is_some_and(|c| c.sampling.is_some());
    if !can_elicit && !can_sample {
        return Ok("No supported capabilities declared".to_owned());
    }
    let elicit = async {
        match can_elicit {
            true => Some(
                ctx.elicit(ask("Elicitation input", "value", "string"))
                    .await,
            ),
            false => None,
        }
    };
    let sample = async {
        match can_sample {
            true => Some(ctx.sample(sample_request("Sample request", 50)).await),
            false => None,
        }
    };
    let (elicited, sampled) = tokio::join!(elicit, sample);
    let mut received = Vec::new();
    if let Some(result) = elicited {
        result.map_err(refused)?;
        received.push("elicit_input");
    }
    if let Some(result) = sampled {
        result.map_err(refused)?;
        received.push("sample_input");
    }
    Ok(format!("capabilities-ok: received {}", received.join(",")))
}

/// Needs `sampling`: a client without it is refused (-32021 under 2026-07-28).
async fn missing_capability(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    ctx.sample(sample_request("Say something", 20))
        .await
        .map_err(refused)?;
    Ok("Success".to_owned())
}

/// A progress notification, then a question: the response stream holds notifications and the
/// answer only, never a request.
async fn streaming_elicitation(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    ctx.progress(50.0, Some(100.0), None).await;
    ctx.elicit(ask("Continue?", "ok", "boolean"))
        .await
        .map_err(refused)?;
    Ok("Streaming complete".to_owned())
}

async fn logging_tool(_: NoArgs, ctx: Context) -> &'static str {
    ctx.log(LoggingLevel::Info, "Diagnostic trace logging activated")
        .await;
    "Logging evaluated"
}

/// The name of the tool and prompt that [`toggle_tool`] and [`toggle_prompt`] add and remove.
const TOGGLED: &str = "test_toggled";

/// Adds or removes a tool, so the server's tool list changes.
async fn toggle_tool(_: NoArgs, ctx: Context) -> &'static str {
    if !ctx.server().remove_tool(TOGGLED) {
        ctx.server().add_tool(
            no_args_tool(
                TOGGLED,
                "Appears and disappears with test_trigger_tool_change",
            ),
            |_: NoArgs, _: Context| async { "toggled" },
        );
    }
    "Mutation triggered"
}

/// Adds or removes a prompt, so the server's prompt list changes.
async fn toggle_prompt(_: NoArgs, ctx: Context) -> &'static str {
    if !ctx.server().remove_prompt(TOGGLED) {
        ctx.server().add_prompt(
            Prompt::new(
                TOGGLED,
                "Appears and disappears with test_trigger_prompt_change",
            ),
            |_: PromptArguments, _: Context| async { "toggled".to_owned() },
        );
    }
    "Mutation triggered"
}

/// The fixtures of the 2026-07-28 scenarios (server-stateless and input-required-result-*).
fn input_tools(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    builder
        .tool(
            no_args_tool(
                "test_input_required_result_elicitation",
                "MRTR: asks for the user's name",
            ),
            mrtr_elicitation,
        )
        .tool(
            no_args_tool(
                "test_input_required_result_sampling",
                "MRTR: asks the client's model a question",
            ),
            mrtr_sampling,
        )
        .tool(
            no_args_tool(
                "test_input_required_result_list_roots",
                "MRTR: asks for the client's roots",
            ),
            mrtr_list_roots,
        )
        .tool(
            no_args_tool(
                "test_input_required_result_request_state",
                "MRTR: asks for a confirmation and resumes from requestState",
            ),
            mrtr_request_state,
        )
        .tool(
            no_args_tool(
                "test_input_required_result_multiple_inputs",
                "MRTR: asks for a name, a sampled greeting and the roots at once",
            ),
            mrtr_multiple,
        )
        .tool(
            no_args_tool(
                "test_input_required_result_multi_round",
                "MRTR: asks two questions, one after the other",
            ),
            mrtr_multi_round,
        )
        .tool(
            no_args_tool(
                "test_input_required_result_tampered_state",
                "MRTR: a confirmation whose sealed requestState must not be forged",
            ),
            mrtr_tampered_state,
        )
        .tool(
            no_args_tool(
                "test_input_required_result_capabilities",
                "MRTR: asks only through the capabilities the client declared",
            ),
            mrtr_capabilities,
        )
        .tool(
            no_args_tool(
                "test_missing_capability",
                "Needs the client's sampling capability",
            ),
            missing_capability,
        )
        .tool(
            no_args_tool(
                "test_streaming_elicitation",
                "Reports progress, then asks a question",
            ),
            streaming_elicitation,
        )
        .tool(
            no_args_tool("test_logging_tool", "Logs one message at info"),
            logging_tool,
        )
        .tool(
            no_args_tool("test_trigger_tool_change", "Changes the tool list"),
            toggle_tool,
        )
        .tool(
            no_args_tool("test_trigger_prompt_change", "Changes the prompt list"),
            toggle_prompt,
        )
}

async fn mrtr_prompt(_: PromptArguments, ctx: Context) -> Result<String, ServerError> {
    let context = ctx
        .elicit(ask(
            "What context should the prompt use?",
            "context",
            "string",
        ))
        .await?;
    Ok(format!(
        "Prompt with context: {}",
        answer(&context, "context")
    ))
}

fn input_prompts(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    builder.prompt(
        Prompt::new(
            "test_input_required_result_prompt",
            "MRTR: a prompt that asks for its context",
        ),
        mrtr_prompt,
    )
}

#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct SlowComputeArgs {
    /// How long to work, in seconds (0: answer at once).
    seconds: f64,
    /// A label echoed in the result.
    #[serde(default)]
    label: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct ConfirmDeleteArgs {
    filename: String,
}

async fn greet(args: GreetArgs) -> String {
    format!("Hello, {}!", args.name)
}

/// Works `seconds` (cancellable: a cancelled task stops here), then answers.
async fn slow_compute(args: SlowComputeArgs, ctx: Context) -> Result<String, ToolError> {
    let label = args.label.unwrap_or_default();
    if args.seconds > 0.0 {
        let work = Duration::from_secs_f64(args.seconds.min(3600.0));
        tokio::select! {
            _ = tokio::time::sleep(work) => {}
            _ = ctx.cancelled() => return Err(ToolError::from("cancelled")),
        }
    }
    Ok(format!("Computed {label} in {}s", args.seconds))
}

/// Fails as a tool (an `isError` result, so the task completes) after about a second.
async fn failing_job(_: NoArgs) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::from("the job failed (as it always does)"))
}

/// Fails with a JSON-RPC error (so the task fails) after a moment.
async fn protocol_error_job(_: NoArgs) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    Err(ToolError::protocol(ServerError::handler(
        "protocol_error_job: an internal error, on purpose",
    )))
}

/// Works a moment (so it becomes a task), then asks for confirmation in the task.
async fn confirm_delete(args: ConfirmDeleteArgs, ctx: Context) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    let confirm = ctx
        .elicit(ask(
            &format!("Delete {}?", args.filename),
            "confirm",
            "boolean",
        ))
        .await
        .map_err(refused)?;
    let yes = confirm.content.as_ref().and_then(|c| c.get("confirm")) == Some(&json!(true));
    Ok(if yes {
        format!("Deleted {}", args.filename)
    } else {
        format!("Kept {}", args.filename)
    })
}

/// Works a moment, then asks two questions at once (two input requests outstanding together).
async fn multi_input(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (name, confirm) = tokio::join!(
        ctx.elicit(ask("Your name?", "name", "string")),
        ctx.elicit(ask("Proceed?", "confirm", "boolean")),
    );
    let (name, confirm) = (name.map_err(refused)?, confirm.map_err(refused)?);
    Ok(format!(
        "name={}, confirm={}",
        answer(&name, "name"),
        answer(&confirm, "confirm")
    ))
}

/// Asks for a name first (MRTR, before any task exists), then works as a task.
async fn tool_with_task(_: NoArgs, ctx: Context) -> Result<String, ToolError> {
    let name = ctx
        .elicit_as("user_name", ask("What is your name?", "name", "string"))
        .await
        .map_err(refused)?;
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(format!("Hello, {}! (from a task)", answer(&name, "name")))
}

/// The fixtures of the tasks scenarios (suite 0.2.0-alpha.12, extension
/// `io.modelcontextprotocol/tasks`); they also run as 2025-11-25 tasks.
fn task_tools(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    builder
        .tool(Tool::new("greet", "Greets someone (never a task)"), greet)
        .tool(
            Tool::new("slow_compute", "Works for `seconds`, then answers")
                .task_support(TaskSupport::Optional),
            slow_compute,
        )
        .tool(
            no_args_tool("failing_job", "Fails as a tool after about a second")
                .task_support(TaskSupport::Required),
            failing_job,
        )
        .tool(
            no_args_tool("protocol_error_job", "Fails with a JSON-RPC error")
                .task_support(TaskSupport::Optional),
            protocol_error_job,
        )
        .tool(
            Tool::new("confirm_delete", "Asks to confirm a deletion, in a task")
                .task_support(TaskSupport::Optional),
            confirm_delete,
        )
        .tool(
            no_args_tool("multi_input", "Asks two questions at once, in a task")
                .task_support(TaskSupport::Optional),
            multi_input,
        )
        .tool(
            no_args_tool(
                "test_tool_with_task",
                "Asks for a name (MRTR), then runs as a task",
            )
            .task_support(TaskSupport::Required),
            tool_with_task,
        )
}

/// The fixture server.
fn server() -> Server {
    let builder = Server::builder("mcp-rs-conformance-server", env!("CARGO_PKG_VERSION"))
        .instructions("The fixture server of the official MCP conformance suite.")
        .default_log_level(LoggingLevel::Debug);
    task_tools(input_prompts(input_tools(prompts(resources(tools(
        builder,
    ))))))
    .build()
}

/// Where to serve: `--port P` (or `--port=P`; 3000 without one), or `--stdio`.
enum Serve {
    Http(u16),
    Stdio,
}

fn serve_from_args() -> Result<Serve, String> {
    let mut args = std::env::args().skip(1);
    let mut serve = Serve::Http(3000);
    while let Some(arg) = args.next() {
        if arg == "--stdio" {
            serve = Serve::Stdio;
            continue;
        }
        let value = match arg.strip_prefix("--port=") {
            Some(v) => v.to_owned(),
            None if arg == "--port" => args.next().ok_or("--port needs a value")?,
            None => {
                return Err(format!(
                    "unknown argument {arg:?}; usage: --port P | --stdio"
                ))
            }
        };
        let port = value
            .parse()
            .map_err(|_| format!("not a port number: {value:?}"))?;
        serve = Serve::Http(port);
    }
    Ok(serve)
}

#[tokio::main]
async fn main() -> ExitCode {
    let port = match serve_from_args() {
        Ok(Serve::Http(port)) => port,
        Ok(Serve::Stdio) => {
            server().serve_stdio().await;
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("conformance-server: {e}");
            return ExitCode::from(2);
        }
    };
    let config = HttpConfig {
        legacy_sse: None,
        sse_retry: Some(SSE_RETRY),
        sse_after: Some(SSE_AFTER),
        sse_close_after: Some(SSE_CLOSE_AFTER),
        ..HttpConfig::default()
    };
    let http = match server().serve_http(("127.0.0.1", port), config).await {
        Ok(http) => http,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!(
        "conformance-server: listening on http://{}/mcp",
        http.local_addr()
    );
    let stop = http.shutdown_token();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        stop.cancel();
    });
    http.stopped().await;
    ExitCode::SUCCESS
}
