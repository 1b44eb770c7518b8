//! Natives of the sandbox that guard jaq's own: estimates of what a native will build,
//! checked before it builds it ([`crate::Guard::check_grows`]), code points checked
//! before `implode`, and `halt_error` made an error of the call.

use jaq_core::box_iter::box_once;
use jaq_core::native::{Fun, bome, v};
use jaq_core::{Exn, Native};
use jaq_json::{Num, Val};

use crate::data::{Data, REGEX_PER_BYTE, trip_error};

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
                let mut json = other.to_string();
                if json.len() > HALT_MESSAGE_BYTES {
                    let mut end = HALT_MESSAGE_BYTES;
                    while !json.is_char_boundary(end) {
                        end -= 1;
                    }
                    json.truncate(end);
                }
                json
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
pub(crate) fn all() -> [Fun<Data>; 4] {
    [grows(), grows_regex(), codepoints(), halt_error()]
}
