//! The sample MCP weather server, built only on the public API of `mcp-server`.
//!
//! stdio by default (a child of any MCP client); `--http ADDR` serves Streamable HTTP at `/mcp`
//! and HTTP+SSE at `/sse`. Logs go to stderr.

#![forbid(unsafe_code)]

mod cities;
mod climate;
mod clock;
mod open_meteo;
mod protection;
mod provider;
mod replicas;
mod synthetic;
mod watch;
mod weather;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clock::Clock;
use provider::Provider;

const USAGE: &str = "\
weather-server: an MCP server with current weather and forecasts for world cities

USAGE:
    weather-server [OPTIONS]

OPTIONS:
    --http ADDR             Serve Streamable HTTP at /mcp and HTTP+SSE at /sse on ADDR
                            (e.g. 127.0.0.1:8080) instead of stdio
    --stateless             With --http: no sessions; every POST is served on its own
    --auth-issuer URL       With --http: run protected (OAuth 2.1 resource server); accept JWT
                            access tokens of this authorization server, checked against its
                            JWKS (found by RFC 8414 / OpenID discovery)
    --auth-audience URL     The audience tokens must name (repeatable; default: this server's
                            http://HOST:PORT/mcp for each loopback name)
    --auth-required-scope S A scope every request needs (repeatable)
    --auth-tool-scope T=S   A scope calls of tool T need (repeatable; 403 insufficient_scope)
    --auth-leeway SECS      Clock skew allowed on token expiry (default 60)
    --provider NAME         embedded (default: synthetic data, no network) or open-meteo
    --provider-url URL      Base URL of the Open-Meteo API (default https://api.open-meteo.com)
    --provider-timeout SECS Timeout of one Open-Meteo request (default 10)
    --clock TIME            Freeze the embedded provider's clock at TIME (RFC 3339 UTC, e.g.
                            2026-08-02T07:00:00Z, or Unix seconds): answers become fixed
    --update-interval SECS  Every SECS, move the embedded weather one hour forward and notify
                            subscribers of weather://current/{city} (default: off)
    --redis URL             Share state with other replicas through Redis (redis://HOST:PORT):
                            tasks, subscriptions/listen changes, /readyz; also MCP_REDIS_URL.
                            Without it everything stays in this process
    --redis-prefix P        Prefix of every Redis key and channel (default mcp:weather:); also
                            MCP_REDIS_PREFIX
    --redis-timeout SECS    Longest wait for one Redis command (default 2)
    --session-lease SECS    How long a replica serves a session from the record it last read
                            unless Redis says it changed (default 1; 0: read on every request)
    --state-key KEY         The key sealing 2026-07-28 requestStates, the same on every replica:
                            hex (at least 32 bytes) or a file holding it; also MCP_STATE_KEY.
                            Default: a random key per process
    --log-level LEVEL       error, warn, info, debug or trace (default warn); logs go to stderr
    -h, --help              Print this help
    -V, --version           Print the version
";

struct Args {
    http: Option<SocketAddr>,
    stateless: bool,
    provider: String,
    provider_url: String,
    provider_timeout: Duration,
    clock: Clock,
    update_interval: Option<Duration>,
    log_level: tracing::Level,
    auth: protection::AuthArgs,
    replicas: replicas::ReplicaArgs,
}

fn parse_args(mut argv: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut args = Args {
        http: None,
        stateless: false,
        provider: "embedded".into(),
        provider_url: open_meteo::DEFAULT_BASE_URL.into(),
        provider_timeout: Duration::from_secs(10),
        clock: Clock::System,
        update_interval: None,
        log_level: tracing::Level::WARN,
        auth: protection::AuthArgs::default(),
        replicas: replicas::ReplicaArgs::default(),
    };
    while let Some(arg) = argv.next() {
        let mut value = |name: &str| {
            argv.next()
                .ok_or_else(|| format!("{name} needs a value; see --help"))
        };
        if args.auth.take(&arg, || value(&arg))? {
            continue;
        }
        if args.replicas.take(&arg, || value(&arg))? {
            continue;
        }
        match arg.as_str() {
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(None);
            }
            "-V" | "--version" => {
                println!("weather-server {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            "--http" => {
                let v = value("--http")?;
                args.http = Some(v.parse().map_err(|_| {
                    format!("--http {v:?}: expected an address like 127.0.0.1:8080")
                })?);
            }
            "--stateless" => args.stateless = true,
            "--provider" => {
                let v = value("--provider")?;
                if v != "embedded" && v != "open-meteo" {
                    return Err(format!("--provider {v:?}: use embedded or open-meteo"));
                }
                args.provider = v;
            }
            "--provider-url" => args.provider_url = value("--provider-url")?,
            "--provider-timeout" => {
                let v = value("--provider-timeout")?;
                let secs: f64 = v
                    .parse()
                    .map_err(|_| format!("--provider-timeout {v:?}: expected seconds"))?;
                if !(secs.is_finite() && secs > 0.0) {
                    return Err(format!(
                        "--provider-timeout {v:?}: expected a positive number of seconds"
                    ));
                }
                args.provider_timeout = Duration::from_secs_f64(secs);
            }
            "--clock" => {
                let v = value("--clock")?;
                let t = clock::parse_rfc3339(&v).ok_or_else(|| {
                    format!("--clock {v:?}: expected e.g. 2026-08-02T07:00:00Z or Unix seconds")
                })?;
                args.clock = Clock::Frozen(t);
            }
            "--update-interval" => {
                let v = value("--update-interval")?;
                let secs: f64 = v
                    .parse()
                    .map_err(|_| format!("--update-interval {v:?}: expected seconds"))?;
                if !(secs.is_finite() && secs > 0.0) {
                    return Err(format!(
                        "--update-interval {v:?}: expected a positive number of seconds"
                    ));
                }
                args.update_interval = Some(Duration::from_secs_f64(secs));
            }
            "--log-level" => {
                let v = value("--log-level")?;
                args.log_level = v.parse().map_err(|_| {
                    format!("--log-level {v:?}: use error, warn, info, debug or trace")
                })?;
            }
            other => return Err(format!("unknown argument {other:?}; see --help")),
        }
    }
    args.replicas = args.replicas.with_env(|name| std::env::var(name).ok());
    if args.auth.enabled() && args.http.is_none() {
        return Err("--auth-issuer needs --http: stdio takes no tokens".into());
    }
    Ok(Some(args))
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("weather-server: {e}");
            return ExitCode::from(2);
        }
    };
    #[cfg(not(feature = "otlp"))]
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(args.log_level)
        .with_ansi(false)
        // A client that died leaves stderr a broken pipe; tracing's fallback report of a failed
        // write would then panic in `eprintln!` and take the reading task down with it.
        .log_internal_errors(false)
        .init();
    // stdio needs one thread; HTTP spreads connections over the cores.
    let runtime = if args.http.is_some() {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("weather-server: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    #[cfg(feature = "otlp")]
    let exporter = otlp_logging(args.log_level, runtime.handle());
    let code = runtime.block_on(run(args));
    #[cfg(feature = "otlp")]
    if let Some(exporter) = exporter {
        runtime.block_on(exporter.shutdown());
    }
    // Exit promptly once serving is over, even if a blocking task (a DNS lookup) still runs.
    runtime.shutdown_timeout(Duration::from_millis(500));
    code
}

async fn run(args: Args) -> ExitCode {
    let provider = if args.provider == "open-meteo" {
        match open_meteo::OpenMeteo::new(&args.provider_url, args.provider_timeout) {
            Ok(api) => Provider::OpenMeteo(Box::new(api)),
            Err(e) => {
                eprintln!("weather-server: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        Provider::embedded(args.clock)
    };
    let mut builder = weather::builder(provider.clone());
    builder = match args.replicas.share_state(builder) {
        Ok(builder) => builder,
        Err(e) => {
            eprintln!("weather-server: {e}");
            return ExitCode::from(2);
        }
    };
    match args.replicas.state_key() {
        Ok(Some(key)) => builder = builder.request_state_key(key),
        Ok(None) => {}
        Err(e) => {
            eprintln!("weather-server: {e}");
            return ExitCode::from(2);
        }
    }
    let server = match builder.try_build() {
        Ok(server) => server,
        Err(e) => {
            eprintln!("weather-server: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(every) = args.update_interval {
        weather::spawn_updates(server.clone(), provider, every);
    }
    let Some(addr) = args.http else {
        server.serve_stdio().await;
        return ExitCode::SUCCESS;
    };
    // A deep accept queue: behind a load balancer, hundreds of connections arrive at once.
    let listener = match mcp_server::http::listen(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("weather-server: cannot bind {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bound = listener.local_addr().unwrap_or(addr);
    let auth = match args.auth.config(bound).await {
        Ok(auth) => auth,
        Err(e) => {
            eprintln!("weather-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let config = mcp_server::http::HttpConfig {
        stateless: args.stateless,
        auth,
        ..Default::default()
    };
    let http = match server.serve_http_on(listener, config) {
        Ok(http) => http,
        Err(e) => {
            eprintln!("weather-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!(
        "weather-server: serving Streamable HTTP at http://{0}/mcp and HTTP+SSE at http://{0}/sse",
        http.local_addr()
    );
    wait_for_shutdown_signal().await;
    http.shutdown().await;
    ExitCode::SUCCESS
}

async fn wait_for_shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

/// Logs to stderr as without the feature, and exports the MCP spans over OTLP when
/// `OTEL_EXPORTER_OTLP_ENDPOINT` is set; the guard flushes them at the end.
#[cfg(feature = "otlp")]
fn otlp_logging(
    level: tracing::Level,
    runtime: &tokio::runtime::Handle,
) -> Option<mcp_server::otlp::OtlpGuard> {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    use tracing_subscriber::Layer as _;
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .log_internal_errors(false)
        .with_filter(tracing_subscriber::filter::LevelFilter::from_level(level));
    let (otlp, guard) = match mcp_server::otlp::from_env("weather-server", runtime) {
        Ok(Some((layer, guard))) => (Some(layer), Some(guard)),
        Ok(None) => (None, None),
        Err(e) => {
            eprintln!("weather-server: {e}");
            (None, None)
        }
    };
    let otlp = otlp.map(|layer| layer.with_filter(mcp_server::otlp::OtlpLayer::filter()));
    tracing_subscriber::registry().with(fmt).with(otlp).init();
    guard
}
