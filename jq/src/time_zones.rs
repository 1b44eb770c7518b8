//! `strptime` with time zones from data compiled in.
//!
//! jaq's `strptime` hands a parsed IANA zone name (`%Q`, e.g. `America/New_York`) to jiff's
//! global time zone database, which reads `TZDIR`, `/usr/share/zoneinfo` or
//! `/usr/share/lib/zoneinfo`: the answer then depends on the host's files and environment (a
//! crafted `TZDIR` changes it), where the engine promises pure computation over the records.
//! This native is jaq's, except that names resolve in jiff's bundled tzdb (the
//! `tzdb-bundle-always` feature), the same on every host, wasm included. The other time
//! natives need no database: `strftime`, `gmtime`, `mktime`, `todate`, `fromdate` and
//! `dateadd` work in UTC or with the offset written in the input; `localtime` and
//! `strflocaltime` read the host's zone and are withheld (see `sandbox::WITHHELD`).

use std::sync::OnceLock;

use jaq_core::Native;
use jaq_core::native::{Fun, bome, v};
use jaq_json::Val;
use jiff::civil::DateTime;
use jiff::fmt::strtime::BrokenDownTime;
use jiff::tz::{Offset, TimeZoneDatabase};

use crate::data::Data;

type Error = jaq_core::Error<Val>;

/// The tzdb compiled into the binary, loaded once (an index over static bytes).
fn bundled() -> &'static TimeZoneDatabase {
    static DB: OnceLock<TimeZoneDatabase> = OnceLock::new();
    DB.get_or_init(TimeZoneDatabase::bundled)
}

/// jq's "broken down time": `[year, month-1, day, hours, minutes, seconds, weekday,
/// day of year - 1]`, seconds with their fraction (as jaq writes it).
fn broken_down(dt: DateTime) -> Val {
    let seconds = if dt.subsec_nanosecond() > 0 {
        Val::from(f64::from(dt.second()) + f64::from(dt.subsec_nanosecond()) / 1e9)
    } else {
        Val::from(isize::from(dt.second()))
    };
    [
        Val::from(dt.year() as isize),
        Val::from(isize::from(dt.month()) - 1),
        Val::from(isize::from(dt.day())),
        Val::from(isize::from(dt.hour())),
        Val::from(isize::from(dt.minute())),
        seconds,
        Val::from(isize::from(dt.weekday().to_sunday_zero_offset())),
        Val::from(isize::from(dt.day_of_year()) - 1),
    ]
    .into_iter()
    .collect()
}

/// The UTF-8 text of a string value (jaq's `strptime` takes text strings and byte strings).
fn text_of(v: &Val) -> Result<&str, Error> {
    match v {
        Val::TStr(s) | Val::BStr(s) => std::str::from_utf8(s).map_err(Error::str),
        other => Err(Error::str(format!(
            "{other} cannot be parsed as a time: it is not a string"
        ))),
    }
}

/// `text | strptime(format)`: jaq's semantics (no zone and no offset means UTC), zone names
/// from the bundled tzdb. Errors are jq's message (`date "S" does not match format "F"`),
/// or name the zone the database lacks; never jiff's error text, whose formatting is tens of
/// kilobytes of the wasm module (the vendored jaq-std's time filters do the same).
pub(crate) fn strptime(text: &str, format: &str) -> Result<Val, Error> {
    let no_match = || Error::str(format!("date {text:?} does not match format {format:?}"));
    let mut parsed = BrokenDownTime::parse(format, text).map_err(|_| no_match())?;
    if (parsed.offset(), parsed.iana_time_zone()) == (None, None) {
        parsed.set_offset(Some(Offset::UTC));
    }
    let zoned = parsed
        .to_zoned_with(bundled())
        .map_err(|_| match parsed.iana_time_zone() {
            Some(zone) if bundled().get(zone).is_err() => {
                Error::str(format!("unknown time zone {zone:?} in date {text:?}"))
            }
            _ => no_match(),
        })?;
    Ok(broken_down(zoned.datetime()))
}

/// The `strptime/1` native that replaces jaq's.
pub(crate) fn strptime_native() -> Fun<Data> {
    let native = Native::<Data>::new(|mut cv| {
        let format = cv.0.pop_var();
        bome(text_of(&cv.1).and_then(|text| strptime(text, text_of(&format)?)))
    });
    ("strptime", v(1), native)
}
