//! The retry policy and the circuit breaker of a task (docs/faults.md#retries, docs/faults.md#circuit).
//!
//! Retries are for reads and locating only: a command is tried again only when it failed
//! with a transient error *before anything was dispatched* (a context destroyed by a
//! navigation, a target detached mid-read), with backoff 500 ms × 2ⁿ capped at 5 s, at
//! most 3 tries in all, within the command's own deadline. Anything dispatched is never
//! retried. The circuit counts consecutive failed commands of the fault kind (the page or
//! browser failing, not the caller's mistakes); five open it for 30 s, during which the
//! task's commands are refused at once with `CIRCUIT_OPEN` and the time left; after that
//! commands run again, one more fault opens it again, and a success closes it.

use std::time::{Duration, Instant};

use crate::envelope::Status;
use crate::error::Code;

/// At most this many tries of one command, the first included.
pub(crate) const MAX_TRIES: u32 = 3;

/// How long to wait before try `try_number` (2 for the first retry): 500 ms × 2ⁿ, at
/// most 5 s.
pub(crate) fn backoff(try_number: u32) -> Duration {
    let exponent = try_number.saturating_sub(2).min(16);
    Duration::from_millis(500u64.saturating_mul(1 << exponent)).min(Duration::from_secs(5))
}

/// Consecutive failures that open the circuit.
pub(crate) const FAILURES_TO_OPEN: u32 = 5;

/// How long an open circuit refuses commands, unless configured otherwise.
pub const DEFAULT_CIRCUIT_OPEN: Duration = Duration::from_secs(30);

/// One task's circuit breaker.
#[derive(Debug, Default)]
pub(crate) struct Circuit {
    failures: u32,
    last_code: Option<Code>,
    open_until: Option<Instant>,
}

/// Why commands are refused now.
#[derive(Debug, Clone)]
pub(crate) struct Open {
    pub left: Duration,
    pub failures: u32,
    pub last_code: Option<Code>,
}

impl Circuit {
    /// The circuit is open now: what to tell the refused command.
    pub fn open(&self, now: Instant) -> Option<Open> {
        let until = self.open_until?;
        (until > now).then(|| Open {
            left: until - now,
            failures: self.failures,
            last_code: self.last_code,
        })
    }

    /// Counts a command's outcome; returns true when it opened the circuit.
    pub fn record(
        &mut self,
        status: Status,
        code: Option<Code>,
        now: Instant,
        open_for: Duration,
    ) -> bool {
        match (status, code) {
            (Status::Success | Status::Partial, _) => {
                *self = Circuit::default();
                false
            }
            (Status::Error, Some(code)) if code.is_fault() => {
                self.failures += 1;
                self.last_code = Some(code);
                if self.failures >= FAILURES_TO_OPEN {
                    self.open_until = Some(now + open_for);
                    return true;
                }
                false
            }
            // The caller's mistakes and refusals neither count nor close it.
            (Status::Error, _) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_half_a_second_and_stops_at_five() {
        let waits: Vec<u64> = (2..=8).map(|n| backoff(n).as_millis() as u64).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 5000, 5000, 5000]);
        assert_eq!(backoff(u32::MAX), Duration::from_secs(5));
    }

    #[test]
    fn five_faults_in_a_row_open_the_circuit_and_a_success_closes_it() {
        let now = Instant::now();
        let open_for = Duration::from_secs(30);
        let mut circuit = Circuit::default();
        for n in 1..FAILURES_TO_OPEN {
            assert!(
                !circuit.record(Status::Error, Some(Code::PageUnresponsive), now, open_for),
                "{n}"
            );
            assert!(circuit.open(now).is_none());
        }
        // The caller's own mistakes in between neither count nor reset.
        circuit.record(Status::Error, Some(Code::InvalidParams), now, open_for);
        assert!(circuit.record(Status::Error, Some(Code::NavigationTimeout), now, open_for));
        let open = circuit.open(now).expect("open");
        assert_eq!(open.left, open_for);
        assert_eq!(open.last_code, Some(Code::NavigationTimeout));
        // Later, it lets commands through; one more fault opens it again at once...
        let later = now + open_for;
        assert!(circuit.open(later).is_none());
        assert!(circuit.record(Status::Error, Some(Code::CommandTimeout), later, open_for));
        // ...and a success closes it.
        circuit.record(Status::Success, None, later, open_for);
        assert!(circuit.open(later).is_none());
        assert!(!circuit.record(Status::Error, Some(Code::CommandTimeout), later, open_for));
    }
}
