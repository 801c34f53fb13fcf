//! `mcp-conformance`: runs the conformance cases against one MCP server and reports them.
//!
//! ```text
//! mcp-conformance [OPTIONS] stdio -- COMMAND ARGS...
//! mcp-conformance [OPTIONS] http URL      (Streamable HTTP, e.g. http://127.0.0.1:8080/mcp)
//! mcp-conformance [OPTIONS] sse URL       (HTTP+SSE, e.g. http://127.0.0.1:8080/sse)
//! mcp-conformance [OPTIONS]               (this workspace's weather-server over stdio)
//! ```
//!
//! Exit status: 0 when no MUST case failed (with `--strict`, no case at all), less the failures
//! a `--baseline` accepts; 1 when one did; 2 when the runner could not run (bad arguments, a
//! server that does not start or never answers).

#![forbid(unsafe_code)]

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use conformance::baseline::{Baseline, Verdict};
use conformance::context::Config;
use conformance::driver::{Connector, HttpTarget, SseTarget, StdioTarget};
use conformance::report::{self, Format};
use conformance::runner::{self, Filter};
use conformance::Error;

const USAGE: &str = "\
usage: mcp-conformance [OPTIONS] [stdio -- COMMAND ARGS... | http URL | sse URL]

With no target, runs against this workspace's weather-server over stdio.

options:
  --format table|json|junit|html
                              output format (default: table, coloured on a terminal)
  --output FILE               write the report to FILE instead of stdout
  --strict                    SHOULD failures fail the run too (exit 1)
  --baseline FILE             accept the failures FILE lists; report listed cases that pass now
  --write-baseline FILE       write this run's failures to FILE as a baseline
  --explain CASE              print what CASE checks, the spec text, and how to fix it
  --only PREFIX               run only cases whose id starts with PREFIX (repeatable, or comma-separated)
  --skip PREFIX               skip cases whose id starts with PREFIX (repeatable, or comma-separated)
  --timeout SECS              bound on one request (default: 100 measured round trips,
                              3 to 30 s)
  --case-timeout SECS         bound on one case (default 60)
  --startup-timeout SECS      bound on a fresh server's first reply (default 30)
  --slow-tool NAME            the tool used for cancellation and concurrency cases
  --progress-tool NAME        the tool used for progress cases (default: the slow tool)
  --call NAME=JSON            sample arguments for calling tool NAME
  --input-tool NAME[=JSON]    the tool that asks for input, and its arguments (2026-07-28
                              input_required cases)
  --header 'Name: value'      an HTTP header for http/sse targets (repeatable)
  --list                      print the cases and exit
  -h, --help                  this text
";

/// What the command line asks for.
struct Args {
    format: Format,
    output: Option<PathBuf>,
    strict: bool,
    baseline: Option<PathBuf>,
    write_baseline: Option<PathBuf>,
    explain: Option<String>,
    filter: Filter,
    config: Config,
    headers: Vec<(String, String)>,
    list: bool,
    target: Target,
}

enum Target {
    Default,
    Stdio(Vec<String>),
    Http(String),
    Sse(String),
}

fn prefixes(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn seconds(flag: &str, value: &str) -> Result<Duration, Error> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            Error::Usage(format!(
                "{flag} needs a positive number of seconds, not {value:?}"
            ))
        })
}

fn parse_args(mut argv: impl Iterator<Item = String>) -> Result<Option<Args>, Error> {
    let mut args = Args {
        format: Format::Table,
        output: None,
        strict: false,
        baseline: None,
        write_baseline: None,
        explain: None,
        filter: Filter::default(),
        config: Config::default(),
        headers: Vec::new(),
        list: false,
        target: Target::Default,
    };
    let mut kind: Option<String> = None;
    let mut positional = Vec::new();
    while let Some(arg) = argv.next() {
        let mut value = |flag: &str| {
            argv.next()
                .ok_or_else(|| Error::Usage(format!("{flag} needs a value")))
        };
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--list" => args.list = true,
            "--strict" => args.strict = true,
            "--output" => args.output = Some(value("--output")?.into()),
            "--baseline" => args.baseline = Some(value("--baseline")?.into()),
            "--write-baseline" => args.write_baseline = Some(value("--write-baseline")?.into()),
            "--explain" => args.explain = Some(value("--explain")?),
            "--format" => {
                let v = value("--format")?;
                args.format = Format::parse(&v).ok_or_else(|| {
                    Error::Usage(format!("unknown format {v:?}: table, json, junit or html"))
                })?;
            }
            "--only" => args
                .filter
                .only
                .extend(prefixes(&value("--only")?).collect::<Vec<_>>()),
            "--skip" => args
                .filter
                .skip
                .extend(prefixes(&value("--skip")?).collect::<Vec<_>>()),
            "--timeout" => args.config.timeout = Some(seconds("--timeout", &value("--timeout")?)?),
            "--case-timeout" => {
                args.config.case_timeout = seconds("--case-timeout", &value("--case-timeout")?)?
            }
            "--startup-timeout" => {
                args.config.startup_timeout =
                    seconds("--startup-timeout", &value("--startup-timeout")?)?
            }
            "--slow-tool" => args.config.slow_tool = Some(value("--slow-tool")?),
            "--progress-tool" => args.config.progress_tool = Some(value("--progress-tool")?),
            "--input-tool" => {
                let v = value("--input-tool")?;
                let (name, json) = match v.split_once('=') {
                    Some((name, json)) => (name.to_owned(), Some(json)),
                    None => (v.clone(), None),
                };
                if let Some(json) = json {
                    let parsed = serde_json::from_str(json)
                        .map_err(|e| Error::Usage(format!("--input-tool {name}: bad JSON: {e}")))?;
                    args.config.input_args = Some(parsed);
                }
                args.config.input_tool = Some(name);
            }
            "--call" => {
                let v = value("--call")?;
                let (name, json) = v
                    .split_once('=')
                    .ok_or_else(|| Error::Usage(format!("--call wants NAME=JSON, not {v:?}")))?;
                let parsed = serde_json::from_str(json)
                    .map_err(|e| Error::Usage(format!("--call {name}: bad JSON: {e}")))?;
                args.config.tool_args.insert(name.to_owned(), parsed);
            }
            "--header" => {
                let v = value("--header")?;
                let (name, val) = v.split_once(':').ok_or_else(|| {
                    Error::Usage(format!("--header wants 'Name: value', not {v:?}"))
                })?;
                args.headers
                    .push((name.trim().to_owned(), val.trim().to_owned()));
            }
            "--" if kind.as_deref() == Some("stdio") => {
                positional.extend(argv.by_ref());
            }
            flag if flag.starts_with('-') && kind.as_deref() != Some("stdio")
                || flag.starts_with("--") =>
            {
                return Err(Error::Usage(format!("unknown option {flag:?}")));
            }
            word if kind.is_none() => match word {
                "stdio" | "http" | "sse" => kind = Some(word.to_owned()),
                other => {
                    return Err(Error::Usage(format!(
                        "unknown target {other:?}: stdio, http or sse"
                    )))
                }
            },
            word => positional.push(word.to_owned()),
        }
    }
    args.target = match kind.as_deref() {
        None => Target::Default,
        Some("stdio") if positional.is_empty() => {
            return Err(Error::Usage(
                "stdio needs a command: stdio -- COMMAND ARGS...".into(),
            ))
        }
        Some("stdio") => Target::Stdio(positional),
        Some(k) => {
            let [url] = positional.as_slice() else {
                return Err(Error::Usage(format!("{k} needs exactly one URL")));
            };
            if k == "http" {
                Target::Http(url.clone())
            } else {
                Target::Sse(url.clone())
            }
        }
    };
    if !args.headers.is_empty() && matches!(args.target, Target::Default | Target::Stdio(_)) {
        return Err(Error::Usage(
            "--header applies to http and sse targets only".into(),
        ));
    }
    Ok(Some(args))
}

/// This workspace's weather-server: next to this binary, else on PATH.
fn weather_server() -> String {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("weather-server")))
        .filter(|p| p.is_file());
    beside
        .unwrap_or_else(|| PathBuf::from("weather-server"))
        .to_string_lossy()
        .into_owned()
}

fn connector(target: &Target, headers: &[(String, String)]) -> Result<Arc<dyn Connector>, Error> {
    match target {
        Target::Default => Ok(Arc::new(StdioTarget::new(weather_server(), Vec::new()))),
        Target::Stdio(cmd) => {
            let (program, rest) = cmd
                .split_first()
                .ok_or_else(|| Error::Usage("stdio needs a command".into()))?;
            Ok(Arc::new(StdioTarget::new(program.clone(), rest.to_vec())))
        }
        Target::Http(url) => Ok(Arc::new(HttpTarget::new(url, headers)?)),
        Target::Sse(url) => Ok(Arc::new(SseTarget::new(url, headers)?)),
    }
}

fn main() {
    let code = match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mcp-conformance: {e}");
            if matches!(e, Error::Usage(_)) {
                eprint!("\n{USAGE}");
            }
            2
        }
    };
    std::process::exit(code);
}

fn real_main() -> Result<i32, Error> {
    let Some(args) = parse_args(std::env::args().skip(1))? else {
        print!("{USAGE}");
        return Ok(0);
    };
    let cases = conformance::cases::all();
    if let Some(id) = &args.explain {
        let case = cases
            .iter()
            .find(|c| c.id == id)
            .ok_or_else(|| Error::Usage(format!("no case {id:?} (--list shows them)")))?;
        print!("{}", conformance::explain::render(case));
        return Ok(0);
    }
    let baseline = args
        .baseline
        .as_deref()
        .map(conformance::baseline::Baseline::load)
        .transpose()?;
    if args.list {
        for case in cases.iter().filter(|c| args.filter.selects(c.id)) {
            println!(
                "{:<40} {:<6} {:<24} {}",
                case.id,
                case.level.to_string(),
                case.versions.to_string(),
                case.title
            );
        }
        return Ok(0);
    }
    let connector = connector(&args.target, &args.headers)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut progress = Progress::new(std::io::stderr().is_terminal());
    let report = runtime.block_on(runner::run_with_progress(
        connector,
        args.config,
        &args.filter,
        &cases,
        &mut |n, total, id| progress.show(n, total, id),
    ));
    progress.clear();
    let report = report?;
    runtime.shutdown_timeout(Duration::from_secs(1));
    let verdict = Verdict::of(&report, args.strict, baseline.as_ref());
    let color =
        args.format == Format::Table && args.output.is_none() && std::io::stdout().is_terminal();
    let mut text = report::render(&report, args.format, color);
    if args.format == Format::Table {
        text.push_str(&verdict.summary(baseline.is_some()));
    } else {
        eprint!("{}", verdict.summary(baseline.is_some()));
    }
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| Error::Usage(format!("--output {}: {e}", path.display())))?,
        None => print!("{text}"),
    }
    if let Some(path) = &args.write_baseline {
        let written = Baseline::from_report(&report, args.strict);
        std::fs::write(path, written.to_json(&report.target))
            .map_err(|e| Error::Usage(format!("--write-baseline {}: {e}", path.display())))?;
        eprintln!(
            "mcp-conformance: wrote {} failure(s) to {}",
            written.failures.len(),
            path.display()
        );
    }
    Ok(verdict.exit_code())
}

/// The progress line on a terminal's stderr: `[n/N] case.id`, rewritten in place.
struct Progress {
    on: bool,
    width: usize,
}

impl Progress {
    fn new(on: bool) -> Self {
        Progress { on, width: 0 }
    }

    fn show(&mut self, n: usize, total: usize, id: &str) {
        if !self.on {
            return;
        }
        let line = format!("[{n}/{total}] {id}");
        let pad = self.width.saturating_sub(line.chars().count());
        self.width = line.chars().count();
        eprint!("\r{line}{}", " ".repeat(pad));
    }

    fn clear(&mut self) {
        if self.on && self.width > 0 {
            eprint!("\r{}\r", " ".repeat(self.width));
        }
    }
}
