//! The result envelope (docs/envelope.md): one JSON object per command on every face.

use serde::Serialize;
use serde_json::Value;

use crate::error::{ActionStatus, Code};

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
    /// JSON pointers into this envelope of everything that came from the page (docs/security.md#fence):
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
    /// The tab, URL or title differ from those the task's last answer with a page gave
    /// (the text form names the page only then).
    pub changed: bool,
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
    /// What went wrong in a page during the command — exceptions, console errors,
    /// requests that failed or answered 400 and above — per tab:
    /// `[{tabId, since, errors, failedRequests, lines}]`; absent when nothing did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logs: Option<Value>,
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn envelope() -> Envelope {
        Envelope {
            ok: false,
            status: Status::Partial,
            code: Some(Code::NavigationTimeout),
            message: Some("the load did not finish".into()),
            hint: Some("wait, then snapshot".into()),
            execution: Execution {
                command_id: "c1".into(),
                stage: "load",
                dispatch_started: true,
                action_status: ActionStatus::NotStarted,
                retry_safe: true,
                duration_ms: 12,
                started: None,
                cancelled: false,
            },
            verification: Verification::default(),
            task: "not_evaluated",
            page: Some(PageInfo {
                tab_id: "tab0".into(),
                url: "http://127.0.0.1/".into(),
                title: "Home".into(),
                snapshot_id: None,
                changed: true,
            }),
            data: json!({ "loaded": false }),
            events: Events::default(),
            untrusted: Vec::new(),
            image: Some(Image {
                data: "iVBORw0".into(),
                mime_type: "image/png",
            }),
        }
    }

    #[test]
    fn the_envelope_is_the_json_of_the_spec_with_empty_extras_left_out() {
        assert_eq!(
            envelope().to_json(),
            json!({
                "ok": false,
                "status": "partial",
                "code": "NAVIGATION_TIMEOUT",
                "message": "the load did not finish",
                "hint": "wait, then snapshot",
                "execution": {
                    "commandId": "c1",
                    "stage": "load",
                    "dispatchStarted": true,
                    "actionStatus": "not-started",
                    "retrySafe": true,
                    "durationMs": 12,
                },
                "verification": { "requested": false, "verified": null, "expect": null },
                "task": "not_evaluated",
                "page": {
                    "tabId": "tab0",
                    "url": "http://127.0.0.1/",
                    "title": "Home",
                    "snapshotId": null,
                    "changed": true,
                },
                "data": { "loaded": false },
                "events": {
                    "dialog": null,
                    "newTab": null,
                    "download": null,
                    "navigated": false,
                    "permission": null,
                },
            })
        );
    }

    #[test]
    fn extras_show_when_they_say_something() {
        let mut envelope = envelope();
        envelope.execution.started = Some(false);
        envelope.execution.cancelled = true;
        envelope.untrusted = vec!["/page/title".into()];
        envelope.events.recovered = Some(json!([{ "tabId": "tab0" }]));
        let value = envelope.to_json();
        assert_eq!(value["execution"]["started"], false);
        assert_eq!(value["execution"]["cancelled"], true);
        assert_eq!(value["untrusted"], json!(["/page/title"]));
        assert_eq!(value["events"]["recovered"], json!([{ "tabId": "tab0" }]));
        assert!(
            value.get("image").is_none(),
            "images travel beside the JSON"
        );
    }
}
