//! JSON text handling of our own, where serde_json's general machinery costs too much:
//!
//! - [`write`]: compact output identical to `serde_json::to_writer`, with faster escaping;
//! - [`canonical`]: JSON text straight to that same compact output, without a tree;
//! - [`fields`]: the top-level fields of such a compact line, without a tree;
//! - [`dupes`]: how many keys a text names twice in one object (a `Value` keeps the last);
//! - [`raw`]: facts about a JSON text (valid as a `Value`? its compact length, an object's
//!   fields, a string's content) read with serde_json's deserializer, without a tree.
//!
//! All three agree with serde_json byte for byte (property-tested), so the files and
//! descriptors do not depend on the path a result took.

pub mod canonical;
#[doc(hidden)]
pub mod dupes;
pub mod fields;
pub mod raw;
pub mod write;
