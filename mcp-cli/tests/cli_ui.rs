//! `mcp ui` over plain HTTP, no browser: the guard (token, Host, Origin), the API (the hub as
//! JSON, a call streamed as Server-Sent Events, the app-call rule, a prompt, bad requests) and the app
//! origin (a view served with its Content Security Policy, and nothing else), with the real
//! weather-server behind it.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::ui::start_ui;
use common::{scratch, weather_entry, write_config};
use serde_json::{json, Value};

/// A response: status, headers (lower-case names) and body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// One HTTP/1.1 request to 127.0.0.1:`port` (connection closed after it).
fn request(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut head = format!("{method} {path} HTTP/1.1\r\nconnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("host: 127.0.0.1:{port}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(head.as_bytes()).expect("send");
    let mut raw = String::new();
    let _ = stream.read_to_string(&mut raw);
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_owned(),
    }
}

#[test]
fn mcp_ui_guards_its_api_and_serves_views_from_another_origin() {
    let home = scratch("ui-http");
    let config = write_config(&home, json!({ "weather": weather_entry() }));
    let (_ui, url) = start_ui(&home, &config);
    let rest = url
        .strip_prefix("http://127.0.0.1:")
        .expect("a loopback URL");
    let (port, query) = rest.split_once('/').expect("a path");
    let port: u16 = port.parse().expect("a port");
    let token = query.strip_prefix("?token=").expect("the token in the URL");
    assert_eq!(token.len(), 32, "{url}");
    let with_token = [("x-mcp-ui-token", token)];

    // The page: only with the token, with its security headers.
    assert_eq!(request(port, "GET", "/", &[], "").status, 401);
    let page = request(port, "GET", &format!("/?token={token}"), &[], "");
    assert_eq!(page.status, 200);
    assert!(page
        .body
        .contains("<script type=\"module\" src=\"/main.js\">"));
    let policy = page.header("content-security-policy").unwrap_or_default();
    assert!(
        policy.contains("frame-src http://127.0.0.1:") && policy.contains("frame-ancestors 'none'"),
        "{policy}"
    );
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    assert_eq!(request(port, "GET", "/main.js", &[], "").status, 200);

    // The API: token, Host and Origin checked.
    assert_eq!(request(port, "GET", "/api/hub", &[], "").status, 401);
    let wrong = [("x-mcp-ui-token", "0123456789abcdef0123456789abcdef")];
    assert_eq!(request(port, "GET", "/api/hub", &wrong, "").status, 401);
    let rebound = [("host", "evil.example"), ("x-mcp-ui-token", token)];
    assert_eq!(request(port, "GET", "/api/hub", &rebound, "").status, 403);
    let foreign = [("origin", "http://evil.example"), ("x-mcp-ui-token", token)];
    assert_eq!(request(port, "GET", "/api/hub", &foreign, "").status, 403);
    let own = format!("http://127.0.0.1:{port}");
    let same = [("origin", own.as_str()), ("x-mcp-ui-token", token)];
    let hub = request(port, "GET", "/api/hub", &same, "");
    assert_eq!(hub.status, 200);
    let hub = hub.json();
    assert_eq!(hub["servers"][0]["name"], "weather");
    assert_eq!(hub["servers"][0]["era"], "modern");
    assert!(hub["servers"][0]["counts"]["tools"].as_u64() > Some(0));
    let get_weather = hub["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["exposed"] == "weather__get_weather"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(get_weather["view"], "ui://weather/app.html");
    assert_eq!(get_weather["callableByApp"], true);

    // A call, as an event stream ending in its result.
    let args = json!({ "name": "weather__get_weather", "arguments": { "city": "Paris" } });
    let call = request(port, "POST", "/api/call", &with_token, &args.to_string());
    assert_eq!(call.status, 200);
    assert_eq!(call.header("content-type"), Some("text/event-stream"));
    assert!(
        call.body.contains("event: result") && call.body.contains("Paris"),
        "{}",
        call.body
    );
    // A view may call only its own server's tools.
    let from_other =
        json!({ "name": "weather__get_weather", "arguments": { "city": "Paris" }, "app": "other" });
    let refused = request(
        port,
        "POST",
        "/api/call",
        &with_token,
        &from_other.to_string(),
    );
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.json()["error"]
        .as_str()
        .is_some_and(|e| e.contains("only other's tools")));
    let from_own = json!({ "name": "weather__get_weather", "arguments": { "city": "Lima" }, "app": "weather" });
    let allowed = request(
        port,
        "POST",
        "/api/call",
        &with_token,
        &from_own.to_string(),
    );
    assert!(allowed.body.contains("Lima"), "{}", allowed.body);
    // Bad requests say what is wrong.
    assert_eq!(
        request(port, "POST", "/api/call", &with_token, "{nope").status,
        400
    );
    assert_eq!(
        request(port, "POST", "/api/call", &with_token, "{}").status,
        400
    );
    assert_eq!(
        request(port, "GET", "/api/nope", &with_token, "").status,
        404
    );

    // A prompt, its arguments strings.
    let asked =
        json!({ "server": "weather", "name": "weather_report", "arguments": { "city": "Paris" } });
    let prompt = request(port, "POST", "/api/prompt", &with_token, &asked.to_string());
    assert_eq!(prompt.status, 200, "{}", prompt.body);
    assert!(prompt.json()["messages"]
        .as_array()
        .is_some_and(|m| !m.is_empty()));
    let numeric =
        json!({ "server": "weather", "name": "weather_report", "arguments": { "city": 1 } });
    let bad = request(
        port,
        "POST",
        "/api/prompt",
        &with_token,
        &numeric.to_string(),
    );
    assert_eq!(bad.status, 400, "{}", bad.body);

    // A view goes to the app origin, served there with its policy; the app origin has no API.
    let asked = json!({ "server": "weather", "uri": "ui://weather/app.html" });
    let view = request(port, "POST", "/api/view", &with_token, &asked.to_string()).json();
    let view_url = view["url"].as_str().unwrap_or_default().to_owned();
    let app_rest = view_url
        .strip_prefix("http://127.0.0.1:")
        .expect("a loopback view");
    let (app_port, view_path) = app_rest.split_once('/').expect("a path");
    let app_port: u16 = app_port.parse().expect("a port");
    assert_ne!(app_port, port, "the views have an origin of their own");
    let served = request(app_port, "GET", &format!("/{view_path}"), &[], "");
    assert_eq!(served.status, 200);
    assert!(served.body.contains("<html"), "{}", served.body);
    let view_policy = served.header("content-security-policy").unwrap_or_default();
    assert_eq!(view_policy, view["policy"].as_str().unwrap_or("?"));
    assert!(
        view_policy.contains("connect-src 'none'") && view_policy.contains("object-src 'none'")
    );
    assert_eq!(
        request(app_port, "GET", "/api/hub", &with_token, "").status,
        404
    );
    let elsewhere = [("host", "evil.example")];
    assert_eq!(
        request(app_port, "GET", &format!("/{view_path}"), &elsewhere, "").status,
        403
    );
    let not_a_view = json!({ "server": "weather", "uri": "weather://cities" });
    let reply = request(
        port,
        "POST",
        "/api/view",
        &with_token,
        &not_a_view.to_string(),
    );
    assert_eq!(reply.status, 422, "{}", reply.body);
}
