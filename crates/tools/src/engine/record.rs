//! What the engine keeps of each command after it ran: its journal record (params
//! redacted, typed text never kept) and, for a flow of the task, the step it makes.

use std::time::SystemTime;

use serde_json::Value;

use super::Engine;
use crate::catalogue;
use crate::envelope::Envelope;
use crate::error::Code;
use crate::flow_file::{Acted, Flow, Recorded};
use crate::journal::{CommandRecord, epoch_ms};
use crate::mutex::lock;

impl Engine {
    /// Keeps `method`'s command in the journal.
    pub(super) fn record(
        &self,
        method: &str,
        params: &Value,
        envelope: &Envelope,
        started_at: SystemTime,
        sensitive: bool,
        retries: Vec<Value>,
    ) {
        let record = CommandRecord {
            command_id: envelope.execution.command_id.clone(),
            method: method.to_string(),
            params: if sensitive {
                Value::String("[sensitive]".into())
            } else {
                catalogue::redact_command(method, params)
            },
            ok: envelope.ok,
            code: envelope.code.map(Code::as_str),
            stage: envelope.execution.stage,
            duration_ms: envelope.execution.duration_ms,
            url: if sensitive {
                None
            } else {
                envelope.page.as_ref().map(|p| p.url.clone())
            },
            started_at: epoch_ms(started_at),
            retries,
            dialogs: envelope
                .events
                .dialog
                .as_ref()
                .and_then(|d| d["count"].as_u64()),
        };
        lock(&self.state.journal).push(record);
    }

    /// Keeps what a flow of this task needs of a command (`Recorded`, as its tool's
    /// policy says), and the page's URL after it, the URL the next command runs on.
    pub(super) fn record_flow(
        &self,
        method: &str,
        params: &Value,
        envelope: &Envelope,
        acted: Option<Acted>,
        sensitive: bool,
        url_before: Option<String>,
    ) {
        let recorded = catalogue::find(method).and_then(|tool| {
            Recorded::of(
                method,
                tool.policy.flow,
                params,
                envelope,
                acted.as_ref(),
                sensitive,
                url_before,
            )
        });
        let url = envelope.page.as_ref().map(|page| page.url.clone());
        lock(&self.state.flow_log).push(recorded, url);
    }

    /// The task's flow (docs/faces.md#flows): the steps recorded so far.
    pub fn export_flow(&self) -> Flow {
        self.state.export_flow()
    }
}
