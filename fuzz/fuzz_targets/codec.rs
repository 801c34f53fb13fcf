//! Fuzz target `codec`: the invariants live in `fuzz_checks::check_codec`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_codec(data));
