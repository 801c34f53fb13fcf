//! `mcp call --task`, `mcp tasks` and `mcp task get|result|cancel` end to end against the
//! TypeScript SDK v1 1.32.2 task server (`mcp-client/tests/interop/tasks_ts_server.cjs`):
//! over stdio a task is created, its status shown on stderr and its result printed; over
//! stateless Streamable HTTP (one task store for all requests) a task started by one `mcp`
//! process (`--detach`) is listed, polled, cancelled and fetched by later ones.

mod common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use common::{mcp_in, node_modules, run, scratch, write_config};
use serde_json::json;

fn driver() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp-client/tests/interop/tasks_ts_server.cjs")
        .to_string_lossy()
        .into_owned()
}

/// The HTTP task server, killed on drop.
struct Server(Child, u16);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn stateless_server(modules: &std::path::Path) -> Server {
    let mut child = Command::new("node")
        .args([driver().as_str(), "--http", "--stateless"])
        .env("MCP_INTEROP_NODE_MODULES", modules)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    // Bounded: the driver prints its port first or exits (which ends the lines).
    let port = loop {
        let line = lines
            .next()
            .expect("the server printed LISTENING")
            .expect("stdout readable");
        if let Some(port) = line.trim().strip_prefix("LISTENING ") {
            break port.parse::<u16>().expect("a port");
        }
    };
    std::thread::spawn(move || for _ in lines {});
    Server(child, port)
}

#[test]
fn call_as_a_task_over_stdio_shows_status_and_prints_the_result() {
    let Some(modules) = node_modules() else {
        return;
    };
    let home = scratch("tasks-stdio");
    let config = write_config(
        &home,
        json!({"ts": {"command": "node", "args": [driver()],
                      "env": {"MCP_INTEROP_NODE_MODULES": modules.to_string_lossy()}}}),
    );
    let config = config.to_string_lossy().into_owned();
    let call = run(
        mcp_in(
            &home,
            &[
                "--config",
                &config,
                "call",
                "--task",
                "ts__count",
                r#"{"steps":2,"delayMs":30}"#,
            ],
        ),
        60,
    );
    assert_eq!(call.code, 0, "{call:?}");
    assert_eq!(call.stdout.trim(), "counted 2", "{call:?}");
    assert!(call.stderr.contains(": working"), "{call:?}");
    assert!(call.stderr.contains(": completed"), "{call:?}");

    // A tool that forbids tasks is refused with a clear message, exit 2.
    let plain = run(
        mcp_in(&home, &["--config", &config, "call", "--task", "ts__plain"]),
        60,
    );
    assert_eq!(plain.code, 2, "{plain:?}");
    assert!(plain.stderr.contains("taskSupport"), "{plain:?}");
}

#[test]
fn a_detached_task_is_listed_polled_cancelled_and_fetched_by_later_runs() {
    let Some(modules) = node_modules() else {
        return;
    };
    let server = stateless_server(&modules);
    let home = scratch("tasks-http");
    let config = write_config(
        &home,
        json!({"ts": {"type": "streamableHttp",
                      "url": format!("http://127.0.0.1:{}/mcp", server.1)}}),
    );
    let config = config.to_string_lossy().into_owned();
    let mcp = |args: &[&str]| {
        let mut all = vec!["--config", config.as_str()];
        all.extend_from_slice(args);
        run(mcp_in(&home, &all), 60)
    };

    let started = mcp(&["call", "--task", "--detach", "ts__forever"]);
    assert_eq!(started.code, 0, "{started:?}");
    let forever = started.stdout.trim().to_owned();
    assert!(!forever.is_empty(), "{started:?}");

    let listed = mcp(&["tasks", "ts"]);
    assert_eq!(listed.code, 0, "{listed:?}");
    assert!(listed.stdout.contains(&forever), "{listed:?}");
    assert!(listed.stdout.contains("working"), "{listed:?}");

    let got = mcp(&["task", "get", &forever]);
    assert_eq!(got.code, 0, "{got:?}");
    assert!(got.stdout.contains("on ts: working"), "{got:?}");

    let cancelled = mcp(&["task", "cancel", &forever]);
    assert_eq!(cancelled.code, 0, "{cancelled:?}");
    assert!(cancelled.stdout.contains("cancelled"), "{cancelled:?}");
    let again = mcp(&["task", "get", &forever, "--json"]);
    let value: serde_json::Value = serde_json::from_str(&again.stdout).expect("json");
    assert_eq!(value["task"]["status"], "cancelled", "{again:?}");
    assert_eq!(value["server"], "ts");

    let started = mcp(&[
        "call",
        "--task",
        "--detach",
        "ts__count",
        r#"{"steps":2,"delayMs":10}"#,
    ]);
    assert_eq!(started.code, 0, "{started:?}");
    let count = started.stdout.trim().to_owned();
    let result = mcp(&["task", "result", &count, "--server", "ts"]);
    assert_eq!(result.code, 0, "{result:?}");
    assert_eq!(result.stdout.trim(), "counted 2", "{result:?}");

    let unknown = mcp(&["task", "get", "no-such-task"]);
    assert_eq!(unknown.code, 2, "{unknown:?}");
    assert!(
        unknown.stderr.contains("no server knows task"),
        "{unknown:?}"
    );
}

/// weather-server's `climate_report` as a task in each era: a 2025 session (`"protocol":
/// "legacy"`) uses core tasks, auto finds 2026-07-28 and the tasks extension. Status goes to
/// stderr, the report to stdout.
#[test]
fn weather_climate_report_as_a_task_in_both_eras() {
    for (tag, protocol) in [("legacy", Some("legacy")), ("auto", None)] {
        let home = scratch(&format!("tasks-weather-{tag}"));
        let mut entry = common::weather_entry();
        if let Some(protocol) = protocol {
            entry["protocol"] = json!(protocol);
        }
        let config = write_config(&home, json!({ "weather": entry }));
        let config = config.to_string_lossy().into_owned();
        let call = run(
            mcp_in(
                &home,
                &[
                    "--config",
                    &config,
                    "call",
                    "--task",
                    "weather__climate_report",
                    r#"{"cities":["Paris","Lima","Shenzhen"],"perCityMs":40}"#,
                ],
            ),
            60,
        );
        assert_eq!(call.code, 0, "{tag}: {call:?}");
        for city in ["Paris", "Lima", "Shenzhen"] {
            assert!(call.stdout.contains(city), "{tag}: {call:?}");
        }
        assert!(call.stderr.contains("mcp: task "), "{tag}: {call:?}");
        assert!(call.stderr.contains(": completed"), "{tag}: {call:?}");
    }
}
