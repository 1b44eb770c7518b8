//! JSON inside JSON strings: servers that encode twice send a JSON string whose content is
//! the JSON text, sometimes a string in a string. Readers open such strings up to
//! [`MAX_UNWRAP`] deep, after dropping a leading byte-order mark ([`skip_bom`]).
//!
//! ```
//! use lro_json::nested::skip_bom;
//!
//! assert_eq!(skip_bom("\u{feff}[1]"), "[1]");
//! assert_eq!(skip_bom("[1]"), "[1]");
//! ```

/// How many JSON strings inside JSON strings are opened, at most.
pub const MAX_UNWRAP: usize = 3;

/// `text` without a leading byte-order mark: an encoding's signature, not content (RFC 8259
/// lets a reader ignore it), which would otherwise make a JSON text read as lines of text.
pub fn skip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}
