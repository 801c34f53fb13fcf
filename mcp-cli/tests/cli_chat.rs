//! `mcp chat` end to end: the `mcp` binary against weather-server (and our own server for a
//! long call), with mcp-agent's scripted model server speaking the providers' protocols.
//! One-shot answers, NDJSON events, approval, one clear line per error (missing key,
//! unreachable endpoint, 401, malformed arguments, a failing tool), the step limit, the config's
//! `model` section, Ctrl-C during a long tool call, and the interactive commands.

mod common;
#[path = "../../mcp-agent/tests/common/scripted_model.rs"]
mod scripted_model;

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{mcp_in, run, scratch, weather_entry, write_config, Run};
use scripted_model::{call, text, Call, Reply, Say, ScriptedModel, Wire};
use serde_json::{json, Value};

/// `mcp chat` in a scratch home with weather-server, pointed at `model` (OpenAI wire).
fn chat(tag: &str, model: &ScriptedModel, args: &[&str]) -> Command {
    chat_at(tag, &model.base_url(Wire::OpenAi), args)
}

/// `mcp chat` in a scratch home with weather-server, pointed at `base` (OpenAI wire).
fn chat_at(tag: &str, base: &str, args: &[&str]) -> Command {
    let home = scratch(tag);
    let config = write_config(&home, json!({ "weather": weather_entry() }));
    let config = config.to_string_lossy().into_owned();
    let mut all = vec!["--config", &config, "chat", "--base-url", base];
    all.extend_from_slice(args);
    let mut command = mcp_in(&home, &all);
    command
        .env("OPENAI_API_KEY", "test-key")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("GEMINI_API_KEY");
    command
}

/// Runs `command` off the async runtime (the scripted model lives on it).
async fn finish(command: Command) -> Run {
    tokio::task::spawn_blocking(move || run(command, 90))
        .await
        .expect("the run")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shot_answers_after_two_parallel_calls() {
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            Say::Calls(vec![
                call("c1", "weather__get_weather", json!({"city": "Shenzhen"})),
                call("c2", "weather__get_weather", json!({"city": "Paris"})),
            ]),
            text("Shenzhen is warm; Paris is mild."),
        ],
    )
    .await;
    let out = finish(chat(
        "chat-one-shot",
        &model,
        &["-p", "What's the weather in Shenzhen and in Paris?"],
    ))
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Shenzhen is warm; Paris is mild.\n");
    assert_eq!(
        out.stderr
            .matches("⚙ weather__get_weather {\"city\":")
            .count(),
        2,
        "{out:?}"
    );
    assert_eq!(
        out.stderr.matches("✓ weather__get_weather").count(),
        2,
        "{out:?}"
    );
    let sent = model.requests()[1].body.to_string();
    assert!(sent.contains("Shenzhen") && sent.contains("Paris"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_prints_the_events_as_ndjson() {
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            Say::Calls(vec![call(
                "c1",
                "weather__get_weather",
                json!({"city": "Oslo"}),
            )]),
            text("Oslo is cold."),
        ],
    )
    .await;
    let out = finish(chat("chat-json", &model, &["-p", "Oslo?", "--json"])).await;
    assert_eq!(out.code, 0, "{out:?}");
    let events: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"tool_call_started"), "{kinds:?}");
    assert!(kinds.contains(&"tool_call_finished"));
    assert!(kinds.contains(&"text_delta"));
    assert!(kinds.contains(&"usage"));
    let last = events.last().unwrap();
    assert_eq!(last["type"], "turn_finished");
    assert_eq!(last["reason"], "completed");
    let started = events
        .iter()
        .find(|e| e["type"] == "tool_call_started")
        .unwrap();
    assert_eq!(started["arguments"]["city"], "Oslo");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_is_refused_without_a_terminal_and_given_by_yes() {
    let forecast = || {
        Say::Calls(vec![call(
            "f1",
            "weather__get_forecast",
            json!({"city": "Paris"}),
        )])
    };
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            forecast(),
            text("No forecast."),
            forecast(),
            text("Forecast given."),
        ],
    )
    .await;
    // get_forecast is not in autoApprove and nobody can be asked: refused, with the way out.
    let out = finish(chat("chat-deny", &model, &["-p", "Forecast?"])).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("✗ weather__get_forecast failed")
            && out.stderr.contains("run mcp chat with --yes"),
        "{out:?}"
    );
    assert_eq!(out.stdout, "No forecast.\n");
    let out = finish(chat("chat-yes", &model, &["-p", "Forecast?", "--yes"])).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("✓ weather__get_forecast"), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_tool_and_malformed_arguments_are_one_line_each() {
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            Say::Calls(vec![
                call("a1", "weather__get_weather", json!({"city": "Atlantis"})),
                Call {
                    id: "a2".into(),
                    name: "weather__get_weather".into(),
                    arguments: r#"{"city": "Par"#.into(),
                },
            ]),
            text("Neither worked."),
        ],
    )
    .await;
    let out = finish(chat("chat-errors", &model, &["-p", "Try"])).await;
    assert_eq!(out.code, 0, "{out:?}");
    let failures: Vec<&str> = out.stderr.lines().filter(|l| l.contains("✗")).collect();
    assert_eq!(failures.len(), 2, "{out:?}");
    assert!(
        failures.iter().any(|l| l.contains("Atlantis")),
        "{failures:?}"
    );
    assert!(
        failures.iter().any(|l| l.contains("not valid JSON")),
        "{failures:?}"
    );
    assert_eq!(out.stdout, "Neither worked.\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_errors_are_one_clear_line() {
    // No key for OpenAI's own endpoint.
    let model = ScriptedModel::start(vec![]).await;
    let mut command = chat("chat-nokey", &model, &["-p", "hi"]);
    let args: Vec<String> = command
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| !a.starts_with("http://"))
        .filter(|a| a != "--base-url")
        .collect();
    let mut bare = Command::new(command.get_program());
    bare.args(&args)
        .current_dir(command.get_current_dir().unwrap())
        .env("HOME", command.get_current_dir().unwrap())
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("GEMINI_API_KEY");
    command = bare;
    let out = finish(command).await;
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(out.stderr.trim().lines().count(), 1, "{out:?}");
    assert!(out.stderr.contains("set OPENAI_API_KEY"), "{out:?}");

    // Nobody listening.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", dead.local_addr().unwrap());
    drop(dead);
    let out = finish(chat_at("chat-dead", &url, &["-p", "hi"])).await;
    assert_eq!(out.code, 1, "{out:?}");
    let errors: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("mcp:"))
        .collect();
    assert_eq!(errors.len(), 1, "{out:?}");
    assert!(
        errors[0].contains("cannot reach the model endpoint"),
        "{out:?}"
    );

    // A refused key.
    model.push(Reply::Status(
        401,
        vec![],
        r#"{"error":{"message":"Incorrect API key provided"}}"#.into(),
    ));
    let out = finish(chat("chat-401", &model, &["-p", "hi"])).await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("refused the API key (HTTP 401)")
            && out.stderr.contains("check OPENAI_API_KEY"),
        "{out:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_step_limit_fails_the_one_shot() {
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[Say::Calls(vec![call(
            "s1",
            "weather__get_weather",
            json!({"city": "Oslo"}),
        )])],
    )
    .await;
    let out = finish(chat(
        "chat-steps",
        &model,
        &["-p", "Loop", "--max-steps", "1"],
    ))
    .await;
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("stopped after 1 steps"), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_config_model_section_chooses_the_model() {
    let model = ScriptedModel::speaking(Wire::Anthropic, &[text("Hello from Claude.")]).await;
    let home = scratch("chat-config-model");
    let config = home.join("mcp.json");
    std::fs::write(
        &config,
        json!({
            "mcpServers": {"weather": weather_entry()},
            "model": {"provider": "anthropic", "model": "claude-test",
                      "baseUrl": model.base_url(Wire::Anthropic), "apiKeyEnv": "TEAM_KEY"}
        })
        .to_string(),
    )
    .unwrap();
    let mut command = mcp_in(
        &home,
        &["--config", &config.to_string_lossy(), "chat", "-p", "hi"],
    );
    command
        .env("TEAM_KEY", "team-secret")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY");
    let out = finish(command).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Hello from Claude.\n");
    let request = &model.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.body["model"], "claude-test");
    assert_eq!(request.headers["x-api-key"], "team-secret");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interactive_commands_and_turns() {
    let model = ScriptedModel::speaking(Wire::OpenAi, &[text("Hi there."), text("Again.")]).await;
    let mut command = chat("chat-interactive", &model, &[]);
    let dir = command.get_current_dir().unwrap().to_owned();
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("spawn mcp chat");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(b"/tools\n/servers\nhello\n/save talk.jsonl\n/clear\nagain\n/exit\n")
            .unwrap();
    }
    let out = tokio::task::spawn_blocking(move || {
        let deadline = Instant::now() + Duration::from_secs(60);
        while child.try_wait().ok().flatten().is_none() {
            assert!(Instant::now() < deadline, "mcp chat did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
        let (mut stdout, mut stderr) = (String::new(), String::new());
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (child.wait().unwrap().code(), stdout, stderr)
    })
    .await
    .unwrap();
    let (code, stdout, stderr) = out;
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("weather__get_weather  Current weather"),
        "{stdout}"
    );
    assert!(stdout.contains("weather  connected"), "{stdout}");
    assert!(
        stdout.contains("Hi there.\n") && stdout.contains("Again.\n"),
        "{stdout}"
    );
    let saved = std::fs::read_to_string(dir.join("talk.jsonl")).unwrap();
    assert_eq!(saved.lines().count(), 2, "{saved}");
    // After /clear the second turn starts afresh.
    let second = &model.requests()[1].body["messages"];
    assert_eq!(second.as_array().unwrap().len(), 2, "{second}");
}

/// Marks the long tool's work as ended before it finished (on drop).
struct Unfinished(Arc<AtomicBool>);

impl Drop for Unfinished {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_a_long_call_cancels_it_on_the_server() {
    use mcp_server::http::HttpConfig;
    use mcp_server::{Context, Server, Tool};
    let cancelled = Arc::new(AtomicBool::new(false));
    let flag = cancelled.clone();
    let server = Server::builder("slow", "1.0.0")
        .tool(
            Tool::new("long_job", "Works for a minute"),
            move |_: Value, ctx: Context| {
                let unfinished = Unfinished(flag.clone());
                async move {
                    ctx.progress(1.0, Some(60.0), Some("started".into())).await;
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
    let http = server
        .serve_http("127.0.0.1:0", HttpConfig::default())
        .await
        .unwrap();
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[Say::Calls(vec![call("l1", "slow__long_job", json!({}))])],
    )
    .await;
    let home = scratch("chat-ctrl-c");
    let config = write_config(
        &home,
        json!({"slow": {"type": "streamableHttp", "url": format!("http://{}/mcp", http.local_addr())}}),
    );
    let base = model.base_url(Wire::OpenAi);
    let mut command = mcp_in(
        &home,
        &[
            "--config",
            &config.to_string_lossy(),
            "chat",
            "--base-url",
            &base,
            "-p",
            "Run it",
            "--yes",
        ],
    );
    command
        .env("OPENAI_API_KEY", "test-key")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("spawn mcp chat");
    let mut stderr = child.stderr.take().unwrap();
    let (code, seen) = tokio::task::spawn_blocking(move || {
        // Wait for the call's line, then Ctrl-C.
        let mut seen = String::new();
        let mut buf = [0u8; 256];
        let deadline = Instant::now() + Duration::from_secs(60);
        while !seen.contains("slow__long_job [") && Instant::now() < deadline {
            let n = stderr.read(&mut buf).unwrap_or(0);
            if n == 0 {
                break;
            }
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
        let pid = rustix::process::Pid::from_child(&child);
        rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
        seen.push_str(&rest);
        let deadline = Instant::now() + Duration::from_secs(30);
        let code = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status.code();
            }
            assert!(
                Instant::now() < deadline,
                "mcp chat did not exit after Ctrl-C"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        (code, seen)
    })
    .await
    .unwrap();
    assert_eq!(code, Some(130), "{seen}");
    assert!(seen.contains("(cancelled)"), "{seen}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cancelled.load(Ordering::SeqCst) {
        assert!(
            Instant::now() < deadline,
            "the server did not see the call cancelled"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_sampling_through_chat() {
    let Some(modules) = common::node_modules() else {
        return;
    };
    let model = ScriptedModel::speaking(
        Wire::OpenAi,
        &[
            Say::Calls(vec![call(
                "x1",
                "everything__trigger-sampling-request",
                json!({"prompt": "Say hello", "maxTokens": 50}),
            )]),
            text("Hello from the model"),
            text("The server got its answer."),
        ],
    )
    .await;
    let home = scratch("chat-everything");
    let config = write_config(
        &home,
        json!({ "everything": common::everything_entry(&modules) }),
    );
    let base = model.base_url(Wire::OpenAi);
    let mut command = mcp_in(
        &home,
        &[
            "--config",
            &config.to_string_lossy(),
            "chat",
            "--base-url",
            &base,
            "--yes",
            "-p",
            "Sample",
        ],
    );
    command.env("OPENAI_API_KEY", "test-key");
    let out = finish(command).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "The server got its answer.\n");
    assert!(
        out.stderr
            .contains("✓ everything__trigger-sampling-request"),
        "{out:?}"
    );
    let sampled = model.requests()[1].body.to_string();
    assert!(
        sampled.contains("You are a helpful test server."),
        "{sampled}"
    );
    let answered = model.requests()[2].body.to_string();
    assert!(answered.contains("Hello from the model"), "{answered}");
}
