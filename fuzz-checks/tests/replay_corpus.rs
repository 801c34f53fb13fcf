//! Replays every seed of `fuzz/corpus/<target>/` through its check, so CI keeps the corpus on
//! stable Rust. A seed whose name starts with `known-` reproduces a bug being fixed elsewhere; it
//! is skipped with a note until the fix lands (then drop the prefix).

use std::path::{Path, PathBuf};

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target)
}

fn replay(target: &str, check: fn(&[u8])) {
    let dir = corpus_dir(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} has no seeds", dir.display());
    let mut failed = Vec::new();
    for file in &files {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let data = std::fs::read(file).expect("a readable seed");
        let passed = std::panic::catch_unwind(|| check(&data)).is_ok();
        if name.starts_with("known-") {
            let status = if passed {
                "no longer reproduces: once the fix is merged, drop the known- prefix"
            } else {
                "still reproduces"
            };
            eprintln!("{target}/{name}: skipped: a known bug being fixed on main (see fuzz/README.md); {status}");
        } else if !passed {
            failed.push(name);
        }
    }
    assert!(
        failed.is_empty(),
        "{target}: seeds failing their check: {failed:?}"
    );
}

#[test]
fn every_target_has_a_check_and_a_corpus() {
    for (target, _) in fuzz_checks::TARGETS {
        assert!(corpus_dir(target).is_dir(), "no corpus for {target}");
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fuzz/fuzz_targets")
            .join(format!("{target}.rs"));
        assert!(source.is_file(), "no fuzz target {}", source.display());
    }
}

#[test]
fn codec_corpus() {
    replay("codec", fuzz_checks::check_codec);
}

#[test]
fn jsonrpc_corpus() {
    replay("jsonrpc", fuzz_checks::check_jsonrpc);
}

#[test]
fn sse_corpus() {
    replay("sse", fuzz_checks::check_sse);
}

#[test]
fn uri_template_corpus() {
    replay("uri_template", fuzz_checks::check_uri_template);
}

#[test]
fn config_corpus() {
    replay("config", fuzz_checks::check_config);
}

#[test]
fn server_corpus() {
    replay("server", fuzz_checks::check_server);
}

#[test]
fn fast_paths_corpus() {
    replay("fast_paths", fuzz_checks::check_fast_paths);
}
