//! `intercept_text`: see `lro_core::fuzz_checks::check_intercept_text` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lro_core::fuzz_checks::check_intercept_text(data));
