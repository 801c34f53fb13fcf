//! `mcp ui [--port N] [--no-open]`: the hub as a local web page, and an MCP Apps host.
//!
//! Two loopback listeners: the page origin (the page, its files and its API; guarded by Host,
//! Origin and a per-run token, see `guard`) and the app origin, which serves nothing but the
//! views (`views`), each with its Content Security Policy (`csp`). The page frames a view with
//! `sandbox="allow-scripts"` and speaks the host side of MCP Apps with it over `postMessage`
//! (`web/app_host.js`). The command prints the page's URL with the token and opens it with
//! `xdg-open` where there is one; it serves until interrupted.

mod api;
mod assets;
mod body;
mod csp;
mod guard;
mod listener;
mod page;
mod token;
mod views;

use std::process::Stdio;

use mcp_hub::HubOptions;
use tokio::net::TcpListener;

use crate::commands::{connect, load, Failure, Outcome};
use crate::config_path::ConfigSource;

/// Connects the hub, serves the page and the views, prints the URL, opens the browser.
pub async fn ui(source: &ConfigSource, port: Option<u16>, open: bool) -> Outcome {
    let config = load(source)?;
    let page_listener = bind(port.unwrap_or(0)).await?;
    let app_listener = bind(0).await?;
    let (page_port, app_port) = (local_port(&page_listener)?, local_port(&app_listener)?);
    let hub = connect(config, HubOptions::default()).await;
    for s in hub.servers() {
        if let mcp_hub::ServerStatus::Failed(reason) = &s.status {
            eprintln!("mcp ui: server {} failed: {reason}", s.config.name);
        }
    }
    let token = token::Token::generate();
    let url = format!("http://127.0.0.1:{page_port}/?token={}", token.as_str());
    let page = page::Page {
        hub: hub.clone(),
        guard: guard::Guard::new(page_port, token),
        views: views::Views::new(app_port),
    };
    let views = page.views.clone();
    tokio::spawn(listener::serve(app_listener, move |req| {
        let answer = views.serve(req.headers(), req.uri().path());
        async move { answer }
    }));
    outln!("mcp ui: {url}");
    if open {
        open_browser(&url);
    }
    // Serves until a signal ends the command; `interrupt::run` then closes the hub.
    let served = listener::serve(page_listener, move |req| {
        let page = page.clone();
        async move { page.handle(req).await }
    });
    match served.await {}
}

async fn bind(port: u16) -> Result<TcpListener, Failure> {
    TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| Failure::usage(format!("cannot listen on 127.0.0.1:{port}: {e}")))
}

fn local_port(listener: &TcpListener) -> Result<u16, Failure> {
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| Failure::usage(format!("cannot read the listening address: {e}")))
}

/// Opens `url` with `xdg-open` (or macOS's `open`) when one is on the PATH and, off macOS,
/// there is a display to open it on (`DISPLAY` or `WAYLAND_DISPLAY`); otherwise, or when it
/// fails, the printed URL is the way in.
fn open_browser(url: &str) {
    let display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()));
    if !display && !cfg!(target_os = "macos") {
        eprintln!("mcp ui: no display here; open the URL above in a browser");
        return;
    }
    let opener = ["xdg-open", "open"].into_iter().find(|name| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()))
    });
    let Some(opener) = opener else {
        eprintln!("mcp ui: no xdg-open here; open the URL above in a browser");
        return;
    };
    let spawned = tokio::process::Command::new(opener)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match spawned {
        Ok(mut child) => {
            tokio::spawn(async move {
                let _ = child.wait().await;
            });
        }
        Err(e) => eprintln!("mcp ui: {opener} failed ({e}); open the URL above in a browser"),
    }
}
