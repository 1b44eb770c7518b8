//! # lro-query: lines of JSON records read under limits, and queries over them
//!
//! The lines come from any `std::io::Read`: one header line, then one JSON record a line
//! ([`reader::LineReader`], within a byte limit, optionally a window of lines). Everything
//! a run outputs goes through a [`budget::Budget`] (output records and bytes, memory, a
//! deadline), and its [`budget::Output`] says which limit cut it. Over those lines:
//! - [`structured`]: a MongoDB-style structured query (`where`, `fields`, `sort`, `skip`,
//!   `limit`, or one of `count`/`group_by`/`distinct`/`stats`), checked whole before any
//!   line is read ([`structured::Query::compile`] from a [`structured::Spec`]), run on
//!   worker threads ([`structured::Query::run`]), with its equivalent jq command
//!   ([`structured::Query::jq_command`]) and warnings naming the closest fields for a field
//!   no record has ([`structured::warnings`]). Its language: [`filter`] documents matched
//!   by [`matcher`], values compared in MongoDB's [`order`] across types, records shaped by
//!   [`projection`] (`fields`, `sort`) and summarized by [`aggregate`], names suggested by
//!   [`suggest`];
//! - [`verbs`]: a jq filter over the records ([`verbs::jq_filter`]), a range of records or
//!   characters ([`verbs::lines`]), a regular expression over the raw lines
//!   ([`verbs::search`]);
//! - underneath: [`batches`] (batches of lines and the worker pool), [`program`] (one run of
//!   a jq program on one input), [`records`] (a program over the records, batched or
//!   slurped).
//!
//! A structured query over three lines, under limits:
//!
//! ```
//! use lro_jq::Deadline;
//! use lro_query::budget::{Budget, Limits};
//! use lro_query::reader::LineReader;
//! use lro_query::structured::{Query, Spec};
//! use serde_json::json;
//!
//! let text = concat!(
//!     "{\"header\": \"any first line\"}\n",
//!     "{\"name\": \"ada\", \"age\": 36, \"tags\": [\"admin\", \"dev\"]}\n",
//!     "{\"name\": \"bob\", \"age\": 25, \"tags\": [\"admin\"]}\n",
//!     "{\"name\": \"cy\", \"age\": 41, \"tags\": \"ops\"}\n",
//! );
//! let filter = json!({"age": {"$gte": 30}});
//! let fields = json!(["name"]);
//! let sort = json!("-age");
//! let spec = Spec {
//!     filter: Some(&filter),
//!     fields: Some(&fields),
//!     sort: Some(&sort),
//!     ..Spec::default()
//! };
//! let query = Query::compile(&spec).unwrap();
//!
//! let limits = Limits {
//!     max_read_bytes: 1 << 20,
//!     max_output_records: 1,
//!     max_output_bytes: 1 << 16,
//!     max_memory_bytes: 1 << 26,
//! };
//! let deadline = Deadline::new(|| 0, 1_000); // a clock (milliseconds) and a timeout
//! let mut budget = Budget::new(&limits, &deadline);
//! let mut lines = LineReader::new(Box::new(text.as_bytes()), limits.max_read_bytes);
//! let missing = query.run(&mut lines, &mut budget).unwrap();
//! assert!(missing.is_empty(), "every path the query names is in some record");
//! let output = budget.finish(&lines);
//! // Two records match; one is returned, and the output says what cut it.
//! assert_eq!(output.results, [json!({"name": "cy"})]);
//! assert!(output.truncated);
//! assert_eq!(output.limit.as_deref(), Some("max_output_records (1)"));
//! assert_eq!(output.total, Some(2));
//! let jq = query.jq_command("tail -n +2 people.jsonl").unwrap();
//! assert!(jq.starts_with("tail -n +2 people.jsonl | jq -sc '"), "{jq}");
//! ```
//!
//! A query is refused before any record is read, with a message saying where:
//!
//! ```
//! use lro_query::{ErrorKind, filter};
//! use serde_json::json;
//!
//! let refused = filter::parse(&json!({"age": {"$older": 30}})).unwrap_err();
//! assert_eq!(refused.kind(), ErrorKind::InvalidQuery);
//! assert!(refused.message().starts_with("where.age"), "{}", refused.message());
//! ```
//!
//! The semantics, and where they part from MongoDB or its emulators, are in LRO's
//! `docs/extraction.md` ("Structured queries"). The crate knows lines of JSON records and
//! limits, not files: which file, its header's meaning, its sections and its recipes are the
//! caller's (lro-core's file commands), and so is the part of a jq command that reads a file.
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

// The README's example runs as a doc test, so it cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
