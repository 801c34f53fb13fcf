//! Hot-code layout for the release binary on x86-64 Linux (glibc).
//!
//! The kernel maps an executable's code in 64 KiB windows, so where the functions that serve a
//! request sit decides how much of the binary becomes resident. `hot-symbols.txt` (made by
//! `scripts/hot-symbols.sh`) lists them; the linker lays them out first and together. That keeps
//! about 1 MiB of the 5 MiB of code resident instead of about 3.5 MiB, with no change to the code.
//!
//! Only where the default linker reads the list: rustc 1.90 or later on x86_64-unknown-linux-gnu
//! (rust-lld), a release build, and no linker chosen by the user (another linker may not know the
//! option). A stale list costs memory, never correctness: the linker skips names it doesn't find.
//! `WEATHER_SERVER_HOT_LAYOUT=0` turns it off.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=hot-symbols.txt");
    println!("cargo:rerun-if-env-changed=WEATHER_SERVER_HOT_LAYOUT");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    if wanted() {
        let list = format!("{}/hot-symbols.txt", env!("CARGO_MANIFEST_DIR"));
        println!("cargo:rustc-link-arg-bin=weather-server=-Wl,--symbol-ordering-file={list}");
        println!("cargo:rustc-link-arg-bin=weather-server=-Wl,--no-warn-symbol-ordering");
    }
}

/// Whether this build links with rust-lld, the linker that reads the list, in release mode.
fn wanted() -> bool {
    let var = |name: &str| env::var(name).unwrap_or_default();
    if var("WEATHER_SERVER_HOT_LAYOUT") == "0" || var("PROFILE") != "release" {
        return false;
    }
    let gnu_x86_64 = var("CARGO_CFG_TARGET_ARCH") == "x86_64"
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu";
    // A linker of the user's choice (target.<triple>.linker, -C linker, -C linker-flavor,
    // -C link-self-contained, -Z linker-features, -fuse-ld) may not be lld.
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let own_linker = !var("RUSTC_LINKER").is_empty()
        || ["linker", "link-self-contained", "fuse-ld"]
            .iter()
            .any(|word| flags.contains(word));
    gnu_x86_64 && !own_linker && rustc_minor().is_some_and(|minor| minor >= 90)
}

/// The minor version of the rustc that builds this crate (rust-lld is its default linker on
/// x86_64-unknown-linux-gnu from 1.90 on).
fn rustc_minor() -> Option<u32> {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let output = Command::new(rustc).arg("-V").output().ok()?;
    let version = String::from_utf8(output.stdout).ok()?;
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    version
        .split_whitespace()
        .nth(1)?
        .split('.')
        .nth(1)?
        .parse()
        .ok()
}
