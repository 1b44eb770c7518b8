//! The patterns of per-tool rules (`[prompt.offload.tools."PATTERN"]`): which names a pattern
//! may hold, whether it matches a tool's name, and which of several matching patterns is the
//! most specific.
//!
//! A pattern is a glob: `*` stands for any run of characters (none included), `?` for exactly
//! one, every other character for itself (case matters, as in tool names). The most specific
//! of the patterns that match a name is, in this order:
//! 1. a pattern without wildcards (the name itself) over any glob;
//! 2. the glob with the most literal characters (`fs_read_*` over `fs_*`);
//! 3. the glob with the fewest `*` (`fs_?` over `fs_*`: `?` fixes a length, `*` does not);
//! 4. the pattern first in byte order (`*b` over `a*` for `ab`: `*` sorts before letters,
//!    `.` and `-` before `*`, digits and `?` after it): rules come from
//!    files, the environment (whose order no one controls) and flags, so only the patterns
//!    themselves can order a tie the same way for every source.

use crate::error::{ErrorCode, LroError, Result};

/// Longest pattern: the longest tool name the MCP specification allows.
pub const MAX_PATTERN_CHARS: usize = 128;

/// What a pattern may hold, in words (the error messages and the docs say it).
pub const PATTERN_BOUNDS: &str =
    "1-128 characters from A-Z a-z 0-9 _ - . / and the wildcards * and ?";

/// `pattern` when it is a valid pattern, else an `invalid_config` error naming it where it
/// was found (`where_` is the table or flag that held it).
pub fn check_pattern<'a>(pattern: &'a str, where_: &str) -> Result<&'a str> {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || b"_-./*?".contains(&b);
    if !pattern.is_empty() && pattern.len() <= MAX_PATTERN_CHARS && pattern.bytes().all(allowed) {
        Ok(pattern)
    } else {
        Err(LroError::new(
            ErrorCode::InvalidConfig,
            format!("invalid tool pattern {pattern:?} in {where_} (expected {PATTERN_BOUNDS})"),
        ))
    }
}

/// Whether `pattern` matches all of `name`.
pub fn matches(pattern: &str, name: &str) -> bool {
    let pattern = pattern.as_bytes();
    let name: Vec<char> = name.chars().collect();
    // The classic two-pointer walk: on a mismatch, the last `*` takes one more character.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(b'?') => {
                p += 1;
                n += 1;
            }
            Some(&b) if char::from(b) == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((star_p, star_n)) => {
                    p = star_p + 1;
                    n = star_n + 1;
                    star = Some((star_p, star_n + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|b| *b == b'*')
}

/// How specific a pattern is: the greater, the more (see the module's doc).
fn specificity(pattern: &str) -> (bool, usize, std::cmp::Reverse<usize>) {
    let stars = pattern.bytes().filter(|b| *b == b'*').count();
    let singles = pattern.bytes().filter(|b| *b == b'?').count();
    (
        stars + singles == 0,
        pattern.len() - stars - singles,
        std::cmp::Reverse(stars),
    )
}

/// Of `patterns` (in byte order, as a `BTreeMap` gives them), the most specific that matches
/// `name`, with what goes with it.
pub fn most_specific<'a, T>(
    patterns: impl IntoIterator<Item = (&'a String, &'a T)>,
    name: &str,
) -> Option<(&'a String, &'a T)> {
    let mut best: Option<(&'a String, &'a T)> = None;
    for (pattern, value) in patterns {
        if !matches(pattern, name) {
            continue;
        }
        // Strictly more specific only: of equals, the first in byte order stays.
        if best.is_none_or(|(held, _)| specificity(pattern) > specificity(held)) {
            best = Some((pattern, value));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn globs_match_whole_names() {
        for (pattern, name, wanted) in [
            ("search", "search", true),
            ("search", "search_all", false),
            ("*", "", true),
            ("*", "anything", true),
            ("fs_*", "fs_read", true),
            ("fs_*", "fs_", true),
            ("fs_*", "git_fs_read", false),
            ("*_read", "fs_read", true),
            ("*_read*", "fs_read_file", true),
            ("a*b*c", "aXXbYYc", true),
            ("a*b*c", "aXXbYYcd", false),
            ("get_?", "get_x", true),
            ("get_?", "get_xy", false),
            ("get_?", "get_é", true),
            ("Search", "search", false),
            ("*.list", "db.list", true),
        ] {
            assert_eq!(matches(pattern, name), wanted, "{pattern} on {name}");
        }
    }

    #[test]
    fn the_most_specific_pattern_wins() {
        let rules: BTreeMap<String, u8> = [
            ("*", 0),
            ("fs_*", 1),
            ("fs_read_*", 2),
            ("fs_read_file", 3),
            ("fs_?", 4),
            ("a*", 5),
            ("*b", 6),
        ]
        .into_iter()
        .map(|(p, v)| (p.to_owned(), v))
        .collect();
        let winner = |name: &str| most_specific(&rules, name).map(|(_, v)| *v);
        assert_eq!(winner("fs_read_file"), Some(3), "the name itself");
        assert_eq!(winner("fs_read_dir"), Some(2), "more literal characters");
        assert_eq!(winner("fs_x"), Some(4), "? over * with as many literals");
        assert_eq!(winner("fs_xy"), Some(1));
        assert_eq!(winner("ab"), Some(6), "a tie: the first in byte order, *b");
        assert_eq!(winner("other"), Some(0));
        let none: BTreeMap<String, u8> = [("fs_*".to_owned(), 1)].into_iter().collect();
        assert_eq!(most_specific(&none, "git_log"), None);
    }

    #[test]
    fn patterns_are_checked() {
        for good in [
            "a",
            "fs_*",
            "*",
            "db.list",
            "ns/tool-2",
            "get_?",
            &"a".repeat(128),
        ] {
            assert!(check_pattern(good, "t").is_ok(), "{good}");
        }
        for bad in [
            "",
            "a b",
            "fs:*",
            "a,b",
            "x=y",
            "[ab]",
            "é",
            &"a".repeat(129),
        ] {
            let err = check_pattern(bad, "prompt.offload.tools").unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig);
            assert!(err.message().contains("prompt.offload.tools"), "{err}");
        }
    }
}
