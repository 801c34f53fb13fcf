//! The invariants of the fuzz targets, as ordinary functions.
//!
//! Each `check_<target>(data)` takes any bytes and panics when an invariant fails. The cargo-fuzz
//! crate in `fuzz/` calls them from libFuzzer (`cargo +nightly fuzz run <target>`), and
//! `tests/replay_corpus.rs` runs every file of `fuzz/corpus/<target>/` through them on stable
//! Rust, so `cargo test --workspace` keeps the corpus passing.

#![forbid(unsafe_code)]

mod codec;
mod config;
mod fast_paths;
mod jsonrpc;
pub mod reference;
mod server;
mod sse;
mod uri_template;

pub use codec::check_codec;
pub use config::check_config;
pub use fast_paths::{check_fast_paths, check_text as check_fast_paths_on, placements};
pub use jsonrpc::check_jsonrpc;
pub use server::check_server;
pub use sse::check_sse;
pub use uri_template::check_uri_template;

/// A check: panics when `data` breaks an invariant.
pub type Check = fn(&[u8]);

/// Every target by name, for the corpus replay.
pub const TARGETS: [(&str, Check); 7] = [
    ("codec", check_codec),
    ("jsonrpc", check_jsonrpc),
    ("sse", check_sse),
    ("uri_template", check_uri_template),
    ("config", check_config),
    ("server", check_server),
    ("fast_paths", check_fast_paths),
];

/// Reads leading control bytes off a fuzz input; a missing byte reads as 0.
pub(crate) struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Input(data)
    }
    pub(crate) fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    pub(crate) fn rest(self) -> &'a [u8] {
        self.0
    }
}

/// Cuts `stream` into chunks whose sizes follow from `seed`: 0 feeds it whole, else the sizes
/// cycle through 1..=seed%16+1 (so byte-at-a-time and uneven splits are both tried).
pub(crate) fn chunks(stream: &[u8], seed: u8) -> Vec<&[u8]> {
    if seed == 0 {
        return vec![stream];
    }
    let period = usize::from(seed % 16) + 1;
    let mut out = Vec::new();
    let mut rest = stream;
    let mut size = 1;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(size.min(rest.len()));
        out.push(chunk);
        rest = tail;
        size = size % period + 1;
    }
    out
}
