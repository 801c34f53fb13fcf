//! `mcp servers` and `mcp ping`.

use std::process::ExitCode;
use std::time::Instant;

use mcp_hub::ServerStatus;

use super::{load, open_hub, Failure, Outcome};
use crate::config_path::ConfigSource;
use crate::output::{first_line, table};

/// Each server with its transport, status, era and negotiated version (`modern 2026-07-28`,
/// `legacy 2025-11-25`) and counts.
pub async fn servers(source: &ConfigSource) -> Outcome {
    let format = load(source)?.format;
    outln!("{}", source.describe(format));
    let hub = open_hub(source, None).await?;
    let mut rows = Vec::new();
    let mut details = Vec::new();
    for s in hub.servers() {
        let counts = if s.status == ServerStatus::Connected {
            format!(
                "tools {}, resources {}, prompts {}",
                s.lists.tools.len(),
                s.lists.resources.len() + s.lists.templates.len(),
                s.lists.prompts.len()
            )
        } else {
            String::new()
        };
        let status = if s.status.needs_login() {
            format!("needs login (mcp login {})", s.config.name)
        } else {
            s.status.describe()
        };
        if status.contains('\n') {
            details.push(format!("{}: {status}", s.config.name));
        }
        rows.push(vec![
            s.config.name.clone(),
            s.config.transport.kind().to_owned(),
            first_line(&status),
            match (&s.era, &s.protocol_version) {
                (Some(era), Some(version)) => format!("{era} {version}"),
                _ => "-".into(),
            },
            counts,
        ]);
    }
    out!("{}", table(&rows));
    for detail in details {
        outln!();
        for line in detail.lines() {
            outln!("  {line}");
        }
    }
    hub.close().await;
    Ok(ExitCode::SUCCESS)
}

/// Pings every connected server (or one); exit 2 when any does not answer.
pub async fn ping(source: &ConfigSource, only: Option<&str>) -> Outcome {
    let hub = open_hub(source, only).await?;
    let mut failed = 0;
    for s in hub.servers() {
        let name = s.config.name.clone();
        if s.status == ServerStatus::Disabled && only.is_none() {
            outln!("{name}: disabled");
            continue;
        }
        let started = Instant::now();
        match hub.ping(&name).await {
            Ok(()) => outln!("{name}: ok ({} ms)", started.elapsed().as_millis()),
            Err(e) => {
                failed += 1;
                outln!("{name}: {e}");
            }
        }
    }
    hub.close().await;
    if failed > 0 {
        return Err(Failure::usage(format!("{failed} server(s) did not answer")));
    }
    Ok(ExitCode::SUCCESS)
}
