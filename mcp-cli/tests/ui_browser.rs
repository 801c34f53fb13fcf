//! `mcp ui` in a real browser: Debian's Chromium, driven by playwright-core
//! (`tests/interop/ui_browser.mjs`), against a hub of real servers. Each server's stdin is
//! logged (`tests/interop/stdin_log.mjs`), so the test sees which calls reached it.
//! - The official example apps `@modelcontextprotocol/server-basic-vanillajs` and
//!   `server-system-monitor`, and our weather app, render in our host; the driver asserts on
//!   the DOM inside their iframes, and this test on the calls their views made.
//! - server-everything's tools are called through generated forms (required fields, enums,
//!   defaults, numbers, progress, images, resource links), and a fixture tool on the official
//!   TypeScript SDK takes a nested object.
//! - Security: a page on another origin, a request without the token, another Host, a probe
//!   app trying to leave its sandbox and to call a model-only or another server's tool.
//! - Screenshots of the page and of the weather card go to `target/ui-screenshots/`.
//!
//! The peers come from `scripts/interop-setup.sh`; without them the test skips, unless
//! `MCP_INTEROP_REQUIRED=1`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use common::ui::start_ui;
use common::{scratch, weather_server, write_config};
use serde_json::json;

/// One peer directory from the environment, or `None` to skip.
fn peer(var: &str, ready: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var).map(PathBuf::from);
    match dir {
        Some(d) if d.join(ready).exists() => Some(d),
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!("{var} (with {ready}) is missing but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh");
            }
            eprintln!("skipped: {var} is not set up; run `eval \"$(scripts/interop-setup.sh)\"`");
            None
        }
    }
}

struct Peers {
    apps: PathBuf,
    examples: PathBuf,
    node: PathBuf,
    chromium: PathBuf,
}

fn peers() -> Option<Peers> {
    let apps = peer("MCP_INTEROP_APPS_MODULES", "playwright-core")?;
    let examples = peer(
        "MCP_INTEROP_UI_MODULES",
        "@modelcontextprotocol/server-basic-vanillajs",
    )?;
    let node = peer(
        "MCP_INTEROP_NODE_MODULES",
        "@modelcontextprotocol/server-everything",
    )?;
    let chromium = std::env::var_os("MCP_INTEROP_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if !chromium.exists() {
        if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
            panic!("chromium is missing but MCP_INTEROP_REQUIRED=1; run scripts/chromium.sh");
        }
        eprintln!("skipped: no chromium; run scripts/interop-setup.sh");
        return None;
    }
    Some(Peers {
        apps,
        examples,
        node,
        chromium,
    })
}

fn interop(script: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(script)
        .to_string_lossy()
        .into_owned()
}

/// A config entry running `command args…` with its stdin logged to `log`.
fn logged(log: &Path, command: &str, args: &[&str]) -> serde_json::Value {
    let mut all = vec![interop("stdin_log.mjs"), log.to_string_lossy().into_owned()];
    all.push(command.to_owned());
    all.extend(args.iter().map(|a| (*a).to_owned()));
    json!({ "command": "node", "args": all })
}

/// Where the screenshots go: the workspace's `target/ui-screenshots`.
fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("ui-screenshots")
}

/// The names of the tools called in a server's stdin log.
fn calls(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["method"] == "tools/call")
        .filter_map(|m| m["params"]["name"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn mcp_ui_in_chromium() {
    let Some(peers) = peers() else {
        return;
    };
    let home = scratch("ui-browser");
    let examples = peers.examples.join("@modelcontextprotocol");
    let node_modules = peers.node.to_string_lossy().into_owned();
    let log = |name: &str| home.join(format!("{name}.stdin.jsonl"));
    let basic = examples.join("server-basic-vanillajs/dist/index.js");
    let monitor = examples.join("server-system-monitor/dist/index.js");
    let everything = peers
        .node
        .join("@modelcontextprotocol/server-everything/dist/index.js");
    let weather = weather_server();
    let config = write_config(
        &home,
        json!({
            "basic": logged(&log("basic"), "node", &[&basic.to_string_lossy(), "--stdio"]),
            "monitor": logged(&log("monitor"), "node", &[&monitor.to_string_lossy(), "--stdio"]),
            "weather": logged(&log("weather"), &weather.to_string_lossy(), &[]),
            "everything": logged(&log("everything"), "node", &[&everything.to_string_lossy(), "stdio"]),
            "fixture": logged(&log("fixture"), "node", &[&interop("ui_fixture_server.mjs"), &node_modules]),
        }),
    );
    let (ui, url) = start_ui(&home, &config);
    let shots = artifacts();
    let _ = std::fs::remove_dir_all(&shots);
    let started = Instant::now();
    let driver = Command::new("node")
        .arg(interop("ui_browser.mjs"))
        .arg(&peers.apps)
        .arg(&url)
        .arg(&peers.chromium)
        .arg(&shots)
        .stdin(Stdio::null())
        .output()
        .expect("node runs the driver");
    let stdout = String::from_utf8_lossy(&driver.stdout);
    eprintln!("{stdout}");
    eprintln!("driver: {:.1} s", started.elapsed().as_secs_f64());
    assert!(
        driver.status.success() && stdout.contains("OK mcp ui"),
        "the browser driver failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&driver.stderr)
    );
    drop(ui);

    // The calls that reached the servers: the host's and the views' own.
    let basic_calls = calls(&log("basic"));
    assert_eq!(
        basic_calls.iter().filter(|n| *n == "get-time").count(),
        2,
        "the page's call and the view's own: {basic_calls:?}"
    );
    let monitor_calls = calls(&log("monitor"));
    assert!(
        monitor_calls.contains(&"get-system-info".to_owned())
            && monitor_calls.contains(&"poll-system-stats".to_owned()),
        "{monitor_calls:?}"
    );
    let weather_calls = calls(&log("weather"));
    assert!(
        weather_calls.contains(&"get_weather".to_owned())
            && weather_calls.contains(&"get_forecast".to_owned()),
        "{weather_calls:?}"
    );
    let fixture_calls = calls(&log("fixture"));
    assert!(
        fixture_calls.contains(&"app_echo".to_owned())
            && fixture_calls.contains(&"configure".to_owned()),
        "{fixture_calls:?}"
    );
    assert!(
        !fixture_calls.contains(&"model_only".to_owned()),
        "a refused call reached the server: {fixture_calls:?}"
    );

    let everything_log = std::fs::read_to_string(log("everything")).unwrap_or_default();
    assert!(
        everything_log.contains("\"notifications/cancelled\""),
        "the cancelled call was cancelled at server-everything"
    );

    for shot in [
        "mcp-ui.png",
        "mcp-ui-weather-card.png",
        "mcp-ui-weather-dark.png",
        "mcp-ui-basic-vanillajs.png",
        "mcp-ui-system-monitor.png",
        "mcp-ui-forms.png",
    ] {
        let path = shots.join(shot);
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        assert!(size > 1000, "{} was not written", path.display());
    }
}
