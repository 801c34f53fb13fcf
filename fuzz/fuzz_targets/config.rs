//! Fuzz target `config`: the invariants live in `fuzz_checks::check_config`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_config(data));
