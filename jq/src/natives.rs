//! Natives of the sandbox that guard jaq's own: estimates of what a native will build,
//! checked before it builds it ([`crate::Guard::check_grows`]), code points checked
//! before `implode`, and `halt_error` made an error of the call.

use jaq_core::box_iter::{BoxIter, box_once, flat_map_with, map_with};
use jaq_core::native::{Fun, bome, v};
use jaq_core::{Bind, Exn, Native};
use jaq_json::{Num, Val};

use crate::bounds::{self, Printed};
use crate::data::{Data, REGEX_PER_BYTE, trip_error};
use crate::sandbox::{self, Trip};

/// Longest part of a `halt_error` value shown in the error message.
const HALT_MESSAGE_BYTES: usize = 1024;

/// A non-negative integer from a number value (what the prelude passes), else 0.
fn count(value: &Val) -> u64 {
    match value {
        Val::Num(Num::Int(i)) => u64::try_from(*i).unwrap_or(0),
        _ => 0,
    }
}

/// `_lro_grows($per_byte; $per_item)`: the input, once the guard accepts the estimate.
fn grows() -> Fun<Data> {
    let native = Native::<Data>::new(|mut cv| {
        let per_item = count(&cv.0.pop_var());
        let per_byte = count(&cv.0.pop_var());
        match cv.0.data().guard.check_grows(&cv.1, per_byte, per_item) {
            Ok(()) => box_once(Ok(cv.1)),
            Err(trip) => bome(Err(trip_error(trip))),
        }
    });
    ("_lro_grows", v(2), native)
}

/// `_lro_grows_regex($flags)`: with the global flag `g`, a regex native may return a match
/// (or a piece) per byte of its input; without it, one.
fn grows_regex() -> Fun<Data> {
    let native = Native::<Data>::new(|mut cv| {
        let flags = cv.0.pop_var();
        let global = matches!(&flags, Val::TStr(f) | Val::BStr(f) if f.contains(&b'g'));
        let per_byte = if global { REGEX_PER_BYTE } else { 1 };
        match cv.0.data().guard.check_grows(&cv.1, per_byte, 0) {
            Ok(()) => box_once(Ok(cv.1)),
            Err(trip) => bome(Err(trip_error(trip))),
        }
    });
    ("_lro_grows_regex", v(1), native)
}

/// A native of one variable that passes its input on once `check(guard, input, variable)`
/// accepts it.
macro_rules! checked_by {
    ($name:expr, $check:expr) => {{
        let native = Native::<Data>::new(|mut cv| {
            let arg = cv.0.pop_var();
            let check: fn(&crate::sandbox::Guard<'_>, &Val, &Val) -> Result<(), Trip> = $check;
            match check(cv.0.data().guard, &cv.1, &arg) {
                Ok(()) => box_once(Ok(cv.1)),
                Err(trip) => bome(Err(trip_error(trip))),
            }
        });
        ($name, v(1), native)
    }};
}

/// The bytes of a string value.
fn text(value: &Val) -> Option<&[u8]> {
    match value {
        Val::TStr(s) | Val::BStr(s) => Some(s),
        _ => None,
    }
}

/// `_lro_printed($format)`: the input, once [`crate::Guard::check_printed`] accepts its text
/// in `$format` (`"json"`, `"text"`, `"csv"`, ...).
fn printed() -> Fun<Data> {
    checked_by!("_lro_printed", |guard, value, format| {
        guard.check_printed(value, Printed::named(text(format).unwrap_or(b"")))
    })
}

/// The exact length of what the string native `kind` makes of `s`.
fn sized(kind: &[u8], s: &[u8]) -> u64 {
    let n = s.len() as u64;
    let count = |set: &[u8]| s.iter().filter(|b| set.contains(b)).count() as u64;
    match kind {
        // `@uri`: every byte but the unreserved ones becomes `%XX`.
        b"uri" => {
            let kept = s
                .iter()
                .filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
                .count() as u64;
            kept + 3 * (n - kept)
        }
        b"base64" => n.div_ceil(3) * 4,
        // `&lt;`, `&gt;`, `&amp;`, `&apos;`, `&quot;`.
        b"html" => n + 3 * count(b"<>") + 4 * count(b"&") + 5 * count(b"'\""),
        // `'` becomes `'\''`.
        b"sh" => n + 3 * count(b"'"),
        _ => n,
    }
}

/// `_lro_sized($kind)`: a string native whose result's length is known from its input
/// (`@uri`, `@base64`, `@html`, `@sh`), refused before it runs when the input and the
/// result would not fit the memory left.
fn sized_native() -> Fun<Data> {
    checked_by!("_lro_sized", |guard, value, kind| match text(value) {
        Some(s) => guard.check_bytes(s.len() as u64 + sized(text(kind).unwrap_or(b""), s)),
        None => Ok(()),
    })
}

/// `_lro_grows_of($x; $per_byte)`: the input, once the guard accepts `$per_byte` bytes per
/// byte of the string `$x` (a native's argument, such as `strftime`'s format).
fn grows_of() -> Fun<Data> {
    let native = Native::<Data>::new(|mut cv| {
        let per_byte = count(&cv.0.pop_var());
        let x = cv.0.pop_var();
        match cv.0.data().guard.check_grows(&x, per_byte, 0) {
            Ok(()) => box_once(Ok(cv.1)),
            Err(trip) => bome(Err(trip_error(trip))),
        }
    });
    ("_lro_grows_of", v(2), native)
}

/// Bytes of a piece of a split string: its slot and the box of its shared bytes.
const PIECE: u64 = bounds::SLOT + 48;

/// The estimated bytes of `l / r`: for strings, an array of the pieces (one more than the
/// separator's occurrences, or one per character for `""`).
pub(crate) fn quotient_bytes(l: &Val, r: &Val) -> u64 {
    let (Some(s), Some(sep)) = (text(l), text(r)) else {
        return 0;
    };
    let pieces = if sep.is_empty() {
        s.iter().filter(|&&b| (b & 0xc0) != 0x80).count() as u64
    } else {
        memchr::memmem::find_iter(s, sep).count() as u64 + 1
    };
    pieces.saturating_mul(PIECE)
}

/// The estimated bytes of `l - r` (big integers only: [`bounds::integer_bytes`]).
fn difference_bytes(l: &Val, r: &Val) -> u64 {
    bounds::integer_bytes(bounds::Arith::Sub, l, r)
}

/// The estimated bytes of `l % r` (big integers only: [`bounds::integer_bytes`]).
fn remainder_bytes(l: &Val, r: &Val) -> u64 {
    bounds::integer_bytes(bounds::Arith::Rem, l, r)
}

/// `_lro_add($l; $r)` and `_lro_div($l; $r)`: the input, once the guard accepts the
/// estimated result of `$l + $r` or `$l / $r`, before it is built.
macro_rules! operator {
    ($name:expr, $bytes:expr) => {{
        let native = Native::<Data>::new(|mut cv| {
            let r = cv.0.pop_var();
            let l = cv.0.pop_var();
            match cv.0.data().guard.check_bytes($bytes(&l, &r)) {
                Ok(()) => box_once(Ok(cv.1)),
                Err(trip) => bome(Err(trip_error(trip))),
            }
        });
        ($name, v(2), native)
    }};
}

/// `_lro_add(l; r)`: `l + r`, as jaq's operator runs it (for each output of `l`, each of
/// `r`, both on the input), once the guard accepts the estimate of the result
/// ([`bounds::sum_bytes`]) before it is built. A native that runs its operands itself costs about
/// what the operator does, where binding them to variables first cost a third more.
fn add_native() -> Fun<Data> {
    let native = Native::<Data>::new(|mut cv| {
        let (r, rc) = cv.0.pop_fun();
        let (l, lc) = cv.0.pop_fun();
        let guard = cv.0.data().guard;
        let input = cv.1;
        settled(flat_map_with(
            l.run((lc, input.clone())),
            (rc, input),
            move |x, (rc, input)| {
                map_with(r.run((rc, input)), x, move |y, x| {
                    let (x, y) = (x?, y?);
                    guard
                        .check_bytes(bounds::sum_bytes(&x, &y))
                        .map_err(|trip| Exn::from(trip_error(trip)))?;
                    Ok((x + y)?)
                })
            },
        ))
    });
    (
        sandbox::ADD,
        Box::new([Bind::Fun(()), Bind::Fun(())]),
        native,
    )
}

/// The outputs of `outputs`, read one ahead: once the last has been read, the iterator that
/// made them (and the operands it holds, such as the left side of `+`) is dropped, and the
/// size hint is exact. jaq keeps an iterator whose hint is not exact on its stack while it
/// evaluates what follows (a `reduce` step keeps every step before it, a pipe its left
/// side), so without this every accumulator a `reduce` or a recursion builds is held until
/// the end: each counted alone against the bound, together many times it
/// (`gsub("x"; "y" * 100000)` on 10,000 matches held a gigabyte).
pub(crate) struct Settled<'a, T> {
    next: Option<T>,
    rest: Option<BoxIter<'a, T>>,
}

impl<T> Settled<'_, T> {
    fn read_ahead(&mut self) -> Option<T> {
        let item = self.rest.as_mut().and_then(Iterator::next);
        if item.is_none() {
            self.rest = None;
        }
        item
    }
}

impl<T> Iterator for Settled<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let item = self.next.take()?;
        self.next = self.read_ahead();
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let ahead = usize::from(self.next.is_some());
        match &self.rest {
            None => (ahead, Some(ahead)),
            Some(rest) => (ahead + rest.size_hint().0, None),
        }
    }
}

/// [`Settled`] outputs: the first two read now, so a single output is known to be single
/// (jaq then pipes it on without keeping the iterator that made it).
pub(crate) fn settled<'a, T: 'a>(outputs: BoxIter<'a, T>) -> BoxIter<'a, T> {
    let mut s = Settled {
        next: None,
        rest: Some(outputs),
    };
    s.next = s.read_ahead();
    if s.next.is_some() {
        let second = s.read_ahead();
        if let Some(second) = second {
            // Two outputs: keep both in order, the rest still lazy.
            let first = s.next.take();
            return Box::new(first.into_iter().chain(Settled {
                next: Some(second),
                rest: s.rest,
            }));
        }
    }
    Box::new(s)
}

/// `_lro_settled(f)`: the outputs of `f` (a `reduce` or `foreach` step), [`settled`], in
/// every position (`reduce` runs its step in path and update position too).
fn settled_native() -> Fun<Data> {
    let native = Native::<Data>::new(|mut cv| {
        let (f, fc) = cv.0.pop_fun();
        settled(f.run((fc, cv.1)))
    })
    .with_paths(|mut cv| {
        let (f, fc) = cv.0.pop_fun();
        settled(f.paths((fc, cv.1)))
    })
    .with_update(|mut cv, u| {
        let (f, fc) = cv.0.pop_fun();
        settled(f.update((fc, cv.1), u))
    });
    (sandbox::SETTLED, Box::new([Bind::Fun(())]), native)
}

/// `_lro_mark`: the bytes gathered so far, as a number, where an update starts.
fn mark() -> Fun<Data> {
    let native = Native::<Data>::new(|cv| {
        let mark = cv.0.data().guard.mark();
        box_once(Ok(Val::from(isize::try_from(mark).unwrap_or(isize::MAX))))
    });
    ("_lro_mark", v(0), native)
}

/// `_lro_unmark($mark)`: an update is complete (see [`crate::Guard::unmark`]).
fn unmark() -> Fun<Data> {
    checked_by!("_lro_unmark", |guard, value, mark| guard
        .unmark(count(mark), value))
}

/// Whether `value` is a Unicode scalar value (a code point that is not a surrogate).
fn is_code_point(value: &Val) -> bool {
    let n = match value {
        Val::Num(Num::Int(i)) => *i as f64,
        Val::Num(Num::Float(f)) => *f,
        Val::Num(n @ (Num::BigInt(_) | Num::Dec(_))) => {
            n.to_string().parse::<f64>().unwrap_or(f64::NAN)
        }
        _ => return false,
    };
    n.fract() == 0.0
        && (0.0..=f64::from(u32::MAX)).contains(&n)
        && char::from_u32(n as u32).is_some()
}

/// `_lro_codepoints`: an array of code points passes; anything else is the error jq gives.
fn codepoints() -> Fun<Data> {
    let native = Native::<Data>::new(|cv| {
        let bad = match &cv.1 {
            Val::Arr(items) => items.iter().find(|x| !is_code_point(x)).cloned(),
            _ => None,
        };
        match bad {
            Some(x) => bome(Err(jaq_core::Error::str(format!(
                "implode: invalid code point {x} (code points are integers from 0 to 1114111, \
                 surrogates excluded)"
            )))),
            None => box_once(Ok(cv.1)),
        }
    });
    ("_lro_codepoints", v(0), native)
}

/// `_lro_halt_error($code)`: keeps the input (a string as it is, anything else as JSON, cut
/// to [`HALT_MESSAGE_BYTES`]) for the error message, then halts.
fn halt_error() -> Fun<Data> {
    let native = Native::<Data>::new(|mut cv| {
        let code = cv.0.pop_var();
        let text = match &cv.1 {
            Val::TStr(s) | Val::BStr(s) => {
                String::from_utf8_lossy(&s[..s.len().min(HALT_MESSAGE_BYTES)]).into_owned()
            }
            other => {
                // Measured first: printing recurses on the value.
                if let Err(trip) = cv.0.data().guard.check_whole(other) {
                    return bome(Err(trip_error(trip)));
                }
                // Printed up to the limit only: the whole text may be far larger.
                crate::bounds::capped(other, HALT_MESSAGE_BYTES).0
            }
        };
        cv.0.data().guard.set_halt_message(text);
        let code = match &code {
            Val::Num(Num::Int(i)) => i32::try_from(*i).unwrap_or(5),
            _ => 5,
        };
        box_once(Err(Exn::halt(code)))
    });
    ("_lro_halt_error", v(1), native)
}

/// The natives of this module.
pub(crate) fn all() -> [Fun<Data>; 14] {
    [
        grows(),
        grows_regex(),
        codepoints(),
        halt_error(),
        printed(),
        sized_native(),
        grows_of(),
        add_native(),
        settled_native(),
        operator!(sandbox::DIV, quotient_bytes),
        operator!(sandbox::SUB, difference_bytes),
        operator!(sandbox::REM, remainder_bytes),
        mark(),
        unmark(),
    ]
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use crate::{Clock, Flow, Guard, Program, Trip, convert};

    /// A small bound: each attack below starts from an input far below it and would build
    /// several times it in one native step.
    const BOUND: u64 = 1 << 20;

    /// The outputs of `filter` on `null` under [`BOUND`], or how it stopped.
    fn run(filter: &str) -> Result<Vec<serde_json::Value>, String> {
        let _alone = crate::TEST_BUDGET
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let program = Program::compile(filter, &[]).map_err(|e| e.message().to_owned())?;
        let flag = AtomicBool::new(false);
        let guard = Guard::new(Clock::Flag(&flag), BOUND);
        let mut out = Vec::new();
        let flow = program.run(jaq_json::Val::Null, &[], &guard, &mut |v| {
            out.push(convert::to_value(&v).unwrap());
            true
        });
        match flow {
            Ok(Flow::Tripped(trip)) => Err(format!("{trip:?}")),
            Ok(_) => Ok(out),
            Err(e) => Err(e.0),
        }
    }

    #[test]
    fn natives_that_print_or_join_are_refused_before_they_build() {
        let memory = Err(format!("{:?}", Trip::Memory));
        let mut failed = Vec::new();
        for filter in [
            // Printing: control characters take 6 bytes each.
            r#""\u0001" * 200000 | tojson"#,
            r#""\u0001" * 200000 | @json"#,
            r#"["\u0001" * 200000] | tostring"#,
            r#"["\u0001" * 200000] | "\(.)""#,
            r#"["\u0001" * 200000] | @text"#,
            r#"["\u0001" * 200000] | toyaml"#,
            // Interpolation: many copies of one value.
            r#""x" * 200000 | "\(.)\(.)\(.)\(.)\(.)\(.)""#,
            r#""x" * 200000 | "a\(.)b\(.)c\(.)d\(.)e\(.)f\(.)""#,
            r#""x" * 200000 | @base64 "\(.)\(.)\(.)\(.)""#,
            // Formats.
            r#""é" * 150000 | @uri"#,
            r#"["\"" * 400000] | @csv"#,
            r#"["\t" * 400000] | @tsv"#,
            r#""x" * 500000 | @base64"#,
            r#""'" * 300000 | @sh"#,
            r#""<" * 300000 | @html"#,
            // Dates: 24 bytes per `%c`.
            r#"0 | strftime("%c" * 30000)"#,
            // Joining and concatenating many values.
            r#"[range(5000) | ""] | join("x" * 400)"#,
            r#"[range(5000) | ""] | .[] += "x" * 400"#,
            r#"[range(5000) | ""] | .[] |= . + "x" * 400"#,
            r#"[range(5000) | ""] | map_values("x" * 400)"#,
            r#"[range(100) | "x" * 20000] | add"#,
            r#""x" * 400000 | . + . + ."#,
            r#"[range(30000)] | . + . + ."#,
            // Splitting into many pieces.
            r#""a" * 100000 | split("a")"#,
            r#""a" * 100000 | . / "a""#,
            r#""a" * 100000 | split("")"#,
            // Keys gathered for every item by a native.
            r#"[range(3000)] | sort_by("x" * 1000)"#,
            r#"[range(3000)] | group_by("x" * 1000)"#,
            r#"[range(3000)] | unique_by("x" * 1000)"#,
            // Their own tables, one entry per item.
            r#"[range(40000)] | unique"#,
            r#"[range(40000)] | sort_by(-.)"#,
            // Parsing a text into a value many times its size.
            r#""[" + ("0," * 60000) + "0]" | fromjson"#,
            r#"("0," * 60000) + "0" | fromcsv"#,
            r#""- 0\n" * 60000 | fromyaml"#,
        ] {
            let got = run(&format!("{filter} | length"));
            if got != memory {
                failed.push(format!("{filter}: {got:?}"));
            }
        }
        assert!(failed.is_empty(), "not refused: {failed:#?}");
    }

    #[test]
    fn big_integers_are_sized_before_they_are_computed() {
        let memory = Err(format!("{:?}", Trip::Memory));
        // 2^(2^19) - 1 has 2^19 bits; its square 2^20, the integer bound: anything larger
        // than the square is refused before it is computed.
        let big = "((reduce range(19) as $i (2; . * .)) - 1 | . * .)";
        for filter in [
            "reduce range(30) as $i (12345678901234567890; . * .) | . == 0".to_owned(),
            format!("{big} | . * 3"),
            format!("{big} as $b | $b * $b"),
            format!("{big} as $b | $b + 1"),
            format!("{big} as $b | $b - 1"),
            format!("{big} as $b | -1 - $b"),
            format!("{big} as $b | {{a: $b}} | .a *= 2"),
            format!("{big} as $b | [$b] | .[0] -= 1"),
            format!("{big} as $b | [$b] | .[0] += 1"),
            // Many big integers in one array: each counts its digits (8 KiB each here).
            "(reduce range(10) as $i (12345678901234567890; . * .)) as $b \
             | [range(200) as $j | $b + $j]"
                .to_owned(),
        ] {
            assert_eq!(run(&format!("{filter} | length")), memory, "{filter}");
        }
        // Within the bounds, big integers stay exact.
        for (filter, expected) in [
            (
                "12345678901234567890 * 12345678901234567890 | tostring",
                serde_json::json!(["152415787532388367501905199875019052100"]),
            ),
            (
                "123456789012345678901234567890 % 1000000007 | tostring",
                serde_json::json!(["197434842"]),
            ),
            (
                "123456789012345678901234567890 - 123456789012345678901234567889",
                serde_json::json!([1]),
            ),
            (
                "(reduce range(10) as $i (12345678901234567890; . * .)) as $b \
                 | [range(50) as $j | $b + $j] | length",
                serde_json::json!([50]),
            ),
            (
                "((reduce range(19) as $i (2; . * .)) - 1 | . * .) % 7",
                serde_json::json!([2]),
            ),
        ] {
            assert_eq!(
                run(filter),
                Ok(expected.as_array().unwrap().clone()),
                "{filter}"
            );
        }
    }

    #[test]
    fn error_messages_show_a_bounded_part_of_the_value() {
        for filter in [
            r#"{"a": "\u0001" * 200000} | error"#,
            r#""\u0001" * 200000 | .[0]"#,
            r#"{"a": "\u0001" * 200000} | halt_error"#,
            r#""[" + "x" * 200000 | fromjson"#,
        ] {
            let message = run(filter).expect_err(filter);
            assert!(message.len() < 5000, "{filter}: {} bytes", message.len());
        }
        let message = run(r#"{"a": 1} | error"#).unwrap_err();
        assert!(message.contains(r#"{"a":1}"#), "{message}");
    }

    #[test]
    fn printing_and_joining_within_the_bound_answer_as_jq() {
        for (filter, expected) in [
            (r#""\u0001a" | tojson"#, serde_json::json!(["\"\\u0001a\""])),
            (
                r#"[1, {"a": "\u0007"}] | tostring"#,
                serde_json::json!(["[1,{\"a\":\"\\u0007\"}]"]),
            ),
            (
                r#""\(1,2)-\(3,4)""#,
                serde_json::json!(["1-3", "1-4", "2-3", "2-4"]),
            ),
            (r#"@base64 "x\("hi")y""#, serde_json::json!(["xaGk=y"])),
            (r#"@text "a\(1)\("b")""#, serde_json::json!(["a1b"])),
            (r#"@json "a\("x")b""#, serde_json::json!(["a\"x\"b"])),
            (
                r#"{"\("a","b")": 1}"#,
                serde_json::json!([{"a": 1}, {"b": 1}]),
            ),
            (r#""a\tb\(1)\n""#, serde_json::json!(["a\tb1\n"])),
            (r#"[1, "a\"b"] | @csv"#, serde_json::json!(["1,\"a\"\"b\""])),
            (r#"["a\tb"] | @tsv"#, serde_json::json!(["a\\tb"])),
            (r#""it's" | @sh"#, serde_json::json!(["'it'\\''s'"])),
            (
                r#""é <&>" | @uri, @html, @base64"#,
                serde_json::json!(["%C3%A9%20%3C%26%3E", "é &lt;&amp;&gt;", "w6kgPCY+"]),
            ),
            // jaq-std's HTML escapes, replaced byte by byte (bindings-wasm/patches/jaq-std):
            // every pattern, entities next to each other and inside one another's text.
            (
                r#""<a href='x'>&amp;\"</a>" | @html, (@html | @htmld)"#,
                serde_json::json!([
                    "&lt;a href=&apos;x&apos;&gt;&amp;amp;&quot;&lt;/a&gt;",
                    "<a href='x'>&amp;\"</a>"
                ]),
            ),
            (
                r#""&amp;lt;&&lt&gt;;&quot&apos;é" | @htmld"#,
                serde_json::json!(["&lt;&&lt>;&quot'é"]),
            ),
            (
                r#"0 | strftime("%Y-%m-%dT%H:%M:%SZ")"#,
                serde_json::json!(["1970-01-01T00:00:00Z"]),
            ),
            (
                r#"["a", 1, null] | join(", ")"#,
                serde_json::json!(["a, 1, null"]),
            ),
            (
                r#""a,b" | split(","), . / ",""#,
                serde_json::json!([["a", "b"], ["a", "b"]]),
            ),
            (r#""ab" | split("")"#, serde_json::json!([["a", "b"]])),
            (
                r#"10 / 4, 1 + 2, null + "a""#,
                serde_json::json!([2.5, 3, "a"]),
            ),
            (
                r#"{"a": 1} | .a += (1, 2)"#,
                serde_json::json!([{"a": 2}, {"a": 3}]),
            ),
            (
                r#"[[1], [2]] | .[] += [3]"#,
                serde_json::json!([[[1, 3], [2, 3]]]),
            ),
            (
                r#"[1, 2] | .[] *= 2 | .[] -= 1"#,
                serde_json::json!([[1, 3]]),
            ),
            (
                r#"{"a": {"b": 1}} | .a.b |= . + 1 | .a.c //= 5"#,
                serde_json::json!([{"a": {"b": 2, "c": 5}}]),
            ),
            (
                r#"[1, 2, 3] | map_values(empty), del(.[0])"#,
                serde_json::json!([[], [2, 3]]),
            ),
            (
                r#"[3, 1, 2] | sort_by(-.), group_by(. % 2), min_by(-.), max_by(-.), unique_by(. % 2)"#,
                serde_json::json!([[3, 2, 1], [[2], [3, 1]], 3, 1, [2, 3]]),
            ),
            (
                r#"[range(5)] | map(tostring) | add"#,
                serde_json::json!(["01234"]),
            ),
            (
                r#""[1, {\"a\": \"x,y\"}]" | fromjson"#,
                serde_json::json!([[1, {"a": "x,y"}]]),
            ),
            (
                r#""a,b\n1,2\n" | [fromcsv]"#,
                serde_json::json!([[["a", "b"], [1, 2]]]),
            ),
            (
                r#"{"a": {"b": 1}} * {"a": {"c": 2}}"#,
                serde_json::json!([{"a": {"b": 1, "c": 2}}]),
            ),
        ] {
            assert_eq!(
                run(filter),
                Ok(expected.as_array().unwrap().clone()),
                "{filter}"
            );
        }
    }

    /// Every regex filter has one engine: `test/2` (lro-jq's) and jaq's `match`, `capture`,
    /// `scan`, `split`, `sub` and `gsub` agree on case folding beyond ASCII and on `\w`, as
    /// jq's Oniguruma does.
    #[test]
    fn every_regex_filter_folds_case_and_words_over_unicode() {
        let got = run(r#""Éclair à Ökonom" | [
            test("é"; "i"),
            (match("é"; "i") | .string),
            (capture("(?<first>ö)"; "i") | .first),
            [scan("(?i)é|ö")],
            sub("é"; "e"; "i"),
            gsub("\\w+"; "w"),
            [splits("À"; "i")]
        ]"#);
        let expected = serde_json::json!([[
            true,
            "É",
            "Ö",
            ["É", "Ö"],
            "eclair à Ökonom",
            "w w w",
            ["Éclair ", " Ökonom"]
        ]]);
        assert_eq!(got, Ok(expected.as_array().unwrap().clone()));
        let bad = run(r#""x" | match("(")"#).unwrap_err();
        assert!(bad.contains("invalid regex"), "{bad}");
    }

    /// Time filters fail with jq's messages, naming the value and the format.
    #[test]
    fn time_errors_are_jqs_messages() {
        // The error is the value jq's `error` would catch: here a string, as JSON.
        let error = |filter: &str| {
            let got = run(filter).expect_err(filter);
            serde_json::from_str::<String>(&got).unwrap_or(got)
        };
        for (filter, expected) in [
            (
                r#""x" | strptime("%Y")"#,
                r#"date "x" does not match format "%Y""#,
            ),
            (
                r#""2024-02-30" | strptime("%Y-%m-%d")"#,
                r#"date "2024-02-30" does not match format "%Y-%m-%d""#,
            ),
            (
                r#""2024-01-01 00:00 Lro/Crafted" | strptime("%Y-%m-%d %H:%M %Q")"#,
                r#"unknown time zone "Lro/Crafted" in date "2024-01-01 00:00 Lro/Crafted""#,
            ),
            (
                r#""nope" | fromdate"#,
                r#"date "nope" does not match format "%Y-%m-%dT%H:%M:%SZ""#,
            ),
            (
                "[2024, 20, 1, 0, 0, 0] | mktime",
                "cannot convert [2024,20,1,0,0,0] to time",
            ),
            (
                "[2024, 20, 1, 0, 0, 0] | strftime(\"%Y\")",
                "cannot convert [2024,20,1,0,0,0] to time",
            ),
            (
                "100000000000000 | todate",
                "cannot convert 100000000000000 to time",
            ),
            ("0 | strftime(\"%K\")", r#"cannot format 0 with "%K""#),
        ] {
            let got = error(filter);
            assert!(got.contains(expected), "{filter}: {got}");
        }
    }

    /// `trim`, `ltrim` and `rtrim` strip exactly the characters with Unicode's White_Space
    /// property (as `str::trim` does), and nothing else: not U+200B, U+FEFF or U+180E.
    #[test]
    fn trim_strips_unicode_white_space_only() {
        let white: String = ('\u{0}'..='\u{3000}')
            .filter(|c| c.is_whitespace())
            .collect();
        assert_eq!(white.chars().count(), 25, "White_Space has 25 characters");
        let kept = "\u{200B}\u{FEFF}\u{180E}";
        let text = format!("{white}{kept} a {kept}{white}");
        let filter = format!("{} | [trim, ltrim, rtrim]", serde_json::json!(text));
        let expected = [text.trim(), text.trim_start(), text.trim_end()];
        assert_eq!(run(&filter), Ok(vec![serde_json::json!(expected)]));
        assert_eq!(expected[0], format!("{kept} a {kept}"));
    }

    /// An empty match falls between characters, never inside one, and groups may start in
    /// any order: offsets in characters, as jq counts them, and no panic.
    #[test]
    fn regex_offsets_count_characters_whatever_the_matches() {
        assert_eq!(
            run(r#""Éa" | [match("";"g") | .offset]"#),
            Ok(vec![serde_json::json!([0, 1, 2])])
        );
        assert_eq!(
            run(r#""Éa" | gsub("";"-")"#),
            Ok(vec![serde_json::json!("-É-a-")])
        );
        assert_eq!(
            run(r#""bÉa" | [match("(?:(a)|(b)|É)+") | .captures[] | .offset]"#),
            Ok(vec![serde_json::json!([2, 0])])
        );
        assert_eq!(
            run(r#""Éa" | [match("(?-u:\\x89)";"g")] | length"#),
            Ok(vec![serde_json::json!(0)])
        );
    }
}
