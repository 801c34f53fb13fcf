//! The agent against servers that show what happened on their side: our own server in-process
//! (a long tool whose cancellation the server sees; 200 tools behind tool search) and
//! `@modelcontextprotocol/server-everything` (sampling served by the agent's model, a URL-mode
//! elicitation), plus the model errors a user must be able to act on.

mod common;
#[path = "../../mcp-client/tests/interop/hub_support.rs"]
mod hub_support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::scripted_model::{call, text, Reply, Say, ScriptedModel, Wire};
use common::{config, finished_calls, model_at, turn};
use mcp_agent::{
    Agent, AgentEvent, Human, ModelError, OpenAiChat, Provider, ProviderConfig, StopReason,
};
use mcp_hub::HubOptions;
use mcp_proto::schema::{ElicitParams, ElicitResult};
use mcp_server::http::{HttpConfig, HttpServer};
use mcp_server::{Context, Server, Tool};
use serde_json::{json, Value};
use tokio::sync::Notify;

async fn serve(server: Server) -> (HttpServer, Value) {
    let http = server
        .serve_http("127.0.0.1:0", HttpConfig::default())
        .await
        .expect("bind");
    let entry =
        json!({"type": "streamableHttp", "url": format!("http://{}/mcp", http.local_addr())});
    (http, entry)
}

/// Marks the long tool's work as ended before it finished (on drop).
struct Unfinished(Arc<AtomicBool>, Arc<Notify>);

impl Drop for Unfinished {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
        self.1.notify_one();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_turn_cancels_the_call_on_the_server() {
    let started = Arc::new(Notify::new());
    let cancelled = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Notify::new());
    let (s, c, n) = (started.clone(), cancelled.clone(), seen.clone());
    let server = Server::builder("slow", "1.0.0")
        .tool(
            Tool::new("long_job", "Works for a minute, reporting progress"),
            move |_: Value, ctx: Context| {
                let (s, c, n) = (s.clone(), c.clone(), n.clone());
                async move {
                    // Our server stops a cancelled handler by dropping it (or it sees
                    // `ctx.cancelled()`): either way the work ends unfinished.
                    let unfinished = Unfinished(c, n);
                    ctx.progress(1.0, Some(60.0), Some("started".into())).await;
                    s.notify_one();
                    tokio::select! {
                        _ = ctx.cancelled() => "cancelled",
                        _ = tokio::time::sleep(Duration::from_secs(60)) => {
                            std::mem::forget(unfinished);
                            "done"
                        }
                    }
                }
            },
        )
        .build();
    let (_http, entry) = serve(server).await;
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[Say::Calls(vec![call("l1", "slow__long_job", json!({}))])],
    )
    .await;
    let agent = Agent::builder(model_at(&model, Wire::OpenAi))
        .connect(config(json!({ "slow": entry })), HubOptions::default())
        .await;
    let mut turn = agent.send("Run the long job");
    let mut events = Vec::new();
    while !events
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolProgress { .. }))
    {
        let event = tokio::time::timeout(Duration::from_secs(10), turn.next())
            .await
            .expect("an event")
            .expect("the turn runs");
        events.push(event);
    }
    // Progress is sent before the tool says it started.
    tokio::time::timeout(Duration::from_secs(20), started.notified())
        .await
        .expect("the tool started");
    turn.cancel();
    let summary = tokio::time::timeout(Duration::from_secs(10), turn.finish())
        .await
        .expect("the turn ends");
    assert_eq!(summary.reason, StopReason::Cancelled);
    tokio::time::timeout(Duration::from_secs(10), seen.notified())
        .await
        .expect("the server saw notifications/cancelled");
    assert!(cancelled.load(Ordering::SeqCst));
    // The conversation stays well-formed: the call has its (cancelled) result.
    let conversation = agent.conversation().await;
    let last = conversation.last().expect("messages");
    assert!(matches!(
        &last.parts[0],
        mcp_agent::Part::ToolResult(r) if r.is_error
    ));
    agent.hub().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_ends_a_turn_and_its_calls() {
    let server = Server::builder("slow", "1.0.0")
        .tool(
            Tool::new("long_job", "Works for a minute"),
            |_: Value, _ctx: Context| async move {
                tokio::time::sleep(Duration::from_secs(60)).await;
                "done"
            },
        )
        .build();
    let (_http, entry) = serve(server).await;
    let model = ScriptedModel::speaking(
        Wire::Gemini,
        &[Say::Calls(vec![call("b1", "slow__long_job", json!({}))])],
    )
    .await;
    let agent = Agent::builder(model_at(&model, Wire::Gemini))
        .options(mcp_agent::AgentOptions {
            budget: Some(Duration::from_millis(500)),
            ..Default::default()
        })
        .connect(config(json!({ "slow": entry })), HubOptions::default())
        .await;
    let started = std::time::Instant::now();
    let (events, summary) = turn(&agent, "Run the long job").await;
    assert_eq!(summary.reason, StopReason::Budget, "{events:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(finished_calls(&events)[0].1);
    agent.hub().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_tools_go_behind_tool_search() {
    let mut builder = Server::builder("many", "1.0.0");
    for i in 0..199 {
        builder = builder.tool(
            Tool::new(
                format!("record_{i:03}"),
                format!("Stores ledger record number {i} for the archive"),
            ),
            move |_: Value, _ctx: Context| async move { format!("record {i} stored") },
        );
    }
    builder = builder.tool(
        Tool::new(
            "convert_currency",
            "Converts an amount of money from one currency to another",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {"amount": {"type": "number"}, "to": {"type": "string"}},
            "required": ["amount", "to"]
        })),
        |args: Value, _ctx: Context| async move {
            format!(
                "{} EUR is {} {}",
                args["amount"], args["amount"], args["to"]
            )
        },
    );
    let (_http, entry) = serve(builder.build()).await;
    let model = ScriptedModel::speaking(
        Wire::Anthropic,
        &[
            Say::Calls(vec![call(
                "s1",
                "search_tools",
                json!({"query": "convert money currency"}),
            )]),
            Say::Calls(vec![call(
                "s2",
                "call_tool",
                json!({"name": "many__convert_currency", "arguments": {"amount": 5, "to": "USD"}}),
            )]),
            text("5 EUR is about 5 USD."),
        ],
    )
    .await;
    let agent = Agent::builder(model_at(&model, Wire::Anthropic))
        .connect(config(json!({ "many": entry })), HubOptions::default())
        .await;
    assert_eq!(agent.hub().tools().len(), 200);
    let (events, summary) = turn(&agent, "Convert 5 EUR to USD").await;
    assert_eq!(summary.reason, StopReason::Completed, "{events:?}");
    let requests = model.requests();
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["search_tools", "call_tool"]);
    let calls = finished_calls(&events);
    assert!(
        calls[0].2.contains("many__convert_currency"),
        "{}",
        calls[0].2
    );
    assert!(!calls[1].1, "{calls:?}");
    assert!(calls[1].2.contains("5 EUR is 5 \"USD\""), "{}", calls[1].2);
    agent.hub().close().await;
}

/// Waits for a tool that server-everything registers only after it has seen the client's
/// capabilities (it then says `list_changed`).
async fn wait_for_tool(agent: &Agent, name: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !agent.hub().tools().iter().any(|t| t.exposed == name) {
        assert!(
            std::time::Instant::now() < deadline,
            "{name} never appeared"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// server-everything, or `None` (skipped) without the interop peers.
fn everything() -> Option<Value> {
    let modules = std::env::var_os("MCP_INTEROP_NODE_MODULES").map(std::path::PathBuf::from);
    match modules {
        Some(m) => Some(json!({ "everything": hub_support::everything_entry(&m) })),
        None => {
            assert_ne!(
                std::env::var("MCP_INTEROP_REQUIRED").as_deref(),
                Ok("1"),
                "MCP_INTEROP_NODE_MODULES is not set; run scripts/interop-setup.sh"
            );
            eprintln!("skipped: MCP_INTEROP_NODE_MODULES is not set");
            None
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sampling_request_is_served_by_the_model() {
    let Some(servers) = everything() else { return };
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            Say::Calls(vec![call(
                "x1",
                "everything__trigger-sampling-request",
                json!({"prompt": "Say hello", "maxTokens": 50}),
            )]),
            text("Hello from the agent's model"),
            text("The server's model said hello."),
        ],
    )
    .await;
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let human = Human::new().sample_with(move |server, _params| {
        seen.lock().unwrap().push(server);
        async { true }
    });
    let agent = Agent::builder(model_at(&model, Wire::OpenAi))
        .human(human)
        .connect(config(servers), HubOptions::default())
        .await;
    wait_for_tool(&agent, "everything__trigger-sampling-request").await;
    let (events, summary) = turn(&agent, "Trigger a sampling request").await;
    assert_eq!(summary.reason, StopReason::Completed, "{events:?}");
    assert_eq!(*asked.lock().unwrap(), vec!["everything".to_owned()]);
    let calls = finished_calls(&events);
    assert!(!calls[0].1, "{calls:?}");
    assert!(
        calls[0].2.contains("Hello from the agent's model"),
        "{}",
        calls[0].2
    );
    // The sampling request reached the model with the server's system prompt and no tools.
    let sampled = &model.requests()[1].body;
    assert_eq!(
        sampled["messages"][0]["content"],
        "You are a helpful test server."
    );
    assert!(sampled["messages"][1].to_string().contains("Say hello"));
    assert!(sampled.get("tools").is_none());
    assert!(events
        .iter()
        .any(|e| matches!(e, AgentEvent::SamplingRequested { server } if server == "everything")));
    agent.hub().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_elicitation_is_answered() {
    let Some(servers) = everything() else { return };
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            Say::Calls(vec![call(
                "u1",
                "everything__trigger-url-elicitation",
                json!({"url": "https://example.com/consent", "message": "Please consent"}),
            )]),
            text("Done."),
        ],
    )
    .await;
    let asked = Arc::new(Mutex::new(None));
    let seen = asked.clone();
    let human = Human::new().elicit_with(move |_server, params: ElicitParams| {
        if let ElicitParams::Url(url) = &params {
            *seen.lock().unwrap() = Some(url.url.clone());
        }
        async { ElicitResult::accept(None) }
    });
    let agent = Agent::builder(model_at(&model, Wire::OpenAi))
        .human(human)
        .connect(config(servers), HubOptions::default())
        .await;
    wait_for_tool(&agent, "everything__trigger-url-elicitation").await;
    let (events, summary) = turn(&agent, "Ask me to open a URL").await;
    assert_eq!(summary.reason, StopReason::Completed, "{events:?}");
    assert_eq!(
        asked.lock().unwrap().as_deref(),
        Some("https://example.com/consent")
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, AgentEvent::ElicitationRequested { mode, .. } if mode == "url")));
    assert!(!finished_calls(&events)[0].1, "{events:?}");
    agent.hub().close().await;
}

#[tokio::test]
async fn model_errors_say_what_to_do() {
    // A missing key names the variable.
    let mut config = ProviderConfig::from_env(Provider::Anthropic, "m");
    config.api_key = None;
    config.api_key_env = "ANTHROPIC_API_KEY".into();
    let e = Provider::Anthropic.connect(config).err().expect("no key");
    assert!(matches!(e, ModelError::MissingApiKey { .. }));
    assert!(e.to_string().contains("set ANTHROPIC_API_KEY"), "{e}");

    // A 401 says the key was refused and where it came from.
    let server = ScriptedModel::start(vec![Reply::Status(
        401,
        vec![],
        r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#
            .into(),
    )])
    .await;
    let model = model_at(&server, Wire::OpenAi);
    let e = mcp_agent::serve_sampling(model.as_ref(), &sampling_params())
        .await
        .expect_err("401");
    assert!(
        matches!(e, ModelError::Unauthorized { status: 401, .. }),
        "{e}"
    );
    let message = e.to_string();
    assert!(
        message.contains("check OPENAI_API_KEY") && message.contains("Incorrect API key"),
        "{message}"
    );

    // An endpoint nobody listens on is unreachable, at once.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = listener.local_addr().unwrap();
    drop(listener);
    let model = OpenAiChat::new(
        ProviderConfig::from_env(Provider::OpenAi, "m")
            .with_base_url(format!("http://{dead}/v1"))
            .with_api_key("k"),
    )
    .unwrap();
    let e = mcp_agent::serve_sampling(&model, &sampling_params())
        .await
        .expect_err("unreachable");
    assert!(matches!(e, ModelError::Unreachable { .. }), "{e}");
    assert!(
        e.to_string().contains("cannot reach the model endpoint"),
        "{e}"
    );
}

fn sampling_params() -> mcp_proto::schema::CreateMessageParams {
    serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "maxTokens": 10
    }))
    .unwrap()
}
