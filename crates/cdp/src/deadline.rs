//! A point in time by which a piece of work must be done.
//!
//! Every command receives one deadline, and every wait and every CDP call below it draws
//! from the same budget, so a hung renderer costs the command its budget, never more.

use std::future::Future;
use std::time::{Duration, Instant};

use crate::Error;

/// The instant by which the work must finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Deadline {
    at: Instant,
}

impl Deadline {
    /// A deadline `budget` from now.
    pub fn after(budget: Duration) -> Self {
        Self {
            at: Instant::now() + budget,
        }
    }

    /// The instant itself.
    pub fn at(self) -> Instant {
        self.at
    }

    /// Time left, zero once passed.
    pub fn remaining(self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    pub fn expired(self) -> bool {
        Instant::now() >= self.at
    }

    /// The earlier of this deadline and `budget` from now: a sub-step may not outlive the
    /// command it belongs to.
    pub fn within(self, budget: Duration) -> Self {
        self.min(Self::after(budget))
    }

    /// Runs `work` until the deadline; past it, the error names what was awaited.
    pub async fn run<T>(
        self,
        waiting_for: impl Into<String>,
        started: Instant,
        work: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        match tokio::time::timeout_at(self.at.into(), work).await {
            Ok(result) => result,
            Err(_) => Err(Error::Timeout {
                waiting_for: waiting_for.into(),
                after: started.elapsed(),
            }),
        }
    }
}
