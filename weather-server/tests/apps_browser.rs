//! The weather app (MCP Apps) in a real browser: Debian's Chromium, driven by playwright-core,
//! shows our view inside a test page whose host is the official `AppBridge` of
//! `@modelcontextprotocol/ext-apps`, with weather-server behind it over Streamable HTTP through
//! the official TypeScript SDK v2 client (`tests/interop/apps_host.mjs`). It renders the card
//! for a city, switches city through the picker (tools/call reaching weather-server), follows a
//! theme change and a display-mode change, and writes screenshots of the card to
//! `target/apps-screenshots/`. Both eras are checked for the extension on the way.
//!
//! The peers come from `scripts/interop-setup.sh` (`MCP_INTEROP_APPS_MODULES`,
//! `MCP_INTEROP_CHROMIUM`); without them the test skips, unless `MCP_INTEROP_REQUIRED=1`.

mod common;

use std::path::{Path, PathBuf};

use common::{drive_node, HttpServer};

/// The apps peers (`node_modules` with ext-apps and playwright-core) and the browser, or `None`
/// to skip (a failure under `MCP_INTEROP_REQUIRED=1`).
fn peers() -> Option<(PathBuf, PathBuf)> {
    let modules = std::env::var_os("MCP_INTEROP_APPS_MODULES").map(PathBuf::from);
    let chromium = std::env::var_os("MCP_INTEROP_CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from("/usr/bin/chromium")));
    let ready = |m: &Path| {
        m.join("@modelcontextprotocol/ext-apps").exists() && m.join("playwright-core").exists()
    };
    match (modules, chromium) {
        (Some(m), Some(c)) if ready(&m) && c.exists() => Some((m, c)),
        _ => {
            if std::env::var("MCP_INTEROP_REQUIRED").as_deref() == Ok("1") {
                panic!("the MCP Apps peers (ext-apps, playwright-core, chromium) are missing but MCP_INTEROP_REQUIRED=1; run scripts/interop-setup.sh");
            }
            eprintln!(
                "skipped: no MCP Apps peers; run `eval \"$(scripts/interop-setup.sh)\"` to enable"
            );
            None
        }
    }
}

/// Where the screenshots go: the workspace's `target/apps-screenshots`.
fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("apps-screenshots")
}

#[tokio::test]
async fn weather_app_in_the_official_host_in_chromium() {
    let Some((modules, chromium)) = peers() else {
        return;
    };
    let server = HttpServer::start(&[]).await;
    let shots = artifacts();
    let _ = std::fs::remove_dir_all(&shots);
    let out = drive_node(
        "apps_host.mjs",
        &modules,
        &[
            &server.url("/mcp"),
            &chromium.to_string_lossy(),
            &shots.to_string_lossy(),
        ],
        "OK weather app",
    )
    .await;
    assert!(out.contains("theme dark"), "{out}");
    for shot in ["weather-app-light.png", "weather-app-dark.png"] {
        let path = shots.join(shot);
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        assert!(size > 1000, "{} was not written", path.display());
    }
    server.stop().await;
}
