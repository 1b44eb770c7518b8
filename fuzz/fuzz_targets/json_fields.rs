//! `json_fields`: see `lro_json::fuzz_checks::check_json_fields` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lro_json::fuzz_checks::check_json_fields(data));
