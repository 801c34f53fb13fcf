//! The client side with rmcp: spawns a stdio server, initializes, and makes N sequential
//! `tools/call get_weather {"city":"shenzhen"}`; prints one JSON line.
//!
//!     rmcp-client N -- COMMAND [ARGS...]
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::ServiceExt;
use std::time::Instant;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: rmcp-client N -- COMMAND [ARGS...]";
    let n: usize = args.get(1).ok_or_else(|| anyhow::anyhow!(usage))?.parse()?;
    let dashes = args
        .iter()
        .position(|a| a == "--")
        .ok_or_else(|| anyhow::anyhow!(usage))?;
    let (program, program_args) = args[dashes + 1..]
        .split_first()
        .ok_or_else(|| anyhow::anyhow!(usage))?;

    let started = Instant::now();
    let child = TokioChildProcess::new(tokio::process::Command::new(program).configure(|c| {
        c.args(program_args);
    }))?;
    let client = ().serve(child).await?;
    let init_us = started.elapsed().as_micros();

    let mut arguments = serde_json::Map::new();
    arguments.insert("city".to_owned(), "shenzhen".into());
    let mut latencies = Vec::with_capacity(n);
    let mut errors = 0u32;
    let calls_started = Instant::now();
    for _ in 0..n {
        let sent = Instant::now();
        let outcome = client
            .call_tool(CallToolRequestParams::new("get_weather").with_arguments(arguments.clone()))
            .await;
        latencies.push(sent.elapsed().as_micros() as u64);
        let good = match outcome {
            Ok(result) => serde_json::to_string(&result)?.contains("thunderstorms"),
            Err(_) => false,
        };
        errors += u32::from(!good);
    }
    let elapsed = calls_started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let quantile = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    println!(
        "{{\"client\":\"rmcp\",\"n\":{n},\"init_us\":{init_us},\"elapsed_s\":{elapsed:.4},\"calls_per_s\":{:.1},\"p50_us\":{},\"p99_us\":{},\"errors\":{errors}}}",
        n as f64 / elapsed,
        quantile(0.5),
        quantile(0.99)
    );
    client.cancel().await?;
    if errors > 0 {
        std::process::exit(2);
    }
    Ok(())
}
