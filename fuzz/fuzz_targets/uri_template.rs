//! Fuzz target `uri_template`: the invariants live in `fuzz_checks::check_uri_template`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_uri_template(data));
