//! Values a filter builds step by step (`reduce`, `foreach`, `sub`/`gsub`, recursion) are
//! held one or two at a time, not every step's: the memory bound counts the value a step
//! builds, so the steps before it must be gone. A counting allocator (this test binary's
//! own) measures what an evaluation holds at its peak.

// The counting allocator forwards to the system's.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use lro_jq::{Clock, Flow, Guard, Program, Trip};

struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator, only counting the bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(held, Ordering::Relaxed);
        // SAFETY: the caller's layout, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: allocated above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let held = HELD.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                + (new_size - layout.size());
            PEAK.fetch_max(held, Ordering::Relaxed);
        } else {
            HELD.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: the caller's pointer and layout, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The memory bound of every run here.
const BOUND: u64 = 4 << 20;

/// How `filter` ended on `null` under [`BOUND`] (its outputs' count, or the trip), and the
/// most bytes held above what was held when it started.
fn run(filter: &str) -> (Result<usize, Trip>, usize) {
    let program = Program::compile(filter, &[]).expect(filter);
    let flag = AtomicBool::new(false);
    let guard = Guard::new(Clock::Flag(&flag), BOUND);
    let base = HELD.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut outputs = 0;
    let flow = program.run(jaq_json::Val::Null, &[], &guard, &mut |_| {
        outputs += 1;
        true
    });
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    let ended = match flow {
        Ok(Flow::Tripped(trip)) => Err(trip),
        Ok(_) => Ok(outputs),
        Err(e) => panic!("{filter}: {}", e.0),
    };
    (ended, peak)
}

// One test, so that no other evaluation runs in this binary meanwhile.
#[test]
fn steps_are_not_held_past_the_memory_bound() {
    let mut failed = Vec::new();
    for filter in [
        // Each replacement is small; their sum is 5 to 250 times the bound.
        r#""x" * 1000 | gsub("x"; "y" * 1000000) | length"#,
        r#""x" * 200 | gsub("x"; "y" * 100000) | length"#,
        r#""x" * 200 | sub("x"; "y" * 100000; "g") | length"#,
        r#""x" * 200 | gsub("(?<c>x)"; "\(.c)" * 100000) | length"#,
        r#""x" * 200 | [splits("x")] | map("y" * 100000) | add | length"#,
        // The same steps written out.
        r#"reduce range(10000) as $i (""; . + "y" * 100000) | length"#,
        r#"last(foreach range(10000) as $i (""; . + "y" * 100000)) | length"#,
        r#"[range(10000)] | reduce .[] as $i ([]; . + [range(1000)]) | length"#,
    ] {
        let (ended, peak) = run(filter);
        if ended != Err(Trip::Memory) || peak as u64 > 3 * BOUND {
            failed.push(format!("{filter}: {ended:?}, peak {peak} bytes"));
        }
    }
    // Within the bound, the answers are jq's.
    for (filter, outputs) in [
        (r#""abc" | gsub("b"; "x" * 100) | select(length == 102)"#, 1),
        (
            r#""abc" | [sub("(?<l>[a-z])"; "\(.l)!", "\(.l)?"; "g")] | length"#,
            1,
        ),
        (
            r#"reduce range(3) as $i (0; . + $i, . * 2) | select(. >= 0)"#,
            8,
        ),
    ] {
        let (ended, _) = run(filter);
        if ended != Ok(outputs) {
            failed.push(format!("{filter}: {ended:?}, want {outputs} outputs"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
