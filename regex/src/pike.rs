//! The `regex` crate's `bytes` API, as far as LRO uses it, over regex-automata's PikeVM.
//!
//! Each step mirrors what the `regex` crate does for a `bytes::Regex` built with the same
//! options: the pattern parsed with `utf8(false)` (a byte regex may match any bytes), the
//! NFA compiled with `utf8(false)` (an empty match may split a character) under the size
//! limit, searches leftmost-first, empty matches after a match skipped as its iterators skip
//! them, and the same error texts.

use std::fmt;
use std::panic::{RefUnwindSafe, UnwindSafe};

use regex_automata::nfa::thompson::pikevm::{Cache, PikeVM};
use regex_automata::nfa::thompson::{self, NFA};
use regex_automata::util::captures;
use regex_automata::util::iter::Searcher;
use regex_automata::util::pool::{Pool, PoolGuard};
use regex_automata::util::syntax;
use regex_automata::{Input, PatternID};

/// The `regex` crate's default size limit, for a builder given none.
const DEFAULT_SIZE_LIMIT: usize = 10 * (1 << 20);

/// Makes a search cache for the pool.
type NewCache = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// Why a pattern did not compile, as the `regex` crate says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The pattern's syntax, or another refusal, in the parser's words.
    Syntax(String),
    /// The compiled pattern would exceed this many bytes.
    CompiledTooBig(usize),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax(err) => f.write_str(err),
            Self::CompiledTooBig(limit) => {
                write!(f, "Compiled regex exceeds size limit of {limit} bytes.")
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<thompson::BuildError> for Error {
    fn from(err: thompson::BuildError) -> Self {
        match err.size_limit() {
            Some(limit) => Self::CompiledTooBig(limit),
            None => Self::Syntax(err.to_string()),
        }
    }
}

/// Options for a [`Regex`], as `regex::bytes::RegexBuilder` takes them.
#[derive(Clone, Debug)]
pub struct RegexBuilder {
    pattern: String,
    syntax: syntax::Config,
    size_limit: usize,
}

impl RegexBuilder {
    /// The options for `pattern`: Unicode on, every flag off.
    pub fn new(pattern: &str) -> Self {
        Self {
            pattern: pattern.to_owned(),
            syntax: syntax::Config::new().utf8(false),
            size_limit: DEFAULT_SIZE_LIMIT,
        }
    }

    /// `(?i)`.
    pub fn case_insensitive(&mut self, yes: bool) -> &mut Self {
        self.syntax = self.syntax.case_insensitive(yes);
        self
    }

    /// `(?m)`.
    pub fn multi_line(&mut self, yes: bool) -> &mut Self {
        self.syntax = self.syntax.multi_line(yes);
        self
    }

    /// `(?s)`.
    pub fn dot_matches_new_line(&mut self, yes: bool) -> &mut Self {
        self.syntax = self.syntax.dot_matches_new_line(yes);
        self
    }

    /// `(?U)`.
    pub fn swap_greed(&mut self, yes: bool) -> &mut Self {
        self.syntax = self.syntax.swap_greed(yes);
        self
    }

    /// `(?x)`.
    pub fn ignore_whitespace(&mut self, yes: bool) -> &mut Self {
        self.syntax = self.syntax.ignore_whitespace(yes);
        self
    }

    /// Most bytes the compiled pattern may take.
    pub fn size_limit(&mut self, bytes: usize) -> &mut Self {
        self.size_limit = bytes;
        self
    }

    /// Compiles the pattern.
    pub fn build(&self) -> Result<Regex, Error> {
        let hir = syntax::parse_with(&self.pattern, &self.syntax)
            .map_err(|err| Error::Syntax(err.to_string()))?;
        let config = thompson::Config::new()
            .utf8(false)
            .nfa_size_limit(Some(self.size_limit))
            .shrink(false);
        let nfa: NFA = thompson::Compiler::new()
            .configure(config)
            .build_from_hir(&hir)?;
        let vm = PikeVM::new_from_nfa(nfa)?;
        let for_pool = vm.clone();
        let new_cache: NewCache = Box::new(move || for_pool.create_cache());
        Ok(Regex {
            pattern: self.pattern.clone(),
            vm,
            caches: Pool::new(new_cache),
        })
    }
}

/// A compiled pattern.
pub struct Regex {
    pattern: String,
    vm: PikeVM,
    caches: Pool<Cache, NewCache>,
}

impl fmt::Debug for Regex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Regex").field(&self.pattern).finish()
    }
}

impl Regex {
    /// Whether the pattern matches somewhere in `haystack`.
    pub fn is_match(&self, haystack: &[u8]) -> bool {
        let mut cache: PoolGuard<'_, Cache, NewCache> = self.caches.get();
        self.vm.is_match(&mut cache, Input::new(haystack))
    }

    /// The successive non-overlapping matches in `haystack`.
    pub fn find_iter<'r, 'h>(&'r self, haystack: &'h [u8]) -> impl Iterator<Item = Match<'h>> + 'r
    where
        'h: 'r,
    {
        self.captures_iter(haystack).filter_map(|c| c.get(0))
    }

    /// The successive non-overlapping matches in `haystack`, with their groups.
    pub fn captures_iter<'r, 'h>(&'r self, haystack: &'h [u8]) -> CaptureMatches<'r, 'h> {
        CaptureMatches {
            regex: self,
            haystack,
            cache: self.vm.create_cache(),
            searcher: Searcher::new(Input::new(haystack)),
        }
    }

    /// The groups' names, the whole match (`None`) first.
    pub fn capture_names(&self) -> impl Iterator<Item = Option<&str>> + '_ {
        self.vm
            .get_nfa()
            .group_info()
            .pattern_names(PatternID::ZERO)
    }
}

/// The iterator of [`Regex::captures_iter`].
pub struct CaptureMatches<'r, 'h> {
    regex: &'r Regex,
    haystack: &'h [u8],
    cache: Cache,
    searcher: Searcher<'h>,
}

impl<'h> Iterator for CaptureMatches<'_, 'h> {
    type Item = Captures<'h>;

    fn next(&mut self) -> Option<Captures<'h>> {
        let (vm, cache) = (&self.regex.vm, &mut self.cache);
        let mut slots = vm.create_captures();
        self.searcher.advance(|input| {
            vm.search(cache, input, &mut slots);
            Ok(slots.get_match())
        })?;
        Some(Captures {
            haystack: self.haystack,
            slots,
        })
    }
}

/// One match and its groups.
pub struct Captures<'h> {
    haystack: &'h [u8],
    slots: captures::Captures,
}

impl<'h> Captures<'h> {
    /// Group `index` (0 is the whole match), when it took part in the match.
    pub fn get(&self, index: usize) -> Option<Match<'h>> {
        let span = self.slots.get_group(index)?;
        Some(Match {
            haystack: self.haystack,
            start: span.start,
            end: span.end,
        })
    }

    /// Every group, the whole match first.
    pub fn iter(&self) -> impl Iterator<Item = Option<Match<'h>>> + '_ {
        (0..self.slots.group_len()).map(|index| self.get(index))
    }
}

/// Where a match or a group is in the haystack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match<'h> {
    haystack: &'h [u8],
    start: usize,
    end: usize,
}

impl<'h> Match<'h> {
    /// Its first byte's offset.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The offset after its last byte.
    pub fn end(&self) -> usize {
        self.end
    }

    /// Whether it matched no byte.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The bytes it matched.
    pub fn as_bytes(&self) -> &'h [u8] {
        &self.haystack[self.start..self.end]
    }
}

#[cfg(test)]
mod tests;
