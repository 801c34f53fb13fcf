//! Client-side cost benchmark: N sequential `tools/call get_weather {"city":"shenzhen"}` over
//! stdio through the public API of `mcp-client`, the counterpart of the neutral harness's
//! `rmcp-client` (same arguments, same JSON line, exit 2 on errors). `bench/run.sh` runs it.
//!
//! ```text
//! cargo build --release -p bench-server --example bench_client
//! target/release/examples/bench_client 5000 -- path/to/raw-rust-weather
//! ```

use std::process::ExitCode;
use std::time::Instant;

use mcp_client::{CallOptions, Client, ClientOptions, StdioServerConfig};
use mcp_proto::schema::{CallTool, CallToolParams, CallToolResult};

const USAGE: &str = "usage: bench_client N -- CMD ARGS...";

/// What the command line asks for.
struct Args {
    n: usize,
    command: String,
    args: Vec<String>,
}

fn parse_args(argv: &[String]) -> Result<Args, String> {
    let sep = argv
        .iter()
        .position(|a| a == "--")
        .ok_or_else(|| format!("missing `--`; {USAGE}"))?;
    let n = match &argv[..sep] {
        [n] => n
            .parse::<usize>()
            .map_err(|_| format!("N {n:?} is not a count; {USAGE}"))?,
        _ => return Err(USAGE.into()),
    };
    if n == 0 {
        return Err(format!("N must be at least 1; {USAGE}"));
    }
    let (command, args) = argv[sep + 1..]
        .split_first()
        .ok_or_else(|| format!("missing CMD; {USAGE}"))?;
    Ok(Args {
        n,
        command: command.clone(),
        args: args.to_vec(),
    })
}

/// Whether the result is the expected forecast: some text block mentions thunderstorms.
fn is_expected(result: &CallToolResult) -> bool {
    !result.is_error()
        && result
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .any(|t| t.contains("thunderstorms"))
}

/// The `q` quantile of sorted latencies (nearest rank, as the harness computes it).
fn quantile(sorted: &[u64], q: f64) -> u64 {
    let last = sorted.len().saturating_sub(1);
    let i = ((last as f64) * q).round() as usize;
    sorted.get(i.min(last)).copied().unwrap_or(0)
}

async fn run(args: Args) -> Result<usize, String> {
    let t0 = Instant::now();
    let config = StdioServerConfig::new(args.command, args.args);
    let client = Client::spawn_stdio(config, ClientOptions::new())
        .await
        .map_err(|e| format!("cannot start the server: {e}"))?;
    let init_us = t0.elapsed().as_micros();

    // Built once: the typed call borrows its params, so nothing is cloned per call.
    let params =
        CallToolParams::new("get_weather").with_arguments(serde_json::json!({"city": "shenzhen"}));
    let mut latencies = Vec::with_capacity(args.n);
    let mut errors = 0usize;
    let t1 = Instant::now();
    for _ in 0..args.n {
        let start = Instant::now();
        let result = client
            .send::<CallTool>(&params, CallOptions::default())
            .await;
        latencies.push(start.elapsed().as_micros() as u64);
        match result {
            Ok(r) if is_expected(&r) => {}
            Ok(_) => errors += 1,
            Err(e) => {
                if errors == 0 {
                    eprintln!("bench_client: first error: {e}");
                }
                errors += 1;
            }
        }
    }
    let elapsed = t1.elapsed().as_secs_f64();
    latencies.sort_unstable();
    println!(
        "{{\"client\":\"mcp-client\",\"n\":{n},\"init_us\":{init_us},\"elapsed_s\":{elapsed:.4},\"calls_per_s\":{rate:.1},\"p50_us\":{p50},\"p99_us\":{p99},\"errors\":{errors}}}",
        n = args.n,
        rate = args.n as f64 / elapsed,
        p50 = quantile(&latencies, 0.5),
        p99 = quantile(&latencies, 0.99),
    );
    client.close().await;
    Ok(errors)
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse_args(&argv) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("bench_client: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("bench_client: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(0) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(2),
        Err(e) => {
            eprintln!("bench_client: {e}");
            ExitCode::from(2)
        }
    }
}
