//! The weather app (MCP Apps) in a real browser: Debian's Chromium, driven by playwright-core,
//! shows our view inside a test page whose host is the official `AppBridge` of
//! `@modelcontextprotocol/ext-apps`, with weather-server behind it over Streamable HTTP through
//! the official TypeScript SDK v2 client (`tests/interop/apps_host.mjs`). It renders the card
//! for a city, switches city through the picker (tools/call reaching weather-server), follows a
//! theme change and a display-mode change, and writes screenshots of the card to
//! `target/apps-screenshots/direct/`. Both eras are checked for the extension on the way.
//!
//! The peers come from `scripts/interop-setup.sh` (`MCP_INTEROP_APPS_MODULES`,
//! `MCP_INTEROP_CHROMIUM`); without them the test skips, unless `MCP_INTEROP_REQUIRED=1`.

mod common;

#[path = "interop/apps_peers.rs"]
mod apps_peers;

use apps_peers::{apps_peers, screenshots};
use common::{drive_node, HttpServer};

#[tokio::test]
async fn weather_app_in_the_official_host_in_chromium() {
    let Some((modules, chromium)) = apps_peers() else {
        return;
    };
    let server = HttpServer::start(&[]).await;
    let shots = screenshots("direct");
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
