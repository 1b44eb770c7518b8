//! `extract_bounded`: see `lro_core::fuzz_checks::check_extract_bounded` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lro_core::fuzz_checks::check_extract_bounded(data));
