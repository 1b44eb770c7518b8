//! Helpers to interface with the `regex` crate.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use bstr::ByteSlice;
// LRO: lro-regex (the `regex` crate natively, its PikeVM in wasm), with lro-jq's size limit
// (see Cargo.toml), instead of regex-bites.
use lro_regex::{self as regex, Error, Regex, RegexBuilder};

/// Most memory one compiled pattern may take: lro-jq's limit for `test/2`.
const SIZE_LIMIT: usize = 4 * 1024 * 1024;

#[derive(Copy, Clone, Default)]
pub struct Flags {
    // global search
    g: bool,
    // ignore empty matches
    n: bool,
    // case-insensitive
    i: bool,
    // multi-line mode: ^ and $ match begin/end of line
    m: bool,
    // single-line mode: allow . to match \n
    s: bool,
    // greedy
    l: bool,
    // extended mode: ignore whitespace and allow line comments (starting with `#`)
    x: bool,
}

impl Flags {
    pub fn new(flags: &str) -> Result<Self, char> {
        let mut out = Self::default();
        for flag in flags.chars() {
            match flag {
                'g' => out.g = true,
                'n' => out.n = true,
                'i' => out.i = true,
                'm' => out.m = true,
                's' => out.s = true,
                'l' => out.l = true,
                'x' => out.x = true,
                'p' => {
                    out.m = true;
                    out.s = true;
                }
                c => return Err(c),
            }
        }
        Ok(out)
    }

    pub fn ignore_empty(self) -> bool {
        self.n
    }

    pub fn global(self) -> bool {
        self.g
    }

    fn impact(self, builder: &mut RegexBuilder) -> &mut RegexBuilder {
        builder
            .case_insensitive(self.i)
            .multi_line(self.m)
            .dot_matches_new_line(self.s)
            .swap_greed(self.l)
            .ignore_whitespace(self.x)
    }

    pub fn regex(self, re: &str) -> Result<Regex, Error> {
        let mut builder = RegexBuilder::new(re);
        builder.size_limit(SIZE_LIMIT);
        self.impact(&mut builder).build()
    }
}

/// Mapping between byte and character indices.
///
/// LRO: the `regex` crate's byte regexes may report an empty match inside a character, and
/// a group may start before the group listed ahead of it (`(?:(a)|(b))+` on "ba"); the
/// forward-only iterator this replaces then ran to the end and its caller panicked. Lookups
/// in any order: forward from the last one, or counted again from the start.
pub struct ByteChar<'a> {
    s: &'a [u8],
    byte: usize,
    chars: usize,
}

impl<'a> ByteChar<'a> {
    pub fn new(s: &'a [u8]) -> Self {
        Self { s, byte: 0, chars: 0 }
    }

    /// The character offset of `byte_offset`, or `None` inside a character (as `chars()`
    /// counts them: a byte that is not UTF-8 counts as one).
    fn char_of_byte(&mut self, byte_offset: usize) -> Option<usize> {
        if byte_offset < self.byte {
            (self.byte, self.chars) = (0, 0);
        }
        while self.byte < byte_offset {
            let (_, size) = bstr::decode_utf8(&self.s[self.byte..]);
            self.byte += size.max(1);
            self.chars += 1;
        }
        (self.byte == byte_offset).then_some(self.chars)
    }
}

pub struct Match<B, S> {
    pub offset: usize,
    pub length: usize,
    pub string: B,
    pub name: Option<S>,
}

impl<'a> Match<&'a [u8], &'a str> {
    /// `None` for a match that starts inside a character (LRO: it has no character offset).
    pub fn new(bc: &mut ByteChar, m: regex::Match<'a>, name: Option<&'a str>) -> Option<Self> {
        Some(Self {
            offset: bc.char_of_byte(m.start())?,
            length: m.as_bytes().chars().count(),
            string: m.as_bytes(),
            name,
        })
    }

    pub fn fields<T: From<isize> + From<String> + 'a>(
        &self,
        f: impl Fn(&'a [u8]) -> T,
    ) -> impl Iterator<Item = (T, T)> + '_ {
        [
            ("offset", (self.offset as isize).into()),
            ("length", (self.length as isize).into()),
            ("string", f(self.string)),
        ]
        .into_iter()
        .chain(self.name.iter().map(|n| ("name", (*n).to_string().into())))
        .map(|(k, v)| (k.to_string().into(), v))
    }
}

pub enum Part<B, S> {
    Matches(Vec<Match<B, S>>),
    Mismatch(B),
}

/// Apply a regular expression to the given input value.
///
/// `sm` indicates whether to
/// 1. output strings that do *not* match the regex, and
/// 2. output the matches.
pub fn regex<'a>(
    s: &'a [u8],
    re: &'a Regex,
    flags: Flags,
    sm: (bool, bool),
) -> Vec<Part<&'a [u8], &'a str>> {
    // mismatches & matches
    let (mi, ma) = sm;

    let mut last_byte = 0;
    let mut bc = ByteChar::new(s);
    let mut out = Vec::new();

    for c in re.captures_iter(s) {
        let whole = c.get(0).unwrap();
        if flags.ignore_empty() && whole.as_bytes().is_empty() {
            continue;
        }
        // LRO: a match that starts inside a character is skipped, as the `regex` crate's
        // text regexes skip an empty match there.
        if bc.char_of_byte(whole.start()).is_none() {
            continue;
        }
        let match_names = c.iter().zip(re.capture_names());
        let matches = match_names.filter_map(|(m, n)| Match::new(&mut bc, m?, n));
        if mi {
            out.push(Part::Mismatch(&s[last_byte..whole.start()]));
            last_byte = whole.end();
        }
        if ma {
            out.push(Part::Matches(matches.collect()));
        }
        if !flags.global() {
            break;
        }
    }
    if mi {
        out.push(Part::Mismatch(&s[last_byte..]));
    }
    out
}
