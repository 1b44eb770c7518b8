//! The ways of reading lines of records besides a structured query, each into a
//! [`Budget`](crate::budget::Budget) from a [`LineReader`](crate::reader::LineReader) whose
//! header line comes first: a range of records or characters ([`lines`]), a regular
//! expression over the raw lines ([`search`]), and a jq filter over the records
//! ([`jq_filter`]).

pub mod jq_filter;
pub mod lines;
pub mod search;
