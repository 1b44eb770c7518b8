//! Monotonic ULIDs from host-provided time and randomness.
//!
//! Within one generator, a ULID is always greater than the previous one, even when the
//! clock stands still or steps back: the random part of the last ULID is incremented. Two
//! processes never collide in practice (80 random bits per millisecond).

use ulid::Ulid;

use crate::host::Host;

/// Generates strictly increasing ULIDs.
#[derive(Debug, Default)]
pub struct UlidGenerator {
    last: Option<Ulid>,
}

impl UlidGenerator {
    /// A generator that has produced nothing yet.
    pub const fn new() -> Self {
        Self { last: None }
    }

    /// The next ULID, using the host's clock and randomness.
    pub fn next(&mut self, host: &dyn Host) -> Ulid {
        let now = host.now_millis();
        let next = match self.last {
            Some(last) if last.timestamp_ms() >= now => {
                last.increment().unwrap_or_else(|| fresh(host, now))
            }
            _ => fresh(host, now),
        };
        self.last = Some(next);
        next
    }
}

fn fresh(host: &dyn Host, millis: u64) -> Ulid {
    let mut bytes = [0u8; 16];
    host.fill_random(&mut bytes[6..]);
    Ulid::from_parts(millis, u128::from_be_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::MemoryHost;

    #[test]
    fn strictly_increasing_even_with_a_frozen_clock() {
        let host = MemoryHost::new();
        let mut g = UlidGenerator::new();
        let a = g.next(&host);
        let b = g.next(&host);
        host.set_now_millis(1);
        let c = g.next(&host);
        assert!(a < b && b < c);
        assert_eq!(a.timestamp_ms(), host_millis_default());
    }

    fn host_millis_default() -> u64 {
        MemoryHost::new().now_millis()
    }
}
