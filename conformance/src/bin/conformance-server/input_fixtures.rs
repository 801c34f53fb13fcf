//! The fixtures of the 2026-07-28 scenarios: tools and a prompt that ask the client for input
//! (elicitation, sampling, roots) through one `Context` API in both eras, one that needs
//! `sampling`, one that logs, and two that change the tool and prompt lists.

use mcp_server::{Context, HandlerError, LoggingLevel, Prompt, PromptArguments, ServerError};
use serde_json::Value;

use crate::core_fixtures::no_args_tool;
use crate::input_requests::{answer, ask, refused, sample_request, sampled_text};

/// The suite wants this ask under the key `user_name` (and answers it without a requestState).
async fn mrtr_elicitation(ctx: Context) -> Result<String, HandlerError> {
    let name = ctx
        .elicit_as("user_name", ask("What is your name?", "name", "string"))
        .await
        .map_err(refused)?;
    Ok(format!("Hello, {}!", answer(&name, "name")))
}

async fn mrtr_sampling(ctx: Context) -> Result<String, HandlerError> {
    let result = ctx
        .sample(sample_request("What is the capital of France?", 100))
        .await
        .map_err(refused)?;
    Ok(format!("Sampling result: {}", sampled_text(&result)))
}

async fn mrtr_list_roots(ctx: Context) -> Result<String, HandlerError> {
    let roots = ctx.list_roots().await.map_err(refused)?;
    Ok(format!("Found {} root(s)", roots.roots.len()))
}

async fn mrtr_request_state(ctx: Context) -> Result<String, HandlerError> {
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
async fn mrtr_multiple(ctx: Context) -> Result<String, HandlerError> {
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

async fn mrtr_multi_round(ctx: Context) -> Result<String, HandlerError> {
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

async fn mrtr_tampered_state(ctx: Context) -> Result<String, HandlerError> {
    ctx.elicit(ask("Please confirm", "ok", "boolean"))
        .await
        .map_err(refused)?;
    Ok("integrity-ok: state verified".to_owned())
}

/// Asks only for what the client declared: elicitation and/or sampling.
async fn mrtr_capabilities(ctx: Context) -> Result<String, HandlerError> {
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
async fn missing_capability(ctx: Context) -> Result<String, HandlerError> {
    ctx.sample(sample_request("Say something", 20))
        .await
        .map_err(refused)?;
    Ok("Success".to_owned())
}

/// A progress notification, then a question: the response stream holds notifications and the
/// answer only, never a request.
async fn streaming_elicitation(ctx: Context) -> Result<String, HandlerError> {
    ctx.progress(50.0, Some(100.0), None).await;
    ctx.elicit(ask("Continue?", "ok", "boolean"))
        .await
        .map_err(refused)?;
    Ok("Streaming complete".to_owned())
}

async fn logging_tool(ctx: Context) -> &'static str {
    ctx.log(LoggingLevel::Info, "Diagnostic trace logging activated")
        .await;
    "Logging evaluated"
}

/// The name of the tool and prompt that [`toggle_tool`] and [`toggle_prompt`] add and remove.
const TOGGLED: &str = "test_toggled";

/// Adds or removes a tool, so the server's tool list changes.
async fn toggle_tool(ctx: Context) -> &'static str {
    if !ctx.server().remove_tool(TOGGLED) {
        let added = ctx.server().add_tool(
            no_args_tool(
                TOGGLED,
                "Appears and disappears with test_trigger_tool_change",
            ),
            || async { "toggled" },
        );
        if added.is_err() {
            return "Mutation failed: the tool was refused";
        }
    }
    "Mutation triggered"
}

/// Adds or removes a prompt, so the server's prompt list changes.
async fn toggle_prompt(ctx: Context) -> &'static str {
    if !ctx.server().remove_prompt(TOGGLED) {
        let added = ctx.server().add_prompt(
            Prompt::new(
                TOGGLED,
                "Appears and disappears with test_trigger_prompt_change",
            ),
            |_: PromptArguments, _: Context| async { "toggled".to_owned() },
        );
        if added.is_err() {
            return "Mutation failed: the prompt was refused";
        }
    }
    "Mutation triggered"
}

/// The fixtures of the 2026-07-28 scenarios (server-stateless and input-required-result-*).
pub(crate) fn input_tools(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
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

pub(crate) fn input_prompts(builder: mcp_server::ServerBuilder) -> mcp_server::ServerBuilder {
    builder.prompt(
        Prompt::new(
            "test_input_required_result_prompt",
            "MRTR: a prompt that asks for its context",
        ),
        mrtr_prompt,
    )
}
