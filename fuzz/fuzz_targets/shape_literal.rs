//! `shape_literal`: see `lro_core::fuzz_checks::check_shape_literal` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lro_core::fuzz_checks::check_shape_literal(data));
