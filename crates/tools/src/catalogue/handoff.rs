//! `handoff`: hand the task to a person (docs/faces.md#handoff) — a login, a CAPTCHA, a payment or a
//! choice only they can make. `{reason}` returns the live view's URL and locks the task
//! (`HANDOFF_LOCKED` for every other agent command); `{action:"status"}` reports the
//! mode; `{action:"wait"}` returns, once the person presses Done, a fresh snapshot and a
//! summary of what they did. The person's keys are never reported.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use browser::Deadline;

use super::{Annotations, PageGuard, Policy, ToolSpec};
use crate::ctx::Ctx;
use crate::error::{Code, ToolError};
use crate::handoff::{Door, Mode, PERSON_STEP, Summary, random_token};
use crate::mutex::lock;
use crate::state::TaskState;
use crate::untrusted::{PageText, PageValue};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Params {
    // Undescribed in the schema: the name says it (see SELF_EVIDENT in catalogue/mod.rs).
    #[serde(default)]
    action: Action,
    /// start: what the person should do.
    reason: Option<String>,
    /// wait: max ms.
    timeout_ms: Option<u64>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Action {
    #[default]
    Start,
    Status,
    Wait,
    Watch,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Output {
    mode: Mode,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// The live view (one-time token inside): a person's while they have the task; with
    /// watch, a read-only one.
    #[serde(skip_serializing_if = "Option::is_none")]
    live_view: Option<String>,
    /// wait: the page as the person left it.
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<PageText>,
    /// wait: what the person did (pages, tabs, dialogs; never keys).
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<PageValue>,
}

/// The `handoff` tool.
pub struct Handoff;

impl ToolSpec for Handoff {
    const NAME: &'static str = "handoff";
    // A hand-off belongs to its task: no replay could restore it.
    const POLICY: Policy = Policy {
        during_handoff: true,
        ..Policy::PLAIN
    };
    // The person drives the page meanwhile; this tool never touches it.
    const PAGE_GUARD: PageGuard = PageGuard::Off;
    const ANNOTATIONS: Annotations = Annotations {
        title: "Hand off to a person",
        read_only: false,
        destructive: false,
        idempotent: true,
        open_world: true,
    };
    const DESCRIPTION: &'static str = "Let a person take over (login, CAPTCHA): start gives a live-view URL; wait ends when they are done.";
    // It must not hold the task: the person's live view uses it meanwhile.
    const USES_TASK: bool = false;
    type Params = Params;
    type Output = Output;

    async fn run(ctx: &mut Ctx<'_>, params: Params) -> Result<Output, ToolError> {
        let state = ctx.state();
        match params.action {
            Action::Start => {
                let reason = params
                    .reason
                    .filter(|r| !r.trim().is_empty())
                    .ok_or_else(|| {
                        ToolError::invalid_params("a hand-off needs a reason for the person")
                    })?;
                if params.timeout_ms.is_some() {
                    return Err(ToolError::invalid_params("timeoutMs goes with action wait"));
                }
                let url = begin(state, reason).await?;
                ctx.dispatched();
                Ok(Output {
                    mode: Mode::WaitingHuman,
                    reason: lock(&state.handoff.state).reason.clone(),
                    live_view: Some(url),
                    snapshot_id: None,
                    text: None,
                    summary: None,
                })
            }
            Action::Watch => {
                if params.reason.is_some() || params.timeout_ms.is_some() {
                    return Err(ToolError::invalid_params(
                        "watch takes no reason or timeoutMs: it only opens a view",
                    ));
                }
                let url = watch(state)?;
                let handoff = lock(&state.handoff.state);
                Ok(Output {
                    mode: handoff.mode,
                    reason: None,
                    live_view: Some(url),
                    snapshot_id: None,
                    text: None,
                    summary: None,
                })
            }
            Action::Status => {
                let handoff = lock(&state.handoff.state);
                Ok(Output {
                    mode: handoff.mode,
                    reason: handoff.reason.clone(),
                    live_view: handoff.url.clone(),
                    snapshot_id: None,
                    text: None,
                    summary: None,
                })
            }
            Action::Wait => {
                let mut ticks = state.handoff.handed_back.subscribe();
                let waiting = {
                    let handoff = lock(&state.handoff.state);
                    match handoff.mode {
                        Mode::WaitingHuman => true,
                        _ if handoff.back.is_some() => false,
                        _ => {
                            return Err(ToolError::invalid_params(
                                "no hand-off to wait for: start one with {reason}",
                            ));
                        }
                    }
                };
                if waiting {
                    let budget = params
                        .timeout_ms
                        .map(std::time::Duration::from_millis)
                        .unwrap_or(ctx.deadline.remaining())
                        .min(ctx.deadline.remaining());
                    if tokio::time::timeout(budget, ticks.changed()).await.is_err() {
                        return Err(ToolError::new(
                            Code::HandoffTimeout,
                            format!(
                                "the person did not hand back within {} ms; the hand-off goes on",
                                budget.as_millis()
                            ),
                            "wait again, or check browser_handoff {action:\"status\"}",
                        ));
                    }
                }
                let handoff = lock(&state.handoff.state);
                let (snapshot, summary) = handoff.back.clone().ok_or_else(|| {
                    ToolError::invalid_params("the hand-off ended without a hand-back")
                })?;
                Ok(Output {
                    mode: handoff.mode,
                    reason: handoff.reason.clone(),
                    live_view: None,
                    snapshot_id: snapshot["snapshotId"].as_str().map(str::to_string),
                    text: snapshot["text"].as_str().map(|t| PageText(t.to_string())),
                    summary: serde_json::to_value(summary).ok().map(PageValue),
                })
            }
        }
    }
}

/// Opens the task's watch view: a new one-time token (the previous watcher's session
/// ends), and the view's URL. The agent keeps driving.
fn watch(state: &TaskState) -> Result<String, ToolError> {
    let views = lock(&state.handoff.views).clone().ok_or_else(|| {
        ToolError::invalid_params("this face serves no live view, so nothing can be watched")
    })?;
    let token = random_token().map_err(|e| {
        ToolError::invalid_params(format!("no random token for the watch view: {e}"))
    })?;
    let url = views
        .watch_url(&state.options.task_id, &token)
        .map_err(|e| ToolError::invalid_params(format!("the watch view cannot start: {e}")))?;
    let mut handoff = lock(&state.handoff.state);
    handoff.watch = Door::with_token(token);
    handoff.watch_url = Some(url.clone());
    Ok(url)
}

/// Begins a hand-off: a new token, the live view's URL, and JavaScript dialogs left open
/// for the person. While one is under way, its URL again.
async fn begin(state: &TaskState, reason: String) -> Result<String, ToolError> {
    if let Some(url) = {
        let handoff = lock(&state.handoff.state);
        (handoff.mode == Mode::WaitingHuman)
            .then(|| handoff.url.clone())
            .flatten()
    } {
        return Ok(url);
    }
    let views = lock(&state.handoff.views).clone().ok_or_else(|| {
        ToolError::invalid_params("this face serves no live view, so nothing can be handed off")
    })?;
    let token = random_token().map_err(|e| {
        ToolError::invalid_params(format!("no random token for the live view: {e}"))
    })?;
    let url = views
        .url(&state.options.task_id, &token)
        .map_err(|e| ToolError::invalid_params(format!("the live view cannot start: {e}")))?;
    let (tabs_before, download_mark) = {
        let mut slot = state.slot.lock().await;
        match slot.task.as_mut() {
            Some(task) => {
                // Dialogs (in tabs opened meanwhile too) and permission requests wait
                // for the person from now on.
                task.set_ask_dialogs(true);
                task.hold_permissions(Deadline::after(PERSON_STEP)).await?;
                let tabs = task
                    .list()
                    .iter()
                    .map(|t| (t.id.to_string(), t.state.url.clone()))
                    .collect::<Vec<_>>();
                (tabs, task.download_mark())
            }
            None => (Vec::new(), 0),
        }
    };
    let mut handoff = lock(&state.handoff.state);
    handoff.mode = Mode::WaitingHuman;
    handoff.reason = Some(reason);
    handoff.door = Door::with_token(token);
    handoff.url = Some(url.clone());
    handoff.tabs_before = tabs_before.iter().map(|(id, _)| id.clone()).collect();
    handoff.seen = tabs_before.into_iter().collect();
    handoff.closed = Vec::new();
    handoff.download_mark = download_mark;
    handoff.summary = Summary::default();
    handoff.back = None;
    Ok(url)
}
