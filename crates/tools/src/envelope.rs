//! The result envelope (SPEC §4): one JSON object per command on every face.

use serde::Serialize;
use serde_json::Value;

use crate::error::Code;

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
    /// JSON pointers into this envelope of everything that came from the page (SPEC §16):
    /// the one renderer fences exactly these, on every face.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub untrusted: Vec<String>,
    /// A screenshot's image: sent by faces that carry images (an MCP image block), never
    /// inside `data` or the text form.
    #[serde(skip)]
    pub image: Option<Image>,
}

/// An image a command delivered.
#[derive(Debug, Clone)]
pub struct Image {
    /// The image bytes, base64-encoded.
    pub data: String,
    /// e.g. `image/png`.
    pub mime_type: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Success,
    Partial,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ActionStatus {
    NotStarted,
    Completed,
    Unknown,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
    /// `false` when the command was refused before it started (`TASK_BUSY`); absent
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started: Option<bool>,
    /// The command was cancelled (`COMMAND_CANCELLED`); absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
}

#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verification {
    pub requested: bool,
    pub verified: Option<bool>,
    pub expect: Option<Value>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    pub tab_id: String,
    pub url: String,
    pub title: String,
    pub snapshot_id: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Events {
    pub dialog: Option<Value>,
    pub new_tab: Option<Value>,
    /// Downloads that began, finished or were cancelled: `[{name, size, state, …}]`.
    pub download: Option<Value>,
    pub navigated: bool,
    /// Permission requests the page made that were denied: `[{permission, origin, …}]`.
    pub permission: Option<Value>,
    /// The browser died and was started again before this command: the task's tabs,
    /// reopened at their last URLs under the same ids (`[{tabId, url}]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovered: Option<Value>,
}

impl Envelope {
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
