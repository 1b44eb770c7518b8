//! # lro-json: JSON text, byte for byte
//!
//! JSON text read and written exactly as serde_json reads and writes it (compact output,
//! numbers kept as their text), without serde_json's general machinery where that costs too
//! much: no tree where a scan will do, strings escaped in runs found eight bytes at a time.
//!
//! ```
//! use lro_json::{canonical, fields, read, write};
//! use serde_json::json;
//!
//! // Written: what `serde_json::to_string` writes, byte for byte.
//! let value = json!({"id": "m1", "text": "line\nbreak", "n": 2});
//! let line = write::to_string(&value);
//! assert_eq!(line, serde_json::to_string(&value).unwrap());
//!
//! // Read back without a tree: the fields of a compact line, a field's string content.
//! let text = fields::get(line.as_bytes(), "text").unwrap();
//! assert_eq!(fields::as_str(text).unwrap(), "line\nbreak");
//!
//! // Pretty text to that same compact line, and facts about text a `Value` would give.
//! let pretty = "{ \"id\": \"m1\", \"text\": \"line\\nbreak\", \"n\": 2 }";
//! assert_eq!(canonical::compact_value(pretty.as_bytes()).unwrap(), line.as_bytes());
//! assert!(read::is_value(pretty));
//! assert_eq!(read::decode_str(r#""caf\u00e9""#).unwrap(), "café");
//! ```
//!
//! - [`scan`]: the one byte scan of JSON strings (the next byte JSON must escape);
//! - [`write`]: compact output identical to `serde_json::to_writer`, with faster escaping;
//! - [`canonical`]: JSON text straight to that same compact output, without a tree;
//! - [`parse`]: JSON text to a `Value` as serde_json reads it, numbers kept as written;
//! - [`fields`]: the top-level fields of such a compact line, without a tree;
//! - [`read`]: facts about any JSON text (valid as a `Value`? its compact length, an
//!   object's fields, a string's content) read with serde_json's deserializer, no tree;
//! - [`refusal`]: a deserializer's refusal of JSON text, in the words of serde_json's
//!   `Value` reader (so a struct can be read from text alone);
//! - [`dupes`]: how many keys a text names twice in one object (a `Value` keeps the last);
//! - [`nested`]: JSON inside JSON strings (how deep readers open them, the byte-order mark);
//! - [`size`]: the size of a value's or a string's compact JSON, counted without writing it.
//!
//! Every one agrees with serde_json byte for byte (property-tested and fuzzed), so what is
//! written does not depend on the path a value took.
#![forbid(unsafe_code)]

pub mod canonical;
pub mod dupes;
pub mod fields;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzz_checks;
#[cfg(any(test, fuzzing, feature = "fuzz-replay"))]
pub mod fuzz_replay;
pub mod nested;
pub mod parse;
pub mod read;
pub mod refusal;
pub mod scan;
pub mod size;
#[cfg(any(test, feature = "proptest"))]
pub mod strategy;
pub mod write;
