//! Servers that misbehave: exit before the handshake, never answer, print garbage, answer with
//! a version we do not speak, crash mid-call, ignore SIGTERM, leave grandchildren; and the
//! restart policy that brings a crashed server back.

mod common;

use std::time::{Duration, Instant};

use common::{bounded, fixture, python, read_pid, temp_dir, wait_process_gone};
use mcp_client::{
    Client, ClientError, ClientOptions, PeerError, RestartPolicy, ServerEvent, ShutdownTimeouts,
    StdioServerConfig,
};
use serde_json::json;

fn fault(mode: &str, file: Option<&std::path::Path>) -> StdioServerConfig {
    let mut args = vec![fixture("fault_server.py"), mode.to_owned()];
    if let Some(file) = file {
        args.push(file.to_string_lossy().into_owned());
    }
    StdioServerConfig::new(python(), args)
}

fn named(name: &str) -> ClientOptions {
    ClientOptions::new().with_name(name)
}

#[tokio::test]
async fn exit_before_initialize_reports_status_and_stderr() {
    let err = bounded(
        10,
        "connect",
        Client::spawn_stdio(fault("exit-early", None), named("early")),
    )
    .await
    .expect_err("the server exits at once");
    let text = err.to_string();
    assert!(
        matches!(err.peer_error(), Some(PeerError::Closed(_))),
        "{text}"
    );
    assert!(text.starts_with("server early: "), "{text}");
    assert!(text.contains("exit status: 2"), "{text}");
    assert!(text.contains("missing API key FAULT_TOKEN"), "{text}");
}

#[tokio::test]
async fn missing_command_is_a_spawn_error() {
    let config = StdioServerConfig::new("/nonexistent/mcp-server-binary", ["x"]);
    let err = Client::spawn_stdio(config, ClientOptions::new())
        .await
        .expect_err("no such program");
    assert!(matches!(err, ClientError::Spawn { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("server mcp-server-binary: could not start"),
        "{err}"
    );
}

#[tokio::test]
async fn initialize_without_answer_times_out_and_ends_the_process() {
    let dir = temp_dir("silent");
    let pidfile = dir.join("pid");
    let options = named("silent").with_initialize_timeout(Duration::from_secs(1));
    let started = Instant::now();
    let err = bounded(
        15,
        "connect",
        Client::spawn_stdio(fault("silent", Some(&pidfile)), options),
    )
    .await
    .expect_err("initialize is never answered");
    assert_eq!(
        err.to_string(),
        "server silent: request initialize timed out after 1s"
    );
    assert!(started.elapsed() < Duration::from_secs(8));
    let pid = read_pid(&pidfile, 1).await;
    assert!(
        wait_process_gone(pid, 5).await,
        "silent server {pid} left behind"
    );
}

#[tokio::test]
async fn garbage_on_stdout_is_skipped() {
    let client = bounded(
        10,
        "connect",
        Client::spawn_stdio(fault("garbage", None), named("noisy")),
    )
    .await
    .expect("banners are not fatal");
    assert_eq!(client.server_info().name, "fault-garbage");
    assert_eq!(
        client.instructions().as_deref(),
        Some("Call crash to crash.")
    );
    let tools = client.list_tools().await.expect("tools");
    assert_eq!(tools[0].name, "crash");
    let result = client.call_tool("crash", json!({})).await.expect("call");
    assert_eq!(result.content[0].as_text(), Some("ok"));
    client.ping().await.expect("ping");
    bounded(10, "close", client.close()).await;
}

#[tokio::test]
async fn unsupported_version_is_refused_naming_both() {
    let err = bounded(
        10,
        "connect",
        Client::spawn_stdio(fault("bad-version", None), named("old")),
    )
    .await
    .expect_err("we do not speak 1999-01-01");
    let text = err.to_string();
    assert!(
        matches!(err, ClientError::UnsupportedVersion { .. }),
        "{text}"
    );
    assert!(
        text.contains("2025-11-25") && text.contains("1999-01-01"),
        "{text}"
    );
}

#[tokio::test]
async fn crash_mid_call_fails_calls_at_once() {
    let client = bounded(
        10,
        "connect",
        Client::spawn_stdio(fault("crash-mid-call", None), named("crashy")),
    )
    .await
    .expect("connect");
    let pending = {
        let client = client.clone();
        tokio::spawn(async move { client.ping().await })
    };
    let started = Instant::now();
    let err = bounded(5, "the crashing call", client.call_tool("crash", json!({})))
        .await
        .expect_err("the server died");
    assert!(started.elapsed() < Duration::from_secs(4));
    let text = err.to_string();
    assert!(
        matches!(err.peer_error(), Some(PeerError::Closed(_))),
        "{text}"
    );
    assert!(text.starts_with("server crashy: "), "{text}");
    assert!(text.contains("exit status: 3"), "{text}");
    assert!(text.contains("the tool exploded"), "{text}");
    let _ = bounded(5, "the concurrent call", pending).await;
    let after = bounded(5, "a later call", client.ping())
        .await
        .expect_err("dead");
    assert!(after.to_string().contains("exit status: 3"), "{after}");
    assert!(client
        .stderr()
        .unwrap_or_default()
        .contains("the tool exploded"));
}

#[tokio::test]
async fn crash_with_grandchild_holding_stdout_still_fails_at_once() {
    let dir = temp_dir("crash-grandchild");
    let pidfile = dir.join("pid");
    let client = bounded(
        10,
        "connect",
        Client::spawn_stdio(fault("crash-grandchild", Some(&pidfile)), named("crashy")),
    )
    .await
    .expect("connect");
    let grandchild = read_pid(&pidfile, 5).await;
    let err = bounded(5, "the crashing call", client.call_tool("crash", json!({})))
        .await
        .expect_err("the server died");
    assert!(err.to_string().contains("exit status: 3"), "{err}");
    drop(client);
    assert!(
        wait_process_gone(grandchild, 5).await,
        "grandchild {grandchild} left behind"
    );
}

#[tokio::test]
async fn sigterm_ignored_is_killed_within_the_bound() {
    let dir = temp_dir("ignore-term");
    let pidfile = dir.join("pid");
    let config = fault("ignore-term", Some(&pidfile)).with_shutdown(ShutdownTimeouts {
        stdin_grace: Duration::from_millis(300),
        term_grace: Duration::from_millis(300),
        kill_wait: Duration::from_secs(1),
    });
    let client = bounded(
        10,
        "connect",
        Client::spawn_stdio(config, named("stubborn")),
    )
    .await
    .expect("connect");
    let pid = read_pid(&pidfile, 5).await;
    let started = Instant::now();
    bounded(5, "close", client.close()).await;
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert!(
        wait_process_gone(pid, 2).await,
        "stubborn server {pid} left behind"
    );
    assert!(client
        .stderr()
        .unwrap_or_default()
        .contains("ignoring SIGTERM"));
    let err = client.ping().await.expect_err("closed");
    assert!(err.to_string().contains("closed"), "{err}");
}

#[tokio::test]
async fn close_ends_grandchildren() {
    let dir = temp_dir("grandchild");
    let pidfile = dir.join("pid");
    let client = bounded(
        10,
        "connect",
        Client::spawn_stdio(fault("grandchild", Some(&pidfile)), named("parent")),
    )
    .await
    .expect("connect");
    let grandchild = read_pid(&pidfile, 5).await;
    let pid = client.pid().expect("pid") as i32;
    bounded(10, "close", client.close()).await;
    assert!(wait_process_gone(pid, 3).await, "server {pid} left behind");
    assert!(
        wait_process_gone(grandchild, 3).await,
        "grandchild {grandchild} left behind"
    );
}

#[tokio::test]
async fn drop_leaves_no_process_behind() {
    let dir = temp_dir("drop");
    let pidfile = dir.join("pid");
    let client = bounded(
        10,
        "connect",
        Client::spawn_stdio(fault("grandchild", Some(&pidfile)), named("dropped")),
    )
    .await
    .expect("connect");
    let grandchild = read_pid(&pidfile, 5).await;
    let pid = client.pid().expect("pid") as i32;
    drop(client);
    assert!(wait_process_gone(pid, 3).await, "server {pid} left behind");
    assert!(
        wait_process_gone(grandchild, 3).await,
        "grandchild {grandchild} left behind"
    );
}

fn quick_restarts(max_restarts: u32) -> RestartPolicy {
    RestartPolicy {
        max_restarts,
        initial_backoff: Duration::from_millis(50),
        max_backoff: Duration::from_millis(200),
        stable_after: Duration::from_secs(60),
    }
}

#[tokio::test]
async fn restart_policy_brings_a_crashed_server_back() {
    let config = fault("crash-mid-call", None).with_restart(quick_restarts(3));
    let client = bounded(10, "connect", Client::spawn_stdio(config, named("phoenix")))
        .await
        .expect("connect");
    let first = client.pid().expect("pid");
    let mut events = client.notifications();
    let err = bounded(5, "the crashing call", client.call_tool("crash", json!({})))
        .await
        .expect_err("in-flight calls still fail");
    assert!(err.to_string().contains("exit status: 3"), "{err}");
    let attempt = bounded(10, "the restart", async {
        loop {
            if let Ok(ServerEvent::Restarted { attempt }) = events.recv().await {
                break attempt;
            }
        }
    })
    .await;
    assert_eq!(attempt, 1);
    bounded(5, "ping after restart", client.ping())
        .await
        .expect("the new server answers");
    assert_ne!(client.pid(), Some(first));
    assert_eq!(client.list_tools().await.expect("tools")[0].name, "crash");
    assert!(wait_process_gone(first as i32, 3).await);
    bounded(10, "close", client.close()).await;
}

#[tokio::test]
async fn restart_policy_gives_up_on_a_crash_loop() {
    let dir = temp_dir("crash-loop");
    let counter = dir.join("starts");
    let config = fault("crash-loop", Some(&counter)).with_restart(quick_restarts(2));
    let client = bounded(10, "connect", Client::spawn_stdio(config, named("loopy")))
        .await
        .expect("the first start works");
    let _ = bounded(5, "the crashing call", client.call_tool("crash", json!({}))).await;
    let err = bounded(10, "a call after the crash loop", async {
        loop {
            match client.ping().await {
                Err(e @ ClientError::CrashLoop { .. }) => break e,
                _ => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    })
    .await;
    let text = err.to_string();
    assert!(text.contains("gave up after 2 restarts"), "{text}");
    assert!(
        text.contains("cannot start again") || text.contains("exit status: 4"),
        "{text}"
    );
    let starts: u32 = std::fs::read_to_string(&counter)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(starts, 3);
}

async fn echo_env(config: StdioServerConfig) -> serde_json::Value {
    let client = bounded(10, "connect", Client::spawn_stdio(config, named("env")))
        .await
        .expect("connect");
    let result = client.call_tool("crash", json!({})).await.expect("call");
    bounded(10, "close", client.close()).await;
    serde_json::from_str(result.content[0].as_text().expect("text")).expect("json")
}

#[tokio::test]
async fn args_env_and_cwd_reach_the_child_without_a_shell() {
    let dir = temp_dir("env").canonicalize().expect("dir");
    let mut config = fault("echo-env", None)
        .with_env("MCP_TEST_VALUE", "a b $HOME")
        .with_cwd(&dir);
    config.args.push("$(echo injected)".into());
    config.args.push("two words".into());
    let report = echo_env(config.clone()).await;
    assert_eq!(
        report["argv"],
        json!(["echo-env", "$(echo injected)", "two words"])
    );
    assert_eq!(report["cwd"], json!(dir.to_string_lossy()));
    assert_eq!(report["env"]["MCP_TEST_VALUE"], json!("a b $HOME"));
    // cargo sets CARGO_PKG_NAME for the test process: inherited by default...
    assert_eq!(report["env"]["CARGO_PKG_NAME"], json!("mcp-client"));
    // ...and not passed on when the environment is not inherited; PATH still is.
    let report = echo_env(config.inherit_env(false)).await;
    assert!(report["env"].get("CARGO_PKG_NAME").is_none(), "{report}");
    assert!(report["env"].get("PATH").is_some(), "{report}");
    assert_eq!(report["env"]["MCP_TEST_VALUE"], json!("a b $HOME"));
}

#[tokio::test]
async fn close_during_restart_backoff_starts_nothing() {
    let dir = temp_dir("close-restart");
    let counter = dir.join("starts");
    let policy = RestartPolicy {
        initial_backoff: Duration::from_millis(500),
        ..quick_restarts(3)
    };
    let config = fault("crash-loop", Some(&counter)).with_restart(policy);
    let client = bounded(10, "connect", Client::spawn_stdio(config, named("closing")))
        .await
        .expect("connect");
    let _ = bounded(5, "the crashing call", client.call_tool("crash", json!({}))).await;
    bounded(10, "close", client.close()).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let starts = std::fs::read_to_string(&counter).expect("counter");
    assert_eq!(starts.trim(), "1", "a server was started after close");
    let err = client.ping().await.expect_err("closed");
    assert!(err.to_string().contains("the client was closed"), "{err}");
}
