//! The checks every transport runs: each tool, resource, template, prompt and completion of the
//! weather server with the embedded provider on the frozen clock, and their error paths.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_client::{CallOptions, Client, ClientError, PeerError, ServerEvent};
use mcp_proto::schema::{CompleteParams, CompletionReference, LoggingLevel};
use serde_json::{json, Value};

use super::{assert_valid, bounded, first_text, json_of, SHENZHEN_PREFIX};

/// Calls a tool and returns the result as JSON.
pub async fn call(client: &Client, tool: &str, args: Value) -> Value {
    let result = bounded(20, tool, client.call_tool(tool, args))
        .await
        .unwrap_or_else(|e| panic!("{tool} failed: {e}"));
    json_of(&result)
}

/// The tools by name, as JSON.
pub async fn tools(client: &Client) -> Vec<Value> {
    let tools = bounded(20, "tools/list", client.list_tools())
        .await
        .expect("tools/list");
    tools.iter().map(json_of).collect()
}

/// The declared output schema of `tool`.
pub async fn output_schema(client: &Client, tool: &str) -> Value {
    tools(client)
        .await
        .into_iter()
        .find(|t| t["name"] == tool)
        .unwrap_or_else(|| panic!("no tool {tool}"))["outputSchema"]
        .clone()
}

/// Checks a successful result: not an error, and `structuredContent` matches the schema.
pub fn assert_structured(result: &Value, schema: &Value) -> Value {
    assert_ne!(result["isError"], json!(true), "{result}");
    let structured = result["structuredContent"].clone();
    assert!(structured.is_object(), "no structuredContent in {result}");
    assert_valid(schema, &structured);
    structured
}

/// The handshake: who we talk to, what it offers, and how to use it.
pub fn check_handshake(client: &Client) {
    let info = json_of(&client.server_info());
    assert_eq!(info["name"], "weather-server", "{info}");
    let caps = json_of(&client.server_capabilities());
    for key in ["tools", "resources", "prompts", "completions", "logging"] {
        assert!(caps.get(key).is_some(), "capability {key} missing: {caps}");
    }
    assert_eq!(caps["resources"]["subscribe"], json!(true), "{caps}");
    let instructions = client.instructions().expect("instructions");
    assert!(instructions.contains("get_weather"), "{instructions}");
}

/// `tools/list`: five tools with schemas and read-only, idempotent, closed-world hints.
pub async fn check_tool_list(client: &Client, networked: bool) {
    let tools = tools(client).await;
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "get_weather",
            "get_forecast",
            "watch_weather",
            "climate_report",
            "list_cities"
        ]
    );
    for tool in &tools {
        let a = &tool["annotations"];
        assert_eq!(a["readOnlyHint"], json!(true), "{tool}");
        assert_eq!(a["idempotentHint"], json!(true), "{tool}");
        assert_eq!(a["destructiveHint"], json!(false), "{tool}");
        // list_cities never leaves the process; the weather tools do with the network provider.
        let open = networked && tool["name"] != "list_cities";
        assert_eq!(a["openWorldHint"], json!(open), "{tool}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
        // The schemas themselves must compile.
        jsonschema::validator_for(&tool["inputSchema"]).expect("input schema compiles");
        jsonschema::validator_for(&tool["outputSchema"]).expect("output schema compiles");
    }
}

/// `get_weather`: the fixed answer for Shenzhen, aliases, and the unknown-city error.
pub async fn check_get_weather(client: &Client) {
    let schema = output_schema(client, "get_weather").await;
    let result = call(client, "get_weather", json!({"city": "Shenzhen"})).await;
    let text = first_text(&result);
    assert!(text.starts_with(SHENZHEN_PREFIX), "{text}");
    let s = assert_structured(&result, &schema);
    assert_eq!(s["city"], "Shenzhen");
    assert_eq!(s["country"], "China");
    assert_eq!(s["condition"], "thunderstorms");
    assert_eq!(s["temperature_c"], json!(34.3));
    assert_eq!(s["observed_at"], "2026-08-02T07:00:00Z");

    // Other spellings name the same city and give the same data.
    for alias in ["深圳", "SHENZHEN", " shenzhen "] {
        let other = call(client, "get_weather", json!({ "city": alias })).await;
        assert_eq!(other["structuredContent"], s, "{alias}");
    }
    let beijing = call(client, "get_weather", json!({"city": "北京"})).await;
    assert_eq!(
        assert_structured(&beijing, &schema)["city"],
        "Beijing",
        "{beijing}"
    );

    // An unknown city is a tool error naming the closest known cities.
    let unknown = call(client, "get_weather", json!({"city": "Shenzen"})).await;
    assert_eq!(unknown["isError"], json!(true), "{unknown}");
    let text = first_text(&unknown);
    assert!(
        text.contains("Shenzen") && text.contains("Shenzhen"),
        "{text}"
    );
    assert!(text.contains("list_cities"), "{text}");
    assert!(unknown.get("structuredContent").is_none(), "{unknown}");
}

/// `get_forecast`: one progress notification per day, a schema-valid forecast, the range check.
pub async fn check_get_forecast(client: &Client) {
    let schema = output_schema(client, "get_forecast").await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let options = CallOptions::timeout(Duration::from_secs(20)).on_progress(move |p| {
        sink.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((p.progress, p.total, p.message))
    });
    let result = bounded(
        20,
        "get_forecast",
        client.call_tool_with(
            "get_forecast",
            json!({"city": "Shenzhen", "days": 7}),
            options,
        ),
    )
    .await
    .expect("get_forecast");
    let result = json_of(&result);
    let s = assert_structured(&result, &schema);
    assert_eq!(s["city"], "Shenzhen");
    let days = s["days"].as_array().expect("days");
    assert_eq!(days.len(), 7, "{s}");
    let dates: Vec<&str> = days.iter().filter_map(|d| d["date"].as_str()).collect();
    assert_eq!(
        dates,
        [
            "2026-08-02",
            "2026-08-03",
            "2026-08-04",
            "2026-08-05",
            "2026-08-06",
            "2026-08-07",
            "2026-08-08"
        ]
    );
    for d in days {
        assert!(
            d["min_c"].as_f64() <= d["max_c"].as_f64(),
            "low above high: {d}"
        );
    }
    let text = first_text(&result);
    assert!(text.starts_with("Shenzhen forecast:"), "{text}");
    assert_eq!(text.lines().count(), 8, "{text}");

    // Progress arrives before the result, so it is all here now.
    let seen = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let steps: Vec<f64> = seen.iter().map(|(p, _, _)| *p).collect();
    assert_eq!(steps, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], "{seen:?}");
    assert!(
        seen.iter().all(|(_, total, _)| *total == Some(7.0)),
        "{seen:?}"
    );
    let first_message = seen[0].2.clone().unwrap_or_default();
    assert!(first_message.starts_with("2026-08-02"), "{first_message}");

    // Without a progress token: the same answer, three days by default.
    let plain = call(client, "get_forecast", json!({"city": "Shenzhen"})).await;
    let plain = assert_structured(&plain, &schema);
    assert_eq!(plain["days"].as_array().map(Vec::len), Some(3));
    assert_eq!(plain["days"][0], days[0]);

    for bad in [0, 8, -1, 1000] {
        let out = call(
            client,
            "get_forecast",
            json!({"city": "Shenzhen", "days": bad}),
        )
        .await;
        assert_eq!(out["isError"], json!(true), "days {bad}: {out}");
        assert!(
            first_text(&out).contains("between 1 and 7"),
            "days {bad}: {out}"
        );
    }
    let unknown = call(client, "get_forecast", json!({"city": "Atlantis"})).await;
    assert_eq!(unknown["isError"], json!(true), "{unknown}");
    assert!(
        first_text(&unknown).contains("Closest known cities"),
        "{unknown}"
    );
}

/// `watch_weather`: one progress notification per sample (milliseconds into the watch, of the
/// duration), a schema-valid summary, aliases, and the range checks.
pub async fn check_watch_weather(client: &Client) {
    let schema = output_schema(client, "watch_weather").await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let options = CallOptions::timeout(Duration::from_secs(20)).on_progress(move |p| {
        sink.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((p.progress, p.total, p.message))
    });
    let args = json!({"city": "深圳", "durationMs": 300, "intervalMs": 100});
    let result = bounded(
        20,
        "watch_weather",
        client.call_tool_with("watch_weather", args, options),
    )
    .await
    .expect("watch_weather");
    let result = json_of(&result);
    let s = assert_structured(&result, &schema);
    assert_eq!(s["city"], "Shenzhen", "{s}");
    assert_eq!(s["samples"], json!(4), "{s}");
    assert_eq!(s["missed"], json!(0), "{s}");
    // The clock is frozen: nothing changes while we watch.
    assert_eq!(
        (&s["min_c"], &s["max_c"]),
        (&json!(34.3), &json!(34.3)),
        "{s}"
    );
    assert_eq!(s["conditions"], json!(["thunderstorms"]), "{s}");
    assert_eq!(s["first_observed_at"], "2026-08-02T07:00:00Z", "{s}");
    let text = first_text(&result);
    assert_eq!(
        text, "Shenzhen, 4 samples over 300 ms: thunderstorms throughout, steady at 34.3 °C.",
        "{result}"
    );

    // Progress arrives before the result, so it is all here now.
    let seen = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let steps: Vec<f64> = seen.iter().map(|(p, _, _)| *p).collect();
    assert_eq!(steps, [0.0, 100.0, 200.0, 300.0], "{seen:?}");
    assert!(
        seen.iter().all(|(_, total, _)| *total == Some(300.0)),
        "{seen:?}"
    );
    for (_, _, message) in &seen {
        let message = message.clone().unwrap_or_default();
        assert_eq!(message, SHENZHEN_PREFIX, "{seen:?}");
    }

    // Without a progress token: the same summary; a zero duration takes one sample.
    let plain = call(
        client,
        "watch_weather",
        json!({"city": "Shenzhen", "durationMs": 0}),
    )
    .await;
    let plain = assert_structured(&plain, &schema);
    assert_eq!(plain["samples"], json!(1), "{plain}");
    assert_eq!(plain["interval_ms"], json!(1000), "{plain}");

    for bad in [json!(-1), json!(600_001), json!(1e12), json!(-0.5)] {
        let out = call(
            client,
            "watch_weather",
            json!({"city": "Shenzhen", "durationMs": bad}),
        )
        .await;
        assert_eq!(out["isError"], json!(true), "durationMs {bad}: {out}");
        assert!(
            first_text(&out).contains("durationMs must be between 0 and 600000"),
            "durationMs {bad}: {out}"
        );
    }
    let out = call(
        client,
        "watch_weather",
        json!({"city": "Shenzhen", "intervalMs": 5}),
    )
    .await;
    assert_eq!(out["isError"], json!(true), "{out}");
    assert!(first_text(&out).contains("intervalMs"), "{out}");
    let unknown = call(client, "watch_weather", json!({"city": "Atlantis"})).await;
    assert_eq!(unknown["isError"], json!(true), "{unknown}");
    assert!(
        first_text(&unknown).contains("Closest known cities"),
        "{unknown}"
    );
}

/// Cancelling a watch ends the call at once, long before its duration, and the session goes
/// on. (That the server sends nothing more is checked on the wire in `stdio.rs`.)
pub async fn check_watch_cancel(client: &Client) {
    let token = mcp_client::CancellationToken::new();
    let cancel = token.clone();
    let options = CallOptions::timeout(Duration::from_secs(20))
        .on_progress(move |_| cancel.cancel())
        .cancel_with(token);
    let started = std::time::Instant::now();
    let out = bounded(
        20,
        "cancelled watch",
        client.call_tool_with(
            "watch_weather",
            json!({"city": "Lima", "durationMs": 60_000, "intervalMs": 50}),
            options,
        ),
    )
    .await;
    assert!(
        matches!(
            out.as_ref().err().and_then(ClientError::peer_error),
            Some(PeerError::Cancelled { .. })
        ),
        "{out:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let after = call(
        client,
        "watch_weather",
        json!({"city": "Lima", "durationMs": 0}),
    )
    .await;
    assert_ne!(after["isError"], json!(true), "{after}");
}

/// `list_cities`: everything, a filter by country and by alias, and an empty match.
pub async fn check_list_cities(client: &Client) -> usize {
    let schema = output_schema(client, "list_cities").await;
    let all = call(client, "list_cities", json!({})).await;
    let all = assert_structured(&all, &schema);
    let count = all["cities"].as_array().map(Vec::len).unwrap_or(0);
    assert!(count >= 100, "{count} cities");

    let china = call(client, "list_cities", json!({"query": "china"})).await;
    let text = first_text(&china);
    let china = assert_structured(&china, &schema);
    let names: Vec<&str> = china["cities"]
        .as_array()
        .expect("cities")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    for city in ["Beijing", "Shanghai", "Shenzhen"] {
        assert!(names.contains(&city), "{city} missing from {names:?}");
    }
    assert!(text.contains("Shenzhen (China)"), "{text}");

    let by_alias = call(client, "list_cities", json!({"query": "深圳"})).await;
    assert_eq!(
        by_alias["structuredContent"]["cities"][0]["name"], "Shenzhen",
        "{by_alias}"
    );

    let none = call(client, "list_cities", json!({"query": "zzzzzz"})).await;
    assert_ne!(none["isError"], json!(true), "{none}");
    assert_eq!(none["structuredContent"]["cities"], json!([]), "{none}");
    count
}

/// Calls that the server must refuse: an unknown tool, arguments of the wrong shape.
pub async fn check_tool_errors(client: &Client) {
    // Unknown tool: a protocol error or a tool error, never a success.
    match bounded(20, "nope", client.call_tool("nope", json!({}))).await {
        Err(ClientError::Peer {
            error: PeerError::Rpc { error, .. },
            ..
        }) => assert_eq!(error.code, -32602, "{error:?}"),
        Err(other) => panic!("unexpected error {other}"),
        Ok(r) => assert_eq!(r.is_error, Some(true), "{r:?}"),
    }
    for bad in [json!({}), json!({"city": 42}), json!({"town": "Paris"})] {
        match bounded(20, "bad args", client.call_tool("get_weather", bad.clone())).await {
            Err(ClientError::Peer {
                error: PeerError::Rpc { error, .. },
                ..
            }) => {
                assert_eq!(error.code, -32602, "{bad}: {error:?}")
            }
            Err(other) => panic!("{bad}: unexpected error {other}"),
            Ok(r) => assert_eq!(r.is_error, Some(true), "{bad}: {r:?}"),
        }
    }
    // A name far longer than any city's is refused by its length, before the spelling search
    // (whose cost grows with the name: about 1.4 s of CPU for 1 MiB before the bound).
    let huge = "q".repeat(1 << 20);
    for (tool, args) in [
        ("get_weather", json!({"city": huge})),
        ("get_forecast", json!({"city": huge})),
        ("list_cities", json!({"query": huge})),
    ] {
        let r = call(client, tool, args).await;
        assert_eq!(r["isError"], json!(true), "{tool}");
        let text = first_text(&r);
        assert!(text.contains("1048576 bytes long"), "{tool}: {text}");
    }
}

/// Resources: the city list and one city's current conditions, and a city that does not exist.
pub async fn check_resources(client: &Client, city_count: usize) {
    let resources = bounded(20, "resources/list", client.list_resources())
        .await
        .expect("resources/list");
    let resources: Vec<Value> = resources.iter().map(json_of).collect();
    assert_eq!(resources.len(), 2, "{resources:?}");
    assert_eq!(resources[0]["uri"], "ui://weather/app.html");
    assert_eq!(resources[0]["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(resources[1]["uri"], "weather://cities");
    assert_eq!(resources[1]["mimeType"], "application/json");

    let templates = bounded(20, "templates", client.list_resource_templates())
        .await
        .expect("resources/templates/list");
    let templates: Vec<Value> = templates.iter().map(json_of).collect();
    assert_eq!(templates.len(), 1, "{templates:?}");
    assert_eq!(templates[0]["uriTemplate"], "weather://current/{city}");

    let cities = read(client, "weather://cities").await;
    assert_eq!(cities["mimeType"], "application/json");
    let list: Value = serde_json::from_str(cities["text"].as_str().expect("text")).expect("json");
    let list = list.as_array().expect("an array");
    assert_eq!(list.len(), city_count);
    let shenzhen = list
        .iter()
        .find(|c| c["name"] == "Shenzhen")
        .expect("Shenzhen listed");
    assert_eq!(shenzhen["time_zone"], "Asia/Shanghai", "{shenzhen}");
    assert!(
        shenzhen["aliases"]
            .as_array()
            .is_some_and(|a| a.contains(&json!("深圳"))),
        "{shenzhen}"
    );

    // The template reads the same data get_weather returns.
    let weather = call(client, "get_weather", json!({"city": "Shenzhen"})).await;
    let current = read(client, "weather://current/shenzhen").await;
    assert_eq!(current["uri"], "weather://current/shenzhen");
    assert_eq!(current["mimeType"], "application/json");
    let data: Value = serde_json::from_str(current["text"].as_str().expect("text")).expect("json");
    assert_eq!(data, weather["structuredContent"]);
    let schema = output_schema(client, "get_weather").await;
    assert_valid(&schema, &data);
    // Multi-word names use dashes.
    let new_york = read(client, "weather://current/new-york").await;
    assert!(
        new_york["text"]
            .as_str()
            .is_some_and(|t| t.contains("\"New York\"")),
        "{new_york}"
    );

    for missing in ["weather://current/atlantis", "weather://nothing"] {
        let error = bounded(20, "read missing", client.read_resource(missing))
            .await
            .expect_err("a missing resource is an error");
        let rpc = error.rpc_error().unwrap_or_else(|| panic!("{error}"));
        assert!(
            rpc.code == -32002 || rpc.code == -32602,
            "{missing}: {rpc:?}"
        );
        assert!(rpc.message.contains(missing), "{missing}: {rpc:?}");
    }
}

/// Reads `uri` and returns its one content block as JSON.
pub async fn read(client: &Client, uri: &str) -> Value {
    let result = bounded(20, uri, client.read_resource(uri))
        .await
        .unwrap_or_else(|e| panic!("{uri}: {e}"));
    let result = json_of(&result);
    let contents = result["contents"].as_array().expect("contents");
    assert_eq!(contents.len(), 1, "{result}");
    contents[0].clone()
}

/// The `weather_report` prompt: its arguments, a filled prompt, and its errors.
pub async fn check_prompt(client: &Client) {
    let prompts = bounded(20, "prompts/list", client.list_prompts())
        .await
        .expect("prompts/list");
    let prompts: Vec<Value> = prompts.iter().map(json_of).collect();
    assert_eq!(prompts.len(), 1, "{prompts:?}");
    assert_eq!(prompts[0]["name"], "weather_report");
    let arguments = prompts[0]["arguments"].as_array().expect("arguments");
    assert_eq!(arguments[0]["name"], "city");
    assert_eq!(arguments[0]["required"], json!(true));
    assert_eq!(arguments[1]["name"], "style");
    assert_ne!(arguments[1]["required"], json!(true));

    let prompt = bounded(
        20,
        "prompts/get",
        client.get_prompt("weather_report", [("city", "深圳"), ("style", "friendly")]),
    )
    .await
    .expect("prompts/get");
    let prompt = json_of(&prompt);
    assert_eq!(prompt["description"], "Weather report for Shenzhen");
    let messages = prompt["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 1, "{prompt}");
    assert_eq!(messages[0]["role"], "user");
    let text = messages[0]["content"]["text"].as_str().expect("text");
    assert!(
        text.contains("friendly") && text.contains("Shenzhen (China)"),
        "{text}"
    );
    assert!(text.contains("thunderstorms"), "{text}");

    let brief = bounded(
        20,
        "prompts/get",
        client.get_prompt("weather_report", [("city", "Paris")]),
    )
    .await
    .expect("prompts/get without style");
    let brief = json_of(&brief);
    assert!(
        brief["messages"][0]["content"]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Write a brief weather report for Paris")),
        "{brief}"
    );

    let unknown = bounded(
        20,
        "prompts/get",
        client.get_prompt("weather_report", [("city", "Pariss")]),
    )
    .await
    .expect_err("an unknown city fails the prompt");
    let rpc = unknown.rpc_error().unwrap_or_else(|| panic!("{unknown}"));
    assert_eq!(rpc.code, -32602, "{rpc:?}");
    assert!(rpc.message.contains("Paris"), "{rpc:?}");

    let missing = bounded(
        20,
        "prompts/get",
        client.get_prompt("weather_report", Vec::<(String, String)>::new()),
    )
    .await
    .expect_err("the city is required");
    assert_eq!(
        missing.rpc_error().map(|e| e.code),
        Some(-32602),
        "{missing}"
    );

    let nope = bounded(
        20,
        "prompts/get",
        client.get_prompt("nope", [("city", "Paris")]),
    )
    .await
    .expect_err("an unknown prompt fails");
    assert_eq!(nope.rpc_error().map(|e| e.code), Some(-32602), "{nope}");
}

/// Completion values for one argument.
pub async fn complete(
    client: &Client,
    reference: CompletionReference,
    arg: &str,
    value: &str,
) -> Vec<String> {
    let result = bounded(
        20,
        "completion/complete",
        client.complete(CompleteParams::new(reference, arg, value)),
    )
    .await
    .unwrap_or_else(|e| panic!("complete {arg}={value}: {e}"));
    result.completion.values
}

/// Completions of the prompt's `city` and `style` and of the template's `{city}`.
pub async fn check_completions(client: &Client) {
    let prompt = || CompletionReference::prompt("weather_report");
    let template = || CompletionReference::resource("weather://current/{city}");

    let shen = complete(client, prompt(), "city", "shen").await;
    assert_eq!(shen, ["Shenzhen"]);
    let chinese = complete(client, prompt(), "city", "深").await;
    assert_eq!(chinese, ["深圳"]);
    let sao = complete(client, prompt(), "city", "sao").await;
    assert_eq!(sao, ["São Paulo"]);
    let none = complete(client, prompt(), "city", "qqq").await;
    assert!(none.is_empty(), "{none:?}");
    let all = complete(client, prompt(), "city", "").await;
    assert!(!all.is_empty() && all.len() <= 100, "{}", all.len());

    let styles = complete(client, prompt(), "style", "f").await;
    assert_eq!(styles, ["friendly", "for pilots", "for sailors"]);

    // The template offers canonical ASCII slugs, even for accents and aliases.
    assert_eq!(
        complete(client, template(), "city", "São").await,
        ["sao-paulo"]
    );
    assert_eq!(
        complete(client, template(), "city", "深").await,
        ["shenzhen"]
    );
    // Hong Kong's alias Xianggang matches too, and is offered as hong-kong.
    assert_eq!(
        complete(client, template(), "city", "xi").await,
        ["hong-kong", "xian"]
    );
    for slug in complete(client, template(), "city", "").await {
        assert!(
            slug.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{slug}"
        );
    }
    let new = complete(client, template(), "city", "new").await;
    assert!(new.contains(&"new-york".to_owned()), "{new:?}");
    assert!(new.iter().all(|c| !c.contains(' ')), "{new:?}");
    // What the template completion offers, the template reads.
    let first = format!("weather://current/{}", new[0]);
    read(client, &first).await;

    let bad = bounded(
        20,
        "complete unknown prompt",
        client.complete(CompleteParams::new(
            CompletionReference::prompt("nope"),
            "city",
            "a",
        )),
    )
    .await;
    match bad {
        Err(e) => assert_eq!(e.rpc_error().map(|e| e.code), Some(-32602), "{e}"),
        Ok(r) => assert!(r.completion.values.is_empty(), "{r:?}"),
    }
}

/// Logging: one info entry per call.
pub async fn check_logging(client: &Client) {
    bounded(
        20,
        "logging/setLevel",
        client.set_logging_level(LoggingLevel::Info),
    )
    .await
    .expect("logging/setLevel info");
    let mut events = client.notifications();
    call(client, "get_weather", json!({"city": "Tokyo"})).await;
    let log = next_log(&mut events).await;
    assert_eq!(log.0, LoggingLevel::Info);
    assert_eq!(log.1, json!({"tool": "get_weather", "city": "Tokyo"}));
    call(client, "get_forecast", json!({"city": "Tokyo", "days": 2})).await;
    let log = next_log(&mut events).await;
    assert_eq!(log.0, LoggingLevel::Info);
    assert_eq!(
        log.1,
        json!({"tool": "get_forecast", "city": "Tokyo", "days": 2})
    );
    call(client, "list_cities", json!({"query": "japan"})).await;
    let log = next_log(&mut events).await;
    assert_eq!(log.0, LoggingLevel::Info);
    assert_eq!(log.1["tool"], "list_cities");
}

/// The level the client sets holds for later calls (a session, so not in stateless mode).
pub async fn check_log_level(client: &Client) {
    // At warning, info entries stop and the unknown-city warning still comes.
    bounded(
        20,
        "logging/setLevel",
        client.set_logging_level(LoggingLevel::Warning),
    )
    .await
    .expect("logging/setLevel warning");
    let mut events = client.notifications();
    call(client, "get_weather", json!({"city": "Tokyo"})).await;
    call(client, "get_weather", json!({"city": "Tokio"})).await;
    let log = next_log(&mut events).await;
    assert_eq!(log.0, LoggingLevel::Warning, "{log:?}");
    assert_eq!(log.1["unknown_city"], "Tokio", "{log:?}");
    call(client, "get_forecast", json!({"city": "Tokio"})).await;
    let log = next_log(&mut events).await;
    assert_eq!(log.0, LoggingLevel::Warning, "{log:?}");
    assert_eq!(log.1["tool"], "get_forecast", "{log:?}");
    bounded(
        20,
        "logging/setLevel",
        client.set_logging_level(LoggingLevel::Info),
    )
    .await
    .expect("logging/setLevel info again");
}

/// The next log entry (level, data), within 10 s.
pub async fn next_log(
    events: &mut tokio::sync::broadcast::Receiver<ServerEvent>,
) -> (LoggingLevel, Value) {
    bounded(10, "a log notification", async {
        loop {
            match events.recv().await {
                Ok(ServerEvent::Log(params)) => return (params.level, params.data),
                Ok(_) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(e) => panic!("notifications ended: {e}"),
            }
        }
    })
    .await
}

/// The next `notifications/resources/updated` URI, within `secs`.
pub async fn next_update(
    events: &mut tokio::sync::broadcast::Receiver<ServerEvent>,
    secs: u64,
) -> String {
    bounded(secs, "a resources/updated notification", async {
        loop {
            match events.recv().await {
                Ok(ServerEvent::ResourceUpdated(params)) => return params.uri,
                Ok(_) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(e) => panic!("notifications ended: {e}"),
            }
        }
    })
    .await
}

/// Subscribing to a city brings `notifications/resources/updated` for that city only, and the
/// data read afterwards has moved on. Needs a server started with `--update-interval`.
pub async fn check_subscription(client: &Client) {
    let before = read(client, "weather://current/shenzhen").await;
    let mut events = client.notifications();
    bounded(
        20,
        "subscribe",
        client.subscribe("weather://current/shenzhen"),
    )
    .await
    .expect("resources/subscribe");
    let uri = next_update(&mut events, 10).await;
    assert_eq!(uri, "weather://current/shenzhen");
    // Only the subscribed city: the next updates are Shenzhen's again.
    let uri = next_update(&mut events, 10).await;
    assert_eq!(uri, "weather://current/shenzhen");
    let after = read(client, "weather://current/shenzhen").await;
    let (before, after): (Value, Value) = (
        serde_json::from_str(before["text"].as_str().unwrap_or("null")).expect("json"),
        serde_json::from_str(after["text"].as_str().unwrap_or("null")).expect("json"),
    );
    assert_ne!(before["observed_at"], after["observed_at"], "{after}");
    bounded(
        20,
        "unsubscribe",
        client.unsubscribe("weather://current/shenzhen"),
    )
    .await
    .expect("resources/unsubscribe");
}

/// Everything but subscriptions, in order.
pub async fn check_everything(client: &Client) {
    check_stateless(client).await;
    check_logging(client).await;
    check_log_level(client).await;
    check_watch_cancel(client).await;
}

/// Everything that needs no session state between requests.
pub async fn check_stateless(client: &Client) {
    check_handshake(client);
    check_tool_list(client, false).await;
    check_get_weather(client).await;
    check_get_forecast(client).await;
    check_watch_weather(client).await;
    let count = check_list_cities(client).await;
    check_tool_errors(client).await;
    check_resources(client, count).await;
    check_prompt(client).await;
    check_completions(client).await;
    check_default_log_level(client).await;
}

/// Without `logging/setLevel` (and in stateless mode, where no level is remembered), warnings
/// still reach the client.
pub async fn check_default_log_level(client: &Client) {
    let mut events = client.notifications();
    call(client, "get_weather", json!({"city": "Atlantis"})).await;
    let log = next_log(&mut events).await;
    assert_eq!(log.0, LoggingLevel::Warning, "{log:?}");
    assert_eq!(log.1["unknown_city"], "Atlantis", "{log:?}");
}
