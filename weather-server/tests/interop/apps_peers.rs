//! Where the MCP Apps browser tests find their peers (shared by weather-server's and mcp-cli's
//! tests): ext-apps and playwright-core from `scripts/interop-setup.sh`
//! (`MCP_INTEROP_APPS_MODULES`) and Debian's Chromium (`MCP_INTEROP_CHROMIUM`, else
//! `/usr/bin/chromium`), and where screenshots go.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The apps peers' `node_modules` and the browser, or `None` to skip (a failure under
/// `MCP_INTEROP_REQUIRED=1`).
pub fn apps_peers() -> Option<(PathBuf, PathBuf)> {
    let modules = std::env::var_os("MCP_INTEROP_APPS_MODULES").map(PathBuf::from);
    let chromium = std::env::var_os("MCP_INTEROP_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let ready = |m: &Path| {
        m.join("@modelcontextprotocol/ext-apps").exists() && m.join("playwright-core").exists()
    };
    match modules {
        Some(m) if ready(&m) && chromium.exists() => Some((m, chromium)),
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

/// `target/apps-screenshots/<name>` of the workspace, emptied.
pub fn screenshots(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("apps-screenshots").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The browser driver, `apps_host.mjs`.
pub fn apps_driver() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../weather-server/tests/interop/apps_host.mjs")
}
