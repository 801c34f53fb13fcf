//! The `mcp` binary end to end against weather-server: every command, the built-in default
//! config, the config lookup order, and the exit statuses.

mod common;

use common::{broken_entry, mcp_in, run, scratch, weather_entry, write_config};
use serde_json::{json, Value};

fn weather_home(tag: &str) -> (std::path::PathBuf, String) {
    let home = scratch(tag);
    let config = write_config(&home, json!({ "weather": weather_entry() }));
    (home, config.to_string_lossy().into_owned())
}

#[test]
fn built_in_default_runs_weather_server_next_to_mcp() {
    common::weather_server();
    let home = scratch("default");
    let servers = run(mcp_in(&home, &["servers"]), 60);
    assert_eq!(servers.code, 0, "{servers:?}");
    assert!(
        servers.stdout.starts_with("config: built-in default"),
        "{servers:?}"
    );
    assert!(
        servers.stdout.contains("weather  stdio  connected"),
        "{servers:?}"
    );
    let call = run(
        mcp_in(
            &home,
            &["call", "weather__get_weather", r#"{"city":"Shenzhen"}"#],
        ),
        60,
    );
    assert_eq!(call.code, 0, "{call:?}");
    assert!(call.stdout.starts_with("Shenzhen: "), "{call:?}");
}

#[test]
fn servers_tools_and_call() {
    let (home, config) = weather_home("weather");
    let servers = run(mcp_in(&home, &["--config", &config, "servers"]), 60);
    assert_eq!(servers.code, 0, "{servers:?}");
    assert!(
        servers.stdout.contains(&format!("config: {config} (Cline")),
        "{servers:?}"
    );
    let line = servers.stdout.lines().nth(1).unwrap_or_default().to_owned();
    for part in [
        "weather",
        "stdio",
        "connected",
        // weather-server speaks both eras; `auto` finds the newer one.
        "modern 2026-07-28",
        "tools 5",
        "resources 3",
        "prompts 1",
    ] {
        assert!(line.contains(part), "{part} missing from {line:?}");
    }

    let tools = run(mcp_in(&home, &["--config", &config, "tools"]), 60);
    assert_eq!(tools.code, 0, "{tools:?}");
    let first = tools.stdout.lines().next().unwrap_or_default();
    assert!(
        // Columns are as wide as the longest name (weather__climate_report, climate_report)
        // plus two.
        first
            .starts_with("weather__get_weather     get_weather     weather  [app] Current weather"),
        "{first:?}"
    );
    assert_eq!(tools.stdout.lines().count(), 5);

    let json_tools = run(
        mcp_in(&home, &["--config", &config, "tools", "weather", "--json"]),
        60,
    );
    let parsed: Value = serde_json::from_str(&json_tools.stdout).expect("tools --json is JSON");
    assert_eq!(parsed[0]["name"], "weather__get_weather");
    assert_eq!(parsed[0]["rawName"], "get_weather");
    assert_eq!(parsed[0]["server"], "weather");
    assert_eq!(parsed[0]["inputSchema"]["required"][0], "city");

    let call = run(
        mcp_in(
            &home,
            &[
                "--config",
                &config,
                "call",
                "weather__get_weather",
                r#"{"city":"Shenzhen"}"#,
            ],
        ),
        60,
    );
    assert_eq!(call.code, 0, "{call:?}");
    assert!(
        call.stdout.starts_with("Shenzhen: thunderstorms, 34.3 °C"),
        "{call:?}"
    );
    // Structured content is pretty-printed after the text.
    assert!(
        call.stdout.contains("\n  \"city\": \"Shenzhen\""),
        "{call:?}"
    );

    let bare = run(
        mcp_in(
            &home,
            &[
                "--config",
                &config,
                "call",
                "get_weather",
                r#"{"city":"Shenzhen"}"#,
            ],
        ),
        60,
    );
    assert_eq!(bare.code, 0, "{bare:?}");
    assert_eq!(bare.stdout, call.stdout);

    let raw = run(
        mcp_in(
            &home,
            &[
                "--config",
                &config,
                "call",
                "--json",
                "weather__get_weather",
                r#"{"city":"Shenzhen"}"#,
            ],
        ),
        60,
    );
    let raw: Value = serde_json::from_str(&raw.stdout).expect("call --json is JSON");
    assert!(raw["content"][0]["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("Shenzhen: thunderstorms")));
    assert_eq!(raw["structuredContent"]["city"], "Shenzhen");

    // Progress and log messages go to stderr, never stdout.
    let forecast = run(
        mcp_in(
            &home,
            &[
                "--config",
                &config,
                "call",
                "weather__get_forecast",
                r#"{"city":"Shenzhen","days":2}"#,
            ],
        ),
        60,
    );
    assert_eq!(forecast.code, 0, "{forecast:?}");
    assert!(
        forecast.stdout.starts_with("Shenzhen forecast:"),
        "{forecast:?}"
    );
    assert!(forecast.stderr.contains("progress: 1/2"), "{forecast:?}");
    assert!(!forecast.stdout.contains("progress"), "{forecast:?}");
}

#[test]
fn resources_read_prompts_prompt_ping_export_instructions() {
    let (home, config) = weather_home("weather-more");
    let c = |args: &[&str]| {
        let mut all = vec!["--config", config.as_str()];
        all.extend_from_slice(args);
        run(mcp_in(&home, &all), 60)
    };
    let resources = c(&["resources"]);
    assert_eq!(resources.code, 0, "{resources:?}");
    assert!(
        resources.stdout.contains("weather  weather://cities"),
        "{resources:?}"
    );
    assert!(
        resources
            .stdout
            .contains("weather://current/{city}  current (template)"),
        "{resources:?}"
    );

    let read = c(&["read", "weather", "weather://cities"]);
    assert_eq!(read.code, 0, "{read:?}");
    let cities: Value = serde_json::from_str(&read.stdout).expect("cities JSON");
    assert!(cities.as_array().is_some_and(|a| a.len() > 50));

    let prompts = c(&["prompts", "weather"]);
    assert_eq!(prompts.code, 0, "{prompts:?}");
    assert!(
        prompts
            .stdout
            .starts_with("weather__weather_report  weather_report  weather  city [style]"),
        "{prompts:?}"
    );

    let prompt = c(&[
        "prompt",
        "weather",
        "weather_report",
        r#"{"city":"Shenzhen"}"#,
    ]);
    assert_eq!(prompt.code, 0, "{prompt:?}");
    assert!(
        prompt
            .stdout
            .contains("user: Write a brief weather report for Shenzhen"),
        "{prompt:?}"
    );

    let ping = c(&["ping"]);
    assert_eq!(ping.code, 0, "{ping:?}");
    assert!(ping.stdout.starts_with("weather: ok ("), "{ping:?}");
    assert_eq!(c(&["ping", "weather"]).code, 0);

    let openai: Value =
        serde_json::from_str(&c(&["export", "--format", "openai"]).stdout).expect("openai");
    assert_eq!(openai[0]["type"], "function");
    assert_eq!(openai[0]["name"], "weather__get_weather");
    assert!(openai[0]["parameters"].is_object());
    let anthropic: Value =
        serde_json::from_str(&c(&["export", "--format", "anthropic"]).stdout).expect("anthropic");
    assert!(anthropic[0]["input_schema"].is_object());
    let gemini: Value =
        serde_json::from_str(&c(&["export", "--format", "gemini"]).stdout).expect("gemini");
    assert_eq!(
        gemini["functionDeclarations"][0]["name"],
        "weather__get_weather"
    );
    let bad = c(&["export", "--format", "bard"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("use openai, openai-strict, anthropic or gemini"),
        "{bad:?}"
    );

    let instructions = c(&["instructions"]);
    assert_eq!(instructions.code, 0, "{instructions:?}");
    assert!(
        instructions
            .stdout
            .starts_with("<server_instructions server=\"weather\">"),
        "{instructions:?}"
    );
}

#[test]
fn exit_statuses() {
    let home = scratch("exit");
    let config = write_config(
        &home,
        json!({ "weather": weather_entry(), "broken": broken_entry() }),
    );
    let config = config.to_string_lossy().into_owned();
    let c = |args: &[&str]| {
        let mut all = vec!["--config", config.as_str()];
        all.extend_from_slice(args);
        run(mcp_in(&home, &all), 60)
    };
    // isError → 1, with the tool's message on stdout.
    let unknown_city = c(&["call", "weather__get_weather", r#"{"city":"Atlantis"}"#]);
    assert_eq!(unknown_city.code, 1, "{unknown_city:?}");
    assert!(!unknown_city.stdout.is_empty());
    // Usage errors → 2.
    let no_tool = c(&["call", "no_such_tool"]);
    assert_eq!(no_tool.code, 2, "{no_tool:?}");
    assert!(
        no_tool.stderr.contains("no tool named \"no_such_tool\""),
        "{no_tool:?}"
    );
    let bad_json = c(&["call", "weather__get_weather", "{city"]);
    assert_eq!(bad_json.code, 2);
    assert!(bad_json.stderr.contains("not valid JSON"), "{bad_json:?}");
    let not_object = c(&["call", "weather__get_weather", "[1]"]);
    assert_eq!(not_object.code, 2);
    assert!(
        not_object.stderr.contains("must be a JSON object"),
        "{not_object:?}"
    );
    assert_eq!(c(&["frobnicate"]).code, 2);
    // Connection errors → 2, naming the reason.
    let broken = c(&["call", "broken__anything"]);
    assert_eq!(broken.code, 2, "{broken:?}");
    assert!(
        broken.stderr.contains("server broken failed to connect"),
        "{broken:?}"
    );
    let ping = c(&["ping"]);
    assert_eq!(ping.code, 2, "{ping:?}");
    assert!(ping.stdout.contains("weather: ok"), "{ping:?}");
    let servers = c(&["servers"]);
    assert_eq!(servers.code, 0);
    assert!(
        servers.stdout.contains("broken   stdio  failed: "),
        "{servers:?}"
    );
    let read_broken = c(&["read", "broken", "x://y"]);
    assert_eq!(read_broken.code, 2);
    let unknown_server = c(&["tools", "nobody"]);
    assert_eq!(unknown_server.code, 2);
    assert!(
        unknown_server.stderr.contains("no server named \"nobody\""),
        "{unknown_server:?}"
    );
    // A config file that does not exist → 2.
    let missing = run(
        mcp_in(&home, &["--config", "/nonexistent/mcp.json", "servers"]),
        30,
    );
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("does not exist"), "{missing:?}");
}

#[test]
fn config_lookup_order() {
    let home = scratch("lookup");
    // Only command and args: the file reads as Claude Desktop's format.
    let entry = json!({ "weather": {
        "command": common::weather_server(),
        "args": ["--clock", common::CLOCK]
    } });
    let first_line = |run: &common::Run| run.stdout.lines().next().unwrap_or_default().to_owned();

    // Claude Desktop's config is the last place looked.
    let claude = home.join(".config/Claude/claude_desktop_config.json");
    std::fs::create_dir_all(claude.parent().expect("parent")).expect("mkdir");
    std::fs::write(&claude, json!({ "mcpServers": entry }).to_string()).expect("write");
    let r = run(mcp_in(&home, &["servers"]), 60);
    assert_eq!(
        first_line(&r),
        format!("config: {} (Claude Desktop)", claude.display())
    );

    // Cline's settings under $CLINE_DIR/data, then $CLINE_DATA_DIR, then $CLINE_MCP_SETTINGS_PATH.
    let cline_dir = home.join("cline-home");
    let cline = cline_dir.join("data/settings/cline_mcp_settings.json");
    std::fs::create_dir_all(cline.parent().expect("parent")).expect("mkdir");
    let mut cline_entry = weather_entry();
    cline_entry["disabled"] = json!(false);
    std::fs::write(
        &cline,
        json!({ "mcpServers": { "weather": cline_entry } }).to_string(),
    )
    .expect("write");
    let mut cmd = mcp_in(&home, &["servers"]);
    cmd.env("CLINE_DIR", &cline_dir);
    assert_eq!(
        first_line(&run(cmd, 60)),
        format!("config: {} (Cline)", cline.display())
    );
    let mut cmd = mcp_in(&home, &["servers"]);
    cmd.env("CLINE_DATA_DIR", cline_dir.join("data"));
    assert_eq!(
        first_line(&run(cmd, 60)),
        format!("config: {} (Cline)", cline.display())
    );
    let mut cmd = mcp_in(&home, &["servers"]);
    cmd.env("CLINE_MCP_SETTINGS_PATH", &cline);
    assert_eq!(
        first_line(&run(cmd, 60)),
        format!("config: {} (Cline)", cline.display())
    );

    // ~/.config/mcp/mcp.json beats Cline and Claude; ./mcp.json beats that.
    let user = home.join(".config/mcp/mcp.json");
    std::fs::create_dir_all(user.parent().expect("parent")).expect("mkdir");
    std::fs::write(&user, json!({ "mcpServers": entry }).to_string()).expect("write");
    let r = run(mcp_in(&home, &["servers"]), 60);
    assert_eq!(
        first_line(&r),
        format!("config: {} (Claude Desktop)", user.display())
    );
    std::fs::write(home.join("mcp.json"), json!({ "servers": { "weather": { "type": "stdio", "command": common::weather_server() } } }).to_string()).expect("write");
    let r = run(mcp_in(&home, &["servers"]), 60);
    assert_eq!(first_line(&r), "config: mcp.json (VS Code)");

    // $MCP_CONFIG beats all of them, and --config beats $MCP_CONFIG.
    let mut cmd = mcp_in(&home, &["servers"]);
    cmd.env("MCP_CONFIG", &claude);
    assert_eq!(
        first_line(&run(cmd, 60)),
        format!(
            "config: {} (Claude Desktop, from $MCP_CONFIG)",
            claude.display()
        )
    );
    let mut cmd = mcp_in(&home, &["--config", &cline.to_string_lossy(), "servers"]);
    cmd.env("MCP_CONFIG", &claude);
    assert_eq!(
        first_line(&run(cmd, 60)),
        format!("config: {} (Cline, from --config)", cline.display())
    );
}
