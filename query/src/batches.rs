//! The records of a file in batches of whole lines, and a pool of worker threads that
//! processes batches and hands the results back in batch order.
//!
//! The reading thread cuts the file into batches (`BATCH_BYTES`, 64 KiB) and gives batch `i` to
//! worker `i % n`; each worker answers its batches in the order it got them, so reading the
//! answers round robin gives them in file order without any reordering. At most `AHEAD` (2)
//! batches per worker are in flight, so memory stays bounded on files of any size.
//!
//! Workers cannot read the host's clock (it is not shared with threads): the reading thread
//! watches the deadline, also while it waits for an answer, and raises the `cancel` flag,
//! which workers' guards check ([`lro_jq::Clock::Flag`]); the flag also stops work
//! whose result is no longer wanted. Where threads cannot be started (WebAssembly) the pool
//! says so and the caller runs the batches itself.

use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;
#[cfg(not(target_family = "wasm"))]
use std::sync::atomic::Ordering;
#[cfg(not(target_family = "wasm"))]
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::thread;
#[cfg(not(target_family = "wasm"))]
use std::time::Duration;

use crate::budget::Budget;
#[cfg(not(target_family = "wasm"))]
use crate::error::ErrorKind;
use crate::error::{Error, Result};
use crate::reader::{LineReader, Pending, is_blank};

/// The native stack a thread that runs a filter over lines should have (the workers here
/// have it; so should the threads of callers that run one). The bounds of the sandbox (values
/// at most 1024 levels deep, 1 MiB of recursion) are sized to fit 2 MiB, Rust's default for
/// spawned threads; this leaves a wide margin for debug builds and for the host's own frames.
pub const EXTRACT_STACK_BYTES: usize = 8 * 1024 * 1024;

/// A batch closes once it holds this many bytes of record lines...
const BATCH_BYTES: usize = 64 * 1024;
/// ... or this many records.
const BATCH_RECORDS: usize = 1024;
/// The first batch is read larger: a file that fits in it is processed on the calling
/// thread, as starting workers costs more than they save on small files (the common case
/// of a few hundred memories).
const FIRST_BATCH_BYTES: usize = 4 * BATCH_BYTES;
/// ... or this many records.
const FIRST_BATCH_RECORDS: usize = 4 * BATCH_RECORDS;
/// Most worker threads, whatever the machine offers.
const MAX_WORKERS: usize = 4;
/// Batches handed to each worker ahead of the merge.
#[cfg(not(target_family = "wasm"))]
const AHEAD: usize = 2;
/// How often the reading thread looks at the clock while it waits for a worker.
#[cfg(not(target_family = "wasm"))]
const POLL: Duration = Duration::from_millis(10);
/// Stack of a worker thread: room for the guard's recursion budget with a wide margin.
#[cfg(not(target_family = "wasm"))]
const WORKER_STACK: usize = EXTRACT_STACK_BYTES;

/// Whole record lines, each with its file line number and its span in `text`.
#[derive(Default)]
pub struct Batch {
    /// The lines, one after the other.
    pub text: Vec<u8>,
    /// Each record: its file line number and its span in `text`.
    pub records: Vec<(u64, usize, usize)>,
}

impl Batch {
    /// The records: file line number and line.
    pub fn lines(&self) -> impl Iterator<Item = (u64, &[u8])> {
        self.records
            .iter()
            .map(|&(number, start, end)| (number, &self.text[start..end]))
    }

    /// The batch holds no record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// The record lines still to come: those read while sampling, then the file.
pub struct Source<'l, 'h> {
    lines: &'l mut LineReader<'h>,
    pending: std::vec::IntoIter<(u64, Vec<u8>)>,
    /// The file has no more lines.
    ended: bool,
}

impl<'l, 'h> Source<'l, 'h> {
    /// The lines `pending` (already read), then the rest of `lines`.
    pub fn new(lines: &'l mut LineReader<'h>, pending: Pending) -> Self {
        Self {
            lines,
            pending: pending.into_iter(),
            ended: false,
        }
    }

    /// The first batch (up to `FIRST_BATCH_BYTES`); empty when the input is.
    pub fn first_batch(&mut self) -> Result<Batch> {
        self.batch_up_to(FIRST_BATCH_BYTES, FIRST_BATCH_RECORDS)
    }

    /// The next batch; empty at the end of the input.
    #[cfg(not(target_family = "wasm"))]
    pub fn batch(&mut self) -> Result<Batch> {
        self.batch_up_to(BATCH_BYTES, BATCH_RECORDS)
    }

    fn batch_up_to(&mut self, bytes: usize, records: usize) -> Result<Batch> {
        // Room for the last line past the mark, so a batch rarely grows (and copies).
        let mut batch = Batch {
            text: Vec::with_capacity(bytes + bytes / 8),
            records: Vec::with_capacity(records.min(1024)),
        };
        self.fill_up_to(&mut batch, bytes, records)?;
        Ok(batch)
    }

    /// Replaces the contents of `batch` with the next batch (reusing its memory: a fresh
    /// 64 KiB allocation per batch costs more than it seems, as it makes the allocator
    /// consolidate its free lists).
    pub fn fill(&mut self, batch: &mut Batch) -> Result<()> {
        self.fill_up_to(batch, BATCH_BYTES, BATCH_RECORDS)
    }

    fn fill_up_to(&mut self, batch: &mut Batch, bytes: usize, records: usize) -> Result<()> {
        batch.text.clear();
        batch.records.clear();
        while batch.text.len() < bytes && batch.records.len() < records {
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
        Ok(())
    }

    /// Lines may remain.
    pub fn more(&self) -> bool {
        !self.ended || self.pending.len() > 0
    }
}

/// How many worker threads to use: the machine's parallelism, up to `MAX_WORKERS` (4); 1
/// where threads are not available (WebAssembly).
pub fn worker_count() -> usize {
    // Asked once: the answer reads cgroup files on Linux, a cost on every small extraction.
    static WORKERS: OnceLock<usize> = OnceLock::new();
    *WORKERS.get_or_init(|| thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS)))
}

/// The result of [`in_parallel`].
pub enum Pool<E> {
    /// The batches were processed (or processing stopped: a merge said so, the time is up,
    /// an error).
    #[cfg_attr(
        target_family = "wasm",
        allow(dead_code, reason = "no threads on wasm: the pool never runs")
    )]
    Ran(std::result::Result<(), E>),
    /// No thread could be started: the first batch, untouched, for the caller to process.
    NoThreads(Batch),
}

/// WebAssembly has no threads (and wasip1's libc no pthreads to link): the caller always
/// processes the batches itself.
#[cfg(target_family = "wasm")]
#[allow(
    clippy::too_many_arguments,
    reason = "the signature of the threaded version"
)]
pub fn in_parallel<T, J, F, M, E>(
    _source: &mut Source<'_, '_>,
    _budget: &mut Budget<'_>,
    first: Batch,
    _workers: usize,
    _cancel: &AtomicBool,
    _job: &F,
    _merge: &mut M,
) -> Pool<E>
where
    T: Send,
    J: FnMut(&Batch) -> T,
    F: Fn() -> J + Sync,
    M: FnMut(&mut Budget<'_>, T) -> std::result::Result<bool, E>,
    E: From<Error>,
{
    Pool::NoThreads(first)
}

/// Processes `first` and every following batch of `source` on up to `workers` threads,
/// handing the results to `merge` in batch order until it returns `Ok(false)`.
///
/// Each worker calls `job` once to make its processing function (its own parser, guard,
/// variables: values that must not cross threads), which should watch `cancel`.
#[cfg(not(target_family = "wasm"))]
pub fn in_parallel<T, J, F, M, E>(
    source: &mut Source<'_, '_>,
    budget: &mut Budget<'_>,
    first: Batch,
    workers: usize,
    cancel: &AtomicBool,
    job: &F,
    merge: &mut M,
) -> Pool<E>
where
    T: Send,
    J: FnMut(&Batch) -> T,
    F: Fn() -> J + Sync,
    M: FnMut(&mut Budget<'_>, T) -> std::result::Result<bool, E>,
    E: From<Error>,
{
    thread::scope(|scope| {
        let mut inputs = Vec::with_capacity(workers);
        let mut results = Vec::with_capacity(workers);
        // Processed batches come back to be filled again.
        let (spare_tx, spare_rx) = std::sync::mpsc::channel::<Batch>();
        for _ in 0..workers {
            let (batch_tx, batch_rx) = std::sync::mpsc::channel::<Batch>();
            let (result_tx, result_rx) = std::sync::mpsc::channel::<T>();
            let spare_tx = spare_tx.clone();
            let spawned = thread::Builder::new()
                .name("lro-extract".to_owned())
                .stack_size(WORKER_STACK)
                .spawn_scoped(scope, move || {
                    let mut process = job();
                    for batch in batch_rx {
                        let result = process(&batch);
                        // The reader may be gone already: then the batch is simply freed.
                        let _ = spare_tx.send(batch);
                        if result_tx.send(result).is_err() {
                            break;
                        }
                    }
                });
            if spawned.is_err() {
                break;
            }
            inputs.push(batch_tx);
            results.push(result_rx);
        }
        if inputs.is_empty() {
            return Pool::NoThreads(first);
        }
        let outcome = drive(
            source, budget, cancel, &inputs, &results, &spare_rx, first, merge,
        );
        // Whatever is still running is not wanted; closing the inputs ends the workers.
        cancel.store(true, Ordering::Relaxed);
        drop(inputs);
        Pool::Ran(outcome)
    })
}

/// Hands batches to the workers in turn and merges their results in the same order.
#[cfg(not(target_family = "wasm"))]
#[allow(
    clippy::too_many_arguments,
    reason = "the pool's channels and the caller's state, each used once"
)]
fn drive<T, M, E>(
    source: &mut Source<'_, '_>,
    budget: &mut Budget<'_>,
    cancel: &AtomicBool,
    inputs: &[Sender<Batch>],
    results: &[Receiver<T>],
    spares: &Receiver<Batch>,
    first: Batch,
    merge: &mut M,
) -> std::result::Result<(), E>
where
    M: FnMut(&mut Budget<'_>, T) -> std::result::Result<bool, E>,
    E: From<Error>,
{
    let workers = inputs.len();
    let lost = || {
        Error::new(
            ErrorKind::QueryFailed,
            "an extraction worker thread stopped unexpectedly",
        )
    };
    let (mut sent, mut merged) = (0usize, 0usize);
    let mut next = Some(first);
    loop {
        while sent - merged < workers * AHEAD {
            let batch = match next.take() {
                Some(batch) => batch,
                None if source.more() => match spares.try_recv() {
                    Ok(mut batch) => {
                        source.fill(&mut batch)?;
                        batch
                    }
                    Err(_) => source.batch()?,
                },
                None => break,
            };
            if batch.is_empty() {
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
        match results[merged % workers].recv_timeout(POLL) {
            Ok(result) => {
                merged += 1;
                if !merge(budget, result)? {
                    return Ok(());
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                if budget.deadline.passed() {
                    cancel.store(true, Ordering::Relaxed);
                }
            }
            Err(RecvTimeoutError::Disconnected) => return Err(lost().into()),
        }
    }
}
