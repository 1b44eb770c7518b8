//! ISO 8601 timestamps from Unix milliseconds (no calendar crate for twenty lines).

/// Formats `millis` since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
///
/// ```
/// assert_eq!(lro_core::time::iso8601(0), "1970-01-01T00:00:00.000Z");
/// assert_eq!(lro_core::time::iso8601(1_767_225_600_123), "2026-01-01T00:00:00.123Z");
/// ```
pub fn iso8601(millis: u64) -> String {
    let secs = millis / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        millis % 1000
    )
}
