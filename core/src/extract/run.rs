//! Running a recipe or a query over the records of a file.
//!
//! Filters that work record by record stream the file in batches of lines, on worker threads
//! when there is more than one batch ([`records`]), so memory stays bounded by a few batches
//! and the output. Slurping recipes (`jq -s`) read the records once into one array.

use jaq_json::Val;
use lro_jq::{Clock, Flow, Guard, Program, RecordParser, is_var_name};
use serde_json::{Map, Value};

use lro_query::budget::Budget;
use lro_query::program::{run_one, vars_of};
use lro_query::reader::{LineReader, Pending, invalid_record, is_blank};
use lro_query::records;

use super::recipe;
use crate::error::{ErrorCode, LroError, Result};
use crate::profile::SAMPLE_SIZE;

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
        lines.section(section.first_line as u64, section.count as u64)?;
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
                    crate::json::parse::from_slice(line).map_err(|e| invalid_record(number, &e))?,
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
        return Ok(records::run(
            lines, budget, program, vars, values, pending, parser,
        )?);
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
