//! Fuzz target `jsonrpc`: the invariants live in `fuzz_checks::check_jsonrpc`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_jsonrpc(data));
