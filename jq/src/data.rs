//! What a run of a filter hands to the natives: the program's lookup table and the run's
//! [`Guard`], and how a trip of the guard reads as a jq error.

use jaq_core::DataT;
use jaq_core::data::HasLut;
use jaq_json::Val;

use crate::sandbox::{Guard, Trip};

/// The data a run of the filter sees: the program and the guard.
pub(crate) struct Data;

impl DataT for Data {
    type V<'a> = Val;
    type Data<'a> = Env<'a>;
}

/// Per-run data handed to natives.
#[derive(Clone)]
pub(crate) struct Env<'a> {
    pub(crate) lut: &'a jaq_core::Lut<Data>,
    pub(crate) guard: &'a Guard<'a>,
}

impl<'a> HasLut<'a, Data> for Env<'a> {
    fn lut(&self) -> &'a jaq_core::Lut<Data> {
        self.lut
    }
}

/// The jq error a run fails with once the guard tripped.
pub(crate) fn trip_error(trip: Trip) -> jaq_core::Error<Val> {
    jaq_core::Error::str(match trip {
        Trip::Time => "lro: time limit reached",
        Trip::Stack => "lro: recursion too deep",
        Trip::Depth => "lro: value nested too deep (or a text to parse nested too deep)",
        Trip::Memory => "lro: memory limit reached",
    })
}

/// Per byte of input, the estimated result of a regex native with the global flag: a match
/// object or a piece of the string (with its key strings and allocations) per byte.
pub(crate) const REGEX_PER_BYTE: u64 = 512;
