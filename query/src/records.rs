//! Filters that work record by record: batches of lines run on worker threads when the
//! input is longer than one batch ([`crate::batches`]), merged back in record order.
//!
//! A batch is parsed, filtered and converted to output values by one runner; the reading
//! thread adds the outcomes strictly in batch order to the budget, so the response is the
//! sequential one: the same outputs in the same order, the first failing record (in file
//! order) reported, nothing after `halt` or a limit. A small input (one batch), or a host
//! without threads (WebAssembly), runs the same code on the calling thread.
//!
//! Workers receive bytes and send back `serde_json` values; the compiled program is shared,
//! and each worker has its own guard, parser and variables.
//!
//! Slurping filters need every record at once: [`slurp`] parses the batches on the workers
//! (engine values are `Send`: jaq-json's `sync` feature) and [`release`] frees them on two
//! threads afterwards, since allocating and freeing millions of small values is most of what
//! a slurping recipe costs.

use std::sync::atomic::AtomicBool;
#[cfg(not(target_family = "wasm"))]
use std::thread;

use jaq_json::Val;
use serde_json::Value;

use lro_jq::{Clock, Flow, Guard, Program, RecordParser};

use crate::batches::{Batch, Pool, Source, in_parallel, worker_count};
use crate::budget::Budget;
use crate::error::{Error, Result};
use crate::program::{run_one, vars_of};
use crate::reader::{LineReader, Pending, invalid_record};

/// How the run of a batch ended.
enum End {
    /// Every record ran (or the outputs reached a limit: the merge cuts there).
    Done,
    /// The filter called `halt`: no more output.
    Halt,
    /// The time is up (or, on a worker, the work was cancelled).
    Time,
    /// A record is not JSON, or the filter failed on it.
    Failed(Error),
}

/// The outputs of a batch, with their compact JSON sizes, and how it ended.
struct Outcome {
    outputs: Vec<(Value, u64)>,
    end: End,
}

/// Runs batches: the program with its variables, a guard, a parser.
struct Runner<'p> {
    program: &'p Program,
    vars: Vec<Val>,
    guard: Guard<'p>,
    parser: RecordParser,
    limits: crate::budget::Limits,
}

impl<'p> Runner<'p> {
    fn new(
        program: &'p Program,
        vars: Vec<Val>,
        clock: Clock<'p>,
        limits: crate::budget::Limits,
        parser: RecordParser,
    ) -> Self {
        Self {
            program,
            vars,
            guard: Guard::new(clock, limits.max_memory_bytes),
            parser,
            limits,
        }
    }

    fn run(&mut self, batch: &Batch) -> Outcome {
        let mut outputs = Vec::new();
        let mut bytes = 0u64;
        for (line, text) in batch.lines() {
            if self.guard.clock().expired() {
                return Outcome {
                    outputs,
                    end: End::Time,
                };
            }
            let record = match self.parser.parse(text) {
                Ok(record) => record,
                Err(e) => {
                    return Outcome {
                        outputs,
                        end: End::Failed(invalid_record(line, &e)),
                    };
                }
            };
            // Past either limit the merge is sure to cut: stop producing there.
            let mut full = false;
            let mut emit = |value: Value, size: u64| {
                bytes = bytes.saturating_add(size);
                outputs.push((value, size));
                full = outputs.len() as u64 > self.limits.max_output_records
                    || bytes > self.limits.max_output_bytes
                    || crate::budget::held(outputs.len() as u64, bytes)
                        > self.limits.max_memory_bytes;
                !full
            };
            let end = match run_one(
                self.program,
                record,
                &self.vars,
                &self.guard,
                Some(line),
                &mut emit,
            ) {
                Ok(Flow::Continue) => continue,
                Ok(Flow::Stop) if full => End::Done,
                Ok(Flow::Stop) => End::Halt,
                Ok(Flow::Tripped(_)) => End::Time,
                Err(e) => End::Failed(e),
            };
            return Outcome { outputs, end };
        }
        Outcome {
            outputs,
            end: End::Done,
        }
    }
}

/// Adds an outcome to the budget; `Ok(false)` when the output stops there.
fn merge(budget: &mut Budget<'_>, outcome: Outcome) -> Result<bool> {
    for (value, size) in outcome.outputs {
        if !budget.push_sized(value, size) {
            return Ok(false);
        }
    }
    match outcome.end {
        End::Done => Ok(!budget.is_cut()),
        End::Halt => {
            budget.halt();
            Ok(false)
        }
        End::Time => {
            budget.cut_by_time();
            Ok(false)
        }
        End::Failed(e) => Err(e),
    }
}

/// Runs `program` on every record, in order, into `budget`. `vars` are its variables as
/// engine values (for this thread), `values` the same as JSON (for worker threads); each
/// thread reads records with a copy of `parser`.
pub fn run(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    program: &Program,
    vars: Vec<Val>,
    values: &[Value],
    pending: Pending,
    parser: &RecordParser,
) -> Result<()> {
    let mut source = Source::new(lines, pending);
    let mut first = source.first_batch()?;
    let workers = worker_count();
    if source.more() && workers >= 2 {
        let cancel = AtomicBool::new(false);
        let limits = budget.limits().clone();
        let job = || {
            // The reading thread built the same variables, so this cannot fail; if it did,
            // every batch reports it.
            let mut made = vars_of(values).map(|vars| {
                let clock = Clock::Flag(&cancel);
                Runner::new(program, vars, clock, limits.clone(), parser.clone())
            });
            move |batch: &Batch| match &mut made {
                Ok(runner) => runner.run(batch),
                Err(e) => Outcome {
                    outputs: Vec::new(),
                    end: End::Failed(e.clone()),
                },
            }
        };
        match in_parallel(
            &mut source,
            budget,
            first,
            workers,
            &cancel,
            &job,
            &mut merge,
        ) {
            Pool::Ran(result) => return result,
            Pool::NoThreads(batch) => first = batch,
        }
    }
    let limits = budget.limits().clone();
    let clock = Clock::Deadline(budget.deadline);
    let mut runner = Runner::new(program, vars, clock, limits, parser.clone());
    let mut batch = first;
    while !batch.is_empty() && budget.in_time() {
        if !merge(budget, runner.run(&batch))? {
            break;
        }
        source.fill(&mut batch)?;
    }
    Ok(())
}

/// Slurped records, and which thread parsed which of them.
pub struct Slurped {
    /// Every record, in file order.
    pub records: Vec<Val>,
    /// Records per batch, in order, and the number of workers the batches went to (round
    /// robin); `None` when they were parsed on the calling thread.
    pub parsed_by: Option<(Vec<usize>, usize)>,
}

/// Every record as an engine value, in file order, for a slurping filter: parsed on worker
/// threads when the input is longer than one batch. Stops early when the time is up (the
/// budget then says so). Each thread reads records with a copy of `parser`.
pub fn slurp(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    pending: Pending,
    parser: &RecordParser,
) -> Result<Slurped> {
    let parse = |parser: &mut RecordParser, batch: &Batch| -> Result<Vec<Val>> {
        let mut records = Vec::with_capacity(batch.records.len());
        for (line, text) in batch.lines() {
            records.push(parser.parse(text).map_err(|e| invalid_record(line, &e))?);
        }
        Ok(records)
    };
    let mut source = Source::new(lines, pending);
    let mut first = source.first_batch()?;
    let mut records = Vec::new();
    let workers = worker_count();
    if source.more() && workers >= 2 {
        let cancel = AtomicBool::new(false);
        let job = || {
            let mut parser = parser.clone();
            move |batch: &Batch| parse(&mut parser, batch)
        };
        let mut batches = Vec::new();
        let mut merge = |_: &mut Budget<'_>, parsed: Result<Vec<Val>>| {
            let parsed = parsed?;
            batches.push(parsed.len());
            records.extend(parsed);
            Ok(true)
        };
        match in_parallel(
            &mut source,
            budget,
            first,
            workers,
            &cancel,
            &job,
            &mut merge,
        ) {
            Pool::Ran(result) => {
                return result.map(|()| Slurped {
                    records,
                    parsed_by: Some((batches, workers)),
                });
            }
            Pool::NoThreads(batch) => first = batch,
        }
    }
    let mut parser = parser.clone();
    let mut batch = first;
    while !batch.is_empty() && budget.in_time() {
        records.extend(parse(&mut parser, &batch)?);
        source.fill(&mut batch)?;
    }
    Ok(Slurped {
        records,
        parsed_by: None,
    })
}

/// No threads on WebAssembly (`parsed_by` is always `None` there): the records are dropped.
#[cfg(target_family = "wasm")]
pub fn release(_records: jaq_json::Rc<Vec<Val>>, _parsed_by: Option<(Vec<usize>, usize)>) {}

/// Fewest records worth a second thread to free.
#[cfg(not(target_family = "wasm"))]
const RELEASE_ON_TWO_THREADS: usize = 4096;

/// Frees slurped records (`records`, the array the filter saw, now unshared) on two threads
/// when workers parsed them: each thread takes the batches of every other worker, so the
/// two never free into the same allocator arena (glibc gives each thread its own, and
/// freeing into an arena another thread is freeing into makes both wait on its lock).
#[cfg(not(target_family = "wasm"))]
pub fn release(records: jaq_json::Rc<Vec<Val>>, parsed_by: Option<(Vec<usize>, usize)>) {
    // Still shared (an output kept it), or parsed on one thread: an ordinary drop.
    let Ok(records) = jaq_json::Rc::try_unwrap(records) else {
        return;
    };
    let Some((batches, workers)) = parsed_by else {
        return;
    };
    if records.len() < RELEASE_ON_TWO_THREADS || workers < 2 {
        return;
    }
    let (mut mine, mut theirs) = (
        Vec::with_capacity(records.len() / 2 + 1),
        Vec::with_capacity(records.len() / 2 + 1),
    );
    let mut records = records.into_iter();
    for (index, &count) in batches.iter().enumerate() {
        let half = if (index % workers) % 2 == 0 {
            &mut mine
        } else {
            &mut theirs
        };
        half.extend(records.by_ref().take(count));
    }
    mine.extend(records);
    thread::scope(|scope| {
        // If no thread can start, the closure, and `theirs` with it, is dropped right here.
        let _ = thread::Builder::new()
            .name("lro-extract".to_owned())
            .spawn_scoped(scope, move || drop(theirs));
        drop(mine);
    });
}
