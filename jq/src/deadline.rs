//! The wall-clock deadline of a run, read through a clock the caller hands in (the engine
//! never reads the system clock), and the caller's cancellation, which ends the run as the
//! deadline does.

use std::sync::atomic::{AtomicBool, Ordering};

/// When the time is up: a clock in milliseconds, the moment it must not reach, and an
/// optional flag that another thread sets to cancel.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use lro_jq::Deadline;
///
/// let cancel = AtomicBool::new(false);
/// let deadline = Deadline::new(|| 1_000, 500).cancelled_by(&cancel);
/// assert!(!deadline.passed());
/// assert_eq!(deadline.label(), "timeout_ms (500 ms)");
/// cancel.store(true, std::sync::atomic::Ordering::Relaxed);
/// assert!(deadline.passed());
/// ```
pub struct Deadline<'h> {
    now: Box<dyn Fn() -> u64 + 'h>,
    at: u64,
    timeout_ms: u64,
    cancel: Option<&'h AtomicBool>,
}

impl<'h> Deadline<'h> {
    /// `timeout_ms` from now, as `now` (milliseconds) tells the time.
    pub fn new(now: impl Fn() -> u64 + 'h, timeout_ms: u64) -> Self {
        let start = now();
        Self {
            now: Box::new(now),
            at: start.saturating_add(timeout_ms),
            timeout_ms,
            cancel: None,
        }
    }

    /// The same deadline, also passed once `cancel` is set (by another thread).
    pub fn cancelled_by(mut self, cancel: &'h AtomicBool) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// The time is up (or the caller cancelled).
    pub fn passed(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) || (self.now)() >= self.at
    }

    /// How the limit is named in responses.
    pub fn label(&self) -> String {
        format!("timeout_ms ({} ms)", self.timeout_ms)
    }
}
