//! The result envelope (SPEC §4): one JSON object per command on every face.

use serde::Serialize;
use serde_json::Value;

use crate::error::Code;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    pub ok: bool,
    pub status: Status,
    pub code: Option<Code>,
    pub message: Option<String>,
    pub hint: Option<String>,
    pub execution: Execution,
    pub verification: Verification,
    /// The task-level claim is never made by a tool.
    pub task: &'static str,
    pub page: Option<PageInfo>,
    pub data: Value,
    pub events: Events,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Success,
    Partial,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActionStatus {
    NotStarted,
    Completed,
    Unknown,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Execution {
    pub command_id: String,
    /// Where the command was when it ended: validate, launch, dispatch, load, read.
    pub stage: &'static str,
    pub dispatch_started: bool,
    pub action_status: ActionStatus,
    /// True only when nothing reached the page.
    pub retry_safe: bool,
    pub duration_ms: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verification {
    pub requested: bool,
    pub verified: Option<bool>,
    pub expect: Option<Value>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    pub tab_id: String,
    pub url: String,
    pub title: String,
    pub snapshot_id: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Events {
    pub dialog: Option<Value>,
    pub new_tab: Option<Value>,
    pub download: Option<Value>,
    pub navigated: bool,
}

impl Envelope {
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
