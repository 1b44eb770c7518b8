//! The few calls `repr()` writes for values database drivers return, read as the text JSON
//! encoders give them (`str()` of a `Decimal` or `UUID`, `isoformat()` of a date and time):
//! `mcp-server-sqlite`-style servers over PostgreSQL or MySQL return `str(rows)`, whose
//! rows hold `Decimal('9.50')` and `datetime.datetime(2024, 1, 31, 12, 0)`.
//!
//! Each form is read exactly or refused (`None`, and the caller keeps the text as text):
//! - `Decimal('…')`, `decimal.Decimal('…')`, `UUID('…')`, `uuid.UUID('…')`: the string;
//! - `datetime.date(Y, M, D)`: `"YYYY-MM-DD"`;
//! - `datetime.time(h, m[, s[, us]][, tzinfo=…])`: `"hh:mm:ss[.ffffff]"` as `isoformat()`;
//! - `datetime.datetime(Y, M, D, h, m[, s[, us]][, tzinfo=…][, fold=…])`: `isoformat()`,
//!   `T` between date and time;
//! - a `tzinfo` of `datetime.timezone.utc` or `datetime.timezone(datetime.timedelta(…))`
//!   gives the offset (`+00:00`); a named zone (`zoneinfo.ZoneInfo(key='…')`) has no offset
//!   in the text and is refused, as are `timedelta` and every other call.

use serde_json::Value;

use super::Reader;

/// What a call's name reads as.
enum Call {
    /// A string argument, kept as it is.
    Text,
    Date,
    Time,
    DateTime,
}

fn call_of(name: &[u8]) -> Option<Call> {
    Some(match name {
        b"Decimal" | b"decimal.Decimal" | b"UUID" | b"uuid.UUID" => Call::Text,
        b"datetime.date" => Call::Date,
        b"datetime.time" => Call::Time,
        b"datetime.datetime" => Call::DateTime,
        _ => return None,
    })
}

impl Reader<'_> {
    /// The call named `name`, its `(` next: its value, or `None` when it is not one of the
    /// forms above.
    pub(super) fn call(&mut self, name: &[u8]) -> Option<Value> {
        let call = call_of(name)?;
        self.at += 1; // the `(`
        let value = match call {
            Call::Text => {
                self.skip_space();
                if !matches!(self.peek(), Some(b'\'' | b'"')) {
                    return None;
                }
                let text = self.string()?;
                self.eat(b',');
                text
            }
            Call::Date => {
                let [year, month, day] = self.ints::<3>()?;
                date(year, month, day)?
            }
            Call::Time => {
                let (fields, offset) = self.clock(2)?;
                time(&fields)? + &offset
            }
            Call::DateTime => {
                let [year, month, day] = self.ints::<3>()?;
                if !self.eat(b',') {
                    return None;
                }
                let (fields, offset) = self.clock(2)?;
                format!("{}T{}{offset}", date(year, month, day)?, time(&fields)?)
            }
        };
        self.eat(b')').then_some(Value::String(value))
    }

    /// `N` comma-separated non-negative ints.
    fn ints<const N: usize>(&mut self) -> Option<[u32; N]> {
        let mut out = [0; N];
        for (i, slot) in out.iter_mut().enumerate() {
            if i > 0 && !self.eat(b',') {
                return None;
            }
            *slot = self.int()?;
        }
        Some(out)
    }

    fn int(&mut self) -> Option<u32> {
        self.skip_space();
        let rest = &self.text[self.at..];
        let end = rest
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(rest.len());
        let value = std::str::from_utf8(&rest[..end]).ok()?.parse().ok()?;
        self.at += end;
        Some(value)
    }

    /// The clock fields of a time (at least `required` of hour, minute, second,
    /// microsecond), then the keyword arguments `tzinfo` (its offset) and `fold`.
    fn clock(&mut self, required: usize) -> Option<(Vec<u32>, String)> {
        let mut fields = vec![self.int()?];
        let mut offset = String::new();
        while self.eat(b',') {
            self.skip_space();
            if self.peek().is_some_and(|b| b.is_ascii_digit()) {
                if fields.len() == 4 {
                    return None;
                }
                fields.push(self.int()?);
            } else if self.keyword(b"tzinfo") {
                offset = self.timezone()?;
            } else if self.keyword(b"fold") {
                self.int()?;
            } else {
                break; // a trailing comma
            }
        }
        (fields.len() >= required).then_some((fields, offset))
    }

    /// Consumes `name=` when it comes next.
    fn keyword(&mut self, name: &[u8]) -> bool {
        let rest = &self.text[self.at..];
        if rest.starts_with(name) && rest.get(name.len()) == Some(&b'=') {
            self.at += name.len() + 1;
            true
        } else {
            false
        }
    }

    /// Consumes the first of `names` that comes next (no white space skipped).
    fn eat_name(&mut self, names: &[&[u8]]) -> bool {
        let rest = &self.text[self.at..];
        match names.iter().find(|name| rest.starts_with(name)) {
            Some(name) => {
                self.at += name.len();
                true
            }
            None => false,
        }
    }

    /// `datetime.timezone.utc` or `datetime.timezone(datetime.timedelta(…))`: the offset as
    /// `isoformat()` writes it.
    fn timezone(&mut self) -> Option<String> {
        self.skip_space();
        if self.eat_name(&[b"datetime.timezone.utc", b"timezone.utc"]) {
            return Some("+00:00".to_owned());
        }
        if !self.eat_name(&[b"datetime.timezone(", b"timezone("]) {
            return None;
        }
        let seconds = self.timedelta()?;
        self.eat(b')').then(|| offset(seconds)).flatten()
    }

    /// `datetime.timedelta(days=…, seconds=…)` (as `repr()` writes an offset): seconds.
    fn timedelta(&mut self) -> Option<i64> {
        self.skip_space();
        if !self.eat_name(&[b"datetime.timedelta(", b"timedelta("]) {
            return None;
        }
        let mut seconds = 0i64;
        loop {
            self.skip_space();
            let unit = if self.keyword(b"days") {
                86_400
            } else if self.keyword(b"seconds") {
                1
            } else {
                return self.eat(b')').then_some(seconds);
            };
            let negative = self.eat(b'-');
            let count = i64::from(self.int()?);
            seconds += unit * if negative { -count } else { count };
            self.eat(b',');
        }
    }
}

fn date(year: u32, month: u32, day: u32) -> Option<String> {
    ((1..=9999).contains(&year) && (1..=12).contains(&month) && (1..=31).contains(&day))
        .then(|| format!("{year:04}-{month:02}-{day:02}"))
}

/// `isoformat()` of hour, minute and, when given, second and microsecond.
fn time(fields: &[u32]) -> Option<String> {
    let limits = [23, 59, 59, 999_999];
    if fields
        .iter()
        .zip(limits)
        .any(|(value, limit)| *value > limit)
    {
        return None;
    }
    let mut out = format!(
        "{:02}:{:02}:{:02}",
        fields[0],
        fields[1],
        fields.get(2).unwrap_or(&0)
    );
    if let Some(micros) = fields.get(3).filter(|m| **m > 0) {
        out.push_str(&format!(".{micros:06}"));
    }
    Some(out)
}

/// `+hh:mm` of an offset in seconds, less than a day either way (as `timezone` allows).
fn offset(seconds: i64) -> Option<String> {
    if seconds.abs() >= 86_400 || seconds % 60 != 0 {
        return None;
    }
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.abs() / 60;
    Some(format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::parse;

    #[test]
    fn driver_values_read_as_their_json_text() {
        let rows = "[(1, Decimal('9.50'), datetime.datetime(2024, 1, 31, 12, 0), datetime.date(2024, 2, 1), \
                    UUID('12345678-1234-5678-1234-567812345678'), datetime.time(7, 5, 3, 120)), \
                    (2, decimal.Decimal('-0.001'), datetime.datetime(2024, 1, 31, 12, 0, 5, 250000, tzinfo=datetime.timezone.utc), \
                    None, None, datetime.datetime(1999, 12, 31, 23, 59, 59, tzinfo=datetime.timezone(datetime.timedelta(days=-1, seconds=68400))))]";
        assert_eq!(
            parse(rows),
            Some(json!([
                [
                    1,
                    "9.50",
                    "2024-01-31T12:00:00",
                    "2024-02-01",
                    "12345678-1234-5678-1234-567812345678",
                    "07:05:03.000120"
                ],
                [
                    2,
                    "-0.001",
                    "2024-01-31T12:00:05.250000+00:00",
                    null,
                    null,
                    "1999-12-31T23:59:59-05:00"
                ]
            ]))
        );
        assert_eq!(
            parse(
                "{'at': datetime.datetime(2024, 1, 1, 0, 0, tzinfo=datetime.timezone(datetime.timedelta(seconds=19800)), fold=1)}"
            ),
            Some(json!({"at": "2024-01-01T00:00:00+05:30"}))
        );
        // bytes: the literal's own text.
        assert_eq!(
            parse(r#"[(1, b'\x00\'', b"q")]"#),
            Some(json!([[1, r#"b'\x00\''"#, r#"b"q""#]]))
        );
    }

    #[test]
    fn other_calls_and_malformed_ones_are_refused() {
        for text in [
            "[datetime.timedelta(days=1)]",
            "[datetime.datetime(2024, 1, 1, 0, 0, tzinfo=zoneinfo.ZoneInfo(key='UTC'))]",
            "[datetime.date(2024, 13, 1)]",
            "[datetime.datetime(2024, 1, 1)]",
            "[datetime.time(25, 0)]",
            "[Decimal(1)]",
            "[Decimal('1', 2)]",
            "[set([1])]",
            "[b'x\ny']",
            "[date(2024, 1, 1)]",
            "[datetime.datetime(2024, 1, 1, 0, 0, 0, 0, 1)]",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
