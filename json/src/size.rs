//! Sizes of compact JSON, counted without keeping the text: what output limits and memory
//! estimates are measured in.
//!
//! ```
//! use lro_json::size::{escaped_len, json_size, string_size};
//! use serde_json::json;
//!
//! assert_eq!(json_size(&json!({"a": [1, "x"]})), 13);
//! assert_eq!(string_size("say \"hi\""), 12);
//! assert_eq!(escaped_len('\u{1}'), 6);
//! ```

use std::io;

use serde_json::Value;

/// Counts bytes written, so output size is measured without keeping the serialization.
struct Counter(u64);

impl io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Compact JSON size of `value`, as serde_json writes it.
pub fn json_size(value: &Value) -> u64 {
    let mut counter = Counter(0);
    // Writing a `Value` to a counter cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// Bytes `c` takes inside a JSON string, as serde_json writes it: quote, backslash and the
/// short control escapes in two, other control characters as `\u00XX`, the rest as UTF-8.
pub fn escaped_len(c: char) -> u64 {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{08}' | '\u{0c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8() as u64,
    }
}

/// Compact JSON size of the string `s`, quotes included.
pub fn string_size(s: &str) -> u64 {
    // Text without quotes, backslashes or control characters (most text) is written as is.
    let plain = crate::scan::next_escape(s.as_bytes(), 0) == s.len();
    2 + if plain {
        s.len() as u64
    } else {
        s.chars().map(escaped_len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::arb_json;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sizes_are_the_written_lengths(value in arb_json(), text in any::<String>()) {
            prop_assert_eq!(json_size(&value), serde_json::to_string(&value).unwrap().len() as u64);
            prop_assert_eq!(string_size(&text), serde_json::to_string(&text).unwrap().len() as u64);
        }
    }
}
