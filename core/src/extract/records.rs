//! Filters that work record by record: batches of lines, run on worker threads when the
//! input is longer than one batch, merged back in record order.
//!
//! The reading thread cuts the file into batches of whole lines ([`BATCH_BYTES`]). A batch is
//! parsed, filtered and converted to output values by one runner; the reading thread merges
//! the outcomes strictly in batch order into the budget, so the response is exactly the
//! sequential one: the same outputs in the same order, the first failing record (in file
//! order) reported, nothing after `halt` or a limit. A small input (one batch), or a host
//! without threads (WebAssembly), runs the same code on the calling thread.
//!
//! Values of the engine are reference-counted without atomics, so they never cross threads:
//! workers receive bytes and send back `serde_json` values. The compiled program is shared.
//! Workers cannot read the host's clock; the reading thread watches the deadline and raises
//! a flag that their guards check, which also cancels work whose output is no longer wanted.
//! Memory stays bounded: at most [`AHEAD`] batches per worker are in flight.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::Duration;

use jaq_json::Val;
use serde_json::Value;

use super::budget::{Budget, json_size};
use super::engine::{Flow, Program};
use super::parse::RecordParser;
use super::reader::LineReader;
use super::run::{Pending, invalid_record, is_blank, run_one, vars_of};
use super::sandbox::{Clock, Guard};
use crate::config::ExtractLimits;
use crate::error::{ErrorCode, LroError, Result};

/// A batch closes once it holds this many bytes of record lines...
const BATCH_BYTES: usize = 64 * 1024;
/// ... or this many records.
const BATCH_RECORDS: usize = 1024;
/// Most worker threads, whatever the machine offers.
const MAX_WORKERS: usize = 4;
/// Batches handed to each worker ahead of the merge.
const AHEAD: usize = 2;
/// How often the reading thread looks at the clock while it waits for a worker.
const POLL: Duration = Duration::from_millis(10);
/// Stack of a worker thread: room for the guard's recursion budget with a wide margin.
const WORKER_STACK: usize = 8 * 1024 * 1024;

/// Whole record lines, each with its file line number and its span in `text`.
#[derive(Default)]
struct Batch {
    text: Vec<u8>,
    records: Vec<(u64, usize, usize)>,
}

/// How the run of a batch ended.
enum End {
    /// Every record ran (or the outputs reached a limit: the merge cuts there).
    Done,
    /// The filter called `halt`: no more output.
    Halt,
    /// The time is up (or, on a worker, the work was cancelled).
    Time,
    /// A record is not JSON, or the filter failed on it.
    Failed(LroError),
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
    limits: ExtractLimits,
}

impl<'p> Runner<'p> {
    fn new(program: &'p Program, vars: Vec<Val>, clock: Clock<'p>, limits: ExtractLimits) -> Self {
        Self {
            program,
            vars,
            guard: Guard::new(clock),
            parser: RecordParser::default(),
            limits,
        }
    }

    fn run(&mut self, batch: &Batch) -> Outcome {
        let mut outputs = Vec::new();
        let mut bytes = 0u64;
        for &(line, start, end) in &batch.records {
            if self.guard.clock().expired() {
                return Outcome { outputs, end: End::Time };
            }
            let record = match self.parser.parse(&batch.text[start..end]) {
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
            let mut emit = |value: Value| {
                let size = json_size(&value);
                bytes = bytes.saturating_add(size);
                outputs.push((value, size));
                full = outputs.len() as u64 > self.limits.max_output_records || bytes > self.limits.max_output_bytes;
                !full
            };
            let end = match run_one(self.program, record, &self.vars, &self.guard, Some(line), &mut emit) {
                Ok(Flow::Continue) => continue,
                Ok(Flow::Stop) if full => End::Done,
                Ok(Flow::Stop) => End::Halt,
                Ok(Flow::Tripped(_)) => End::Time,
                Err(e) => End::Failed(e),
            };
            return Outcome { outputs, end };
        }
        Outcome { outputs, end: End::Done }
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
        End::Halt => Ok(false),
        End::Time => {
            budget.cut_by_time();
            Ok(false)
        }
        End::Failed(e) => Err(e),
    }
}

/// The record lines still to come: those read while sampling, then the file.
struct Source<'l, 'h> {
    lines: &'l mut LineReader<'h>,
    pending: std::vec::IntoIter<(u64, Vec<u8>)>,
    /// The file has no more lines.
    ended: bool,
}

impl Source<'_, '_> {
    /// The next batch; empty at the end of the input.
    fn batch(&mut self) -> Result<Batch> {
        let mut batch = Batch::default();
        while batch.text.len() < BATCH_BYTES && batch.records.len() < BATCH_RECORDS {
            let start = batch.text.len();
            let number = if let Some((number, line)) = self.pending.next() {
                batch.text.extend_from_slice(&line);
                number
            } else {
                if self.ended {
                    break;
                }
                let number = self.lines.line_number() + 1;
                match self.lines.next_line()? {
                    None => {
                        self.ended = true;
                        break;
                    }
                    Some(line) if is_blank(line) => continue,
                    Some(line) => batch.text.extend_from_slice(line),
                }
                number
            };
            batch.records.push((number, start, batch.text.len()));
        }
        Ok(batch)
    }

    /// Lines may remain.
    fn more(&self) -> bool {
        !self.ended || self.pending.len() > 0
    }
}

/// How many worker threads to use: the machine's parallelism, up to [`MAX_WORKERS`]; 1
/// where threads are not available (WebAssembly).
fn worker_count() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS))
}

/// Runs `program` on every record, in order, into `budget`. `vars` are its variables as
/// engine values (for this thread), `values` the same as JSON (for worker threads).
pub(crate) fn run(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    program: &Program,
    vars: Vec<Val>,
    values: &[Value],
    pending: Pending,
) -> Result<()> {
    let mut source = Source {
        lines,
        pending: pending.into_iter(),
        ended: false,
    };
    let mut first = source.batch()?;
    let workers = worker_count();
    if source.more() && workers >= 2 {
        match parallel(&mut source, budget, program, values, workers, first) {
            Parallel::Ran(result) => return result,
            Parallel::NoThreads(batch) => first = batch,
        }
    }
    let limits = budget.limits().clone();
    let mut runner = Runner::new(program, vars, Clock::Deadline(budget.deadline), limits);
    let mut batch = first;
    while !batch.records.is_empty() && budget.in_time() {
        if !merge(budget, runner.run(&batch))? {
            break;
        }
        batch = source.batch()?;
    }
    Ok(())
}

/// The result of [`parallel`].
enum Parallel {
    Ran(Result<()>),
    /// No thread could be started: the first batch, untouched.
    NoThreads(Batch),
}

/// Runs the batches on `workers` threads.
fn parallel(
    source: &mut Source<'_, '_>,
    budget: &mut Budget<'_>,
    program: &Program,
    values: &[Value],
    workers: usize,
    first: Batch,
) -> Parallel {
    let cancel = AtomicBool::new(false);
    let limits = budget.limits().clone();
    thread::scope(|scope| {
        let mut inputs = Vec::with_capacity(workers);
        let mut outcomes = Vec::with_capacity(workers);
        for _ in 0..workers {
            let (batch_tx, batch_rx) = mpsc::channel();
            let (outcome_tx, outcome_rx) = mpsc::channel();
            let (cancel, limits) = (&cancel, limits.clone());
            let spawned = thread::Builder::new()
                .name("lro-extract".to_owned())
                .stack_size(WORKER_STACK)
                .spawn_scoped(scope, move || work(program, values, cancel, limits, &batch_rx, &outcome_tx));
            if spawned.is_err() {
                break;
            }
            inputs.push(batch_tx);
            outcomes.push(outcome_rx);
        }
        if inputs.is_empty() {
            return Parallel::NoThreads(first);
        }
        let result = drive(source, budget, &cancel, &inputs, &outcomes, first);
        // Whatever is still running is not wanted; closing the inputs ends the workers.
        cancel.store(true, Ordering::Relaxed);
        drop(inputs);
        Parallel::Ran(result)
    })
}

/// A worker: runs the batches it receives, in order, and sends back their outcomes.
fn work(
    program: &Program,
    values: &[Value],
    cancel: &AtomicBool,
    limits: ExtractLimits,
    batches: &Receiver<Batch>,
    outcomes: &Sender<Outcome>,
) {
    // The reading thread built the same variables, so this cannot fail; if it did, every
    // batch reports it.
    let (vars, failure) = match vars_of(values) {
        Ok(vars) => (vars, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let mut runner = Runner::new(program, vars, Clock::Flag(cancel), limits);
    for batch in batches {
        let outcome = match &failure {
            None => runner.run(&batch),
            Some(e) => Outcome {
                outputs: Vec::new(),
                end: End::Failed(e.clone()),
            },
        };
        if outcomes.send(outcome).is_err() {
            break;
        }
    }
}

/// Hands batches to the workers in turn (batch `i` to worker `i % n`) and merges their
/// outcomes in the same order, so the output is in record order.
fn drive(
    source: &mut Source<'_, '_>,
    budget: &mut Budget<'_>,
    cancel: &AtomicBool,
    inputs: &[Sender<Batch>],
    outcomes: &[Receiver<Outcome>],
    first: Batch,
) -> Result<()> {
    let workers = inputs.len();
    let lost = || LroError::new(ErrorCode::QueryFailed, "an extraction worker thread stopped unexpectedly");
    let (mut sent, mut merged) = (0usize, 0usize);
    let mut next = Some(first);
    loop {
        while sent - merged < workers * AHEAD {
            let batch = match next.take() {
                Some(batch) => batch,
                None if source.more() => source.batch()?,
                None => break,
            };
            if batch.records.is_empty() {
                break;
            }
            if !budget.in_time() {
                return Ok(());
            }
            inputs[sent % workers].send(batch).map_err(|_| lost())?;
            sent += 1;
        }
        if merged == sent {
            return Ok(());
        }
        match outcomes[merged % workers].recv_timeout(POLL) {
            Ok(outcome) => {
                merged += 1;
                if !merge(budget, outcome)? {
                    return Ok(());
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                if budget.deadline.passed() {
                    cancel.store(true, Ordering::Relaxed);
                }
            }
            Err(RecvTimeoutError::Disconnected) => return Err(lost()),
        }
    }
}
