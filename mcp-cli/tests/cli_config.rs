//! `mcp add` and `mcp remove` end to end: in each config format the file keeps its unknown
//! keys and its format; every validation message; the aliases of `remove`.

mod common;

use std::path::{Path, PathBuf};

use common::{mcp_in, run, scratch, Run};
use serde_json::{json, Value};

fn mcp(home: &Path, config: &Path, args: &[&str]) -> Run {
    let config = config.to_string_lossy().into_owned();
    let mut all = vec!["--config", config.as_str()];
    all.extend_from_slice(args);
    run(mcp_in(home, &all), 30)
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read config")).expect("JSON")
}

fn file(home: &Path, name: &str, content: Value) -> PathBuf {
    let path = home.join(name);
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&content).unwrap_or_default(),
    )
    .expect("write");
    path
}

#[test]
fn add_then_remove_in_each_format() {
    let home = scratch("formats");
    // (file, servers key, stdio entry check, remote entry check)
    let cases = [
        (
            file(
                &home,
                "cline.json",
                json!({ "mcpServers": { "old": { "type": "stdio", "command": "x", "autoApprove": [] } }, "theme": "dark" }),
            ),
            "mcpServers",
            "Cline",
        ),
        (
            file(
                &home,
                "claude.json",
                json!({ "mcpServers": { "old": { "command": "x", "args": [] } }, "globalShortcut": "Ctrl+Space" }),
            ),
            "mcpServers",
            "Claude Desktop",
        ),
        (
            file(
                &home,
                "vscode.json",
                json!({ "inputs": [{ "id": "key", "type": "promptString" }], "servers": { "old": { "type": "stdio", "command": "x" } } }),
            ),
            "servers",
            "VS Code",
        ),
        (
            file(
                &home,
                "langchain.json",
                json!({ "old": { "transport": "stdio", "command": "x", "args": [] } }),
            ),
            "",
            "LangChain",
        ),
    ];
    for (path, key, format) in &cases {
        let before = read(path);
        let added = mcp(
            &home,
            path,
            &[
                "add",
                "local",
                "--timeout",
                "30",
                "--",
                "node",
                "server.js",
                "--port",
                "1",
            ],
        );
        assert_eq!(added.code, 0, "{format}: {added:?}");
        assert!(
            added.stdout.contains(&format!("({format})")),
            "{format}: {added:?}"
        );
        // The new server is read back by the same file.
        let listed = mcp(&home, path, &["servers"]);
        assert!(
            listed.stdout.contains(&format!("({format}")),
            "{format}: {listed:?}"
        );

        let remote = mcp(
            &home,
            path,
            &[
                "add",
                "remote",
                "--transport",
                "http",
                "--header",
                "Authorization: Bearer abc",
                "https://example.com/mcp",
            ],
        );
        assert_eq!(remote.code, 0, "{format}: {remote:?}");
        let sse = mcp(&home, path, &["add", "legacy", "https://example.com/sse"]);
        assert_eq!(sse.code, 0, "{format}: {sse:?}");

        let after = read(path);
        let servers = if key.is_empty() { &after } else { &after[*key] };
        assert_eq!(servers["local"]["command"], "node", "{format}: {after}");
        assert_eq!(
            servers["local"]["args"],
            json!(["server.js", "--port", "1"]),
            "{format}"
        );
        assert_eq!(
            servers["remote"]["url"], "https://example.com/mcp",
            "{format}"
        );
        assert_eq!(
            servers["remote"]["headers"]["Authorization"], "Bearer abc",
            "{format}"
        );
        match *format {
            "Cline" => {
                assert_eq!(servers["remote"]["type"], "streamableHttp");
                assert_eq!(servers["legacy"]["type"], "sse");
                assert_eq!(servers["local"]["timeout"], 30);
            }
            "Claude Desktop" => assert!(servers["local"].get("type").is_none(), "{after}"),
            "VS Code" => assert_eq!(servers["remote"]["type"], "http"),
            _ => assert_eq!(servers["remote"]["transport"], "streamable_http"),
        }
        for (alias, name) in [
            ("remove", "local"),
            ("rm", "remote"),
            ("uninstall", "legacy"),
        ] {
            let removed = mcp(&home, path, &[alias, name]);
            assert_eq!(removed.code, 0, "{format} {alias}: {removed:?}");
        }
        assert_eq!(read(path), before, "{format}: the file is back as it was");
    }
}

#[test]
fn add_creates_a_missing_config_file() {
    let home = scratch("create");
    let path = home.join("new/mcp.json");
    let added = mcp(&home, &path, &["add", "w", "--", "weather-server"]);
    assert_eq!(added.code, 0, "{added:?}");
    assert_eq!(read(&path)["mcpServers"]["w"]["command"], "weather-server");
}

#[test]
fn every_validation_message() {
    let home = scratch("validate");
    let path = file(&home, "mcp.json", json!({ "mcpServers": {} }));
    let refusals: &[(&[&str], &str)] = &[
        (
            &["add", "x", "ftp://example.com"],
            "must start with http:// or https://",
        ),
        (
            &["add", "x", "--transport", "sse", "example.com/sse"],
            "must start with http:// or https://",
        ),
        (
            &["add", "x", "--header", "Bad Header: v", "https://e.com/mcp"],
            "is not a valid HTTP token",
        ),
        (
            &["add", "x", "--header", "NoColon", "https://e.com/mcp"],
            "must look like \"Name: value\"",
        ),
        (
            &["add", "x", "--header", "A: b", "--", "node", "s.js"],
            "--header is only for remote servers",
        ),
        (
            &["add", "x", "--transport", "carrier-pigeon", "--", "node"],
            "unknown transport \"carrier-pigeon\"",
        ),
        (&["add", "x"], "say what to run"),
        (
            &["add", "x", "--transport", "stdio", "https://e.com/mcp"],
            "is a URL, but the transport is stdio",
        ),
        (
            &[
                "add",
                "x",
                "--transport",
                "http",
                "https://e.com/mcp",
                "extra",
            ],
            "a remote server takes one URL",
        ),
        (
            &["add", "x", "--env", "NOEQUALS", "--", "node"],
            "must look like KEY=VALUE",
        ),
        (
            &["add", "x", "--env", "A=b", "https://e.com/mcp"],
            "--env is only for stdio servers",
        ),
        (&["add", "", "--", "node"], "the server name is empty"),
        (&["remove", "ghost"], "no server named \"ghost\""),
    ];
    for (args, message) in refusals {
        let r = mcp(&home, &path, args);
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
        assert!(
            r.stderr.contains(message),
            "{args:?}: expected {message:?} in {:?}",
            r.stderr
        );
    }
    assert_eq!(
        read(&path),
        json!({ "mcpServers": {} }),
        "refusals leave the file alone"
    );

    // A placeholder is accepted with a warning.
    let placeholder = mcp(
        &home,
        &path,
        &[
            "add",
            "p",
            "--header",
            "Authorization: Bearer <token>",
            "https://e.com/mcp",
        ],
    );
    assert_eq!(placeholder.code, 0, "{placeholder:?}");
    assert!(
        placeholder.stderr.contains("looks like a placeholder"),
        "{placeholder:?}"
    );
    let env_placeholder = mcp(
        &home,
        &path,
        &["add", "q", "--env", "API_KEY=YOUR_API_KEY", "--", "node"],
    );
    assert_eq!(env_placeholder.code, 0);
    assert!(
        env_placeholder.stderr.contains("looks like a placeholder"),
        "{env_placeholder:?}"
    );
    // A name that exists is refused.
    let dup = mcp(&home, &path, &["add", "p", "--", "node"]);
    assert_eq!(dup.code, 2);
    assert!(
        dup.stderr
            .contains("already exists; remove it first or pick another name"),
        "{dup:?}"
    );
    // A timeout out of range is clamped with a warning.
    let clamped = mcp(
        &home,
        &path,
        &["add", "t", "--timeout", "99999", "--", "node"],
    );
    assert_eq!(clamped.code, 0);
    assert!(clamped.stderr.contains("outside 1..3600"), "{clamped:?}");
    assert_eq!(read(&path)["mcpServers"]["t"]["timeout"], 3600);
}

#[test]
fn add_writes_the_protocol_mode() {
    let home = scratch("protocol");
    let path = file(&home, "mcp.json", json!({ "mcpServers": {} }));
    let added = mcp(
        &home,
        &path,
        &[
            "add",
            "m",
            "--protocol",
            "2026-07-28",
            "https://example.com/mcp",
        ],
    );
    assert_eq!(added.code, 0, "{added:?}");
    let added = mcp(&home, &path, &["add", "a", "--", "weather-server"]);
    assert_eq!(added.code, 0, "{added:?}");
    let config = read(&path);
    assert_eq!(config["mcpServers"]["m"]["protocol"], "2026-07-28");
    assert!(
        config["mcpServers"]["a"].get("protocol").is_none(),
        "{config}"
    );
    let refused = mcp(
        &home,
        &path,
        &[
            "add",
            "x",
            "--protocol",
            "modern",
            "https://example.com/mcp",
        ],
    );
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(refused.stderr.contains("legacy"), "{refused:?}");
}
