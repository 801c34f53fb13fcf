//! The `mcp` binary end to end against `@modelcontextprotocol/server-everything`: tools, call
//! (text, image summary, structured content, progress on stderr), resources, read, prompts,
//! prompt, ping, instructions.

mod common;

use common::{everything_entry, mcp_in, node_modules, run, scratch, write_config, Run};
use serde_json::json;

#[test]
fn every_command_against_server_everything() {
    let Some(modules) = node_modules() else {
        return;
    };
    let home = scratch("everything");
    let config = write_config(&home, json!({ "everything": everything_entry(&modules) }));
    let config = config.to_string_lossy().into_owned();
    let c = |args: &[&str]| -> Run {
        let mut all = vec!["--config", config.as_str()];
        all.extend_from_slice(args);
        run(mcp_in(&home, &all), 90)
    };

    let servers = c(&["servers"]);
    assert_eq!(servers.code, 0, "{servers:?}");
    assert!(
        servers.stdout.contains("everything  stdio  connected"),
        "{servers:?}"
    );

    let tools = c(&["tools", "everything"]);
    assert!(
        tools
            .stdout
            .lines()
            .any(|l| l.starts_with("everything__echo ")),
        "{tools:?}"
    );

    let echo = c(&["call", "everything__echo", r#"{"message":"hello cli"}"#]);
    assert_eq!(echo.code, 0, "{echo:?}");
    assert!(echo.stdout.contains("hello cli"), "{echo:?}");

    let image = c(&["call", "get-tiny-image"]);
    assert_eq!(image.code, 0, "{image:?}");
    assert!(image.stdout.contains("[image: image/png, "), "{image:?}");
    assert!(
        !image.stdout.contains("iVBOR"),
        "base64 must not be printed: {image:?}"
    );

    let structured = c(&[
        "call",
        "get-structured-content",
        r#"{"location":"New York"}"#,
    ]);
    assert_eq!(structured.code, 0, "{structured:?}");
    assert!(
        structured.stdout.contains("\n  \"temperature\": "),
        "{structured:?}"
    );

    let long = c(&[
        "call",
        "trigger-long-running-operation",
        r#"{"duration":1,"steps":2}"#,
    ]);
    assert_eq!(long.code, 0, "{long:?}");
    assert!(long.stderr.contains("progress: 1/2"), "{long:?}");
    assert!(
        long.stdout.contains("Long running operation completed"),
        "{long:?}"
    );

    let resources = c(&["resources", "everything"]);
    assert!(
        resources
            .stdout
            .contains("demo://resource/static/document/features.md"),
        "{resources:?}"
    );
    let read = c(&[
        "read",
        "everything",
        "demo://resource/static/document/features.md",
    ]);
    assert_eq!(read.code, 0, "{read:?}");
    assert!(read.stdout.contains("Features"), "{read:?}");

    let prompts = c(&["prompts"]);
    let words: Vec<Vec<&str>> = prompts
        .stdout
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert!(
        words.iter().any(|w| w[..].starts_with(&[
            "everything__args-prompt",
            "args-prompt",
            "everything",
            "city",
            "[state]"
        ])),
        "{prompts:?}"
    );
    let prompt = c(&["prompt", "everything", "args-prompt", r#"{"city":"Paris"}"#]);
    assert_eq!(prompt.code, 0, "{prompt:?}");
    assert!(
        prompt.stdout.contains("user: ") && prompt.stdout.contains("Paris"),
        "{prompt:?}"
    );

    assert_eq!(c(&["ping", "everything"]).code, 0);
    let instructions = c(&["instructions"]);
    assert!(
        instructions
            .stdout
            .starts_with("<server_instructions server=\"everything\">"),
        "{instructions:?}"
    );
    let export = c(&["export", "--format", "anthropic"]);
    let parsed: serde_json::Value = serde_json::from_str(&export.stdout).expect("JSON");
    assert!(parsed
        .as_array()
        .is_some_and(|a| a.iter().any(|t| t["name"] == "everything__echo")));
}
