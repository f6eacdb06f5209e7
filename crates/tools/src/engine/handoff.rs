//! The engine's side of a hand-off (docs/faces.md#handoff): the lock an agent command
//! meets, and what the live view does as the person — their commands, permission
//! choices, tabs — up to the hand-back. The hand-off's state is `handoff.rs`.

use std::sync::Arc;

use browser::Deadline;
use serde_json::Value;

use super::Engine;
use crate::catalogue::{self, tool};
use crate::envelope::Envelope;
use crate::handoff::{LiveEntry, LiveViews, Mode, PERSON_STEP};
use crate::mutex::lock;
use crate::options::CallOptions;
use crate::policy::{Noted, Policy};

impl Engine {
    /// An agent command of a tool with `policy` arrives: whether a person's hand-off
    /// refuses it; if not, the agent drives from here on.
    pub(crate) fn agent_enters(&self, policy: &Policy) -> bool {
        let mut handoff = lock(&self.state.handoff.state);
        if handoff.locks(policy) {
            return true;
        }
        if !policy.during_handoff && matches!(handoff.mode, Mode::Hidden | Mode::HandoffComplete) {
            handoff.mode = Mode::AgentDriving;
        }
        false
    }

    /// Where this engine's live views are served (the face sets it).
    pub fn set_live_views(&self, views: Arc<dyn LiveViews>) {
        *lock(&self.state.handoff.views) = Some(views);
    }

    /// A load of this task's live view with the query `token` and the `session` cookie,
    /// if any ([`crate::handoff::Handoff::enter`]).
    pub fn live_view_enter(&self, token: Option<&str>, session: Option<&str>) -> Option<LiveEntry> {
        lock(&self.state.handoff.state).enter(token, session)
    }

    /// Whether `session` is the person's at this task's live view now.
    pub fn live_view_session(&self, session: &str) -> bool {
        lock(&self.state.handoff.state).has_session(session)
    }

    /// Takes the live view's one socket for `session` ([`crate::handoff::Handoff::claim_socket`]).
    pub fn live_view_claim_socket(&self, session: &str) -> bool {
        lock(&self.state.handoff.state).claim_socket(session)
    }

    /// Gives back the socket `session` took.
    pub fn live_view_release_socket(&self, session: &str) {
        lock(&self.state.handoff.state).release_socket(session);
    }

    /// The URL of the hand-off under way: where its live view is served.
    pub fn live_view_url(&self) -> Option<String> {
        let handoff = lock(&self.state.handoff.state);
        (handoff.mode == Mode::WaitingHuman)
            .then(|| handoff.url.clone())
            .flatten()
    }

    /// The reason the agent gave for the hand-off under way.
    pub fn handoff_reason(&self) -> Option<String> {
        lock(&self.state.handoff.state).reason.clone()
    }

    /// A command made by the person in the live view (the hand-off's lock lets it pass).
    /// The pages they go to are noted for the agent's summary.
    pub async fn person_call(&self, method: &str, params: Value) -> Envelope {
        let options = CallOptions {
            person: true,
            ..CallOptions::default()
        };
        let envelope = self.call_with(method, params.clone(), options).await;
        if envelope.ok {
            let mut handoff = lock(&self.state.handoff.state);
            match catalogue::find(method).map(|tool| tool.policy.noted) {
                Some(Noted::Navigation) => {
                    if let Some(page) = &envelope.page {
                        handoff.summary.navigations.push(page.url.clone());
                    }
                }
                Some(Noted::Dialog) => {
                    let kind = envelope.data["type"].as_str().unwrap_or("dialog"); // not a tool name
                    let answer = envelope.data["answer"].as_str().unwrap_or("answered");
                    handoff.summary.dialogs.push(format!("{kind} {answer}"));
                }
                Some(Noted::Nothing) | None => {}
            }
        }
        envelope
    }

    /// The permission request waiting for the person, if any.
    pub async fn person_pending_permission(&self) -> Option<browser::PermissionRequest> {
        let slot = self.state.slot.lock().await;
        slot.task.as_ref()?.pending_permission()
    }

    /// The person's choice for permission request `id`; noted for the agent's summary.
    pub async fn person_permission(
        &self,
        id: u64,
        choice: browser::PermissionChoice,
    ) -> Result<(), String> {
        let slot = self.state.slot.lock().await;
        let task = slot.task.as_ref().ok_or("the task has no tab")?;
        let request = task
            .answer_permission(id, choice, Deadline::after(PERSON_STEP))
            .await
            .map_err(|e| e.to_string())?;
        let chose = match choice {
            browser::PermissionChoice::Deny => "denied",
            browser::PermissionChoice::Once => "allowed for this hand-off",
            browser::PermissionChoice::Always => "always allowed",
        };
        lock(&self.state.handoff.state)
            .summary
            .permissions
            .push(format!(
                "{} for {}: {chose}",
                request.permission, request.origin
            ));
        Ok(())
    }

    /// The task's tabs, for the person's tab switcher.
    pub async fn person_tabs(&self) -> Vec<browser::TabSummary> {
        let slot = self.state.slot.lock().await;
        slot.task
            .as_ref()
            .map(browser::Task::list)
            .unwrap_or_default()
    }

    /// The tab the person sees: the task's current one.
    pub async fn person_tab(&self) -> Option<(String, browser::Tab)> {
        let slot = self.state.slot.lock().await;
        let task = slot.task.as_ref()?;
        let (id, tab) = task.tab(None).ok()?;
        Some((id.to_string(), tab.clone()))
    }

    /// The person pressed Done: a fresh snapshot for the agent, the summary of what they
    /// did, the token spent, dialogs answered as before, and any waiting agent woken.
    pub async fn hand_back(&self) -> Envelope {
        let snapshot = self
            .person_call(tool::Snapshot::NAME, serde_json::json!({}))
            .await;
        let tabs = self.person_tabs().await;
        {
            let mut slot = self.state.slot.lock().await;
            if let Some(task) = slot.task.as_mut() {
                task.set_ask_dialogs(self.options().ask_dialogs);
                if let Err(err) = task.release_permissions(Deadline::after(PERSON_STEP)).await {
                    tracing::warn!(%err, "the person's permission grants could not be taken back");
                }
            }
        }
        let mut handoff = lock(&self.state.handoff.state);
        let mut summary = std::mem::take(&mut handoff.summary);
        summary.tabs_opened = tabs
            .iter()
            .map(|t| t.id.to_string())
            .filter(|id| !handoff.tabs_before.contains(id))
            .collect();
        summary.tabs = tabs
            .iter()
            .map(|t| {
                serde_json::json!({
                    "tabId": t.id.to_string(),
                    "url": t.state.url,
                    "title": t.state.title,
                    "active": t.active,
                })
            })
            .collect();
        handoff.back = Some((snapshot.data.clone(), summary));
        handoff.mode = Mode::HandoffComplete;
        handoff.token = None;
        handoff.session = None;
        handoff.url = None;
        handoff.generation += 1;
        let generation = handoff.generation;
        drop(handoff);
        self.state.handoff.handed_back.send_replace(generation);
        snapshot
    }
}
