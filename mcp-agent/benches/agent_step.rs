//! The loop's overhead: one tool-calling step of the agent (the model asks for a call, the hub
//! runs it, the model answers with text) against the same tool call alone through the hub.
//! The model is scripted in-process and answers at once, so what is left is the loop: events,
//! argument parsing, the export cache, the result's view, the conversation. The goal is at
//! most 1.2x.
//!
//! Two ways of running a turn are measured: `Agent::run` (on the caller's task, no events) and
//! `Agent::send` with every event read (the turn on a task of its own, events through a queue).
//!
//! `cargo bench -p mcp-agent --bench agent_step` measures (and fails when `run` is above 1.2x); without
//! `--bench` (as `cargo test --all-targets` runs it) it only does a few rounds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_agent::{
    Agent, BoxFuture, Delta, DeltaStream, FinishReason, Model, ModelError, ModelRequest, Part,
    Usage,
};
use mcp_hub::{ExportFormat, Hub, HubConfig, HubOptions, Variables};
use mcp_server::http::HttpConfig;
use mcp_server::{Context, Server, Tool};
use serde_json::{json, Value};

/// A model that asks for one weather call, then answers once it has the result.
struct Scripted(AtomicU64);

impl Model for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }

    fn tool_format(&self) -> ExportFormat {
        ExportFormat::OpenAiStrict
    }

    fn stream<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<DeltaStream, ModelError>> {
        let answered = request
            .messages
            .last()
            .is_some_and(|m| matches!(m.parts.first(), Some(Part::ToolResult(_))));
        let n = self.0.fetch_add(1, Ordering::Relaxed);
        let usage = Delta::Usage(Usage {
            input_tokens: 10,
            output_tokens: 5,
        });
        let deltas = if answered {
            vec![
                Delta::Text("It is mild in Paris.".into()),
                usage,
                Delta::Finish(FinishReason::Stop),
            ]
        } else {
            vec![
                Delta::ToolCallStart {
                    index: 0,
                    id: format!("call_{n}"),
                    name: "weather__get_weather".into(),
                },
                Delta::ToolCallArguments {
                    index: 0,
                    fragment: "{\"city\":".into(),
                },
                Delta::ToolCallArguments {
                    index: 0,
                    fragment: "\"Paris\"}".into(),
                },
                Delta::ToolCallEnd { index: 0 },
                usage,
                Delta::Finish(FinishReason::ToolCalls),
            ]
        };
        Box::pin(std::future::ready(Ok(DeltaStream::from_deltas(deltas))))
    }
}

fn weather_server() -> Server {
    Server::builder("weather", "1.0.0")
        .instructions("Weather for world cities.")
        .tool(
            Tool::new("get_weather", "Current weather of a city").input_schema(json!({
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"]
            })),
            |args: Value, _ctx: Context| async move {
                format!("{}: 18 °C, partly cloudy, humidity 60%", args["city"])
            },
        )
        .build()
}

fn mean(samples: &mut [Duration]) -> Duration {
    samples.sort();
    // The middle 80%: a GC-free but shared machine still has outliers.
    let cut = samples.len() / 10;
    let kept = &samples[cut..samples.len() - cut];
    kept.iter().sum::<Duration>() / u32::try_from(kept.len()).unwrap_or(1)
}

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    let (rounds, per_round) = if measuring { (30, 200) } else { (2, 5) };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let http = weather_server()
            .serve_http("127.0.0.1:0", HttpConfig::default())
            .await
            .expect("bind");
        let config = json!({"mcpServers": {"weather": {
            "type": "streamableHttp", "url": format!("http://{}/mcp", http.local_addr())}}});
        let config = HubConfig::parse(&config.to_string(), "bench.json", &Variables::default())
            .expect("config");
        let hub = Hub::connect(config, HubOptions::default()).await;
        let agent = Agent::new(hub.clone(), Arc::new(Scripted(AtomicU64::new(0))));
        let arguments = json!({"city": "Paris"});
        // Warm up both paths (connections, caches).
        for _ in 0..per_round {
            hub.call_tool("weather__get_weather", arguments.clone())
                .await
                .expect("call");
            agent.run("Weather in Paris?").await.expect("turn");
            agent.set_conversation(Vec::new()).await;
        }
        let (mut alone, mut step, mut streamed) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            for _ in 0..per_round {
                let started = Instant::now();
                let result = hub
                    .call_tool("weather__get_weather", arguments.clone())
                    .await
                    .expect("call");
                alone.push(started.elapsed());
                assert!(!result.is_error());
            }
            for _ in 0..per_round {
                let started = Instant::now();
                let answer = agent.run("Weather in Paris?").await.expect("turn");
                step.push(started.elapsed());
                assert_eq!(answer, "It is mild in Paris.");
                agent.set_conversation(Vec::new()).await;
            }
            for _ in 0..per_round {
                let started = Instant::now();
                let mut turn = agent.send("Weather in Paris?");
                let mut events = 0;
                while turn.next().await.is_some() {
                    events += 1;
                }
                let summary = turn.finish().await;
                streamed.push(started.elapsed());
                assert_eq!(summary.text, "It is mild in Paris.");
                assert!(events >= 6);
                agent.set_conversation(Vec::new()).await;
            }
        }
        let (alone, step, streamed) = (mean(&mut alone), mean(&mut step), mean(&mut streamed));
        let ratio = step.as_secs_f64() / alone.as_secs_f64();
        let streamed_ratio = streamed.as_secs_f64() / alone.as_secs_f64();
        println!(
            "tool call alone through the hub: {:.1} µs; one agent step (model call, tool call, model call) with Agent::run: {:.1} µs, ratio {ratio:.3} (goal ≤ 1.2); with Agent::send and every event read: {:.1} µs, ratio {streamed_ratio:.3}",
            alone.as_secs_f64() * 1e6,
            step.as_secs_f64() * 1e6,
            streamed.as_secs_f64() * 1e6
        );
        hub.close().await;
        if measuring && ratio > 1.2 {
            eprintln!("the agent's step costs more than 1.2x the tool call alone");
            std::process::exit(1);
        }
    });
}
