//! The agent end to end against weather-server (built on demand), with the scripted model
//! server speaking each provider's protocol: parallel calls, a tool error the model recovers
//! from, approval denied, an elicitation answered, malformed arguments, a 429 retried, the
//! servers' instructions in the system prompt, and a transcript saved and resumed.

mod common;
#[path = "../../mcp-client/tests/interop/hub_support.rs"]
mod hub_support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::scripted_model::{call, text, too_many_requests, Call, Say, ScriptedModel, Wire};
use common::{config, finished_calls, model_at, turn};
use mcp_agent::{Agent, AgentEvent, Human, StopReason};
use mcp_hub::{Decision, HubOptions};
use mcp_proto::schema::{ElicitParams, ElicitResult};
use serde_json::{json, Value};

fn weather() -> Value {
    json!({ "weather": hub_support::weather_entry() })
}

/// The texts of every tool result the model was sent in request `n` (any provider's shape).
fn tool_results_sent(body: &Value) -> String {
    body.to_string()
}

async fn parallel_calls_over(wire: Wire) {
    let model = ScriptedModel::speaking(
        wire,
        &[
            Say::Calls(vec![
                call(
                    "call_sz",
                    "weather__get_weather",
                    json!({"city": "Shenzhen"}),
                ),
                call("call_pa", "weather__get_weather", json!({"city": "Paris"})),
            ]),
            text("Shenzhen is warm; Paris is mild."),
        ],
    )
    .await;
    let agent = Agent::builder(model_at(&model, wire))
        .system_prompt("You are a weather assistant.")
        .connect(config(weather()), HubOptions::default())
        .await;
    let (events, summary) = turn(&agent, "What's the weather in Shenzhen and in Paris?").await;
    assert_eq!(summary.reason, StopReason::Completed, "{events:?}");
    assert_eq!(summary.text, "Shenzhen is warm; Paris is mild.");
    assert_eq!(summary.steps, 2);
    let calls = finished_calls(&events);
    assert_eq!(calls.len(), 2, "{events:?}");
    assert!(calls.iter().all(|(_, is_error, _)| !is_error), "{calls:?}");
    assert!(calls.iter().any(|(_, _, out)| out.contains("Shenzhen")));
    assert!(calls.iter().any(|(_, _, out)| out.contains("Paris")));
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    // The first request: system prompt with weather-server's instructions named, the tools.
    let first = requests[0].body.to_string();
    assert!(first.contains("You are a weather assistant."));
    assert!(
        first.contains("server_instructions server=\\\"weather\\\""),
        "{first}"
    );
    assert!(first.contains("weather__get_forecast"));
    // The second carries both results back.
    let second = tool_results_sent(&requests[1].body);
    assert!(second.contains("Shenzhen") && second.contains("Paris"));
    match wire {
        Wire::OpenAi => {
            assert_eq!(requests[0].path, "/v1/chat/completions");
            assert_eq!(requests[0].body["stream"], true);
            assert_eq!(requests[0].body["stream_options"]["include_usage"], true);
            assert_eq!(requests[0].body["tools"][0]["type"], "function");
            assert_eq!(requests[0].body["tools"][0]["function"]["strict"], true);
            let messages = requests[1].body["messages"].as_array().unwrap();
            let tool_messages: Vec<&Value> =
                messages.iter().filter(|m| m["role"] == "tool").collect();
            assert_eq!(tool_messages.len(), 2);
            assert_eq!(tool_messages[0]["tool_call_id"], "call_sz");
            assert_eq!(
                requests[0].headers["authorization"].to_str().unwrap(),
                "Bearer test-key"
            );
        }
        Wire::Anthropic => {
            assert_eq!(requests[0].path, "/v1/messages");
            assert_eq!(requests[0].headers["x-api-key"], "test-key");
            assert_eq!(requests[0].headers["anthropic-version"], "2023-06-01");
            let last = requests[1].body["messages"]
                .as_array()
                .unwrap()
                .last()
                .unwrap();
            assert_eq!(last["content"][0]["type"], "tool_result");
            assert_eq!(last["content"][1]["tool_use_id"], "call_pa");
        }
        Wire::Gemini => {
            assert_eq!(
                requests[0].path,
                "/v1beta/models/scripted-model:streamGenerateContent?alt=sse"
            );
            assert_eq!(requests[0].headers["x-goog-api-key"], "test-key");
            let last = requests[1].body["contents"]
                .as_array()
                .unwrap()
                .last()
                .unwrap();
            assert_eq!(
                last["parts"][0]["functionResponse"]["name"],
                "weather__get_weather"
            );
        }
    }
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::Usage {
            input_tokens: 42,
            ..
        }
    )));
    agent.hub().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_parallel_calls_openai() {
    parallel_calls_over(Wire::OpenAi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_parallel_calls_anthropic() {
    parallel_calls_over(Wire::Anthropic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_parallel_calls_gemini() {
    parallel_calls_over(Wire::Gemini).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_error_the_model_recovers_from() {
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            Say::Calls(vec![call(
                "c1",
                "weather__get_weather",
                json!({"city": "Atlantis"}),
            )]),
            Say::Calls(vec![call(
                "c2",
                "weather__get_weather",
                json!({"city": "Paris"}),
            )]),
            text("Atlantis is not known; Paris is mild."),
        ],
    )
    .await;
    let agent = Agent::builder(model_at(&model, Wire::OpenAi))
        .connect(config(weather()), HubOptions::default())
        .await;
    let (events, summary) = turn(&agent, "Weather in Atlantis?").await;
    assert_eq!(summary.reason, StopReason::Completed);
    let calls = finished_calls(&events);
    assert!(calls[0].1, "the first call fails: {calls:?}");
    assert!(!calls[1].1);
    // The model read the error as a tool message.
    let second = &model.requests()[1].body["messages"];
    let tool = second.as_array().unwrap().last().unwrap();
    assert_eq!(tool["role"], "tool");
    assert!(
        tool["content"].as_str().unwrap().starts_with("Error:"),
        "{tool}"
    );
    agent.hub().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_denied_reaches_the_model_as_an_error() {
    let model = ScriptedModel::speaking(
        Wire::Anthropic,
        &[
            Say::Calls(vec![
                call(
                    "a1",
                    "weather__get_forecast",
                    json!({"city": "Paris", "days": 2}),
                ),
                call("a2", "weather__get_weather", json!({"city": "Paris"})),
            ]),
            text("I was not allowed to get the forecast."),
        ],
    )
    .await;
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let human = Human::new().approve_with(move |request| {
        seen.lock().unwrap().push(request.tool.clone());
        async { Decision::Deny("the user said no".into()) }
    });
    let agent = Agent::builder(model_at(&model, Wire::Anthropic))
        .human(human)
        .connect(config(weather()), HubOptions::default())
        .await;
    let (events, summary) = turn(&agent, "Forecast for Paris?").await;
    assert_eq!(summary.reason, StopReason::Completed);
    // get_weather is in autoApprove; only get_forecast was asked, and refused.
    assert_eq!(*asked.lock().unwrap(), vec!["get_forecast".to_owned()]);
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::ApprovalNeeded { tool, .. } if tool == "get_forecast"
    )));
    let calls = finished_calls(&events);
    let forecast = calls
        .iter()
        .find(|c| c.0 == "weather__get_forecast")
        .unwrap();
    assert!(
        forecast.1 && forecast.2.contains("the user said no"),
        "{forecast:?}"
    );
    let weather = calls
        .iter()
        .find(|c| c.0 == "weather__get_weather")
        .unwrap();
    assert!(!weather.1);
    let sent = model.requests()[1].body.to_string();
    assert!(sent.contains("\"is_error\":true"), "{sent}");
    agent.hub().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_is_answered() {
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            Say::Calls(vec![call(
                "e1",
                "weather__get_weather",
                json!({"city": "Springfield"}),
            )]),
            text("Springfield is fine."),
        ],
    )
    .await;
    let asked = Arc::new(Mutex::new(None));
    let seen = asked.clone();
    let human = Human::new().elicit_with(move |server, params: ElicitParams| {
        let ElicitParams::Form(form) = &params else {
            panic!("a form")
        };
        let choices = form.requested_schema["properties"]["city"]["enum"].clone();
        *seen.lock().unwrap() = Some((server, choices.clone()));
        let first = choices[0].clone();
        async move {
            let mut content = serde_json::Map::new();
            content.insert("city".into(), first);
            ElicitResult::accept(Some(content))
        }
    });
    let agent = Agent::builder(model_at(&model, Wire::OpenAi))
        .human(human)
        .connect(config(weather()), HubOptions::default())
        .await;
    let (events, summary) = turn(&agent, "Weather in Springfield?").await;
    assert_eq!(summary.reason, StopReason::Completed, "{events:?}");
    let (server, choices) = asked.lock().unwrap().clone().expect("elicitation asked");
    assert_eq!(server, "weather");
    let chosen = choices[0].as_str().unwrap().to_owned();
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::ElicitationRequested { mode, .. } if mode == "form"
    )));
    let calls = finished_calls(&events);
    assert!(!calls[0].1, "{calls:?}");
    assert!(
        calls[0].2.contains(&chosen),
        "{} lacks {chosen}",
        calls[0].2
    );
    agent.hub().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_arguments_become_a_tool_error() {
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            Say::Calls(vec![Call {
                id: "m1".into(),
                name: "weather__get_weather".into(),
                arguments: r#"{"city": "Par"#.into(),
            }]),
            Say::Calls(vec![call(
                "m2",
                "weather__get_weather",
                json!({"city": "Paris"}),
            )]),
            text("Paris is mild."),
        ],
    )
    .await;
    let agent = Agent::builder(model_at(&model, Wire::OpenAi))
        .connect(config(weather()), HubOptions::default())
        .await;
    let (events, summary) = turn(&agent, "Weather in Paris?").await;
    assert_eq!(summary.reason, StopReason::Completed);
    let calls = finished_calls(&events);
    assert!(
        calls[0].1 && calls[0].2.contains("not valid JSON"),
        "{calls:?}"
    );
    assert!(!calls[1].1);
    // The malformed call went back to the model as it was written, with the error.
    let sent = model.requests()[1].body.to_string();
    assert!(sent.contains("not valid JSON"));
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::ToolCallStarted { arguments: Value::String(s), .. } if s.contains("Par")
    )));
    agent.hub().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_is_retried_after_retry_after() {
    let model = ScriptedModel::start(vec![
        too_many_requests(1),
        Wire::OpenAi.reply(&text("Hello after the wait.")),
    ])
    .await;
    let agent = Agent::builder(model_at(&model, Wire::OpenAi))
        .connect(config(weather()), HubOptions::default())
        .await;
    let started = Instant::now();
    let answer = agent.run("Hi").await.expect("answer");
    assert_eq!(answer, "Hello after the wait.");
    assert_eq!(model.requests().len(), 2);
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "Retry-After: 1 honoured"
    );
    agent.hub().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transcript_saves_and_resumes() {
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            Say::Calls(vec![call(
                "t1",
                "weather__get_weather",
                json!({"city": "Oslo"}),
            )]),
            text("Oslo is cold."),
            text("You asked about Oslo."),
        ],
    )
    .await;
    let agent = Agent::builder(model_at(&model, Wire::OpenAi))
        .connect(config(weather()), HubOptions::default())
        .await;
    agent.run("Weather in Oslo?").await.expect("first turn");
    let dir = std::env::temp_dir().join(format!("agent-transcript-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("chat.jsonl");
    mcp_agent::transcript::save(&path, &agent.conversation().await).unwrap();
    // A new agent resumes it: its request holds the whole earlier exchange.
    let resumed = Agent::new(agent.hub().clone(), model_at(&model, Wire::OpenAi));
    resumed
        .set_conversation(mcp_agent::transcript::load(&path).unwrap())
        .await;
    let answer = resumed.run("What did I ask?").await.expect("second turn");
    assert_eq!(answer, "You asked about Oslo.");
    let messages = model.requests()[2].body["messages"].clone();
    let roles: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "user"]
    );
    let _ = std::fs::remove_dir_all(&dir);
    agent.hub().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_step_limit_ends_a_turn() {
    let says: Vec<Say> = (0..3)
        .map(|i| {
            Say::Calls(vec![call(
                &format!("s{i}"),
                "weather__get_weather",
                json!({"city": "Paris"}),
            )])
        })
        .collect();
    let model = ScriptedModel::speaking(Wire::OpenAi, &says).await;
    let agent = Agent::builder(model_at(&model, Wire::OpenAi))
        .options(mcp_agent::AgentOptions {
            max_steps: 2,
            ..Default::default()
        })
        .connect(config(weather()), HubOptions::default())
        .await;
    let (events, summary) = turn(&agent, "Loop").await;
    assert_eq!(summary.reason, StopReason::MaxSteps);
    assert_eq!(summary.steps, 2);
    assert!(matches!(
        events.last(),
        Some(AgentEvent::TurnFinished {
            reason: StopReason::MaxSteps,
            ..
        })
    ));
    agent.hub().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_weather_agent_example_runs() {
    let example = hub_support::profile_dir().join("examples/weather_agent");
    if !example.exists() {
        eprintln!(
            "skipped: {} is not built (cargo test --all-targets builds it)",
            example.display()
        );
        return;
    }
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            Say::Calls(vec![call(
                "w1",
                "weather__get_weather",
                json!({"city": "Shenzhen"}),
            )]),
            text("Shenzhen: warm."),
        ],
    )
    .await;
    let server_dir = hub_support::weather_server()
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        server_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = tokio::time::timeout(
        Duration::from_secs(60),
        tokio::process::Command::new(&example)
            .arg("Weather in Shenzhen?")
            .env("PATH", path)
            .env("OPENAI_BASE_URL", model.base_url(Wire::OpenAi))
            .env("OPENAI_API_KEY", "test-key")
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the example finishes")
    .expect("run the example");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}{stderr}");
    assert!(stdout.starts_with("Shenzhen: warm."), "{stdout}");
    assert!(stderr.contains("weather__get_weather"), "{stderr}");
}
