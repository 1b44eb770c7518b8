//! Running a structured query over the records of a file.
//!
//! The file is read in batches ([`crate::batches`]), on worker threads when it is
//! longer than one batch. A worker reads each record with a projecting parser (only the
//! top-level fields the query touches are built), tests the filter, and hands back what the
//! query needs of each match, in file order: the output record (parsed whole, then
//! projected), the sort values and the line, or the values an aggregate reads. The reading
//! thread merges batches in order, so results are the sequential ones.
//!
//! Output beyond the limits is not built, but matches are still counted to the end of the
//! file, so a cut result says how many records the full one has.

use std::sync::atomic::{AtomicBool, Ordering};

use jaq_json::Val;
use lro_jq::{Clock, RecordParser};
use lro_json::size::json_size;
use serde_json::Value;

use super::compiled::Query;
use crate::aggregate::{Accumulator, Aggregate, values_of};
use crate::batches::{Batch, Pool, Source, in_parallel, worker_count};
use crate::budget::Budget;
use crate::error::{Error, Result};
use crate::filter::Path;
use crate::matcher::{Leaf, any_leaf};
use crate::projection::{SortValue, compare_records, sort_value};
use crate::reader::{LineReader, invalid_record};

/// What the scan returns besides the output.
pub(crate) struct Scanned {
    /// For each of the query's paths: some record has a value there.
    pub(crate) seen: Vec<bool>,
    /// Every record was read (no limit, time or `limit` stopped the scan early).
    pub(crate) complete: bool,
}

/// What the query needs of matching records.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Records in file order: the output value of each.
    Stream,
    /// Records or aggregate input, sorted first: sort values and the line or the values.
    Sorted,
    /// Aggregate input in file order: the values of its field.
    Values,
    /// Only how many.
    Count,
}

/// One matching record.
#[derive(Default)]
struct Hit {
    output: Option<(Value, u64)>,
    keys: Vec<SortValue>,
    line: Vec<u8>,
    values: Vec<Val>,
}

enum End {
    Done,
    Time,
    Failed(Error),
}

struct BatchResult {
    hits: Vec<Hit>,
    matched: u64,
    seen: Vec<bool>,
    end: End,
}

/// The per-thread state of a scan.
struct Worker<'q> {
    query: &'q Query,
    paths: &'q [&'q Path],
    mode: Mode,
    parser: RecordParser,
    seen: Vec<bool>,
    clock: Clock<'q>,
    /// Output records are no longer wanted (the limits are reached): only count.
    full: &'q AtomicBool,
}

impl Worker<'_> {
    fn run(&mut self, batch: &Batch) -> BatchResult {
        let mut result = BatchResult {
            hits: Vec::new(),
            matched: 0,
            seen: Vec::new(),
            end: End::Done,
        };
        for (n, (line, text)) in batch.lines().enumerate() {
            if n % 64 == 0 && self.clock.expired() {
                result.end = End::Time;
                break;
            }
            let record = match self.parser.parse(text) {
                Ok(record) => record,
                Err(e) => {
                    result.end = End::Failed(invalid_record(line, &e));
                    break;
                }
            };
            for (seen, path) in self.seen.iter_mut().zip(self.paths) {
                if !*seen {
                    *seen = any_leaf(&record, &path.parts, &mut |l| matches!(l, Leaf::Value(_)));
                }
            }
            if !self.query.filter.matches(&record) {
                continue;
            }
            result.matched += 1;
            match self.mode {
                Mode::Count => {}
                Mode::Stream => {
                    let output = if self.full.load(Ordering::Relaxed) {
                        None
                    } else {
                        match self.output(text) {
                            Ok(output) => Some(output),
                            Err(e) => {
                                result.end = End::Failed(invalid_record(line, &e));
                                break;
                            }
                        }
                    };
                    result.hits.push(Hit {
                        output,
                        ..Hit::default()
                    });
                }
                Mode::Sorted => {
                    let keys = self
                        .query
                        .sort
                        .iter()
                        .map(|k| sort_value(&record, k))
                        .collect();
                    let hit = match self.query.aggregate.as_ref().and_then(|a| a.path()) {
                        Some(path) => Hit {
                            keys,
                            values: values_of(&record, path),
                            ..Hit::default()
                        },
                        None => Hit {
                            keys,
                            line: text.to_vec(),
                            ..Hit::default()
                        },
                    };
                    result.hits.push(hit);
                }
                Mode::Values => {
                    let values = self
                        .query
                        .aggregate
                        .as_ref()
                        .and_then(|a| a.path())
                        .map_or_else(Vec::new, |p| values_of(&record, p));
                    result.hits.push(Hit {
                        values,
                        ..Hit::default()
                    });
                }
            }
        }
        result.seen.clone_from(&self.seen);
        result
    }

    /// The output record of a matching line: the whole record, projected.
    fn output(&self, text: &[u8]) -> std::result::Result<(Value, u64), serde_json::Error> {
        let record: Value = lro_json::parse::from_slice(text)?;
        let value = match &self.query.projection {
            Some(p) => p.apply(record),
            None => record,
        };
        let size = json_size(&value);
        Ok((value, size))
    }
}

/// The merge of batch results, in file order.
struct Merge<'q> {
    query: &'q Query,
    mode: Mode,
    full: &'q AtomicBool,
    max_records: u64,
    max_bytes: u64,
    /// Matches so far (before skip and limit).
    matched: u64,
    /// Output records handed to the budget, and their bytes.
    outputs: u64,
    output_bytes: u64,
    sorted: Vec<Hit>,
    /// Sorted hits worth keeping: the window's end, as far as anything is output.
    keep: Option<usize>,
    accumulator: Option<Accumulator>,
    seen: Vec<bool>,
    stopped_early: bool,
}

impl Merge<'_> {
    /// Position `index` (counted from 0 over all matches) is inside `skip`/`limit`.
    fn in_window(&self, index: u64) -> bool {
        index >= self.query.skip
            && self
                .query
                .limit
                .is_none_or(|limit| index - self.query.skip < limit)
    }

    /// The window ends before position `index`.
    fn past_window(&self, index: u64) -> bool {
        self.query
            .limit
            .is_some_and(|limit| index >= self.query.skip.saturating_add(limit))
    }

    fn add(&mut self, budget: &mut Budget<'_>, result: BatchResult) -> Result<bool> {
        for (seen, s) in self.seen.iter_mut().zip(&result.seen) {
            *seen |= s;
        }
        match self.mode {
            Mode::Count => self.matched += result.matched,
            Mode::Stream | Mode::Values => {
                for hit in result.hits {
                    let index = self.matched;
                    self.matched += 1;
                    if self.past_window(index) {
                        self.stopped_early = true;
                        return Ok(false);
                    }
                    if !self.in_window(index) {
                        continue;
                    }
                    if self.mode == Mode::Values {
                        if let Some(acc) = &mut self.accumulator {
                            acc.add(hit.values);
                        }
                    } else if let Some((value, size)) = hit.output {
                        if !self.output(budget, value, size) {
                            return Ok(false);
                        }
                    }
                }
                if self.past_window(self.matched) {
                    self.stopped_early = true;
                    return Ok(false);
                }
            }
            Mode::Sorted => {
                self.matched += result.matched;
                self.sorted.extend(result.hits);
                if let Some(keep) = self.keep {
                    if self.sorted.len() >= keep.saturating_mul(2).max(1024) {
                        self.sort();
                        self.sorted.truncate(keep);
                    }
                }
            }
        }
        match result.end {
            End::Done => Ok(true),
            End::Time => Ok(false),
            End::Failed(e) => Err(e),
        }
    }

    /// Hands an output record to the budget while it fits the limits (past them, records
    /// are only counted); `false` when the time is up.
    fn output(&mut self, budget: &mut Budget<'_>, value: Value, size: u64) -> bool {
        if self.full.load(Ordering::Relaxed) {
            return true;
        }
        if self.outputs >= self.max_records
            || self.output_bytes.saturating_add(size) > self.max_bytes
        {
            self.full.store(true, Ordering::Relaxed);
            return true;
        }
        self.outputs += 1;
        self.output_bytes += size;
        // It fits, so only the deadline can refuse it.
        budget.push_sized(value, size)
    }

    fn sort(&mut self) {
        let keys = &self.query.sort;
        self.sorted
            .sort_by(|a, b| compare_records(keys, &a.keys, &b.keys));
    }
}

/// Runs `query` over the records of `lines` into `budget`.
pub(crate) fn scan(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    query: &Query,
    paths: &[&Path],
) -> Result<Scanned> {
    let mode = match (&query.aggregate, query.sort.is_empty()) {
        (Some(Aggregate::Count), _) => Mode::Count,
        // Sorting matters to an aggregate only when skip or limit picks records.
        (Some(_), true) => Mode::Values,
        (Some(_), false) if query.skip == 0 && query.limit.is_none() => Mode::Values,
        (_, false) => Mode::Sorted,
        (None, true) => Mode::Stream,
    };
    let limits = budget.limits().clone();
    let full = AtomicBool::new(false);
    let keep = match (&query.aggregate, mode) {
        (None, Mode::Sorted) => {
            let output = query
                .limit
                .unwrap_or(u64::MAX)
                .min(limits.max_output_records);
            usize::try_from(query.skip.saturating_add(output)).ok()
        }
        (Some(_), Mode::Sorted) => query
            .limit
            .and_then(|l| usize::try_from(query.skip.saturating_add(l)).ok()),
        _ => None,
    };
    let mut merge = Merge {
        query,
        mode,
        full: &full,
        max_records: limits.max_output_records,
        max_bytes: limits.max_output_bytes,
        matched: 0,
        outputs: 0,
        output_bytes: 0,
        sorted: Vec::new(),
        keep,
        accumulator: query.aggregate.as_ref().map(Accumulator::new),
        seen: vec![false; paths.len()],
        stopped_early: false,
    };
    let mut roots: Vec<String> = Vec::new();
    for p in query.roots() {
        if !roots.iter().any(|r| r == p) {
            roots.push(p.to_owned());
        }
    }
    let parser = RecordParser::projecting(Some(&roots));
    lines.header()?;
    let mut source = Source::new(lines, Vec::new());
    let mut first = source.first_batch()?;
    let workers = worker_count();
    let mut ran = false;
    if source.more() && workers >= 2 {
        let cancel = AtomicBool::new(false);
        let job = || {
            let mut worker = Worker {
                query,
                paths,
                mode,
                parser: parser.clone(),
                seen: vec![false; paths.len()],
                clock: Clock::Flag(&cancel),
                full: &full,
            };
            move |batch: &Batch| worker.run(batch)
        };
        let mut add = |budget: &mut Budget<'_>, result: BatchResult| merge.add(budget, result);
        match in_parallel(&mut source, budget, first, workers, &cancel, &job, &mut add) {
            Pool::Ran(result) => {
                result?;
                ran = true;
                first = Batch::default();
            }
            Pool::NoThreads(batch) => first = batch,
        }
    }
    if !ran {
        let mut worker = Worker {
            query,
            paths,
            mode,
            parser,
            seen: vec![false; paths.len()],
            clock: Clock::Deadline(budget.deadline),
            full: &full,
        };
        let mut batch = first;
        while !batch.is_empty() && budget.in_time() {
            if !merge.add(budget, worker.run(&batch))? {
                break;
            }
            source.fill(&mut batch)?;
        }
    }
    let timed_out = budget.timed_out();
    let complete = !timed_out && !merge.stopped_early && !source.more();
    let seen = std::mem::take(&mut merge.seen);
    if !timed_out {
        finish(merge, budget, query)?;
    }
    Ok(Scanned { seen, complete })
}

/// Hands the merged output to the budget.
fn finish(mut merge: Merge<'_>, budget: &mut Budget<'_>, query: &Query) -> Result<()> {
    let window_total = |matched: u64| {
        let after_skip = matched.saturating_sub(query.skip);
        query.limit.map_or(after_skip, |l| after_skip.min(l))
    };
    match merge.mode {
        Mode::Count => {
            budget.push(Value::from(window_total(merge.matched)));
        }
        Mode::Stream => {
            let total = window_total(merge.matched);
            if merge.outputs < total {
                budget.cut_output(total);
            }
        }
        Mode::Values => {
            if let (Some(acc), Some(aggregate)) = (merge.accumulator.take(), &query.aggregate) {
                budget.push(acc.finish(aggregate));
            }
        }
        Mode::Sorted => {
            merge.sort();
            let skip = usize::try_from(query.skip).unwrap_or(usize::MAX);
            let window = merge.sorted.drain(..).skip(skip).take(
                query
                    .limit
                    .and_then(|l| usize::try_from(l).ok())
                    .unwrap_or(usize::MAX),
            );
            match (&query.aggregate, merge.accumulator.take()) {
                (Some(aggregate), Some(mut acc)) => {
                    for hit in window {
                        acc.add(hit.values);
                    }
                    budget.push(acc.finish(aggregate));
                }
                _ => {
                    let total = window_total(merge.matched);
                    let mut returned = 0u64;
                    for hit in window {
                        let record: Value = lro_json::parse::from_slice(&hit.line)
                            .map_err(|e| invalid_record(0, &e))?;
                        let value = match &query.projection {
                            Some(p) => p.apply(record),
                            None => record,
                        };
                        if !budget.push(value) {
                            break;
                        }
                        returned += 1;
                    }
                    if returned < total {
                        budget.cut_output(total);
                    }
                }
            }
        }
    }
    Ok(())
}
