//! Fuzz target `server`: the invariants live in `fuzz_checks::check_server`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_server(data));
