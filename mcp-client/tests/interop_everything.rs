//! Against `@modelcontextprotocol/server-everything` run as a stdio child: tools (with the
//! long-running one and its progress), resources, prompts, logging, sampling and roots.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{bounded, node_modules};
use mcp_client::{
    CallOptions, Client, ClientError, ClientOptions, PeerError, ServerEvent, StdioServerConfig,
};
use mcp_proto::schema::{
    CompleteParams, CompletionReference, CreateMessageResult, ListRootsResult, LoggingLevel, Root,
};
use mcp_proto::ProtocolVersion;
use serde_json::json;

fn everything() -> Option<StdioServerConfig> {
    let modules = node_modules()?;
    let entry = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    Some(StdioServerConfig::new(
        "node",
        [entry.to_string_lossy().into_owned(), "stdio".into()],
    ))
}

fn options() -> ClientOptions {
    ClientOptions::new()
        .with_name("everything")
        .with_sampling(|params| async move {
            let n = params.messages.len();
            Ok(CreateMessageResult::text(
                "test-model",
                format!("sampled {n} message(s)"),
            ))
        })
        .with_roots(|| async {
            Ok(ListRootsResult::new(vec![Root::new(
                "file:///tmp/project",
                Some("project".into()),
            )]))
        })
}

fn text_of(result: &mcp_proto::schema::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn tools_resources_prompts_and_callbacks() {
    let Some(config) = everything() else { return };
    let client = bounded(30, "connect", Client::spawn_stdio(config, options()))
        .await
        .expect("connect");
    assert_eq!(client.protocol_version(), ProtocolVersion::LATEST);
    assert!(
        client.server_info().name.contains("everything"),
        "{:?}",
        client.server_info()
    );
    assert!(client.server_capabilities().tools.is_some());

    let tools = bounded(10, "list tools", client.list_tools())
        .await
        .expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for expected in [
        "echo",
        "trigger-long-running-operation",
        "trigger-sampling-request",
        "get-roots-list",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }

    let echo = bounded(
        10,
        "echo",
        client.call_tool("echo", json!({"message": "hello"})),
    )
    .await
    .expect("echo");
    assert!(text_of(&echo).contains("hello"), "{echo:?}");

    // Long-running tool with progress.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let options = CallOptions::timeout(Duration::from_secs(10))
        .on_progress(move |p| sink.lock().unwrap().push(p.progress));
    let long = bounded(
        20,
        "long-running",
        client.call_tool_with(
            "trigger-long-running-operation",
            json!({"duration": 1, "steps": 4}),
            options,
        ),
    )
    .await
    .expect("long-running");
    assert!(text_of(&long).contains("completed"), "{long:?}");
    assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);

    // Sampling: the server asks us, we answer, it quotes our answer.
    let sampled = bounded(
        10,
        "sampling",
        client.call_tool(
            "trigger-sampling-request",
            json!({"prompt": "hi", "maxTokens": 10}),
        ),
    )
    .await
    .expect("sampling tool");
    assert!(
        text_of(&sampled).contains("sampled 1 message(s)"),
        "{sampled:?}"
    );

    // Roots.
    let roots = bounded(10, "roots", client.call_tool("get-roots-list", json!({})))
        .await
        .expect("roots tool");
    assert!(text_of(&roots).contains("file:///tmp/project"), "{roots:?}");

    // Resources.
    let resources = bounded(10, "resources", client.list_resources())
        .await
        .expect("resources");
    assert!(!resources.is_empty());
    let read = bounded(10, "read", client.read_resource(&resources[0].uri))
        .await
        .expect("read");
    assert_eq!(read.contents[0].uri(), resources[0].uri);
    let templates = bounded(10, "templates", client.list_resource_templates())
        .await
        .expect("templates");
    assert!(!templates.is_empty());
    let missing = client.read_resource("demo://nothing/here").await;
    assert!(
        matches!(
            missing.as_ref().err().and_then(ClientError::peer_error),
            Some(PeerError::Rpc { .. })
        ),
        "{missing:?}"
    );

    // Prompts.
    let prompts = bounded(10, "prompts", client.list_prompts())
        .await
        .expect("prompts");
    assert!(prompts.iter().any(|p| p.name == "args-prompt"));
    let prompt = bounded(
        10,
        "get prompt",
        client.get_prompt("args-prompt", [("city", "Paris"), ("state", "TX")]),
    )
    .await
    .expect("prompt");
    let text = serde_json::to_string(&prompt.messages).unwrap();
    assert!(text.contains("Paris, TX"), "{text}");

    // Completion of a prompt argument.
    let completion = client
        .complete(CompleteParams::new(
            CompletionReference::prompt("completable-prompt"),
            "department",
            "S",
        ))
        .await
        .expect("complete");
    assert_eq!(completion.completion.values, ["Sales", "Support"]);

    // Logging through the subscription API.
    let mut events = client.notifications();
    client
        .set_logging_level(LoggingLevel::Debug)
        .await
        .expect("set level");
    client
        .call_tool("toggle-simulated-logging", json!({}))
        .await
        .expect("toggle logging");
    let log = bounded(10, "a log message", async {
        loop {
            match events.recv().await {
                Ok(ServerEvent::Log(entry)) => break entry,
                Ok(_) => continue,
                Err(e) => panic!("events: {e}"),
            }
        }
    })
    .await;
    assert!(log.data.to_string().contains("message"), "{log:?}");

    // Resource subscriptions: updates arrive as events.
    let uri = resources[0].uri.clone();
    client.subscribe(&uri).await.expect("subscribe");
    client
        .call_tool("toggle-subscriber-updates", json!({}))
        .await
        .expect("toggle updates");
    let updated = bounded(10, "a resource update", async {
        loop {
            match events.recv().await {
                Ok(ServerEvent::ResourceUpdated(p)) => break p,
                Ok(_) => continue,
                Err(e) => panic!("events: {e}"),
            }
        }
    })
    .await;
    assert_eq!(updated.uri, uri);
    client.unsubscribe(&uri).await.expect("unsubscribe");

    client.ping().await.expect("ping");
    let raw = client
        .request("tools/list", Some(json!({})), CallOptions::default())
        .await
        .expect("raw request");
    assert!(raw["tools"].is_array());
    let unknown = client
        .request("no/such/method", None, CallOptions::default())
        .await;
    assert_eq!(
        unknown.unwrap_err().rpc_error().map(|e| e.code),
        Some(-32601)
    );

    let pid = client.pid().expect("pid") as i32;
    bounded(10, "close", client.close()).await;
    assert!(
        common::wait_process_gone(pid, 5).await,
        "server process {pid} left behind"
    );
}

#[tokio::test]
async fn timeout_cancels_and_names_server_method_and_timeout() {
    let Some(config) = everything() else { return };
    let client = bounded(30, "connect", Client::spawn_stdio(config, options()))
        .await
        .expect("connect");
    let started = std::time::Instant::now();
    let err = client
        .call_tool_with(
            "trigger-long-running-operation",
            json!({"duration": 5, "steps": 5}),
            CallOptions::timeout(Duration::from_secs(1)),
        )
        .await
        .expect_err("must time out");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        err.to_string(),
        "server everything: request tools/call timed out after 1s"
    );
    // The connection is still usable after the cancellation.
    client.ping().await.expect("ping after timeout");

    // With resets on progress, a 1 s timeout survives a 3 s operation that reports every 0.5 s.
    let long = client
        .call_tool_with(
            "trigger-long-running-operation",
            json!({"duration": 3, "steps": 6}),
            CallOptions::timeout(Duration::from_secs(1)).reset_on_progress(Duration::from_secs(10)),
        )
        .await
        .expect("reset on progress");
    assert!(text_of(&long).contains("completed"));

    // The hard cap still ends it.
    let err = client
        .call_tool_with(
            "trigger-long-running-operation",
            json!({"duration": 4, "steps": 8}),
            CallOptions::timeout(Duration::from_secs(1))
                .reset_on_progress(Duration::from_secs(2))
                .on_progress(|_| {}),
        )
        .await
        .expect_err("capped");
    assert!(
        matches!(err.peer_error(), Some(PeerError::Timeout { .. })),
        "{err}"
    );

    // A cancellation handle.
    let token = mcp_client::CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let err = client
        .call_tool_with(
            "trigger-long-running-operation",
            json!({"duration": 5, "steps": 5}),
            CallOptions::default().cancel_with(token),
        )
        .await
        .expect_err("cancelled");
    assert!(
        matches!(err.peer_error(), Some(PeerError::Cancelled { .. })),
        "{err}"
    );
    bounded(10, "close", client.close()).await;
}

#[tokio::test]
async fn pinned_old_version_is_negotiated() {
    let Some(config) = everything() else { return };
    let options = ClientOptions::new().with_protocol_version(ProtocolVersion::V2024_11_05);
    let client = bounded(30, "connect", Client::spawn_stdio(config, options))
        .await
        .expect("connect");
    assert_eq!(client.protocol_version(), ProtocolVersion::V2024_11_05);
    // Without sampling or roots handlers, the server does not offer the tools that need them.
    let tools = client.list_tools().await.expect("tools");
    assert!(!tools.iter().any(|t| t.name == "trigger-sampling-request"));
    assert_eq!(client.name(), "node");
    bounded(10, "close", client.close()).await;
}

/// The pids of every process in process group `pgid`, from /proc.
fn group_members(pgid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| {
                    let (_, rest) = s.rsplit_once(')')?;
                    let fields: Vec<&str> = rest.split_whitespace().collect();
                    // state ppid pgrp ...; zombies have ended already.
                    (fields.first() != Some(&"Z")).then(|| fields.get(2)?.parse::<i32>().ok())?
                })
                == Some(pgid)
        })
        .collect()
}

#[tokio::test]
async fn npx_and_its_node_grandchild_end_with_close() {
    let Some(modules) = node_modules() else {
        return;
    };
    let Some(dir) = modules.parent() else { return };
    let config = StdioServerConfig::new("npx", ["--no-install", "mcp-server-everything", "stdio"])
        .with_cwd(dir);
    let client = bounded(
        60,
        "connect",
        Client::spawn_stdio(config, ClientOptions::new()),
    )
    .await
    .expect("connect through npx");
    assert_eq!(client.name(), "npx");
    client.ping().await.expect("ping");
    let pgid = client.pid().expect("pid") as i32;
    let members = group_members(pgid);
    assert!(
        members.len() >= 2,
        "npx should have started node: {members:?}"
    );
    bounded(10, "close", client.close()).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !group_members(pgid).is_empty() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        group_members(pgid),
        Vec::<i32>::new(),
        "processes left behind"
    );
}
