//! The hub's config loader (Cline, Claude Desktop, VS Code and LangChain files).

use std::time::Duration;

use mcp_client::DEFAULT_TIMEOUT;
use mcp_hub::{ConfigFormat, HubConfig, ServerConfig, TransportConfig, Variables};

/// The variables every input is read with: a fixed environment, one input, no process env.
fn variables() -> Variables {
    let mut vars = Variables {
        no_process_env: true,
        ..Variables::default()
    };
    vars.env.insert("HOME".into(), "/home/fuzz".into());
    vars.env.insert("API_TOKEN".into(), "t0k3n".into());
    vars.inputs.insert("api-key".into(), "k3y".into());
    vars
}

/// Parses `data` as a config file. When it loads: every server has a name, a command or a URL,
/// and a timeout within 1..=3600 s; names are unique; the file written back reads as the same
/// servers in the same format; and removing a server and adding it again gives the same server.
pub fn check_config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let vars = variables();
    let Ok(config) = HubConfig::parse(text, "fuzz.json", &vars) else {
        return;
    };
    for (i, server) in config.servers.iter().enumerate() {
        assert!(
            (Duration::from_secs(1)..=Duration::from_secs(3600)).contains(&server.timeout),
            "timeout {:?} of {}",
            server.timeout,
            server.name
        );
        match &server.transport {
            TransportConfig::Stdio { command, .. } => assert!(!command.trim().is_empty()),
            TransportConfig::Sse { .. } | TransportConfig::StreamableHttp { .. } => {}
        }
        assert!(
            config.servers[..i].iter().all(|s| s.name != server.name),
            "duplicate server {}",
            server.name
        );
    }

    let again = HubConfig::parse(&config.to_json(), "fuzz.json", &vars)
        .unwrap_or_else(|e| panic!("{text} written back as {} fails: {e}", config.to_json()));
    assert_eq!(again.format, config.format, "format of {text}");
    let all = |c: &HubConfig| -> Vec<ServerConfig> {
        c.servers.iter().map(|s| comparable(s, c.format)).collect()
    };
    assert_eq!(all(&again), all(&config), "servers of {text}");

    for server in &config.servers {
        let mut edited = config.clone();
        let removed = edited
            .remove_server(&server.name)
            .unwrap_or_else(|e| panic!("removing {} from {text}: {e}", server.name));
        assert_eq!(&removed, server);
        edited
            .add_server(removed)
            .unwrap_or_else(|e| panic!("adding {} back to {text}: {e}", server.name));
        let written = edited.to_json();
        let reread = HubConfig::parse(&written, "fuzz.json", &vars)
            .unwrap_or_else(|e| panic!("{text} edited to {written} fails: {e}"));
        let back = reread
            .server(&server.name)
            .unwrap_or_else(|| panic!("{} lost: {text} edited to {written}", server.name));
        assert_eq!(
            comparable(back, reread.format),
            comparable(server, config.format),
            "{} after removing and adding it back: {text} edited to {written}",
            server.name
        );
        assert_eq!(reread.servers.len(), config.servers.len());
    }
}

/// A server as a file of `format` can keep it: only Cline files have a timeout field; and a
/// number given as an env or header value may come back one unit in the last place off, since
/// serde_json (without its `float_roundtrip` feature) does not read every float it writes back
/// exactly (`8.8e71` written back reads as `8.800000000000001e71`).
fn comparable(server: &ServerConfig, format: ConfigFormat) -> ServerConfig {
    let mut server = server.clone();
    if format != ConfigFormat::Cline {
        server.timeout = DEFAULT_TIMEOUT;
    }
    let approximate = |map: &mut std::collections::BTreeMap<String, String>| {
        for value in map.values_mut() {
            if value.contains(['.', 'e', 'E']) {
                if let Ok(f) = value.parse::<f64>() {
                    *value = format!("{f:.12e}");
                }
            }
        }
    };
    match &mut server.transport {
        TransportConfig::Stdio { env, .. } => approximate(env),
        TransportConfig::Sse { headers, .. } | TransportConfig::StreamableHttp { headers, .. } => {
            approximate(headers)
        }
    }
    server
}
