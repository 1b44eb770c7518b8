//! Running a recipe or a query over the records of a file.
//!
//! Filters that work record by record stream the file in batches of lines, on worker threads
//! when there is more than one batch ([`records`]), so memory stays bounded by a few batches
//! and the output. Slurping recipes (`jq -s`) read the records once into one array.

use std::panic::{AssertUnwindSafe, catch_unwind};

use jaq_json::Val;
use serde_json::{Map, Value};

use super::budget::Budget;
use lro_jq::convert::{parse_val, to_value_capped};
use lro_jq::{Clock, Flow, Guard, Program, RecordParser, RunError, Trip, is_var_name};

use super::reader::LineReader;
use super::recipe;
use super::records;
use crate::error::{ErrorCode, LroError, Result};
use crate::profile::SAMPLE_SIZE;

/// A record line already read (while sampling), with its file line number.
pub(crate) type Pending = Vec<(u64, Vec<u8>)>;

pub(crate) fn invalid_record(line: u64, err: &serde_json::Error) -> LroError {
    LroError::new(
        ErrorCode::InvalidInput,
        format!("line {line} of the file is not valid JSON: {err}"),
    )
}

pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Runs recipe `number` with `params`.
pub(crate) fn recipe(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    number: u8,
    params: Option<&Map<String, Value>>,
) -> Result<()> {
    recipe::check_number(number)?;
    let (header, kind) = recipe::kind_of_header(lines.header()?.as_deref())?;
    // In a file of several sections the recipe reads its own section only.
    let (number, section, partial) = recipe::section_of(&header, kind, number);
    if partial {
        lines.window(section.first_line as u64, section.last_line() as u64)?;
    }
    let mut pending: Pending = Vec::new();
    let recipe = match recipe::without_sample(kind, number, params) {
        Some(recipe) => recipe,
        None => {
            // The profile needs the first records; keep their lines to run them afterwards.
            let mut sample = Vec::new();
            while sample.len() < SAMPLE_SIZE {
                let number = lines.line_number() + 1;
                let Some(line) = lines.next_line()? else {
                    break;
                };
                if is_blank(line) {
                    continue;
                }
                sample.push(
                    serde_json::from_slice::<Value>(line)
                        .map_err(|e| invalid_record(number, &e))?,
                );
                pending.push((number, line.to_vec()));
            }
            recipe::pick(recipe::recipes_for(kind, &section, &sample), number)?
        }
    };
    let bound = recipe::bind_params(&recipe, params)?;
    let names: Vec<&str> = bound.iter().map(|(n, _)| n.as_str()).collect();
    let program = Program::cached(&recipe.filter, &names)?;
    let values: Vec<Value> = bound.into_iter().map(|(_, v)| v).collect();
    let vars = vars_of(&values)?;
    execute(
        lines,
        budget,
        &program,
        vars,
        &values,
        recipe.slurp,
        pending,
        &RecordParser::projecting(recipe.reads.as_deref()),
    )
}

/// Runs the jq filter `filter`, record by record, with `params` bound as variables.
pub(crate) fn query(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    filter: &str,
    params: Option<&Map<String, Value>>,
) -> Result<()> {
    let empty = Map::new();
    let params = params.unwrap_or(&empty);
    if let Some(bad) = params.keys().find(|k| !is_var_name(k)) {
        return Err(LroError::new(
            ErrorCode::InvalidArgument,
            format!("parameter name {bad:?} cannot be a jq variable (use letters, digits and _)"),
        ));
    }
    let names: Vec<&str> = params.keys().map(String::as_str).collect();
    let program = Program::cached(filter, &names)?;
    let values: Vec<Value> = params.values().cloned().collect();
    let vars = vars_of(&values)?;
    lines.header()?;
    let parser = RecordParser::default();
    execute(
        lines,
        budget,
        &program,
        vars,
        &values,
        false,
        Vec::new(),
        &parser,
    )
}

/// The engine values of filter variables.
pub(crate) fn vars_of(values: &[Value]) -> Result<Vec<Val>> {
    values.iter().map(value_to_val).collect()
}

pub(crate) fn value_to_val(value: &Value) -> Result<Val> {
    let text = serde_json::to_vec(value).unwrap_or_default();
    parse_val(&text).map_err(|e| {
        LroError::new(
            ErrorCode::InvalidArgument,
            format!("parameter value {value}: {e}"),
        )
    })
}

/// Feeds the records (the pending ones first) to `program`: one by one, or slurped into one
/// array.
#[allow(
    clippy::too_many_arguments,
    reason = "the program, its variables both ways, and how records are read: each used once"
)]
fn execute(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    program: &Program,
    vars: Vec<Val>,
    values: &[Value],
    slurp: bool,
    pending: Pending,
    parser: &RecordParser,
) -> Result<()> {
    if !slurp {
        return records::run(lines, budget, program, vars, values, pending, parser);
    }
    let slurped = records::slurp(lines, budget, pending, parser)?;
    if budget.is_cut() {
        return Ok(());
    }
    let records = jaq_json::Rc::new(slurped.records);
    let guard = Guard::new(
        Clock::Deadline(budget.deadline),
        budget.limits().max_memory_bytes,
    );
    // The filter gets a second reference: its own copies are then cheap to drop, and the
    // records are freed by `release`, on two threads.
    let flow = run_one(
        program,
        Val::Arr(records.clone()),
        &vars,
        &guard,
        None,
        &mut |v, size| budget.push_sized(v, size),
    );
    records::release(records, slurped.parsed_by);
    match flow? {
        Flow::Tripped(_) => budget.cut_by_time(),
        Flow::Stop if !budget.is_cut() => budget.halt(),
        _ => {}
    }
    Ok(())
}

/// Runs the program on one input, handing each output, converted, with its compact JSON size,
/// to `sink` until it returns `false`. `line` names the record in error messages (`None`: all
/// of them).
///
/// `Ok(Flow::Stop)`: the sink refused an output, or the filter called `halt`;
/// `Ok(Flow::Tripped(Trip::Time))`: the time is up. A failing filter is `query_failed`;
/// recursion too deep, a value nested too deep and the memory bound are `resource_limit`.
pub(crate) fn run_one(
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
        return Err(LroError::new(
            ErrorCode::ResourceLimit,
            format!("jq filter output{}: {e}", at()),
        ));
    }
    match outcome {
        Ok(Flow::Tripped(trip)) if trip.is_bound() => Err(bound_error(trip, room, &at())),
        Ok(flow) => Ok(flow),
        Err(RunError(message)) => Err(LroError::new(
            ErrorCode::QueryFailed,
            format!("jq filter failed{}: {message}", at()),
        )),
    }
}

/// The `resource_limit` error of a bound the filter went past.
pub(crate) fn bound_error(trip: Trip, max_memory: u64, at: &str) -> LroError {
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
    LroError::new(
        ErrorCode::ResourceLimit,
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
