//! Fuzz target `fast_paths`: the invariants live in `fuzz_checks::check_fast_paths`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_fast_paths(data));
