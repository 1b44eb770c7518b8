//! The regular expressions of LRO's jq engine (`test`, `match`, `sub`, ...) and structured
//! queries (`$regex`, the `search` verb), over bytes.
//!
//! Natively this is the `regex` crate's `bytes` API, re-exported. In WebAssembly it is the
//! same API over regex-automata's PikeVM alone: the wasm builds' `regex` crate ran that one
//! engine anyway (their size budgets leave the faster ones out), and the meta engine above it
//! (strategies, literal prefilters, their wrappers) was 39 KB of the module. Matches,
//! captures, empty-match iteration and error texts are the `regex` crate's; a test runs both
//! sides on the same patterns and haystacks.
//!
//! ```
//! let re = lro_regex::RegexBuilder::new(r"(?<word>\w+)").case_insensitive(true).build().unwrap();
//! let found: Vec<&[u8]> = re.captures_iter("Éclair à".as_bytes())
//!     .map(|c| c.get(1).unwrap().as_bytes())
//!     .collect();
//! assert_eq!(found, ["Éclair".as_bytes(), "à".as_bytes()]);
//! assert_eq!(re.capture_names().collect::<Vec<_>>(), [None, Some("word")]);
//! ```
#![forbid(unsafe_code)]

#[cfg(any(target_family = "wasm", test))]
mod pike;

#[cfg(not(target_family = "wasm"))]
pub use regex::Error;
#[cfg(not(target_family = "wasm"))]
pub use regex::bytes::{Captures, Match, Regex, RegexBuilder};

#[cfg(target_family = "wasm")]
pub use pike::{Captures, Error, Match, Regex, RegexBuilder};
