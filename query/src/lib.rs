//! # lro-query: MongoDB-style structured queries over JSON records
//!
//! A filter document (`{"age": {"$gte": 30}, "tags": "admin"}`) parsed and checked whole
//! before any record is read ([`filter::parse`]), then matched against records as jq engine
//! values ([`filter::Filter::matches`]); values compared in MongoDB's order across types
//! ([`order`]); records projected ([`projection::Projection`]) and sorted ([`projection::parse_sort`]);
//! summaries (`count`, `group_by`, `distinct`, `stats`) accumulated ([`aggregate`]); and, for a
//! field no record has, a warning with the closest names ([`suggest`]). A jq filter runs on
//! one record at a time through [`program`], its failures and trips named as errors, over
//! the lines [`reader::LineReader`] reads from any `std::io::Read` within a byte limit, its
//! output collected under [`budget::Limits`] and a deadline by [`budget::Budget`]; records
//! are processed in batches on worker threads by [`batches`], a jq filter run over them
//! (or over all of them at once) by [`records`].
//!
//! ```
//! use lro_jq::convert::parse_val;
//! use lro_query::{filter, projection::Projection, ErrorKind};
//! use serde_json::json;
//!
//! let query = filter::parse(&json!({"age": {"$gte": 30}, "tags": "admin"})).unwrap();
//! let lines = [
//!     r#"{"name": "ada", "age": 36, "tags": ["admin", "dev"]}"#,
//!     r#"{"name": "bob", "age": 25, "tags": ["admin"]}"#,
//!     r#"{"name": "cy", "age": 41, "tags": "ops"}"#,
//! ];
//! let fields = Projection::parse(&json!(["name"])).unwrap();
//! let names: Vec<_> = lines
//!     .iter()
//!     .map(|line| parse_val(line.as_bytes()).unwrap())
//!     .filter(|record| query.matches(record))
//!     .map(|record| fields.apply(lro_query::order::to_json(&record)))
//!     .collect();
//! assert_eq!(names, [json!({"name": "ada"})]);
//!
//! // An unknown operator is refused before any record is read, saying where.
//! let refused = filter::parse(&json!({"age": {"$older": 30}})).unwrap_err();
//! assert_eq!(refused.kind(), ErrorKind::InvalidQuery);
//! assert!(refused.message().starts_with("where.age"), "{}", refused.message());
//! ```
//!
//! The semantics, and where they part from MongoDB or its emulators, are in LRO's
//! `docs/extraction.md` ("Structured queries"). The crate knows JSON records, not files.
#![forbid(unsafe_code)]

pub mod aggregate;
pub mod batches;
pub mod budget;
mod decimal;
mod error;
pub mod filter;
pub mod matcher;
pub mod order;
pub mod program;
pub mod projection;
pub mod reader;
pub mod records;
pub mod structured;
pub mod suggest;
pub mod verbs;

pub use error::{Error, ErrorKind, Result};
