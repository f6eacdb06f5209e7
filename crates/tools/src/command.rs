//! The command that holds a task, as the engine keeps it while it runs: its live status
//! (what `diagnostics` reports without waiting for it) and the signal that cancels it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::Serialize;
use tokio::sync::Notify;

use crate::error::ActionStatus;

/// The command that holds the task, as `diagnostics` reports it.
pub(crate) struct Active {
    pub command_id: String,
    pub method: &'static str,
    pub started: Instant,
    pub stage: &'static str,
    pub dispatch_started: bool,
    pub cancel: Arc<CancelSignal>,
    pub worker_running: bool,
}

impl Active {
    /// Its status now.
    pub fn status(&self) -> ActiveCommand {
        ActiveCommand {
            command_id: self.command_id.clone(),
            method: self.method.to_string(),
            stage: self.stage,
            elapsed_ms: self.started.elapsed().as_millis() as u64,
            dispatch_started: self.dispatch_started,
            action_status: if self.dispatch_started {
                ActionStatus::Unknown
            } else {
                ActionStatus::NotStarted
            },
            cancel_requested: self.cancel.is_requested(),
            worker_running: self.worker_running,
        }
    }
}

/// The running command's status, read from memory (docs/waiting.md#diagnostics).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActiveCommand {
    pub command_id: String,
    pub method: String,
    pub stage: &'static str,
    pub elapsed_ms: u64,
    pub dispatch_started: bool,
    /// `not-started` until something was dispatched, `unknown` from then on.
    pub action_status: ActionStatus,
    pub cancel_requested: bool,
    /// The command's handler is still running; false once it has exited (finished,
    /// cancelled or stopped at its deadline) and only the envelope is being written.
    pub worker_running: bool,
}

/// Set once by `cancel` (or by a face, for one call: an MCP client's
/// `notifications/cancelled`, [`crate::CallOptions::cancel`]); the command's runner
/// waits on it beside its work.
#[derive(Debug, Default)]
pub struct CancelSignal {
    requested: AtomicBool,
    notify: Notify,
}

impl CancelSignal {
    /// Asks the command to stop; it ends `COMMAND_CANCELLED`.
    pub fn request(&self) {
        self.requested.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    pub fn is_requested(&self) -> bool {
        self.requested.load(Ordering::SeqCst)
    }

    pub async fn requested(&self) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_requested() {
                return;
            }
            notified.await;
        }
    }
}
