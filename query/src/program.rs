//! One run of a compiled filter on one input: parameters bound as jq variables, each output
//! converted to JSON with its size, and the sandbox's trips and a panic of the engine turned
//! into the request's errors.

use std::panic::{AssertUnwindSafe, catch_unwind};

use jaq_json::Val;
use lro_jq::convert::{parse_val, to_value_capped};
use lro_jq::{Flow, Guard, Program, RunError, Trip};
use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};

/// The engine values of filter variables.
pub fn vars_of(values: &[Value]) -> Result<Vec<Val>> {
    values.iter().map(value_to_val).collect()
}

/// The engine value of a JSON value (a parameter, an operand), numbers keeping their digits;
/// `invalid_argument` for one the engine cannot hold (nested too deep).
pub fn value_to_val(value: &Value) -> Result<Val> {
    let text = serde_json::to_vec(value).unwrap_or_default();
    parse_val(&text).map_err(|e| {
        Error::new(
            ErrorKind::InvalidArgument,
            format!("parameter value {value}: {e}"),
        )
    })
}

/// Runs the program on one input, handing each output, converted, with its compact JSON size,
/// to `sink` until it returns `false`. `line` names the record in error messages (`None`: all
/// of them).
///
/// `Ok(Flow::Stop)`: the sink refused an output, or the filter called `halt`;
/// `Ok(Flow::Tripped(Trip::Time))`: the time is up. A failing filter is `query_failed`;
/// recursion too deep, a value nested too deep and the memory bound are `resource_limit`.
pub fn run_one(
    program: &Program,
    input: Val,
    vars: &[Val],
    guard: &Guard<'_>,
    line: Option<u64>,
    sink: &mut dyn FnMut(Value, u64) -> bool,
) -> Result<Flow> {
    let at = || {
        line.map_or_else(
            || " on the records".to_owned(),
            |n| format!(" on the record at line {n}"),
        )
    };
    let mut convert_error = None;
    let room = guard.max_memory();
    let mut emit = |val: Val| match to_value_capped(&val, room) {
        Ok((value, size)) => sink(value, size),
        Err(e) => {
            convert_error = Some(e);
            false
        }
    };
    // jaq is not expected to panic, but an agent's filter must never take the host down.
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        program.run(input, vars, guard, &mut emit)
    }))
    .unwrap_or_else(|panic| {
        Err(RunError(format!(
            "the jq engine failed: {}",
            panic_text(&panic)
        )))
    });
    if let Some(e) = convert_error {
        return Err(Error::new(
            ErrorKind::ResourceLimit,
            format!("jq filter output{}: {e}", at()),
        ));
    }
    match outcome {
        Ok(Flow::Tripped(trip)) if trip.is_bound() => Err(bound_error(trip, room, &at())),
        Ok(flow) => Ok(flow),
        Err(RunError(message)) => Err(Error::new(
            ErrorKind::QueryFailed,
            format!("jq filter failed{}: {message}", at()),
        )),
    }
}

/// The `resource_limit` error of a bound the filter went past.
fn bound_error(trip: Trip, max_memory: u64, at: &str) -> Error {
    let what = match trip {
        Trip::Stack => "recursion too deep (does a definition call itself without end?)".to_owned(),
        Trip::Depth => format!(
            "a value nested more than {} levels deep (or a text to parse more than {})",
            lro_jq::MAX_VALUE_DEPTH,
            lro_jq::MAX_PARSE_DEPTH
        ),
        Trip::Memory | Trip::Time => {
            format!(
                "its values need more than extract.max_memory_bytes ({max_memory} bytes, \
                 shared by the extractions running at once)"
            )
        }
    };
    Error::new(
        ErrorKind::ResourceLimit,
        format!("jq filter stopped{at}: {what}"),
    )
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_owned())
}
