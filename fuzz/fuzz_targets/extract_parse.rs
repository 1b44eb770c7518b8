//! `extract_parse`: see `lro_jq::fuzz_checks::check_record_parser` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lro_jq::fuzz_checks::check_record_parser(data));
