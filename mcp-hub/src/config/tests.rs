//! Config vectors: every format, every rule.

use super::*;

fn vars() -> Variables {
    let mut v = Variables {
        no_process_env: true,
        ..Default::default()
    };
    v.env.insert("TOKEN".into(), "s3cret".into());
    v.env.insert("HOME".into(), "/home/me".into());
    v.inputs.insert("api-key".into(), "k-123".into());
    v
}

fn parse(text: &str) -> HubConfig {
    HubConfig::parse(text, "test.json", &vars()).unwrap_or_else(|e| panic!("{e}"))
}

fn parse_err(text: &str) -> String {
    HubConfig::parse(text, "test.json", &vars())
        .unwrap_err()
        .to_string()
}

#[test]
fn cline_flat_entries_and_rules() {
    let c = parse(
        r#"{"mcpServers": {
        "weather": {"command": "weather-server", "args": ["--log-level", "info"], "env": {"KEY": "${TOKEN}"},
                    "cwd": "${env:HOME}/w", "autoApprove": ["get_weather"], "timeout": 30},
        "remote": {"url": "https://example.com/sse", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        "modern": {"type": "streamableHttp", "url": "https://example.com/mcp", "disabled": true, "timeout": 99999},
        "legacy": {"transportType": "http", "url": "https://example.com/mcp", "timeout": 0},
        "legacy-sse": {"transportType": "sse", "url": "https://example.com/sse", "timeout": "abc"}
    }, "otherSetting": 1}"#,
    );
    assert_eq!(c.format, ConfigFormat::Cline);
    assert_eq!(c.servers.len(), 5);
    let w = &c.servers[0];
    assert_eq!(
        w.transport,
        TransportConfig::Stdio {
            command: "weather-server".into(),
            args: vec!["--log-level".into(), "info".into()],
            env: [("KEY".to_string(), "s3cret".to_string())].into(),
            cwd: Some(PathBuf::from("/home/me/w")),
        }
    );
    assert_eq!(w.auto_approve, vec!["get_weather"]);
    assert_eq!(w.timeout, Duration::from_secs(30));
    // `url` without `type` is SSE (Cline's rule).
    assert!(
        matches!(&c.servers[1].transport, TransportConfig::Sse { headers, .. } if headers["Authorization"] == "Bearer s3cret")
    );
    assert!(matches!(
        c.servers[2].transport,
        TransportConfig::StreamableHttp { .. }
    ));
    assert!(c.servers[2].disabled);
    assert_eq!(
        c.servers[2].timeout,
        Duration::from_secs(3600),
        "clamped to 3600"
    );
    assert!(
        matches!(
            c.servers[3].transport,
            TransportConfig::StreamableHttp { .. }
        ),
        "transportType http"
    );
    assert_eq!(c.servers[3].timeout, Duration::from_secs(1), "clamped to 1");
    assert!(matches!(
        c.servers[4].transport,
        TransportConfig::Sse { .. }
    ));
    assert_eq!(c.servers[4].timeout, DEFAULT_TIMEOUT, "not a number: 60");
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn cline_nested_transport_form() {
    let c = parse(
        r#"{"mcpServers": {"fs": {"transport": {"type": "stdio", "command": "npx", "args": ["-y", "server-filesystem", "/tmp"]},
        "autoApprove": ["read_file"], "disabled": false},
        "web": {"transport": {"type": "sse", "url": "http://127.0.0.1:9/sse", "headers": {"X-K": "v"}}}}}"#,
    );
    assert_eq!(c.format, ConfigFormat::Cline);
    assert!(
        matches!(&c.servers[0].transport, TransportConfig::Stdio { command, args, .. } if command == "npx" && args.len() == 3)
    );
    assert_eq!(c.servers[0].auto_approve, vec!["read_file"]);
    assert!(
        matches!(&c.servers[1].transport, TransportConfig::Sse { url, .. } if url == "http://127.0.0.1:9/sse")
    );
}

#[test]
fn claude_desktop() {
    let c = parse(
        r#"{"mcpServers": {"files": {"command": "npx", "args": ["-y", "x"], "env": {"A": "1"}}}, "globalShortcut": ""}"#,
    );
    assert_eq!(c.format, ConfigFormat::ClaudeDesktop);
    assert_eq!(c.servers[0].timeout, DEFAULT_TIMEOUT);
    assert!(!c.servers[0].disabled);
}

#[test]
fn vs_code_with_inputs() {
    let c = parse(
        r#"{"inputs": [{"type": "promptString", "id": "api-key", "password": true}],
        "servers": {
            "local": {"type": "stdio", "command": "weather-server", "env": {"KEY": "${input:api-key}"}},
            "http": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${input:other}"}},
            "old": {"type": "sse", "url": "https://example.com/sse"}
        }}"#,
    );
    assert_eq!(c.format, ConfigFormat::VsCode);
    assert!(
        matches!(&c.servers[0].transport, TransportConfig::Stdio { env, .. } if env["KEY"] == "k-123")
    );
    assert!(
        matches!(&c.servers[1].transport, TransportConfig::StreamableHttp { headers, .. } if headers["Authorization"] == "Bearer ${input:other}")
    );
    assert!(matches!(
        c.servers[2].transport,
        TransportConfig::Sse { .. }
    ));
    assert_eq!(c.missing_inputs, vec!["other"]);
    assert!(c.warnings.iter().any(|w| w.contains("other")));
}

#[test]
fn langchain_style_maps() {
    let c = parse(
        r#"{"math": {"transport": "stdio", "command": "python", "args": ["math.py"]},
            "a": {"transport": "streamable_http", "url": "http://localhost:8000/mcp"},
            "b": {"transport": "streamable-http", "url": "http://localhost:8001/mcp"},
            "c": {"transport": "http", "url": "http://localhost:8002/mcp"},
            "d": {"transport": "sse", "url": "http://localhost:8003/sse"}}"#,
    );
    assert_eq!(c.format, ConfigFormat::LangChain);
    let kinds: Vec<_> = c.servers.iter().map(|s| s.transport.kind()).collect();
    assert_eq!(
        kinds,
        [
            "stdio",
            "streamableHttp",
            "streamableHttp",
            "streamableHttp",
            "sse"
        ]
    );
    let c = parse(r#"{"mcpServers": {"m": {"transport": "stdio", "command": "x"}}}"#);
    assert_eq!(c.format, ConfigFormat::LangChain);
}

#[test]
fn missing_variables_stay_as_written_with_a_warning() {
    let c = parse(
        r#"{"mcpServers": {"s": {"command": "x", "args": ["${NOPE}", "${env:ALSO_NOPE}", "${TOKEN}", "${unterminated"]}}}"#,
    );
    let TransportConfig::Stdio { args, .. } = &c.servers[0].transport else {
        panic!()
    };
    assert_eq!(
        args,
        &["${NOPE}", "${env:ALSO_NOPE}", "s3cret", "${unterminated"]
    );
    assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
    assert!(c.warnings[0].contains("server \"s\"") && c.warnings[0].contains("${NOPE}"));
}

#[test]
fn errors_name_file_server_and_field() {
    let e = parse_err(r#"{"mcpServers": {"bad": {"command": 5}}}"#);
    assert_eq!(
        e,
        "test.json: server \"bad\": field \"command\": must be a string, found a number"
    );
    let e = parse_err(r#"{"mcpServers": {"bad": {"type": "carrier-pigeon", "url": "x"}}}"#);
    assert!(
        e.contains("\"bad\"") && e.contains("\"type\"") && e.contains("carrier-pigeon"),
        "{e}"
    );
    let e = parse_err(r#"{"mcpServers": {"bad": {"disabled": false}}}"#);
    assert!(e.contains("neither"), "{e}");
    let e = parse_err(r#"{"mcpServers": {"bad": {"command": "x", "args": "not-a-list"}}}"#);
    assert!(e.contains("\"args\"") && e.contains("array"), "{e}");
    let e = parse_err(r#"{"mcpServers": {"bad": {"type": "sse"}}}"#);
    assert!(e.contains("\"url\""), "{e}");
    let e = parse_err(r#"{"something": 1}"#);
    assert!(e.contains("no MCP servers found"), "{e}");
    let e = parse_err("{not json");
    assert!(e.starts_with("test.json: not valid JSON"), "{e}");
}

#[test]
fn add_and_remove_keep_unknown_keys_and_format() {
    let text = r#"{"theme": "dark", "mcpServers": {"a": {"type": "stdio", "command": "x", "myNote": "keep me"}}, "zzz": [1]}"#;
    let dir = std::env::temp_dir().join(format!("mcp-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cline_mcp_settings.json");
    std::fs::write(&path, text).unwrap();
    let mut c = HubConfig::load(&path, &vars()).unwrap();
    c.add_server(ServerConfig {
        name: "w".into(),
        transport: TransportConfig::StreamableHttp {
            url: "https://h/mcp".into(),
            headers: Default::default(),
        },
        disabled: false,
        auto_approve: vec![],
        timeout: Duration::from_secs(10),
        protocol: Default::default(),
        oauth: None,
        tool_filter: Default::default(),
        result_limit: Default::default(),
        limits: Default::default(),
    })
    .unwrap();
    assert!(
        c.add_server(c.servers[0].clone()).is_err(),
        "duplicate names are refused"
    );
    c.save().unwrap();
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(written["theme"], "dark");
    assert_eq!(written["zzz"], serde_json::json!([1]));
    assert_eq!(written["mcpServers"]["a"]["myNote"], "keep me");
    assert_eq!(
        written["mcpServers"]["w"],
        serde_json::json!({"type": "streamableHttp", "url": "https://h/mcp", "timeout": 10})
    );
    // Key order is kept.
    let keys: Vec<_> = written.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["theme", "mcpServers", "zzz"]);
    let mut c = HubConfig::load(&path, &vars()).unwrap();
    assert_eq!(c.servers.len(), 2);
    c.remove_server("a").unwrap();
    assert!(c.remove_server("a").is_err());
    c.save().unwrap();
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(written["mcpServers"].get("a").is_none());
    assert_eq!(written["theme"], "dark");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary file left");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn entries_are_written_in_each_format() {
    let server = |transport| ServerConfig {
        name: "n".into(),
        transport,
        disabled: false,
        auto_approve: vec![],
        timeout: DEFAULT_TIMEOUT,
        protocol: Default::default(),
        oauth: None,
        tool_filter: Default::default(),
        result_limit: Default::default(),
        limits: Default::default(),
    };
    let http = TransportConfig::StreamableHttp {
        url: "https://h/mcp".into(),
        headers: Default::default(),
    };
    let stdio = TransportConfig::Stdio {
        command: "c".into(),
        args: vec!["a".into()],
        env: Default::default(),
        cwd: None,
    };
    let mut vs = HubConfig::empty(ConfigFormat::VsCode, None);
    vs.add_server(server(http.clone())).unwrap();
    let v: Value = serde_json::from_str(&vs.to_json()).unwrap();
    assert_eq!(v["servers"]["n"]["type"], "http");
    let mut lc = HubConfig::parse(
        r#"{"x": {"transport": "stdio", "command": "y"}}"#,
        "f",
        &vars(),
    )
    .unwrap();
    lc.add_server(server(http)).unwrap();
    let v: Value = serde_json::from_str(&lc.to_json()).unwrap();
    assert_eq!(v["n"]["transport"], "streamable_http");
    let mut cd = HubConfig::empty(ConfigFormat::ClaudeDesktop, None);
    cd.add_server(server(stdio)).unwrap();
    let v: Value = serde_json::from_str(&cd.to_json()).unwrap();
    assert_eq!(
        v["mcpServers"]["n"],
        serde_json::json!({"command": "c", "args": ["a"]})
    );
    // Each parses back to the same server.
    for c in [&vs, &lc, &cd] {
        let back = HubConfig::parse(&c.to_json(), "f", &vars()).unwrap();
        assert_eq!(back.server("n"), c.server("n"));
    }
}

#[test]
fn validation_as_cline_does() {
    let server = |transport| ServerConfig {
        name: "n".into(),
        transport,
        disabled: false,
        auto_approve: vec![],
        timeout: DEFAULT_TIMEOUT,
        protocol: Default::default(),
        oauth: None,
        tool_filter: Default::default(),
        result_limit: Default::default(),
        limits: Default::default(),
    };
    let http = |url: &str, headers: &[(&str, &str)]| {
        server(TransportConfig::StreamableHttp {
            url: url.into(),
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        })
    };
    assert!(validate_new_server(&http("ftp://x", &[]))
        .unwrap_err()
        .contains("http:// or https://"));
    assert!(validate_new_server(&http("https://", &[]))
        .unwrap_err()
        .contains("no host"));
    assert!(
        validate_new_server(&http("https://h", &[("Bad Header", "v")]))
            .unwrap_err()
            .contains("token")
    );
    let warnings =
        validate_new_server(&http("https://h", &[("Authorization", "Bearer <token>")])).unwrap();
    assert!(warnings[0].contains("placeholder"), "{warnings:?}");
    assert!(
        validate_new_server(&http("https://h/mcp", &[("X-Api-Key", "abc")]))
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        parse_header("Authorization: Bearer x").unwrap(),
        ("Authorization".into(), "Bearer x".into())
    );
    assert!(parse_header("no colon")
        .unwrap_err()
        .contains("Name: value"));
    assert!(parse_header("Bad Name: v").is_err());
    assert_eq!(clamp_timeout_secs(f64::INFINITY), DEFAULT_TIMEOUT);
    assert_eq!(clamp_timeout_secs(f64::NAN), DEFAULT_TIMEOUT);
    assert_eq!(clamp_timeout_secs(0.2), Duration::from_secs(1));
    assert_eq!(clamp_timeout_secs(7200.0), Duration::from_secs(3600));
}

#[test]
fn a_fractional_timeout_survives_writing_back() {
    // Found by fuzzing: 5.5 s was written back as 5 (whole seconds only), so a server removed and
    // added again, or added with `mcp add --timeout 2.5`, got another timeout in the file.
    let c =
        parse(r#"{"mcpServers": {"s": {"type": "sse", "url": "http://h/sse", "timeout": 5.5}}}"#);
    assert_eq!(c.servers[0].timeout, Duration::from_millis(5500));
    let mut edited = c.clone();
    let server = edited.remove_server("s").unwrap();
    edited.add_server(server).unwrap();
    assert!(
        edited.to_json().contains(r#""timeout": 5.5"#),
        "{}",
        edited.to_json()
    );
    assert_eq!(parse(&edited.to_json()).servers, c.servers);
    assert_eq!(clamp_timeout_secs(2.0004), Duration::from_secs(2));
    assert_eq!(
        clamp_timeout_secs(1.0 / 3.0 + 10.0),
        Duration::from_millis(10_333)
    );
}

#[test]
fn the_protocol_key_chooses_the_negotiation_and_is_written_back() {
    let mut c = parse(
        r#"{"mcpServers": {
        "a": {"command": "x"},
        "b": {"command": "x", "protocol": "legacy"},
        "c": {"url": "https://h/mcp", "protocol": "2026-07-28"},
        "d": {"url": "https://h/mcp", "protocol": "auto"}
    }}"#,
    );
    let modes: Vec<Negotiation> = c.servers.iter().map(|s| s.protocol).collect();
    assert_eq!(
        modes,
        [
            Negotiation::Auto,
            Negotiation::Legacy,
            Negotiation::Pin(mcp_proto::ProtocolVersion::V2026_07_28),
            Negotiation::Auto
        ]
    );
    let err = parse_err(r#"{"mcpServers": {"a": {"command": "x", "protocol": "modern"}}}"#);
    assert!(
        err.contains("protocol") && err.contains("\"auto\""),
        "{err}"
    );
    let err = parse_err(r#"{"mcpServers": {"a": {"command": "x", "protocol": 3}}}"#);
    assert!(err.contains("protocol"), "{err}");
    let mut pinned = c.servers[2].clone();
    pinned.name = "e".into();
    c.add_server(pinned).expect("added");
    let again = parse(&c.to_json());
    assert_eq!(again.servers[4].protocol, c.servers[2].protocol);
    assert_eq!(again.servers[0].protocol, Negotiation::Auto);
}

#[test]
fn oauth_keys_of_other_clients_are_read() {
    let text = r#"{"mcpServers": {
        "claude": {"type": "http", "url": "https://a.example/mcp",
                   "oauth": {"clientId": "abc", "clientSecret": "s", "callbackPort": 8765, "scopes": ["read", "write"]}},
        "cursor": {"url": "https://b.example/mcp",
                   "auth": {"CLIENT_ID": "cid", "CLIENT_SECRET": "cs", "scopes": "x y"}},
        "kiro": {"url": "https://c.example/mcp", "oauth": {"client_id": "k", "redirectUri": "http://localhost:7778/oauth/callback"}},
        "m2m": {"url": "https://d.example/mcp", "oauth": {"clientId": "svc", "clientSecret": "s", "grantType": "client_credentials"}}
    }}"#;
    let c = parse(text);
    let claude = c.servers[0].oauth.clone().expect("oauth");
    assert_eq!(claude.client_id.as_deref(), Some("abc"));
    assert_eq!(claude.callback_port, Some(8765));
    assert_eq!(claude.scopes, vec!["read", "write"]);
    assert!(!format!("{claude:?}").contains("\"s\""));
    let cursor = c.servers[1].oauth.clone().expect("auth");
    assert_eq!(cursor.client_secret.as_deref(), Some("cs"));
    assert_eq!(cursor.scopes, vec!["x", "y"]);
    assert_eq!(
        c.servers[2].oauth.as_ref().and_then(|o| o.callback_port),
        Some(7778)
    );
    assert!(c.servers[3]
        .oauth
        .as_ref()
        .is_some_and(|o| o.client_credentials));
    let bad =
        r#"{"mcpServers": {"x": {"url": "https://a/mcp", "oauth": {"callbackPort": "nope"}}}}"#;
    assert!(parse_err(bad).contains("callbackPort"));
}

#[test]
fn tool_filters_overrides_and_other_clients_keys() {
    let text = r#"{"mcpServers": {
        "ours": {"command": "x", "tools": {
            "include": ["get_*", "list_*"], "exclude": ["*secret*"],
            "overrides": {"get_weather": {"name": "weather_now", "description": "Now."}}
        }, "resultLimits": {"text": 100, "structured": 200}},
        "gemini": {"command": "x", "includeTools": ["a"], "excludeTools": ["b"], "maxResultBytes": 50},
        "roo": {"command": "x", "disabledTools": ["c"], "alwaysAllow": ["d"], "autoApprove": ["e", "d"]},
        "mcphub": {"command": "x", "disabled_tools": ["f"]}
    }}"#;
    let c = HubConfig::parse(text, "t.json", &vars()).unwrap();
    let ours = c.server("ours").unwrap();
    assert_eq!(ours.tool_filter.include, ["get_*", "list_*"]);
    assert_eq!(ours.tool_filter.exclude, ["*secret*"]);
    let o = &ours.tool_filter.overrides["get_weather"];
    assert_eq!(o.name.as_deref(), Some("weather_now"));
    assert_eq!(o.description.as_deref(), Some("Now."));
    assert_eq!(o.title, None);
    assert_eq!(ours.result_limit.max_text_bytes, Some(100));
    assert_eq!(ours.result_limit.max_structured_bytes, Some(200));
    let gemini = c.server("gemini").unwrap();
    assert_eq!(gemini.tool_filter.include, ["a"]);
    assert_eq!(gemini.tool_filter.exclude, ["b"]);
    assert_eq!(gemini.result_limit.max_text_bytes, Some(50));
    assert_eq!(gemini.result_limit.max_structured_bytes, Some(50));
    let roo = c.server("roo").unwrap();
    assert_eq!(roo.tool_filter.exclude, ["c"]);
    assert_eq!(roo.auto_approve, ["e", "d"]);
    assert_eq!(c.server("mcphub").unwrap().tool_filter.exclude, ["f"]);
    assert!(c.server("mcphub").unwrap().result_limit.is_unlimited());
}

#[test]
fn tool_filter_errors_name_the_field() {
    for (entry, field) in [
        (r#"{"command": "x", "tools": ["a"]}"#, "tools"),
        (
            r#"{"command": "x", "tools": {"include": "a"}}"#,
            "tools.include",
        ),
        (
            r#"{"command": "x", "tools": {"overrides": {"t": {"name": 3}}}}"#,
            "tools.overrides.t.name",
        ),
        (
            r#"{"command": "x", "tools": {"overrides": {"t": {"name": " "}}}}"#,
            "tools.overrides.t.name",
        ),
        (
            r#"{"command": "x", "maxResultBytes": -1}"#,
            "maxResultBytes",
        ),
        (
            r#"{"command": "x", "resultLimits": {"txt": 3}}"#,
            "resultLimits.txt",
        ),
    ] {
        let text = format!(r#"{{"mcpServers": {{"s": {entry}}}}}"#);
        match HubConfig::parse(&text, "t.json", &vars()) {
            Err(ConfigError::Field { field: f, .. }) => assert_eq!(f, field, "{entry}"),
            other => panic!("{entry}: expected a field error, got {other:?}"),
        }
    }
    let c = HubConfig::parse(
        r#"{"mcpServers": {"s": {"command": "x", "tools": {"inclde": ["a"]}}}}"#,
        "t.json",
        &vars(),
    )
    .unwrap();
    assert!(
        c.warnings.iter().any(|w| w.contains("tools.inclde")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn filters_and_limits_are_written_back() {
    let mut c = HubConfig::empty(ConfigFormat::Cline, None);
    let mut filter = crate::ToolFilter {
        include: vec!["get_*".into()],
        ..Default::default()
    };
    filter.overrides.insert(
        "get_x".into(),
        crate::ToolOverride {
            title: Some("X".into()),
            ..Default::default()
        },
    );
    // From a parsed entry rather than a struct literal, so new fields need no change here.
    let mut server = parse(r#"{"mcpServers": {"s": {"command": "x"}}}"#).servers[0].clone();
    server.tool_filter = filter.clone();
    server.result_limit = crate::ResultLimit {
        max_text_bytes: Some(10),
        max_structured_bytes: None,
    };
    c.add_server(server).unwrap();
    let back = HubConfig::parse(&c.to_json(), "t.json", &vars()).unwrap();
    let s = back.server("s").unwrap();
    assert_eq!(s.tool_filter, filter);
    assert_eq!(s.result_limit.max_text_bytes, Some(10));
}
