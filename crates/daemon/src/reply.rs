//! Envelopes for the daemon's own commands (`start`, `tasks`, `stop`, `cancel`, jobs):
//! the same shape as a tool's (docs/envelope.md), so every face prints and checks them alike.

use std::time::Instant;

use serde_json::Value;
use tools::{
    ActionStatus, BrowserHost, Code, Envelope, Events, Execution, Status, ToolError, Verification,
};

/// What kind of daemon command answered: one that only reads, or one that changed the
/// daemon's state (a task started or stopped, a cancel requested, a job queued).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    Reads,
    Changes,
}

/// The envelope of a daemon command, numbered from the host's command counter.
pub(crate) fn reply(
    host: &BrowserHost,
    result: Result<Value, ToolError>,
    effect: Effect,
    started: Instant,
) -> Envelope {
    let command_id = host.next_command_id();
    let duration_ms = started.elapsed().as_millis() as u64;
    let (ok, status, code, message, hint, data, action_status) = match result {
        Ok(data) => {
            let action_status = match effect {
                Effect::Reads => ActionStatus::NotStarted,
                Effect::Changes => ActionStatus::Completed,
            };
            (true, Status::Success, None, None, None, data, action_status)
        }
        Err(error) => (
            false,
            Status::Error,
            Some(error.code),
            Some(error.message),
            Some(error.hint),
            error
                .data
                .map_or_else(|| Value::Object(Default::default()), |d| *d),
            if error.code.is_refusal() || error.code == Code::InvalidParams {
                ActionStatus::NotStarted
            } else {
                ActionStatus::Unknown
            },
        ),
    };
    Envelope {
        ok,
        status,
        code,
        message,
        hint,
        execution: Execution {
            command_id,
            stage: if ok { "done" } else { "validate" },
            dispatch_started: false,
            action_status,
            retry_safe: action_status == ActionStatus::NotStarted,
            duration_ms,
            started: None,
            cancelled: false,
        },
        verification: Verification::default(),
        task: "not_evaluated",
        page: None,
        data,
        events: Events::default(),
        untrusted: Vec::new(),
        image: None,
    }
}

/// `TASK_NOT_FOUND` for `task`.
pub(crate) fn task_not_found(task: &str) -> ToolError {
    ToolError::new(
        Code::TaskNotFound,
        format!("there is no task {task:?}"),
        "start it first (candor start --id ID, or POST /v1/tasks), or list the tasks",
    )
}
