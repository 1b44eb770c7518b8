//! `intercept_text`: see `lro_mcp::fuzz_checks::check_intercept_text` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lro_mcp::fuzz_checks::check_intercept_text(data));
