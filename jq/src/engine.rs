//! The embedded jq engine: jaq, compiled with the sandbox's prelude and run over records.
//!
//! Parameters are declared as global variables (`$keyword`) and bound at run time, so a value
//! never becomes program text. The agent's filter is parsed, its definitions get the guard's
//! tick ([`sandbox::tick_term`]) and it is compiled as the last definition of the prelude,
//! `_lro_main`, called by a one-line main program made only of validated variable names.

use std::sync::{Arc, Mutex, PoisonError};

use jaq_core::box_iter::box_once;
use jaq_core::load::parse::Def;
use jaq_core::load::{Arena, File, Loader};
use jaq_core::native::{Fun, bome, v};
use jaq_core::{Compiler, Ctx, Exn, Native, Vars};
use jaq_json::Val;

use crate::bounds::{self, capped_text};
use crate::convert;
use crate::data::{Data, Env, trip_error};
use crate::error::InvalidFilter;
use crate::sandbox::{self, Guard, TICK, Trip, WITHHELD};

/// A native that passes its input on once the guard's `$check` accepts it (see
/// [`crate::bounds`]); identity in path and update position too (`reduce` steps are checked,
/// and `getpath` is a `reduce` used in path position by `setpath`).
macro_rules! check_native {
    ($name:expr, $check:ident) => {{
        let native = Native::<Data>::new(|cv| match cv.0.data().guard.$check(&cv.1) {
            Ok(()) => box_once(Ok(cv.1)),
            Err(trip) => bome(Err(trip_error(trip))),
        })
        .with_paths(|cv| match cv.0.data().guard.$check(&cv.1.0) {
            Ok(()) => box_once(Ok(cv.1)),
            Err(trip) => box_once(Err(Exn::from(trip_error(trip)))),
        })
        .with_update(|cv, f| match cv.0.data().guard.$check(&cv.1) {
            Ok(()) => f(cv.1),
            Err(trip) => bome(Err(trip_error(trip))),
        });
        ($name, v(0), native)
    }};
}

/// `_lro_mul($a; $b)`: the input, once [`Guard::check_mul`] accepts `$a * $b`.
fn mul_native() -> Fun<Data> {
    let native = Native::<Data>::new(|mut cv| {
        let b = cv.0.pop_var();
        let a = cv.0.pop_var();
        match cv.0.data().guard.check_mul(&a, &b) {
            Ok(()) => box_once(Ok(cv.1)),
            Err(trip) => bome(Err(trip_error(trip))),
        }
    });
    (sandbox::MUL, v(2), native)
}

/// `_lro_nesting($format)`: refuses a text whose nesting is past what the format's parser
/// may recurse on ([`bounds::parse_depth`]), or whose value would not fit the memory left
/// ([`bounds::parsed_bytes`]), before the parser sees it.
fn nesting_native() -> Fun<Data> {
    let native = Native::<Data>::new(|mut cv| {
        let format = cv.0.pop_var();
        let format = match &format {
            Val::TStr(s) => String::from_utf8_lossy(s).into_owned(),
            _ => String::new(),
        };
        let depth = match &cv.1 {
            Val::TStr(s) | Val::BStr(s) => bounds::parse_depth(&format, s),
            _ => 0,
        };
        if depth > bounds::MAX_PARSE_DEPTH {
            cv.0.data().guard.trip_depth();
            return bome(Err(jaq_core::Error::str(format!(
                "lro: cannot parse as {format}: nested more than {} levels deep",
                bounds::MAX_PARSE_DEPTH
            ))));
        }
        if let Val::TStr(s) | Val::BStr(s) = &cv.1 {
            if let Err(trip) =
                cv.0.data()
                    .guard
                    .check_bytes(bounds::parsed_bytes(&format, s))
            {
                return bome(Err(trip_error(trip)));
            }
        }
        box_once(Ok(cv.1))
    });
    ("_lro_nesting", v(1), native)
}

/// `_lro_tick`: the identity, unless the guard says stop. Works in path and update position
/// too, because ticked definitions (`select`, `map`, ...) are used there.
fn tick_native() -> Fun<Data> {
    let native = Native::<Data>::new(|cv| match cv.0.data().guard.tick() {
        Ok(()) => box_once(Ok(cv.1)),
        Err(trip) => bome(Err(trip_error(trip))),
    })
    .with_paths(|cv| match cv.0.data().guard.tick() {
        Ok(()) => box_once(Ok(cv.1)),
        Err(trip) => box_once(Err(Exn::from(trip_error(trip)))),
    })
    .with_update(|cv, f| match cv.0.data().guard.tick() {
        Ok(()) => f(cv.1),
        Err(trip) => bome(Err(trip_error(trip))),
    });
    (TICK, v(0), native)
}

/// `fromjson` with a nesting limit: jaq's parser recurses without one, so
/// `"[" * 100000 | fromjson` would overflow the stack. Within the limit it is jaq's own
/// parser, with its leniency (`"000" | tonumber` is `0`, as in jq).
fn fromjson_native() -> Fun<Data> {
    let native = Native::<Data>::new(|cv| {
        let parsed: Vec<_> = match &cv.1 {
            Val::TStr(s) | Val::BStr(s) if convert::nesting_depth(s) > convert::MAX_INPUT_DEPTH => {
                cv.0.data().guard.trip_depth();
                vec![Err(jaq_core::Error::str(format!(
                    "cannot parse as JSON: nested more than {} levels deep",
                    convert::MAX_INPUT_DEPTH
                )))]
            }
            Val::TStr(s) | Val::BStr(s)
                if cv
                    .0
                    .data()
                    .guard
                    .check_bytes(bounds::parsed_bytes("json", s))
                    .is_err() =>
            {
                vec![Err(trip_error(Trip::Memory))]
            }
            Val::TStr(s) | Val::BStr(s) => {
                // jaq-json's parse_many repeats the same error forever on invalid input
                // (its lexer does not advance): stop at the first error, as jq does.
                let mut values = Vec::new();
                for r in jaq_json::read::parse_many(s) {
                    let failed = r.is_err();
                    values.push(r.map_err(|e| {
                        jaq_core::Error::str(format!(
                            "{e} (while parsing '{}')",
                            capped_text(&String::from_utf8_lossy(&s[..s.len().min(4096)]), 1024)
                        ))
                    }));
                    if failed {
                        break;
                    }
                }
                values
            }
            other => vec![Err(jaq_core::Error::str(format!(
                "{other} cannot be parsed as JSON: it is not a string"
            )))],
        };
        Box::new(parsed.into_iter().map(|r| r.map_err(Exn::from)))
    });
    ("fromjson", v(0), native)
}

/// `test/2` with cached patterns (see [`crate::regex_filters`]); replaces jaq's definition.
fn test_native() -> Fun<Data> {
    let native = Native::<Data>::new(|mut cv| {
        let flags = cv.0.pop_var();
        let re = cv.0.pop_var();
        bome(cv.0.data().guard.regexes.test(&cv.1, &re, &flags))
    });
    ("test", v(2), native)
}

/// jaq's format filters: all of them natively, the tabular ones (`@csv`, `@tsv`, ...) on wasm
/// (see `tabular.rs`).
#[cfg(not(target_family = "wasm"))]
fn formats() -> impl Iterator<Item = Fun<Data>> {
    jaq_fmts::funs::<Data>()
}

#[cfg(target_family = "wasm")]
fn formats() -> impl Iterator<Item = Fun<Data>> {
    crate::tabular::funs()
}

/// `empty` as a native. jaq defines it in jq (`{}[] as $x | .`), which costs a definition
/// call on every record a `select` drops, a good part of a filtering recipe's time. It
/// cannot loop itself, but it ticks: a loop that drops every value (`.[] | empty`) calls
/// no definition and builds nothing, so this is where its time is checked. No outputs, no
/// paths, and an update through it leaves the input as it is (`(empty) |= 1` is `.`, as in
/// jq).
fn empty_native() -> Fun<Data> {
    let native = Native::<Data>::new(|cv| match cv.0.data().guard.tick() {
        Ok(()) => Box::new(core::iter::empty()),
        Err(trip) => bome(Err(trip_error(trip))),
    })
    .with_paths(|cv| match cv.0.data().guard.tick() {
        Ok(()) => Box::new(core::iter::empty()),
        Err(trip) => box_once(Err(Exn::from(trip_error(trip)))),
    })
    .with_update(|cv, _| match cv.0.data().guard.tick() {
        Ok(()) => box_once(Ok(cv.1)),
        Err(trip) => bome(Err(trip_error(trip))),
    });
    ("empty", v(0), native)
}

/// Natives renamed `_lro_<name>` so the prelude can put a guard in front of them:
/// `range/3` is ticked on every value, printing measures the value whole first, parsing
/// checks the nesting of its text first, natives whose result can be many times the size of
/// their input are refused before they build it when the estimate ([`Guard::check_grows`],
/// bytes per byte of a string input and per item of an array or object) does not fit the
/// memory bound, and `implode` refuses what is not a code point (jaq takes `-65` as `A`).
const GUARDED: [(&str, usize, &str, &str); 33] = [
    (
        "range",
        3,
        "_lro_range",
        "def range($from; $upto; $by): _lro_range($from; $upto; $by) | _lro_tick;",
    ),
    (
        "tojson",
        0,
        "_lro_tojson",
        "def tojson: _lro_printed(\"json\") | _lro_tojson;",
    ),
    (
        "fromxml",
        0,
        "_lro_fromxml",
        "def fromxml: _lro_nesting(\"xml\") | _lro_fromxml;",
    ),
    (
        "fromyaml",
        0,
        "_lro_fromyaml",
        "def fromyaml: _lro_nesting(\"yaml\") | _lro_fromyaml;",
    ),
    (
        "fromtoml",
        0,
        "_lro_fromtoml",
        "def fromtoml: _lro_nesting(\"toml\") | _lro_fromtoml;",
    ),
    (
        "fromcbor",
        0,
        "_lro_fromcbor",
        "def fromcbor: _lro_nesting(\"cbor\") | _lro_fromcbor;",
    ),
    (
        "fromcsv",
        0,
        "_lro_fromcsv",
        "def fromcsv: _lro_nesting(\"csv\") | _lro_fromcsv;",
    ),
    (
        "fromtsv",
        0,
        "_lro_fromtsv",
        "def fromtsv: _lro_nesting(\"tsv\") | _lro_fromtsv;",
    ),
    // One number (16 bytes) per byte, in a vector that may have doubled.
    (
        "explode",
        0,
        "_lro_explode",
        "def explode: _lro_grows(32; 0) | _lro_explode;",
    ),
    (
        "implode",
        0,
        "_lro_implode",
        "def implode: _lro_codepoints | _lro_implode;",
    ),
    // A `[key, value]` array per entry (to_entries, with_entries, paths).
    (
        "key_values",
        0,
        "_lro_key_values",
        "def key_values: _lro_grows(0; 96) | _lro_key_values;",
    ),
    (
        "keys_unsorted",
        0,
        "_lro_keys_unsorted",
        "def keys_unsorted: _lro_grows(0; 32) | _lro_keys_unsorted;",
    ),
    // One index per byte or item at most.
    (
        "indices",
        1,
        "_lro_indices",
        "def indices($i): _lro_grows(32; 32) | _lro_indices($i);",
    ),
    // Global regex results: up to a match object (offset, length, string, captures) or a
    // piece per byte.
    (
        "matches",
        2,
        "_lro_matches",
        "def matches($re; $flags): _lro_grows_regex($flags) | _lro_matches($re; $flags);",
    ),
    (
        "split_matches",
        2,
        "_lro_split_matches",
        "def split_matches($re; $flags): _lro_grows_regex($flags) | _lro_split_matches($re; $flags);",
    ),
    (
        "split_",
        2,
        "_lro_split_",
        "def split_($re; $flags): _lro_grows_regex($flags) | _lro_split_($re; $flags);",
    ),
    // Copies of the input, up to a few times its size (the input is still held).
    (
        "ascii_downcase",
        0,
        "_lro_ascii_downcase",
        "def ascii_downcase: _lro_grows(2; 0) | _lro_ascii_downcase;",
    ),
    (
        "ascii_upcase",
        0,
        "_lro_ascii_upcase",
        "def ascii_upcase: _lro_grows(2; 0) | _lro_ascii_upcase;",
    ),
    // Natives that gather the outputs of `f` for every item (the sort or group keys): the
    // keys count as a collection's items until the native returns, and the native's own
    // tables per item (measured: about 86 bytes an item for `sort_by`'s cached keys, more
    // for `group_by`'s pairs and one array per group) are counted before it starts.
    (
        "sort_by",
        1,
        "_lro_sort_by",
        "def sort_by(f): _lro_grows(0; 96) | _lro_mark as $m | _lro_sort_by(f | _lro_item) | _lro_unmark($m);",
    ),
    (
        "group_by",
        1,
        "_lro_group_by",
        "def group_by(f): _lro_grows(0; 192) | _lro_mark as $m | _lro_group_by(f | _lro_item) | _lro_unmark($m);",
    ),
    // Text natives whose result's length is counted from their input (`_lro_sized`).
    (
        "escape_html",
        0,
        "_lro_escape_html",
        "def escape_html: _lro_sized(\"html\") | _lro_escape_html;",
    ),
    (
        "encode_uri",
        0,
        "_lro_encode_uri",
        "def encode_uri: _lro_sized(\"uri\") | _lro_encode_uri;",
    ),
    (
        "encode_base64",
        0,
        "_lro_encode_base64",
        "def encode_base64: _lro_sized(\"base64\") | _lro_encode_base64;",
    ),
    (
        "escape_sh",
        0,
        "_lro_escape_sh",
        "def escape_sh: _lro_sized(\"sh\") | _lro_escape_sh;",
    ),
    // Up to 255 bytes per directive (`%255d`, the widest jiff pads to): 64 per byte of
    // the format bounds every directive's text (`%c`, 24 bytes from 2, is the most of the
    // unpadded ones).
    (
        "strftime",
        1,
        "_lro_strftime",
        "def strftime($f): _lro_grows_of($f; 64) | _lro_strftime($f);",
    ),
    // Serializers: the text estimated from the value (`_lro_printed`).
    (
        "@csv",
        0,
        "_lro_fmt_csv",
        "def @csv: _lro_printed(\"csv\") | _lro_fmt_csv;",
    ),
    (
        "@tsv",
        0,
        "_lro_fmt_tsv",
        "def @tsv: _lro_printed(\"tsv\") | _lro_fmt_tsv;",
    ),
    (
        "tocsv",
        0,
        "_lro_tocsv",
        "def tocsv: _lro_printed(\"csv\") | _lro_tocsv;",
    ),
    (
        "totsv",
        0,
        "_lro_totsv",
        "def totsv: _lro_printed(\"tsv\") | _lro_totsv;",
    ),
    (
        "toyaml",
        0,
        "_lro_toyaml",
        "def toyaml: _lro_printed(\"yaml\") | _lro_toyaml;",
    ),
    (
        "toxml",
        0,
        "_lro_toxml",
        "def toxml: _lro_printed(\"xml\") | _lro_toxml;",
    ),
    (
        "totoml",
        0,
        "_lro_totoml",
        "def totoml: _lro_printed(\"toml\") | _lro_totoml;",
    ),
    (
        "tocbor",
        0,
        "_lro_tocbor",
        "def tocbor: _lro_printed(\"cbor\") | _lro_tocbor;",
    ),
];

/// The natives: jaq's standard set without [`WITHHELD`], the [`GUARDED`] ones renamed, our
/// `fromjson`, `group_by` (jaq's result, found without sorting every record), `strptime`
/// (zones compiled in), `test` and `empty`, the tick and the checks of [`crate::bounds`].
fn natives() -> Vec<Fun<Data>> {
    let standard = jaq_core::funs::<Data>()
        .chain(jaq_std::funs::<Data>())
        .chain(jaq_json::funs::<Data>())
        .chain(formats());
    let mut natives: Vec<Fun<Data>> = standard
        .filter(|(name, _, _)| {
            !WITHHELD.contains(name) && !matches!(*name, "fromjson" | "strptime" | "group_by")
        })
        .map(|(name, args, native)| {
            let renamed = GUARDED
                .iter()
                .find(|(n, arity, ..)| *n == name && *arity == args.len())
                .map_or(name, |(n, ..)| guarded_name(n));
            (renamed, args, native)
        })
        .collect();
    natives.push(fromjson_native());
    natives.push(crate::group_by::native(guarded_name("group_by")));
    natives.push(crate::time_zones::strptime_native());
    natives.push(test_native());
    natives.push(empty_native());
    natives.push(tick_native());
    natives.push(check_native!(sandbox::NEW, check_new));
    natives.push(check_native!(sandbox::ITEM, add_item));
    natives.push(check_native!(sandbox::CLOSE, close));
    natives.push(check_native!(sandbox::MEASURE, check_whole));
    natives.push(nesting_native());
    natives.push(mul_native());
    natives.extend(crate::natives::all());
    natives
}

/// `_lro_<name>` for a [`GUARDED`] native.
fn guarded_name(name: &str) -> &'static str {
    GUARDED
        .iter()
        .find(|(n, ..)| *n == name)
        .map_or("_lro_unknown", |(_, _, renamed, _)| *renamed)
}

/// `halt_error` reports its value as the error of the call (jq prints it to stderr and
/// exits 5; an extraction that stopped there must not look like one that matched nothing).
const HALT_DEFS: &str =
    "def halt_error($code): _lro_halt_error($code); def halt_error: halt_error(5);";

/// The prelude's definitions of the [`GUARDED`] natives this build has (WebAssembly builds
/// have no XML, YAML, TOML or CBOR).
fn guarded_defs() -> &'static str {
    static DEFS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DEFS.get_or_init(|| {
        let present: Vec<(&str, usize)> = jaq_core::funs::<Data>()
            .chain(jaq_std::funs::<Data>())
            .chain(jaq_json::funs::<Data>())
            .chain(formats())
            .map(|(name, args, _)| (name, args.len()))
            .collect();
        GUARDED
            .iter()
            .filter(|(name, arity, ..)| present.contains(&(name, *arity)))
            .map(|(.., def)| *def)
            .chain([HALT_DEFS])
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The standard definitions, seen with the lifetime of the agent's filter.
fn shorten<'s>(def: Def<&'static str>) -> Def<&'s str> {
    def
}

/// A compiled filter with its variable names.
pub struct Program {
    filter: jaq_core::Filter<Data>,
    var_count: usize,
}

fn query_error(filter: &str, message: impl std::fmt::Display) -> InvalidFilter {
    InvalidFilter::new(format!("invalid jq filter {filter:?}: {message}"))
}

/// A variable name usable as `$name`.
pub fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name != "__loc__"
}

/// Compiled programs kept for reuse, most recently used first.
const CACHED_PROGRAMS: usize = 8;

/// A filter and its variable names, and what they compiled to.
type Cached = (String, Vec<String>, Arc<Program>);

impl Program {
    /// [`Program::compile`], reusing a program compiled earlier in the process for the same
    /// filter and variable names. Compiling with jaq's standard library takes most of a
    /// small extraction's time (0.6-0.9 ms of a one-record file); agents call the same
    /// recipes again and again. Errors are not kept.
    pub fn cached(filter: &str, vars: &[&str]) -> Result<Arc<Self>, InvalidFilter> {
        static CACHE: Mutex<Vec<Cached>> = Mutex::new(Vec::new());
        let hit = |(f, v, _): &Cached| {
            f == filter && v.iter().map(String::as_str).eq(vars.iter().copied())
        };
        {
            let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(at) = cache.iter().position(hit) {
                let entry = cache.remove(at);
                let program = Arc::clone(&entry.2);
                cache.insert(0, entry);
                return Ok(program);
            }
        }
        // Compiled outside the lock: another thread may compile the same filter meanwhile,
        // which only costs the time.
        let program = Arc::new(Self::compile(filter, vars)?);
        let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
        if !cache.iter().any(hit) {
            cache.insert(
                0,
                (
                    filter.to_owned(),
                    vars.iter().map(|v| (*v).to_owned()).collect(),
                    Arc::clone(&program),
                ),
            );
            cache.truncate(CACHED_PROGRAMS);
        }
        Ok(program)
    }

    /// Parses and compiles `filter` with `vars` (names without `$`) as global variables.
    pub fn compile(filter: &str, vars: &[&str]) -> Result<Self, InvalidFilter> {
        crate::filter_text::check_text(filter)?;
        let dollar: Vec<String> = vars.iter().map(|n| format!("${n}")).collect();
        let main = if dollar.is_empty() {
            "_lro_main".to_owned()
        } else {
            format!("_lro_main({})", dollar.join("; "))
        };
        // Parse alone first: the loader reports what was expected where.
        let arena = Arena::default();
        let loader = Loader::new([]);
        if let Err(errors) = loader.load(
            &arena,
            File {
                code: filter,
                path: (),
            },
        ) {
            return Err(query_error(filter, describe_load_errors(&errors)));
        }
        let mut term = jaq_core::load::parse(filter, |p| p.term())
            .ok_or_else(|| query_error(filter, "modules (import, include) are not available"))?;
        sandbox::tick_term(&mut term);
        let main_def = Def {
            name: "_lro_main",
            args: dollar.iter().map(String::as_str).collect(),
            body: term,
        };
        let range_defs = jaq_core::load::parse(guarded_defs(), |p| p.defs())
            .ok_or_else(|| query_error(filter, "internal prelude"))?;
        let standard = jaq_core::defs()
            .chain(jaq_std::defs())
            .chain(jaq_json::defs())
            // Ours replace these (natives, and `halt_error` in the prelude).
            .filter(|def| {
                !matches!(
                    (def.name, def.args.len()),
                    ("test", 2) | ("empty", 0) | ("halt_error", 0 | 1)
                )
            });
        let prelude = range_defs
            .into_iter()
            .chain(standard)
            .map(shorten)
            .map(sandbox::tick_def)
            .chain([main_def]);
        let modules = Loader::new(prelude)
            .load(
                &arena,
                File {
                    code: main.as_str(),
                    path: (),
                },
            )
            .map_err(|errors| query_error(filter, describe_load_errors(&errors)))?;
        let filter_compiled = Compiler::default()
            .with_funs(natives())
            .with_global_vars(dollar.iter().map(String::as_str))
            .compile(modules)
            .map_err(|errors| {
                let mut parts = Vec::new();
                for (_, undefined) in errors {
                    for (name, kind) in undefined {
                        parts.push(match kind {
                            jaq_core::compile::Undefined::Filter(arity) => {
                                format!("undefined filter {name}/{arity}")
                            }
                            other => format!("undefined {} {name}", other.as_str()),
                        });
                    }
                }
                query_error(filter, parts.join(", "))
            })?;
        Ok(Self {
            filter: filter_compiled,
            var_count: vars.len(),
        })
    }

    /// Runs the filter on `input`, handing each output to `emit` until it returns `false`.
    /// Stops at the first runtime error.
    pub fn run(
        &self,
        input: Val,
        vars: &[Val],
        guard: &Guard<'_>,
        emit: &mut dyn FnMut(Val) -> bool,
    ) -> Result<Flow, RunError> {
        debug_assert_eq!(vars.len(), self.var_count);
        guard.enter();
        let ctx = Ctx::<Data>::new(
            Env {
                lut: &self.filter.lut,
                guard,
            },
            Vars::new(vars.iter().cloned()),
        );
        for output in self.filter.id.run((ctx, input)) {
            if let Some(trip) = guard.tripped() {
                return Ok(Flow::Tripped(trip));
            }
            match output {
                Ok(value) => {
                    if !emit(value) {
                        return Ok(Flow::Stop);
                    }
                }
                Err(_) if guard.tripped().is_some() => {
                    return Ok(Flow::Tripped(guard.tripped().unwrap_or(Trip::Time)));
                }
                Err(exn) => {
                    return match exn.get_err() {
                        Ok(error) => Err(RunError(capped_text(&error, ERROR_MESSAGE_BYTES))),
                        // `halt` stops the output as jq stops printing (the response
                        // says so); `halt_error` and `halt(N)` with N > 0 are jq's way to
                        // fail, so they are the error of the call.
                        Err(exn) => match exn.get_halt() {
                            Ok(code) => match guard.halt_message() {
                                Some(m) => {
                                    Err(RunError(format!("halt_error (exit code {code}): {m}")))
                                }
                                None if code != 0 => {
                                    Err(RunError(format!("the filter called halt({code})")))
                                }
                                None => Ok(Flow::Stop),
                            },
                            Err(_) => Err(RunError("internal control flow escaped".to_owned())),
                        },
                    };
                }
            }
        }
        Ok(guard.tripped().map_or(Flow::Continue, Flow::Tripped))
    }
}

/// Longest jq error message kept (jaq's messages show the value at fault, which may be as
/// large as the memory bound, and 6 times larger once printed).
pub(crate) const ERROR_MESSAGE_BYTES: usize = 4096;

/// How a run ended, when it did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// All outputs were taken: go on with the next record.
    Continue,
    /// Stop reading: the output is full, or the filter called `halt`.
    Stop,
    /// The guard stopped the filter.
    Tripped(Trip),
}

/// A jq runtime error message.
#[derive(Debug)]
pub struct RunError(pub String);

fn describe_load_errors<P>(errors: &jaq_core::load::Errors<&str, P>) -> String {
    use jaq_core::load::Error;
    let mut parts = Vec::new();
    for (_, error) in errors {
        match error {
            Error::Io(items) => parts.extend(
                items
                    .iter()
                    .map(|(path, e)| format!("cannot load module {path:?}: {e}")),
            ),
            Error::Lex(items) => parts.extend(items.iter().map(|(expect, found)| {
                format!(
                    "expected {} at {:?}",
                    expect.as_str(),
                    found.chars().take(20).collect::<String>()
                )
            })),
            Error::Parse(items) => parts.extend(items.iter().map(|(expect, found)| {
                let found = if found.is_empty() {
                    "end of filter".to_owned()
                } else {
                    format!("{found:?}")
                };
                format!("expected {}, found {found}", expect.as_str())
            })),
        }
    }
    if parts.is_empty() {
        "does not parse".to_owned()
    } else {
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_reused_per_filter_and_variable_names() {
        let a = Program::cached(".id // $x", &["x"]).unwrap();
        let b = Program::cached(".id // $x", &["x"]).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        // Another variable list (even just another name) is another program.
        assert!(Program::cached(".id // $x", &["x", "y"]).is_ok_and(|c| !Arc::ptr_eq(&a, &c)));
        assert!(Program::cached(".id // $y", &["y"]).is_ok_and(|c| !Arc::ptr_eq(&a, &c)));
        // A filter that does not compile fails every time, with the same error.
        let first = Program::cached(".id |", &[])
            .err()
            .expect("a compile error");
        let again = Program::cached(".id |", &[])
            .err()
            .expect("a compile error");
        assert!(first.message().starts_with("invalid jq filter"));
        assert_eq!(first.message(), again.message());
        // Past the cache's size the oldest is compiled anew; results stay correct.
        for i in 0..CACHED_PROGRAMS + 2 {
            Program::cached(&format!(".n + {i}"), &[]).unwrap();
        }
        let c = Program::cached(".id // $x", &["x"]).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
    }

    #[test]
    fn the_deepest_chains_accepted_compile_and_run() {
        use crate::filter_text::MAX_FILTER_DEPTH as MAX;
        // Each of the costliest chains at the limit. A release build takes under 1 MiB of
        // stack for the deepest (`+`, `+=`) and wasm under half its 1 MiB, a debug build about
        // 4 MiB: run where extraction runs, on a thread of 8 MiB.
        // Each chain of `n` terms, the largest `n` accepted, and the start of its output on `{}`.
        type Chain = (fn(usize) -> String, usize, &'static str);
        let chains: [Chain; 6] = [
            (|n| "1+".repeat(n) + "1", MAX, "257"),
            (|n| ".a+=".repeat(n) + "1", MAX - 1, "{\"a\":{\"a\":{\"a\":"),
            (|n| ".|".repeat(n) + ".", MAX - 1, "{}"),
            (|n| ".".to_owned() + &"[]?".repeat(n), (MAX - 1) / 2, "none"),
            (
                |n| format!("[{}1] | length", "1,".repeat(n)),
                MAX - 2,
                "255",
            ),
            (|n| ".a".repeat(n), MAX, "null"),
        ];
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || {
                for (chain, n, expected) in chains {
                    let filter = chain(n);
                    let program = Program::compile(&filter, &[]).unwrap();
                    let flag = std::sync::atomic::AtomicBool::new(false);
                    let guard = Guard::new(crate::Clock::Flag(&flag), 64 << 20);
                    let mut outputs = Vec::new();
                    let input = crate::convert::parse_val(b"{}").unwrap();
                    let flow = program.run(input, &[], &guard, &mut |out| {
                        outputs.push(crate::convert::to_value(&out).unwrap().to_string());
                        true
                    });
                    assert_eq!(flow.unwrap(), Flow::Continue, "{}", &filter[..12]);
                    let shown = outputs.first().map_or("none", String::as_str);
                    assert!(shown.starts_with(expected), "{}: {shown}", &filter[..12]);
                    // One level more is refused before it is parsed.
                    let error = Program::compile(&chain(n + 1), &[]).err().expect("refused");
                    assert!(error.message().starts_with("filter is too deep: "));
                }
            })
            .unwrap()
            .join()
            .expect("no overflow");
    }
}
