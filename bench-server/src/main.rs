//! bench-weather: the tool every comparison server in `bench/harness` answers (`get_weather`
//! over five fixed cities, a text result), built only on mcp-server's public API. Its row
//! against `raw-hyper-weather` measures what the toolkit costs per call; weather-server's rows
//! add the sample's weather model (city folding, the synthetic climate, structured output).
//!
//!     bench-weather 127.0.0.1:PORT [--stateless]
//!
//! Streamable HTTP at `/mcp`, both eras, on a multi-threaded runtime like weather-server's.

#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::process::ExitCode;

use mcp_server::http::HttpConfig;
use mcp_server::schemars;
use mcp_server::{JsonSchema, Server, Tool};

#[derive(serde::Deserialize, JsonSchema)]
struct CityArgs {
    city: String,
}

/// The synthetic weather of every comparison server, as whole answers.
fn weather(city: &str) -> Option<&'static str> {
    match city {
        "shenzhen" => Some("shenzhen: thunderstorms 30C"),
        "beijing" => Some("beijing: sunny 22C"),
        "london" => Some("london: drizzle 12C"),
        "paris" => Some("paris: cloudy 16C"),
        "tokyo" => Some("tokyo: clear 18C"),
        _ => None,
    }
}

async fn get_weather(CityArgs { city }: CityArgs) -> String {
    match weather(&city) {
        Some(text) => text.to_owned(),
        None => format!("{city}: unknown"),
    }
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("bench-weather: {problem}\nusage: bench-weather ADDR [--stateless]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(addr) = args.next().and_then(|a| a.parse::<SocketAddr>().ok()) else {
        return usage("ADDR is missing or not an address");
    };
    let stateless = match args.next().as_deref() {
        None => false,
        Some("--stateless") => true,
        Some(other) => return usage(&format!("unknown argument {other:?}")),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("bench-weather: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let server = Server::builder("bench-weather", "0.1.0")
            .tool(
                Tool::new("get_weather", "Get the current weather for a city"),
                get_weather,
            )
            .build();
        let config = HttpConfig {
            stateless,
            ..Default::default()
        };
        let http = match server.serve_http(addr, config).await {
            Ok(http) => http,
            Err(e) => {
                eprintln!("bench-weather: cannot serve at {addr}: {e}");
                return ExitCode::FAILURE;
            }
        };
        eprintln!("bench-weather: serving http://{}/mcp", http.local_addr());
        if let Err(e) = tokio::signal::ctrl_c().await {
            eprintln!("bench-weather: cannot wait for Ctrl-C: {e}");
        }
        http.shutdown().await;
        ExitCode::SUCCESS
    })
}
