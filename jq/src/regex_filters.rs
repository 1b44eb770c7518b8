//! `test/2` with compiled patterns cached for the run, on the `regex` crate.
//!
//! jaq defines `test` through `matches`, which compiles the pattern and computes every match
//! with its character offsets on each call: for recipe 3 (`select(.title | test($keyword;
//! "i"))`) that is most of the time spent per record. This native compiles each pattern
//! once per extraction and only asks whether there is a match. Flags are jaq's (`g i x n s
//! l p m`, mapped to the same builder options); the `regex` crate also folds case for all of
//! Unicode, as jq's Oniguruma does, where jaq's engine folds ASCII only.

use std::cell::RefCell;

use jaq_json::Val;
use lro_regex::{Regex, RegexBuilder};

/// Most memory one compiled pattern may take.
const SIZE_LIMIT: usize = 4 * 1024 * 1024;
/// Patterns kept per run; a filter with more distinct ones starts over.
const CACHE_SIZE: usize = 16;

/// One compiled pattern: its text, its flags, the regex, and whether only non-empty matches
/// count (flag `n`).
type Entry = (Vec<u8>, Vec<u8>, Regex, bool);

/// Compiled patterns of one run, by pattern text and flags.
#[derive(Default)]
pub(crate) struct RegexCache(RefCell<Vec<Entry>>);

type Error = jaq_core::Error<Val>;

fn text_of<'v>(v: &'v Val, what: &str) -> Result<&'v [u8], Error> {
    match v {
        Val::TStr(s) | Val::BStr(s) => Ok(s),
        other => Err(Error::str(format!(
            "{other} cannot be matched, as {what} is not a string"
        ))),
    }
}

impl RegexCache {
    /// `input | test(re; flags)`.
    pub(crate) fn test(&self, input: &Val, re: &Val, flags: &Val) -> Result<Val, Error> {
        let haystack = text_of(input, "it")?;
        let pattern = text_of(re, "the regex")?;
        // Compared as bytes: a hit (every record after the first) allocates nothing.
        let flags: &[u8] = match flags {
            Val::Null => b"",
            other => text_of(other, "the flags")?,
        };
        let mut cache = self.0.borrow_mut();
        let index = match cache
            .iter()
            .position(|(p, f, _, _)| p == pattern && f == flags)
        {
            Some(i) => i,
            None => {
                let (regex, non_empty) = compile(pattern, &String::from_utf8_lossy(flags))?;
                if cache.len() >= CACHE_SIZE {
                    cache.clear();
                }
                cache.push((pattern.to_vec(), flags.to_vec(), regex, non_empty));
                cache.len() - 1
            }
        };
        let (_, _, regex, non_empty) = &cache[index];
        let found = if *non_empty {
            regex.find_iter(haystack).any(|m| !m.is_empty())
        } else {
            regex.is_match(haystack)
        };
        Ok(Val::Bool(found))
    }
}

fn compile(pattern: &[u8], flags: &str) -> Result<(Regex, bool), Error> {
    let pattern =
        std::str::from_utf8(pattern).map_err(|e| Error::str(format!("invalid regex: {e}")))?;
    let mut builder = RegexBuilder::new(pattern);
    builder.size_limit(SIZE_LIMIT);
    let mut non_empty = false;
    for flag in flags.chars() {
        match flag {
            'g' => {}
            'n' => non_empty = true,
            'i' => {
                builder.case_insensitive(true);
            }
            'm' => {
                builder.multi_line(true);
            }
            's' => {
                builder.dot_matches_new_line(true);
            }
            'l' => {
                builder.swap_greed(true);
            }
            'x' => {
                builder.ignore_whitespace(true);
            }
            'p' => {
                builder.multi_line(true).dot_matches_new_line(true);
            }
            c => return Err(Error::str(format!("invalid regex flag: {c}"))),
        }
    }
    let regex = builder
        .build()
        .map_err(|e| Error::str(format!("invalid regex: {e}")))?;
    Ok((regex, non_empty))
}
