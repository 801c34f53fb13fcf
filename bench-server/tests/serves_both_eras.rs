//! The bench peer answers what the harness's driver asks, in both eras: `bench-weather` started
//! as `bench/run.sh` starts it, then our client over Streamable HTTP, pinned to 2026-07-28 and
//! to the 2025 era.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use mcp_client::http::{self, HttpClientConfig};
use mcp_client::{Client, ClientOptions, Era, Negotiation};
use mcp_proto::ProtocolVersion;
use serde_json::json;

/// The child, killed when the test ends however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `bench-weather` on a port the system picks and reads the URL it prints.
fn start() -> (Running, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bench-weather"))
        .arg("127.0.0.1:0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bench-weather starts");
    let stderr = child.stderr.take().expect("piped stderr");
    let running = Running(child);
    let mut lines = BufReader::new(stderr).lines();
    let url = lines
        .by_ref()
        .take(20)
        .map_while(Result::ok)
        .find_map(|line| {
            line.strip_prefix("bench-weather: serving ")
                .map(str::to_owned)
        })
        .expect("bench-weather prints its URL");
    // Keep draining stderr so the child never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    (running, url)
}

async fn bounded<F: std::future::Future>(what: &str, f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(20), f)
        .await
        .unwrap_or_else(|_| panic!("{what} took over 20 s"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_the_drivers_call_in_both_eras() {
    let (_server, url) = start();
    for (negotiation, era) in [
        (Negotiation::Pin(ProtocolVersion::V2026_07_28), Era::Modern),
        (Negotiation::Legacy, Era::Legacy),
    ] {
        let transport = bounded("transport", http::connect_auto(HttpClientConfig::new(&url)))
            .await
            .expect("transport");
        let options = ClientOptions::new().with_negotiation(negotiation);
        let client = bounded("connect", Client::connect(transport, options))
            .await
            .expect("connects");
        assert_eq!(client.era(), era, "{negotiation}");
        let tools = bounded("tools/list", client.list_tools())
            .await
            .expect("tools");
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].name, "get_weather");
        for (city, expected) in [
            ("shenzhen", "shenzhen: thunderstorms 30C"),
            ("atlantis", "atlantis: unknown"),
        ] {
            let result = bounded(
                "tools/call",
                client.call_tool("get_weather", json!({ "city": city })),
            )
            .await
            .expect("answered");
            assert_ne!(result.is_error, Some(true), "{negotiation}: {city}");
            let text = result.content[0].as_text().unwrap_or_default();
            assert_eq!(text, expected, "{negotiation}");
        }
        // Bad arguments are the tool's error, which the model can read and correct.
        let refused = bounded("bad arguments", client.call_tool("get_weather", json!({})))
            .await
            .expect("answered");
        assert_eq!(refused.is_error, Some(true), "{negotiation}");
        let error = refused.content[0].as_text().unwrap_or_default();
        assert!(
            error.contains("missing field `city`"),
            "{negotiation}: {error}"
        );
        bounded("close", client.close()).await;
    }
}
