//! The global allocator, and the one thing the proxy asks of it.
//!
//! mimalloc, as in every native LRO artifact: extraction allocates and frees millions of
//! small jq values across worker threads, where glibc's per-thread arenas are slow (see
//! ARCHITECTURE.md, "Allocator").
//!
//! mimalloc 3 gives freed memory back to the system a second after it is freed. A message of
//! tens of megabytes read from a pipe grows its buffer by doubling, and leaves about its own
//! size in freed buffers: for that second they still count in the process's resident memory,
//! on top of the message and what the proxy then builds from it (a 56 MB result peaked at 3.2
//! times the message; 2.98 with the collection). [`release_freed_memory`] gives them back at
//! once.
// One foreign call, see below.
#![allow(unsafe_code)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// From this size on, a message read leaves enough freed memory behind to be worth giving
/// back before the proxy handles it (a collection costs a fraction of a millisecond).
pub const LARGE_MESSAGE: usize = 8 << 20;

/// Gives the memory freed so far back to the system (mimalloc's forced collection).
pub fn release_freed_memory() {
    // SAFETY: `mi_collect` takes no pointers and touches only mimalloc's own state, from the
    // calling thread (its heap) and the process-wide arenas, which it locks as it does on
    // any allocation.
    unsafe { libmimalloc_sys::mi_collect(true) }
}
