//! jq's `@csv` and `@tsv` (and jaq's `tocsv`, `totsv`, `fromcsv`, `fromtsv`) for wasm builds.
//!
//! Natively the engine takes every format filter of `jaq_fmts::funs`. On wasm the YAML, XML,
//! TOML and CBOR filters (jaq extensions that jq does not have, and that no recipe uses) are
//! left out to keep the artifacts within their size budgets, and `jaq_fmts::funs` only exists
//! with all of them; so the tabular filters are defined here, exactly as jaq-fmts 0.1 defines
//! them (same rows, same escapes, same error texts), over its public tabular reader and writer.

use jaq_core::box_iter::then;
use jaq_core::native::{Filter, Fun, bome, run, v};
use jaq_core::{Exn, RunPtr};
use jaq_fmts::read::tabular::{read_csv, read_tsv};
use jaq_fmts::write::tabular::Row;
use jaq_json::{Error, Val, bytes_valrs};

use crate::data::Data;

/// jaq-fmts' `ser!`: converts the input to a row, then writes it as text.
macro_rules! ser {
    ($cv:ident, $fmt:expr, $write:ident) => {{
        let fail = |e| Error::str(format_args!("cannot serialise {} as {}: {e}", $cv.1, $fmt));
        bome(Row::try_from(&$cv.1).map_err(fail).map(|row| {
            let mut buf = Vec::new();
            // Writing to a Vec cannot fail.
            row.$write(&mut buf).unwrap_or(());
            Val::utf8_str(buf)
        }))
    }};
}

/// The six tabular filters, as natives of the engine.
pub(crate) fn funs() -> impl Iterator<Item = Fun<Data>> {
    let filters: [Filter<RunPtr<Data>>; 6] = [
        ("fromcsv", v(0), |cv| {
            let rows = then(cv.1.try_as_bytes_owned(), |s| {
                bytes_valrs(s, |s| Box::new(read_csv(s.iter().copied().map(Ok))))
            });
            Box::new(rows.map(|r| r.map_err(Exn::from)))
        }),
        ("fromtsv", v(0), |cv| {
            let rows = then(cv.1.try_as_bytes_owned(), |s| {
                bytes_valrs(s, |s| Box::new(read_tsv(s.iter().copied().map(Ok))))
            });
            Box::new(rows.map(|r| r.map_err(Exn::from)))
        }),
        ("tocsv", v(0), |cv| ser!(cv, "CSV", write_csv)),
        ("totsv", v(0), |cv| ser!(cv, "TSV", write_tsv)),
        ("@csv", v(0), |cv| ser!(cv, "CSV", write_csv)),
        ("@tsv", v(0), |cv| ser!(cv, "TSV", write_tsv)),
    ];
    filters.into_iter().map(run::<Data>)
}
