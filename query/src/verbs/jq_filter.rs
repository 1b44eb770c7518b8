//! `query`: a jq filter over the records, with its parameters bound as jq variables; and
//! [`execute`], which runs any compiled program (a query, or a recipe the caller built)
//! record by record or slurped.
//!
//! Filters that work record by record stream the lines in batches, on worker threads when
//! there is more than one batch ([`records`]), so memory stays bounded by a few batches and
//! the output. Slurping programs (`jq -s`) read the records once into one array.

use jaq_json::Val;
use lro_jq::{Clock, Flow, Guard, Program, RecordParser, is_var_name};
use serde_json::{Map, Value};

use crate::budget::Budget;
use crate::error::{Error, ErrorKind, Result};
use crate::program::{run_one, vars_of};
use crate::reader::{LineReader, Pending};
use crate::records;

/// Runs the jq filter `filter`, record by record, with `params` bound as variables (`$name`):
/// [`ErrorKind::InvalidArgument`] for a parameter name that cannot be a variable,
/// [`ErrorKind::InvalidQuery`] for a filter that does not compile, both before any line is
/// read.
///
/// ```
/// use lro_jq::Deadline;
/// use lro_query::budget::{Budget, Limits};
/// use lro_query::reader::LineReader;
/// use lro_query::verbs::jq_filter;
/// use serde_json::json;
///
/// let limits = Limits {
///     max_read_bytes: 1 << 20,
///     max_output_records: 100,
///     max_output_bytes: 1 << 16,
///     max_memory_bytes: 1 << 26,
/// };
/// let deadline = Deadline::new(|| 0, 1_000);
/// let text = "header\n{\"id\": 1, \"n\": 5}\n{\"id\": 2, \"n\": 9}\n";
/// let mut budget = Budget::new(&limits, &deadline);
/// let mut lines = LineReader::new(Box::new(text.as_bytes()), limits.max_read_bytes);
/// let params = json!({"least": 6});
/// let filter = "select(.n >= $least) | .id";
/// jq_filter::run(&mut lines, &mut budget, filter, params.as_object()).unwrap();
/// assert_eq!(budget.finish(&lines).results, [json!(2)]);
/// ```
pub fn run(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    filter: &str,
    params: Option<&Map<String, Value>>,
) -> Result<()> {
    let empty = Map::new();
    let params = params.unwrap_or(&empty);
    if let Some(bad) = params.keys().find(|k| !is_var_name(k)) {
        return Err(Error::new(
            ErrorKind::InvalidArgument,
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

/// Feeds the records (the `pending` lines first, already read past, with their line
/// numbers) to `program`, bound to `vars` (the engine values of `values`): one by one, or
/// slurped into one array; each record is read by `parser`. The header must be read.
#[allow(
    clippy::too_many_arguments,
    reason = "the program, its variables both ways, and how records are read: each used once"
)]
pub fn execute(
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
