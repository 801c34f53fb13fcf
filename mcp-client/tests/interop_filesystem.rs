//! Against `@modelcontextprotocol/server-filesystem` on a temporary folder, run as a stdio child.

mod common;

use common::{bounded, node_modules, temp_dir};
use mcp_client::{Client, ClientOptions, StdioServerConfig};
use serde_json::json;

#[tokio::test]
async fn filesystem_server_on_a_temporary_folder() {
    let Some(modules) = node_modules() else {
        return;
    };
    let dir = temp_dir("fs");
    std::fs::write(dir.join("hello.txt"), "hello from the test\n").expect("write file");
    let dir = dir.canonicalize().expect("canonical dir");
    let entry = modules.join("@modelcontextprotocol/server-filesystem/dist/index.js");
    let config = StdioServerConfig::new(
        "node",
        [
            entry.to_string_lossy().into_owned(),
            dir.to_string_lossy().into_owned(),
        ],
    );
    let client = bounded(
        30,
        "connect",
        Client::spawn_stdio(config, ClientOptions::new().with_name("fs")),
    )
    .await
    .expect("connect");
    let tools = client.list_tools().await.expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for expected in ["read_text_file", "write_file", "list_directory"] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }

    let path = dir.join("hello.txt").to_string_lossy().into_owned();
    let read = bounded(
        10,
        "read",
        client.call_tool("read_text_file", json!({"path": path})),
    )
    .await
    .expect("read");
    assert!(!read.is_error(), "{read:?}");
    assert_eq!(read.content[0].as_text(), Some("hello from the test\n"));

    let new_file = dir.join("new.txt").to_string_lossy().into_owned();
    let written = client
        .call_tool(
            "write_file",
            json!({"path": new_file, "content": "written"}),
        )
        .await
        .expect("write");
    assert!(!written.is_error(), "{written:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("new.txt")).unwrap(),
        "written"
    );

    let listing = client
        .call_tool("list_directory", json!({"path": dir.to_string_lossy()}))
        .await
        .expect("list");
    let text = listing.content[0].as_text().unwrap_or_default().to_owned();
    assert!(
        text.contains("hello.txt") && text.contains("new.txt"),
        "{text}"
    );

    // Outside the allowed folder: a tool error, not a protocol error.
    let denied = client
        .call_tool("read_text_file", json!({"path": "/etc/passwd"}))
        .await
        .expect("answered");
    assert!(denied.is_error(), "{denied:?}");

    bounded(10, "close", client.close()).await;
    let _ = std::fs::remove_dir_all(&dir);
}
