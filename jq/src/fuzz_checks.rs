//! The invariants the `extract_parse` fuzz target checks (`fuzz/`, `make fuzz`): the record
//! parser against serde_json (the `Value` path that decides) and jaq-json's own reader. A
//! check takes any bytes and panics when an invariant fails; [`TARGETS`] names them, and the
//! tests replay the seed corpora and every saved crash (`fuzz/regressions/TARGET/`) in every
//! `cargo test` run.
//!
//! Compiled for tests and for fuzzing builds only (cargo-fuzz sets `--cfg fuzzing`).

use jaq_json::{Num, Val};

use crate::convert::parse_val;
use crate::record_parser::RecordParser;

/// A fuzz target's check: panics when an invariant fails on `data`.
pub type Check = fn(&[u8]);

/// This crate's targets: the name (the file in `fuzz/fuzz_targets/` and the corpus
/// directory) and the check.
pub const TARGETS: &[(&str, Check)] = &[("extract_parse", check_record_parser)];

/// The fast parser gives what serde_json gives (value, or the same error), with and
/// without the previous record's size hint, and projected records keep exactly the fields
/// asked for. Where jaq-json's reader accepts the text too, it reads the same value.
pub fn check_record_parser(data: &[u8]) {
    let reference = parse_val(data);
    let mut parser = RecordParser::default();
    for attempt in ["first", "with the size hint"] {
        match (parser.parse(data), &reference) {
            (Ok(fast), Ok(slow)) => {
                assert_eq!(fast.to_string(), slow.to_string(), "{attempt}");
                assert!(fast == *slow, "{attempt}");
            }
            (Err(fast), Err(slow)) => assert_eq!(fast.to_string(), slow.to_string(), "{attempt}"),
            (fast, slow) => panic!("{attempt}: fast {fast:?}, serde_json {slow:?}"),
        }
    }
    if let Ok(Val::Obj(map)) = &reference {
        // Keep the first field and one that is not there; the others are checked, not built.
        let keep: Vec<String> = map
            .keys()
            .take(1)
            .filter_map(|k| match k {
                Val::TStr(b) | Val::BStr(b) => std::str::from_utf8(b).ok().map(str::to_owned),
                _ => None,
            })
            .chain(["\u{0}absent".to_owned()])
            .collect();
        let projected = RecordParser::projecting(Some(&keep))
            .parse(data)
            .expect("a valid record stays valid when projected");
        let Val::Obj(projected) = projected else {
            panic!("a projected object is an object");
        };
        let expected: Vec<String> = map
            .iter()
            .filter(|(k, _)| keep.iter().any(|kept| Val::from(kept.clone()) == **k))
            .map(|(k, v)| format!("{k}:{v}"))
            .collect();
        let got: Vec<String> = projected.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        assert_eq!(got, expected, "projection on {keep:?}");
    }
    if let (Ok(ours), Ok(jaq)) = (&reference, jaq_json::read::parse_single(data)) {
        assert!(
            same_value(ours, &jaq),
            "jaq-json reads {jaq}, we read {ours}"
        );
    }
}

/// jq's equality, except for numbers beyond the doubles: we read them as jq 1.6 does (the
/// largest finite double), jaq-json keeps them as decimals that become infinities.
fn same_value(ours: &Val, jaq: &Val) -> bool {
    match (ours, jaq) {
        (Val::Num(a), Val::Num(b)) => a == b || (is_extreme(a) && is_extreme(b)),
        (Val::Arr(a), Val::Arr(b)) => {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| same_value(x, y))
        }
        (Val::Obj(a), Val::Obj(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => ours == jaq,
    }
}

fn is_extreme(n: &Num) -> bool {
    let f = match n {
        Num::Float(f) => *f,
        Num::Dec(text) => text.parse().unwrap_or(0.0),
        Num::BigInt(int) => int.to_string().parse().unwrap_or(0.0),
        Num::Int(_) => 0.0,
    };
    f.is_infinite() || f.abs() == f64::MAX
}

#[cfg(test)]
mod tests {
    /// Every seed of the repository's corpora and every input a fuzzer once crashed on
    /// (`fuzz/regressions/TARGET/`) passes its check.
    #[test]
    fn corpora_and_regressions_pass_their_checks() {
        lro_json::fuzz_replay::replay(super::TARGETS);
    }
}
