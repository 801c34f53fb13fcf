//! Fuzz target `sse`: the invariants live in `fuzz_checks::check_sse`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_sse(data));
