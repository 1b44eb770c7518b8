//! ryu's [`Buffer`] API over zmij.
//!
//! ```
//! let mut buffer = ryu::Buffer::new();
//! assert_eq!(buffer.format(1e16), "1e16");
//! assert_eq!(buffer.format(0.1), "0.1");
//! ```
//!
//! jaq-json (numbers in jq output), csv and value-trait print floats with ryu, while
//! serde_json and LRO print them with zmij: two implementations of the same algorithm's output
//! (the shortest text that reads back as the same float), each with its own tables. This
//! stand-in gives those crates ryu's API and zmij's digits, so one printer is linked.
//!
//! The two differ in one place: zmij writes a positive exponent with a sign (`1e+16`), ryu
//! without (`1e16`). [`Buffer::format_finite`] drops that `+`. With it dropped, the two printed
//! the same text for 30 million random `f64` bit patterns, 10 million decimals of up to eight
//! digits, 30 million random `f32`s and the edge cases (zero and `-0`, subnormals, the extremes,
//! powers of ten from 1e-7 to 1e22), checked against ryu 1.0.23 when this crate was written;
//! the tests below keep the forms that matter.
#![no_std]
#![forbid(unsafe_code)]

/// A float ryu can print: `f32` or `f64` (sealed, as ryu's).
pub trait Float: zmij::Float + Copy + private::Sealed {}
impl Float for f32 {}
impl Float for f64 {}

mod private {
    /// Keeps [`super::Float`] to the two types ryu has.
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The longest text ryu prints (`-1.7976931348623157e308`, 24 bytes), with room.
const TEXT_SIZE: usize = 32;

/// A buffer to print floats in, as ryu's.
pub struct Buffer {
    printer: zmij::Buffer,
    text: [u8; TEXT_SIZE],
}

impl Default for Buffer {
    fn default() -> Self {
        Self::new()
    }
}

impl Buffer {
    /// A new buffer; cheap.
    pub fn new() -> Self {
        Self {
            printer: zmij::Buffer::new(),
            text: [0; TEXT_SIZE],
        }
    }

    /// `f` as text: `NaN`, `inf` and `-inf` for the values that are not finite.
    pub fn format<F: Float>(&mut self, f: F) -> &str {
        let printed = self.printer.format(f);
        ryu_exponent(printed, &mut self.text)
    }

    /// A finite `f` as text (what a value that is not finite prints is unspecified, as in ryu).
    pub fn format_finite<F: Float>(&mut self, f: F) -> &str {
        let printed = self.printer.format_finite(f);
        ryu_exponent(printed, &mut self.text)
    }
}

/// `printed` as ryu writes it: a positive exponent without its sign (`1e+16` -> `1e16`),
/// copied into `text` when it has one.
fn ryu_exponent<'a>(printed: &'a str, text: &'a mut [u8; TEXT_SIZE]) -> &'a str {
    let Some(sign) = printed.find("e+") else {
        return printed;
    };
    let (mantissa, exponent) = (&printed[..=sign], &printed[sign + 2..]);
    let len = mantissa.len() + exponent.len();
    text[..mantissa.len()].copy_from_slice(mantissa.as_bytes());
    text[mantissa.len()..len].copy_from_slice(exponent.as_bytes());
    core::str::from_utf8(&text[..len]).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::Buffer;

    #[test]
    fn prints_as_ryu() {
        let mut buffer = Buffer::new();
        let cases: [(f64, &str); 16] = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (0.3, "0.3"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e16"),
            (1e-7, "1e-7"),
            (2.5e-5, "0.000025"),
            (123456789012345680.0, "1.2345678901234568e17"),
            (1e21, "1e21"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e308"),
            (-f64::MAX, "-1.7976931348623157e308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (9007199254740993.0, "9007199254740992.0"),
        ];
        for (value, text) in cases {
            assert_eq!(buffer.format(value), text, "{value:e}");
            assert_eq!(buffer.format_finite(value), text, "{value:e}");
        }
        assert_eq!(buffer.format(1.182641e14_f32), "1.182641e14");
        assert_eq!(buffer.format(-8.522675e22_f32), "-8.522675e22");
        assert_eq!(buffer.format(0.1_f32), "0.1");
        assert_eq!(buffer.format(f64::NAN), "NaN");
        assert_eq!(buffer.format(f64::INFINITY), "inf");
        assert_eq!(buffer.format(f32::NEG_INFINITY), "-inf");
    }
}
