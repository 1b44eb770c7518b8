//! # lro-jq: a sandboxed jq engine
//!
//! jq filters compiled with [jaq](https://github.com/01mf02/jaq) and run over JSON values
//! inside bounds: a deadline, an estimate of the memory the values built take, the depth of
//! values and of the native stack, and the length and nesting of the filter text. Nothing
//! reaches outside: no `env`/`$ENV`, no clock (`now`, `localtime`), no `input`/`inputs`, no
//! modules; time zones come from the database compiled in. Parameters are jq variables
//! (`$name`), bound at run time, so no value can change a program.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use lro_jq::{Clock, Flow, Guard, Program, convert};
//!
//! // Compile a filter with one variable, `$word`.
//! let program = Program::compile(r#"select(.title | test($word; "i")) | .id"#, &["word"]).unwrap();
//!
//! // The run's bounds: a clock (here a flag nobody raises) and 64 MiB of values.
//! let cancelled = AtomicBool::new(false);
//! let guard = Guard::new(Clock::Flag(&cancelled), 64 << 20);
//!
//! let record = convert::parse_val(br#"{"id": "m7", "title": "Cache Layout"}"#).unwrap();
//! let word = convert::parse_val(br#""cache""#).unwrap();
//! let mut ids = Vec::new();
//! let flow = program.run(record, &[word], &guard, &mut |out| {
//!     ids.push(convert::to_value(&out).unwrap());
//!     true
//! });
//! assert_eq!(flow.unwrap(), Flow::Continue);
//! assert_eq!(ids, [serde_json::json!("m7")]);
//!
//! // A filter that never ends stops at the clock: the guard trips instead.
//! cancelled.store(true, std::sync::atomic::Ordering::Relaxed);
//! let endless = Program::compile("repeat(.)", &[]).unwrap();
//! let guard = Guard::new(Clock::Flag(&cancelled), 64 << 20);
//! let flow = endless.run(convert::parse_val(b"1").unwrap(), &[], &guard, &mut |_| true);
//! assert!(matches!(flow, Ok(Flow::Tripped(lro_jq::Trip::Time))));
//! ```
//!
//! - [`Program`]: compile (with a process-wide cache) and run a filter;
//! - [`Guard`], [`Clock`], [`Deadline`], [`Trip`]: the bounds of a run and why one stopped;
//! - [`check_text`], [`MAX_FILTER_BYTES`], [`MAX_FILTER_NESTING`], [`MAX_FILTER_DEPTH`]: the
//!   filter text's limits;
//! - [`convert`] and [`RecordParser`]: JSON text and `serde_json` values to jaq values and
//!   back, numbers keeping their digits;
//! - [`InvalidFilter`], [`RunError`]: a filter refused before it ran, and one that failed.
#![forbid(unsafe_code)]

mod bounds;
pub mod convert;
mod data;
mod deadline;
mod engine;
mod error;
mod filter_text;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzz_checks;
mod group_by;
mod natives;
mod record_parser;
mod regex_filters;
mod sandbox;
// Natively the tests compare it with jaq-fmts' writer, which the native engine uses.
#[cfg(any(test, target_family = "wasm"))]
mod tabular;
mod time_zones;

/// Held by the tests that run guards with a small memory bound, and by those that claim
/// much of the process' budget ([`sandbox`]'s shared counter): tests run on parallel threads
/// of one process, and a claim of one would trip a guard of the other.
#[cfg(test)]
pub(crate) static TEST_BUDGET: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub use bounds::{MAX_PARSE_DEPTH, MAX_VALUE_DEPTH};
pub use deadline::Deadline;
pub use engine::{Flow, Program, RunError, is_var_name};
pub use error::InvalidFilter;
pub use filter_text::{MAX_FILTER_BYTES, MAX_FILTER_DEPTH, MAX_FILTER_NESTING, check_text};
pub use record_parser::RecordParser;
pub use sandbox::{Clock, Guard, Trip};
