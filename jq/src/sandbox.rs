//! Keeping an agent's jq filter inside its bounds.
//!
//! jq is a full programming language: a filter can loop forever, recurse without end or ask
//! for the environment. The engine is pure computation over the records, and on top of that:
//! - **text limits** before parsing ([`crate::check_text`], in `filter_text`): the parser recurses on nesting, so a
//!   filter of a million `(` must be refused before it is parsed, not crash the host; the
//!   parser, the rewriting below, jaq's compiler and the evaluation also recurse once per
//!   operator and path step of a chain (`.|.|...`, `1+1+...`, `.a.b...`), so the depth of
//!   the term is bounded too, counted on the tokens ([`crate::MAX_FILTER_DEPTH`]);
//! - **a tick** (`_lro_tick`, [`Guard::tick`]) at the start of every definition's body, the
//!   user's and the standard library's alike (`map`, `select`, `repeat`, `recurse`, ...),
//!   on every value of `range` and of an iteration `.[]`, in every body of `f as $x | body`
//!   and in `empty` (loops that call nothing and build nothing tick there): it checks the deadline (every [`TICK_CLOCK_EVERY`]
//!   ticks) and the depth of the native stack, so endless loops end at the time limit and
//!   endless recursion ends with an error instead of a stack overflow;
//! - **no ambient authority**: `env`/`$ENV`, `now`, `localtime`, `strflocaltime`, `input`,
//!   `inputs` and module loading (`import`, `include`) are not available.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::path::Part;

use jaq_json::Val;

use crate::bounds;
use crate::deadline::Deadline;
use crate::regex_filters::RegexCache;

/// How many ticks between two reads of the clock (a clock read costs far more than a tick).
pub(crate) const TICK_CLOCK_EVERY: u32 = 256;

/// Most native stack the evaluation may use below its entry point, in bytes. Deep enough
/// for any recursion over records (serde_json stops parsing at 128 levels of nesting) and
/// small enough to stay inside a 2 MiB thread stack (the Rust default for spawned threads).
const STACK_BUDGET: usize = 1024 * 1024;

/// Estimated bytes that the evaluations running in this process hold, summed over their
/// guards ([`Guard::claim`]). `extract.max_memory_bytes` bounds this sum, not each
/// evaluation alone: concurrent extractions (the proxy runs several calls at once, and one
/// extraction may evaluate on several worker threads) share one budget, so the process stays
/// near the bound however many run.
static IN_USE: AtomicU64 = AtomicU64::new(0);

/// Claims on [`IN_USE`] grow by multiples of this.
const CLAIM_STEP: u64 = 64 * 1024;

/// Why the guard stopped the evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trip {
    /// The deadline passed.
    Time,
    /// The native stack grew past [`STACK_BUDGET`].
    Stack,
    /// A value nested deeper than [`bounds::MAX_VALUE_DEPTH`].
    Depth,
    /// The values built took more than `extract.max_memory_bytes` (estimated).
    Memory,
}

impl Trip {
    /// A bound of the sandbox (`resource_limit`), not the time limit (which cuts the
    /// result instead).
    pub fn is_bound(self) -> bool {
        self != Self::Time
    }
}

/// How a guard learns that the time is up.
#[derive(Clone, Copy)]
pub enum Clock<'d> {
    /// It reads the deadline itself (the thread that owns the budget).
    Deadline(&'d Deadline<'d>),
    /// Another thread watches the deadline and raises the flag (worker threads, which cannot
    /// reach the host's clock); the flag also cancels work whose output is no longer wanted.
    Flag(&'d AtomicBool),
}

impl Clock<'_> {
    /// The time is up (or, for a flag, the work was cancelled).
    pub fn expired(self) -> bool {
        match self {
            Self::Deadline(deadline) => deadline.passed(),
            Self::Flag(flag) => flag.load(Ordering::Relaxed),
        }
    }
}

/// The per-run state behind `_lro_tick`.
pub struct Guard<'d> {
    clock: Clock<'d>,
    /// Compiled `test` patterns of this run.
    pub(crate) regexes: RegexCache,
    ticks: Cell<u32>,
    tripped: Cell<Option<Trip>>,
    stack_base: Cell<usize>,
    /// `extract.max_memory_bytes`.
    max_memory: u64,
    /// Estimated bytes of the items that `[f]` collections in progress hold.
    collected: Cell<u64>,
    /// State of the random sequence that picks which large values are walked.
    random: Cell<u64>,
    /// This guard's share of [`IN_USE`]: the largest estimate it has accepted on this input.
    claimed: Cell<u64>,
    /// What `halt_error` was given, shown as the error of the call.
    halt_message: RefCell<Option<String>>,
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        IN_USE.fetch_sub(self.claimed.get(), Ordering::Relaxed);
    }
}

/// An address on the current native stack (the stack grows down on every target we run on;
/// `abs_diff` keeps this correct either way).
#[inline(never)]
fn stack_position() -> usize {
    let marker = 0u8;
    std::ptr::from_ref(std::hint::black_box(&marker)) as usize
}

impl<'d> Guard<'d> {
    /// A guard for one run (or one thread's runs) that learns the time from `clock` and
    /// bounds the values built at about `max_memory` bytes, shared with the other guards
    /// of the process. Created on the thread that runs the filter: the stack depth is
    /// measured from here.
    pub fn new(clock: Clock<'d>, max_memory: u64) -> Self {
        let base = stack_position();
        Self {
            clock,
            regexes: RegexCache::default(),
            ticks: Cell::new(0),
            tripped: Cell::new(None),
            stack_base: Cell::new(base),
            max_memory,
            collected: Cell::new(0),
            // Any odd seed works for the sequence; the stack address varies per process
            // (address randomization) and per thread, so a filter cannot predict it.
            random: Cell::new((base as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
            claimed: Cell::new(0),
            halt_message: RefCell::new(None),
        }
    }

    /// The bytes this evaluation may hold: the bound less what the other running
    /// evaluations of the process claimed.
    fn limit(&self) -> u64 {
        let others = IN_USE
            .load(Ordering::Relaxed)
            .saturating_sub(self.claimed.get());
        self.max_memory.saturating_sub(others)
    }

    /// Accepts an estimate of `bytes` held at once, raising this guard's claim on the
    /// process' budget to it; past the budget, trips.
    fn claim(&self, bytes: u64) -> Result<(), Trip> {
        let have = self.claimed.get();
        if bytes <= have {
            return Ok(());
        }
        // Claimed by steps, so a collection growing item by item touches the shared
        // counter once in a while, not on every item.
        let claim = bytes.div_ceil(CLAIM_STEP).saturating_mul(CLAIM_STEP);
        let before = IN_USE.fetch_add(claim - have, Ordering::Relaxed);
        self.claimed.set(claim);
        if before.saturating_sub(have).saturating_add(bytes) > self.max_memory {
            return self.trip(Trip::Memory);
        }
        Ok(())
    }

    /// Gives back this guard's claim (a new input starts from nothing).
    fn release(&self) {
        IN_USE.fetch_sub(self.claimed.replace(0), Ordering::Relaxed);
    }

    /// Marks the current stack depth as the evaluation's entry point (of one input: the
    /// items of collections abandoned by an error on the last input are forgotten).
    pub(crate) fn enter(&self) {
        self.stack_base.set(stack_position());
        self.collected.set(0);
        self.release();
    }

    fn trip(&self, trip: Trip) -> Result<(), Trip> {
        self.tripped.set(Some(trip));
        Err(trip)
    }

    /// The next number of a xorshift sequence.
    fn next_random(&self) -> u64 {
        let mut x = self.random.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.random.set(x);
        x
    }

    /// `_lro_new`: checks a value just built (see [`bounds`]).
    pub(crate) fn check_new(&self, value: &Val) -> Result<(), Trip> {
        if let Some(trip) = self.tripped.get() {
            return Err(trip);
        }
        let (bytes, items) = bounds::shallow(value);
        let collected = self.collected.get();
        let limit = self.limit();
        if collected.saturating_add(bytes) > limit {
            return self.trip(Trip::Memory);
        }
        let mut held = collected.saturating_add(bytes);
        if items > 0 && (items <= bounds::ALWAYS_WALK || self.sampled(items, bytes)) {
            held = collected.saturating_add(self.measure(value, limit - collected)?);
        }
        self.claim(held)
    }

    /// Whether a large value is walked: with probability `ALWAYS_WALK / items` (bounds the
    /// expected walk per check), and at least `WALK_PER_BOUND x bytes / max_memory` (a value
    /// that grows by wide levels is walked before it holds much more than the bound).
    fn sampled(&self, items: usize, bytes: u64) -> bool {
        let r = self.next_random();
        r % items as u64 <= bounds::ALWAYS_WALK as u64
            || (r >> 24) % self.max_memory.max(1) < bytes.saturating_mul(bounds::WALK_PER_BOUND)
    }

    /// Walks `value` whole: its depth, and its estimated size against `room`; the size.
    pub fn measure(&self, value: &Val, room: u64) -> Result<u64, Trip> {
        let expired = || self.clock.expired();
        let mut walk = bounds::Measure::new(room, &expired);
        match walk.walk(value, 0) {
            Ok(()) => Ok(walk.bytes),
            Err(bounds::Excess::Depth) => self.trip(Trip::Depth).map(|()| 0),
            Err(bounds::Excess::Memory) => self.trip(Trip::Memory).map(|()| 0),
            Err(bounds::Excess::Time) => self.trip(Trip::Time).map(|()| 0),
        }
    }

    /// `_lro_measure`: [`Guard::measure`] against the memory left.
    pub(crate) fn check_whole(&self, value: &Val) -> Result<(), Trip> {
        if let Some(trip) = self.tripped.get() {
            return Err(trip);
        }
        let collected = self.collected.get();
        let bytes = self.measure(value, self.limit().saturating_sub(collected))?;
        self.claim(collected.saturating_add(bytes))
    }

    /// `_lro_grows($per_byte; $per_item)`: refuses, before a native builds it, a result
    /// estimated at `per_byte` bytes per byte of a string input and `per_item` per item of
    /// an array or object input, when it would not fit the memory left.
    pub(crate) fn check_grows(
        &self,
        value: &Val,
        per_byte: u64,
        per_item: u64,
    ) -> Result<(), Trip> {
        if let Some(trip) = self.tripped.get() {
            return Err(trip);
        }
        let units = match value {
            Val::TStr(s) | Val::BStr(s) => (s.len() as u64).saturating_mul(per_byte),
            Val::Arr(items) => (items.len() as u64).saturating_mul(per_item),
            Val::Obj(entries) => (entries.len() as u64).saturating_mul(per_item),
            _ => 0,
        };
        let held = self.collected.get().saturating_add(units);
        if held > self.limit() {
            return self.trip(Trip::Memory);
        }
        self.claim(held)
    }

    /// `_lro_printed($format)`: refuses, before a native prints `value` (`tojson`,
    /// `tostring`, string interpolation, `@csv`, ...), a value whose text (with the value,
    /// held meanwhile) would not fit the memory left; also walks its depth, since printing
    /// recurses on it.
    pub(crate) fn check_printed(&self, value: &Val, format: bounds::Printed) -> Result<(), Trip> {
        if let Some(trip) = self.tripped.get() {
            return Err(trip);
        }
        let collected = self.collected.get();
        let expired = || self.clock.expired();
        let room = self.limit().saturating_sub(collected);
        match bounds::printed(value, format, room, &expired) {
            Ok(bytes) => self.claim(collected.saturating_add(bytes)),
            Err(bounds::Excess::Depth) => self.trip(Trip::Depth),
            Err(bounds::Excess::Memory) => self.trip(Trip::Memory),
            Err(bounds::Excess::Time) => self.trip(Trip::Time),
        }
    }

    /// Refuses a native step estimated to hold `bytes` at once (its result, and its input
    /// where the input is held while the result is built) when they would not fit the
    /// memory left.
    pub(crate) fn check_bytes(&self, bytes: u64) -> Result<(), Trip> {
        if let Some(trip) = self.tripped.get() {
            return Err(trip);
        }
        let held = self.collected.get().saturating_add(bytes);
        if held > self.limit() {
            return self.trip(Trip::Memory);
        }
        self.claim(held)
    }

    /// `_lro_mark`: the bytes gathered so far, for [`Guard::unmark`] to return to once an
    /// update is complete (its new values are counted as items meanwhile, as a collection's).
    pub(crate) fn mark(&self) -> u64 {
        self.collected.get()
    }

    /// `_lro_unmark($mark)`: an update is complete; the values it made no longer count as
    /// gathered, and the updated value is checked whole ([`Guard::check_new`]).
    pub(crate) fn unmark(&self, mark: u64, value: &Val) -> Result<(), Trip> {
        self.collected.set(mark.min(self.collected.get()));
        self.check_new(value)
    }

    /// `halt_error`: keeps what the filter gave, to report it as the error of the call.
    pub(crate) fn set_halt_message(&self, message: String) {
        *self.halt_message.borrow_mut() = Some(message);
    }

    /// What `halt_error` was given, if it was called.
    pub(crate) fn halt_message(&self) -> Option<String> {
        self.halt_message.borrow().clone()
    }

    /// `extract.max_memory_bytes`.
    pub fn max_memory(&self) -> u64 {
        self.max_memory
    }

    /// A parser refused a text nested too deep.
    pub(crate) fn trip_depth(&self) {
        self.tripped.set(Some(Trip::Depth));
    }

    /// `_lro_mul`: refuses `text * n` when the repeated text would not fit the memory bound,
    /// and a product of big integers past [`bounds::MAX_INTEGER_BITS`].
    pub(crate) fn check_mul(&self, a: &Val, b: &Val) -> Result<(), Trip> {
        let times = |n: &jaq_json::Num| n.to_string().parse::<f64>().unwrap_or(f64::INFINITY);
        let bytes = match (a, b) {
            (Val::TStr(s) | Val::BStr(s), Val::Num(n))
            | (Val::Num(n), Val::TStr(s) | Val::BStr(s)) => s.len() as f64 * times(n),
            // A deep merge: at most the entries of both.
            (Val::Obj(_), Val::Obj(_)) => crate::bounds::sum_bytes(a, b) as f64,
            // A product of integers, one of them big: refused past the integer bound.
            (Val::Num(_), Val::Num(_)) => bounds::integer_bytes(bounds::Arith::Mul, a, b) as f64,
            _ => return Ok(()),
        };
        if bytes + self.collected.get() as f64 > self.limit() as f64 {
            return self.trip(Trip::Memory);
        }
        Ok(())
    }

    /// `_lro_item`: one more item gathered by a collection.
    pub(crate) fn add_item(&self, item: &Val) -> Result<(), Trip> {
        if let Some(trip) = self.tripped.get() {
            return Err(trip);
        }
        let bytes = bounds::shallow(item).0 + bounds::SLOT;
        let collected = self.collected.get().saturating_add(bytes);
        self.collected.set(collected);
        if collected > self.limit() {
            return self.trip(Trip::Memory);
        }
        self.claim(collected)
    }

    /// `_lro_close`: a collection is complete; its items no longer count as gathered.
    pub(crate) fn close(&self, array: &Val) -> Result<(), Trip> {
        if let Val::Arr(items) = array {
            let bytes: u64 = items
                .iter()
                .map(|item| bounds::shallow(item).0 + bounds::SLOT)
                .sum();
            self.collected
                .set(self.collected.get().saturating_sub(bytes));
        }
        self.check_new(array)
    }

    /// The clock this guard reads.
    pub fn clock(&self) -> Clock<'d> {
        self.clock
    }

    /// What stopped the evaluation, if anything. Sticky: a filter that catches the error
    /// (`try ... catch`) only meets it again at its next tick.
    pub fn tripped(&self) -> Option<Trip> {
        self.tripped.get()
    }

    /// Called by `_lro_tick`: `Err` once the time is up or the stack too deep.
    pub(crate) fn tick(&self) -> Result<(), Trip> {
        if let Some(trip) = self.tripped.get() {
            return Err(trip);
        }
        if stack_position().abs_diff(self.stack_base.get()) > STACK_BUDGET {
            return self.trip(Trip::Stack);
        }
        let ticks = self.ticks.get().wrapping_add(1);
        self.ticks.set(ticks);
        if ticks % TICK_CLOCK_EVERY == 0 && self.clock.expired() {
            return self.trip(Trip::Time);
        }
        Ok(())
    }
}

/// Natives the sandbox withholds: ambient authority (environment, clock, time zone files)
/// and inputs beyond the record at hand.
pub(crate) const WITHHELD: [&str; 6] = [
    "env",
    "now",
    "localtime",
    "strflocaltime",
    "input",
    "inputs",
];

/// The name of the guard native.
pub(crate) const TICK: &str = "_lro_tick";

/// Wraps a definition body as `_lro_tick | body`.
fn ticked(body: Term<&str>) -> Term<&str> {
    Term::BinOp(
        Box::new(Term::Call(TICK, Vec::new())),
        BinaryOp::Pipe(None),
        Box::new(body),
    )
}

/// Adds the tick to a definition, and to every definition nested in it.
pub(crate) fn tick_def(mut def: Def<&str>) -> Def<&str> {
    tick_term(&mut def.body);
    def.body = ticked(std::mem::take(&mut def.body));
    def
}

/// The native that checks a value just built ([`Guard::check_new`]).
pub(crate) const NEW: &str = "_lro_new";
/// The native that counts an item a collection gathers ([`Guard::add_item`]).
pub(crate) const ITEM: &str = "_lro_item";
/// The native that closes a collection ([`Guard::close`]).
pub(crate) const CLOSE: &str = "_lro_close";
/// The native that walks a whole value before it is printed ([`Guard::check_whole`]).
pub(crate) const MEASURE: &str = "_lro_measure";

fn call(name: &str) -> Term<&str> {
    Term::Call(name, Vec::new())
}

fn pipe<'s>(l: Term<&'s str>, r: Term<&'s str>) -> Term<&'s str> {
    Term::BinOp(Box::new(l), BinaryOp::Pipe(None), Box::new(r))
}

/// `term | name`.
fn then<'s>(term: &mut Term<&'s str>, name: &'s str) {
    *term = pipe(std::mem::take(term), call(name));
}

/// Operators whose result can be larger or deeper than their operands: `+` and `*`
/// (concatenation, repetition, merging) and every update and assignment.
fn builds(op: &BinaryOp<&str>) -> bool {
    use jaq_core::ops::Math;
    matches!(
        op,
        BinaryOp::Math(Math::Add | Math::Mul)
            | BinaryOp::Assign
            | BinaryOp::Update
            | BinaryOp::UpdateMath(_)
            | BinaryOp::UpdateAlt
    )
}

/// The native that refuses a repetition (`"x" * 1e10`) too large to allocate.
pub(crate) const MUL: &str = "_lro_mul";

/// `l * r` becomes `l as $l | r as $r | _lro_mul($l; $r) | $l * $r | _lro_new` (the order
/// jaq runs `l * r` in: for each `l`, each `r`): a string repeated is checked before it
/// is allocated, since one repetition can ask for more memory than the host has. The
/// variable names cannot be written in a filter, so they capture none of its variables.
fn checked_mul(term: &mut Term<&str>) {
    let Term::BinOp(l, _, r) = std::mem::take(term) else {
        return;
    };
    let (a, b) = ("$lro l", "$lro r");
    let product = Term::BinOp(
        Box::new(Term::Var(a)),
        BinaryOp::Math(jaq_core::ops::Math::Mul),
        Box::new(Term::Var(b)),
    );
    let check = Term::Call(MUL, vec![Term::Var(a), Term::Var(b)]);
    let body = pipe(pipe(check, product), call(NEW));
    *term = Term::BinOp(
        l,
        BinaryOp::Pipe(Some(Pattern::Var(a))),
        Box::new(Term::BinOp(
            r,
            BinaryOp::Pipe(Some(Pattern::Var(b))),
            Box::new(body),
        )),
    );
}

/// The native that checks the text of a value before a native prints it
/// ([`Guard::check_printed`]).
pub(crate) const PRINTED: &str = "_lro_printed";
/// The native that computes `l + r` once the guard accepts its estimate
/// ([`crate::bounds::sum_bytes`]).
pub(crate) const ADD: &str = "_lro_add";

/// `l + r` becomes `_lro_add(l; r)`: the sum refused before it is allocated.
fn checked_add(term: &mut Term<&str>) {
    let Term::BinOp(l, _, r) = std::mem::take(term) else {
        return;
    };
    *term = Term::Call(ADD, vec![*l, *r]);
}
/// The native that reads a `reduce` or `foreach` step's outputs one ahead
/// ([`crate::natives::settled`]).
pub(crate) const SETTLED: &str = "_lro_settled";
/// The native that refuses `l / r` (a string split into pieces) before it is built.
pub(crate) const DIV: &str = "_lro_div";
/// The native that refuses `l - r` of big integers past [`crate::bounds::MAX_INTEGER_BITS`].
pub(crate) const SUB: &str = "_lro_sub";
/// The native that refuses `l % r` of big integers past [`crate::bounds::MAX_INTEGER_BITS`]
/// (a remainder is no longer than its operands, but computing it costs a division).
pub(crate) const REM: &str = "_lro_rem";

/// `l op r` becomes `l as $l | r as $r | check($l; $r) | $l op $r` (the order jaq runs
/// `l op r` in), so the result is refused before it is allocated.
fn checked_op<'s>(term: &mut Term<&'s str>, check: &'s str) {
    let Term::BinOp(l, op, r) = std::mem::take(term) else {
        return;
    };
    *term = checked_pair(*l, op, *r, check);
}

fn checked_pair<'s>(
    l: Term<&'s str>,
    op: BinaryOp<&'s str>,
    r: Term<&'s str>,
    check: &'s str,
) -> Term<&'s str> {
    let (a, b) = ("$lro l", "$lro r");
    let result = Term::BinOp(Box::new(Term::Var(a)), op, Box::new(Term::Var(b)));
    let body = pipe(Term::Call(check, vec![Term::Var(a), Term::Var(b)]), result);
    Term::BinOp(
        Box::new(l),
        BinaryOp::Pipe(Some(Pattern::Var(a))),
        Box::new(Term::BinOp(
            Box::new(r),
            BinaryOp::Pipe(Some(Pattern::Var(b))),
            Box::new(body),
        )),
    )
}

/// An interpolated string, `"a\(f)b\(g)"`, is the sum of its parts (jaq adds them from the
/// right: `"a" + ((f | tostring) + ("b" + (g | tostring)))`): it becomes that sum with
/// each `+` checked before the text is allocated ([`checked_add`]), so many copies of a
/// large value (`"\(.)\(.)\(.)..."`) are refused as they are joined. Runs of literal parts
/// stay one literal.
fn checked_interpolation(term: &mut Term<&str>) {
    let Term::Str(fmt, parts) = term else {
        return;
    };
    if !parts.iter().any(|p| matches!(p, StrPart::Term(_))) || parts.len() < 2 {
        return;
    }
    let fmt = *fmt;
    let mut segments: Vec<Term<&str>> = Vec::new();
    let mut literals = Vec::new();
    for part in std::mem::take(parts) {
        match part {
            StrPart::Term(t) => {
                if !literals.is_empty() {
                    segments.push(Term::Str(None, std::mem::take(&mut literals)));
                }
                segments.push(Term::Str(fmt, vec![StrPart::Term(t)]));
            }
            literal => literals.push(literal),
        }
    }
    if !literals.is_empty() {
        segments.push(Term::Str(None, literals));
    }
    let mut sum = segments.pop().unwrap_or_default();
    while let Some(segment) = segments.pop() {
        sum = Term::Call(ADD, vec![segment, sum]);
    }
    *term = sum;
}

/// The native that returns the bytes gathered so far ([`Guard::mark`]).
pub(crate) const MARK: &str = "_lro_mark";
/// The native that ends an update ([`Guard::unmark`]).
pub(crate) const UNMARK: &str = "_lro_unmark";

/// An update makes a new value per path, each checked alone; together they can be far
/// past the bound (`.[] |= . + $long` over a million items). `l |= f` becomes
/// `_lro_mark as $m | (l |= (f | _lro_item)) | _lro_unmark($m)`: the new values count as a
/// collection's items until the update is complete. `l op= r` is jaq's
/// `r as $y | l |= . op $y`, written so, with its operator checked ([`checked_op`]).
fn counted_update(term: &mut Term<&str>) {
    let Term::BinOp(l, op, r) = std::mem::take(term) else {
        return;
    };
    let (l, r) = (*l, *r);
    let (m, y) = ("$lro m", "$lro y");
    let update = |l, f| {
        let f = pipe(f, call(ITEM));
        let updated = Term::BinOp(Box::new(l), BinaryOp::Update, Box::new(f));
        let unmark = Term::Call(UNMARK, vec![Term::Var(m)]);
        Term::BinOp(
            Box::new(call(MARK)),
            BinaryOp::Pipe(Some(Pattern::Var(m))),
            Box::new(pipe(updated, unmark)),
        )
    };
    *term = match op {
        BinaryOp::UpdateMath(math) => {
            let mut step = Term::BinOp(
                Box::new(Term::Id),
                BinaryOp::Math(math),
                Box::new(Term::Var(y)),
            );
            match math {
                jaq_core::ops::Math::Mul => checked_mul(&mut step),
                jaq_core::ops::Math::Add => {
                    checked_add(&mut step);
                    then(&mut step, NEW);
                }
                jaq_core::ops::Math::Div => checked_op(&mut step, DIV),
                jaq_core::ops::Math::Sub => checked_op(&mut step, SUB),
                jaq_core::ops::Math::Rem => checked_op(&mut step, REM),
            }
            Term::BinOp(
                Box::new(r),
                BinaryOp::Pipe(Some(Pattern::Var(y))),
                Box::new(update(l, step)),
            )
        }
        _ => update(l, r),
    };
}

/// Adds the tick to every definition inside `term` (the parser bounded its depth), and the
/// checks of [`crate::bounds`] wherever a value is built: `[f]` becomes
/// `[f | _lro_item] | _lro_close`; objects, growing operators and each `reduce`/`foreach`
/// step are followed by `_lro_new` (a step is ticked too, as a loop); interpolated values
/// are measured whole before they are printed.
pub(crate) fn tick_term(term: &mut Term<&str>) {
    match term {
        Term::Def(defs, rest) => {
            for def in defs.iter_mut() {
                tick_term(&mut def.body);
                def.body = ticked(std::mem::take(&mut def.body));
            }
            tick_term(rest);
        }
        Term::Str(fmt, parts) => {
            for part in parts.iter_mut() {
                if let StrPart::Term(t) = part {
                    tick_term(t);
                    if fmt.is_none() {
                        // `tostring` of the value: its text is checked before it is made
                        // (a format, `@csv "\(.)"`, checks its own).
                        *t = pipe(
                            std::mem::take(t),
                            Term::Call(PRINTED, vec![Term::Str(None, vec![StrPart::Str("text")])]),
                        );
                    }
                }
            }
            checked_interpolation(term);
        }
        Term::Arr(Some(t)) => {
            tick_term(t);
            then(t, ITEM);
        }
        Term::Neg(t) | Term::Label(_, t) => tick_term(t),
        Term::Obj(entries) => {
            for (k, v) in entries {
                tick_term(k);
                if let Some(v) = v {
                    tick_term(v);
                }
            }
        }
        Term::BinOp(l, op, r) => {
            tick_term(l);
            tick_term(r);
            if let BinaryOp::Pipe(Some(p)) = op {
                tick_pattern(p);
                // `f as $x | body`: a loop over `f` whose body may call nothing and build
                // nothing (`.[] as $a | .[] | ...`), so the body is where its time is checked.
                **r = ticked(std::mem::take(&mut **r));
            }
        }
        Term::Fold(_, xs, pattern, args) => {
            tick_term(xs);
            tick_pattern(pattern);
            args.iter_mut().for_each(tick_term);
            if let Some(update) = args.get_mut(1) {
                *update = ticked(std::mem::take(update));
                then(update, NEW);
                // Read one ahead, so a step's iterator (which holds the accumulator it
                // started from) is not kept while the later steps run.
                *update = Term::Call(SETTLED, vec![std::mem::take(update)]);
            }
        }
        Term::TryCatch(t, c) => {
            tick_term(t);
            if let Some(c) = c {
                tick_term(c);
            }
        }
        Term::IfThenElse(branches, otherwise) => {
            for (cond, then) in branches {
                tick_term(cond);
                tick_term(then);
            }
            if let Some(e) = otherwise {
                tick_term(e);
            }
        }
        Term::Call(_, args) => args.iter_mut().for_each(tick_term),
        Term::Path(t, path) => {
            tick_term(t);
            for (part, _) in &mut path.0 {
                match part {
                    Part::Index(i) => tick_term(i),
                    Part::Range(a, b) => {
                        if let Some(a) = a {
                            tick_term(a);
                        }
                        if let Some(b) = b {
                            tick_term(b);
                        }
                    }
                }
            }
            tick_iterations(t, path);
        }
        _ => {}
    }
    match term {
        // What `tick_iterations` left of a path that ended with `[]`: no parts.
        Term::Path(t, path) if path.0.is_empty() => *term = std::mem::take(&mut **t),
        Term::Arr(Some(_)) => then(term, CLOSE),
        Term::Obj(_) => then(term, NEW),
        Term::BinOp(_, BinaryOp::Math(jaq_core::ops::Math::Mul), _) => checked_mul(term),
        Term::BinOp(_, BinaryOp::Math(jaq_core::ops::Math::Add), _) => {
            checked_add(term);
            then(term, NEW);
        }
        Term::BinOp(_, BinaryOp::Math(jaq_core::ops::Math::Div), _) => checked_op(term, DIV),
        Term::BinOp(_, BinaryOp::Math(jaq_core::ops::Math::Sub), _) => checked_op(term, SUB),
        Term::BinOp(_, BinaryOp::Math(jaq_core::ops::Math::Rem), _) => checked_op(term, REM),
        Term::BinOp(_, BinaryOp::UpdateMath(_) | BinaryOp::Update, _) => counted_update(term),
        Term::BinOp(_, op, _) if builds(op) => then(term, NEW),
        _ => {}
    }
}

/// `t.a[].b[]` becomes `((t.a[] | _lro_tick).b[] | _lro_tick)`: every value an iteration
/// yields ticks, since a loop over `.[]` may call nothing and build nothing
/// (`.[] as $a | .[] | .[]?`). The parts after an iteration still read their indices from
/// the path's input (jaq evaluates them there), which the rewrite leaves as it was.
fn tick_iterations<'s>(t: &mut Box<Term<&'s str>>, path: &mut jaq_core::path::Path<Term<&'s str>>) {
    let is_iteration = |part: &Part<Term<&str>>| matches!(part, Part::Range(None, None));
    if !path.0.iter().any(|(part, _)| is_iteration(part)) {
        return;
    }
    // One pass, each step's parts in a vector of their own (splitting the rest off at each
    // iteration copied it and kept its capacity: quadratic in the parts of `.[]?[]?...`).
    let mut head = Vec::new();
    for (part, opt) in std::mem::take(&mut path.0) {
        let iteration = is_iteration(&part);
        head.push((part, opt));
        if iteration {
            let iterated = Term::Path(
                std::mem::take(t),
                jaq_core::path::Path(std::mem::take(&mut head)),
            );
            **t = pipe(iterated, call(TICK));
        }
    }
    path.0 = head;
}

fn tick_pattern(pattern: &mut Pattern<&str>) {
    match pattern {
        Pattern::Var(_) => {}
        Pattern::Arr(ps) => ps.iter_mut().for_each(tick_pattern),
        Pattern::Obj(entries) => {
            for (k, p) in entries {
                tick_term(k);
                tick_pattern(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_bound_is_shared_by_the_running_guards() {
        // A terabyte bound, so claims of other tests running meanwhile do not matter.
        const BOUND: u64 = 1 << 40;
        let _alone = crate::TEST_BUDGET
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let flag = AtomicBool::new(false);
        let text = Val::utf8_str(vec![b'x'; 1024]);
        let first = Guard::new(Clock::Flag(&flag), BOUND);
        assert_eq!(
            first.check_grows(&text, (BOUND - (1 << 30)) / 1024, 0),
            Ok(())
        );
        let second = Guard::new(Clock::Flag(&flag), BOUND);
        assert_eq!(
            second.check_grows(&text, (2 << 30) / 1024, 0),
            Err(Trip::Memory)
        );
        drop(first);
        let third = Guard::new(Clock::Flag(&flag), BOUND);
        assert_eq!(third.check_grows(&text, (2 << 30) / 1024, 0), Ok(()));
    }
}
