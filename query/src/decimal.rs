//! Numbers compared exactly by their decimal text: integers beyond 64 bits and decimals
//! longer than a double's seventeen digits (kept as text, see `extract::convert`) are
//! ordered by value, so `{"big": 123456789012345678901234567891}` does not match a record
//! whose `big` is one less, as two doubles would say it does.

use std::cmp::Ordering;

/// A finite decimal number: its sign, its significant digits (no leading or trailing zeros,
/// empty for zero) and the power of ten of the first one.
struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    /// The value is `0.d1d2d3... * 10^scale`.
    scale: i64,
}

impl Decimal {
    /// Reads a JSON number's text; `None` for anything else (`NaN`, `Infinity`).
    fn parse(text: &str) -> Option<Self> {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let all: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
        let lead = all.iter().take_while(|&&b| b == b'0').count();
        let mut digits = all[lead..].to_vec();
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        let scale =
            exponent.checked_add(i64::try_from(int.len()).ok()? - i64::try_from(lead).ok()?)?;
        Some(Self {
            negative: negative && !digits.is_empty(),
            digits,
            scale,
        })
    }

    fn magnitude_cmp(&self, other: &Self) -> Ordering {
        match (self.digits.is_empty(), other.digits.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            // Both nonzero: the first digit's power, then the digits (a prefix is smaller).
            (false, false) => self
                .scale
                .cmp(&other.scale)
                .then_with(|| self.digits.cmp(&other.digits)),
        }
    }
}

/// The order of two JSON number texts by value; `None` when one is not a finite number.
pub fn compare(a: &str, b: &str) -> Option<Ordering> {
    let (a, b) = (Decimal::parse(a)?, Decimal::parse(b)?);
    Some(match (a.negative, b.negative) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => a.magnitude_cmp(&b),
        (true, true) => b.magnitude_cmp(&a),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn orders_by_value() {
        use Ordering::*;
        for (a, b, expected) in [
            (
                "123456789012345678901234567890",
                "123456789012345678901234567891",
                Less,
            ),
            ("-9223372036854775809", "-9223372036854775808", Less),
            ("1.50", "1.5", Equal),
            ("1e+2", "100", Equal),
            ("100", "1E2", Equal),
            ("0", "-0", Equal),
            ("0.0", "0e+5", Equal),
            (
                "3.14159265358979323846264338327950288",
                "3.14159265358979323846264338327950289",
                Less,
            ),
            ("1e+400", "1e+399", Greater),
            ("-1e+400", "1", Less),
            ("0.001", "0.01", Less),
            ("-0.001", "-0.01", Greater),
            ("12", "120e-1", Equal),
        ] {
            assert_eq!(compare(a, b), Some(expected), "{a} vs {b}");
            assert_eq!(compare(b, a), Some(expected.reverse()), "{b} vs {a}");
        }
        assert_eq!(compare("NaN", "1"), None);
    }

    proptest! {
        #[test]
        fn agrees_with_doubles_and_integers(x in any::<i64>(), y in any::<i64>(), f in -1e6f64..1e6, g in -1e6f64..1e6) {
            prop_assert_eq!(compare(&x.to_string(), &y.to_string()), Some(x.cmp(&y)));
            let (fs, gs) = (zmij::Buffer::new().format_finite(f).to_owned(), zmij::Buffer::new().format_finite(g).to_owned());
            prop_assert_eq!(compare(&fs, &gs), f.partial_cmp(&g));
        }
    }
}
