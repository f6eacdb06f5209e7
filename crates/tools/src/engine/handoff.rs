//! The engine's side of a hand-off (docs/faces.md#handoff): the lock an agent command
//! meets, and what the live view does as the person — their commands, permission
//! choices, tabs — up to the hand-back. The hand-off's state is `handoff.rs`.

use std::sync::Arc;

use browser::Deadline;
use serde_json::Value;

use super::Engine;
use crate::catalogue::{self, tool};
use crate::envelope::Envelope;
use crate::handoff::{Handoff, LiveEntry, LiveViews, Mode, PERSON_STEP, PersonInputKind};
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

    /// A load of this task's watch view ([`crate::handoff::Door::enter`]).
    pub fn watch_view_enter(
        &self,
        token: Option<&str>,
        session: Option<&str>,
    ) -> Option<LiveEntry> {
        lock(&self.state.handoff.state).watch.enter(token, session)
    }

    /// Whether `session` is the watcher's now.
    pub fn watch_view_session(&self, session: &str) -> bool {
        lock(&self.state.handoff.state).watch.has_session(session)
    }

    /// Takes the watch view's one socket for `session`.
    pub fn watch_view_claim_socket(&self, session: &str) -> bool {
        lock(&self.state.handoff.state).watch.claim_socket(session)
    }

    /// Gives back the watch view's socket `session` took.
    pub fn watch_view_release_socket(&self, session: &str) {
        lock(&self.state.handoff.state)
            .watch
            .release_socket(session);
    }

    /// Where this task's watch view is served, once one was asked for.
    pub fn watch_view_url(&self) -> Option<String> {
        lock(&self.state.handoff.state).watch_url.clone()
    }

    /// The task's mode, for the watch view.
    pub fn handoff_mode(&self) -> Mode {
        lock(&self.state.handoff.state).mode
    }

    /// The agent's last `limit` commands, oldest first, as the watch view's strip shows
    /// them: method, outcome, how long. Never their params.
    pub fn recent_commands(&self, limit: usize) -> Vec<Value> {
        lock(&self.state.journal)
            .last(limit)
            .into_iter()
            .map(|record| {
                serde_json::json!({
                    "method": record.method,
                    "ok": record.ok,
                    "code": record.code,
                    "durationMs": record.duration_ms,
                })
            })
            .collect()
    }

    /// The watcher asks to take over: a hand-off begins (the agent is locked out from
    /// now on) and its live view's URL is theirs to open.
    pub async fn watcher_takes_over(&self) -> Result<String, String> {
        let envelope = self
            .person_call(
                tool::Handoff::NAME,
                serde_json::json!({ "reason": "The person watching took over" }),
            )
            .await;
        match envelope.data["liveView"].as_str() {
            Some(url) if envelope.ok => Ok(url.to_string()),
            _ => Err(envelope.message.unwrap_or_default()),
        }
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
    /// The pages they go to are noted for the agent's summary as the tabs' URLs change
    /// ([`Self::person_tabs`]); a reload, which changes none, is noted here.
    pub async fn person_call(&self, method: &str, params: Value) -> Envelope {
        self.person_call_until(method, params, None).await
    }

    /// [`Self::person_call`], ended `COMMAND_CANCELLED` when `cancel` is requested (the
    /// person's Stop ends the load they started).
    pub async fn person_call_until(
        &self,
        method: &str,
        params: Value,
        cancel: Option<Arc<crate::CancelSignal>>,
    ) -> Envelope {
        let options = CallOptions {
            person: true,
            cancel,
            ..CallOptions::default()
        };
        let noted = catalogue::find(method).map(|tool| tool.policy.noted);
        if noted == Some(Noted::Navigation) {
            // Where the tabs were before (a link followed since the last look) comes
            // first.
            self.person_tabs().await;
        }
        let envelope = self.call_with(method, params.clone(), options).await;
        if noted == Some(Noted::Navigation) {
            // Where it went, loaded or not (a load the person stopped).
            self.person_tabs().await;
        }
        if envelope.ok {
            let mut handoff = lock(&self.state.handoff.state);
            match noted {
                Some(Noted::Navigation) if params["reload"] == true => {
                    if let Some(page) = &envelope.page {
                        handoff.summary.navigations.push(page.url.clone());
                    }
                }
                Some(Noted::Dialog) => {
                    let kind = envelope.data["type"].as_str().unwrap_or("dialog"); // not a tool name
                    let answer = envelope.data["answer"].as_str().unwrap_or("answered");
                    handoff.summary.dialogs.push(format!("{kind} {answer}"));
                }
                Some(Noted::Navigation | Noted::Nothing) | None => {}
            }
        }
        envelope
    }

    /// Counts one input of the person's for the agent's summary.
    pub fn person_input_noted(&self, kind: PersonInputKind) {
        lock(&self.state.handoff.state).summary.input.count(kind);
    }

    /// The permission request waiting for the person (`Some(None)` when none is); `None`
    /// while a command holds the task, when the live view keeps showing what it last saw.
    pub async fn person_pending_permission(&self) -> Option<Option<browser::PermissionRequest>> {
        let slot = self.state.slot.try_lock().ok()?;
        Some(
            slot.task
                .as_ref()
                .and_then(browser::Task::pending_permission),
        )
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

    /// The task's tabs, for the person's tab switcher; `None` while a command holds the
    /// task (a navigation the person started, still loading), so the live view never
    /// waits on one. Pages the browser opened meanwhile (a popup, a link opened in a new
    /// tab) become task tabs here, at once, and the newest is the one shown. What changed
    /// since the last look is noted for the summary: a tab's URL (a page the person went
    /// to, however), a tab gone (closed).
    pub async fn person_tabs_now(&self) -> Option<Vec<browser::TabSummary>> {
        let mut slot = self.state.slot.try_lock().ok()?;
        Some(self.person_tabs_in(&mut slot).await)
    }

    /// [`Self::person_tabs_now`], waiting for the task if a command holds it.
    pub async fn person_tabs(&self) -> Vec<browser::TabSummary> {
        let mut slot = self.state.slot.lock().await;
        self.person_tabs_in(&mut slot).await
    }

    async fn person_tabs_in(&self, slot: &mut crate::state::Slot) -> Vec<browser::TabSummary> {
        let Some(task) = slot.task.as_mut() else {
            return Vec::new();
        };
        match task
            .adopt_new_tabs(false, Deadline::after(PERSON_STEP))
            .await
        {
            Ok(adopted) => {
                if let Some((id, _)) = adopted.last()
                    && let Err(err) = task.select(&id.to_string())
                {
                    tracing::debug!(%err, "a tab opened in the hand-off closed at once");
                }
            }
            Err(err) => tracing::debug!(%err, "pages opened in the hand-off not adopted yet"),
        }
        let tabs = task.list();
        let mut handoff = lock(&self.state.handoff.state);
        if handoff.mode == Mode::WaitingHuman {
            note_tabs(&mut handoff, &tabs);
        }
        tabs
    }

    /// The task's tabs as they are, for a view that only looks (nothing adopted, nothing
    /// noted); `None` while a command holds the task.
    pub async fn tabs_now(&self) -> Option<Vec<browser::TabSummary>> {
        let slot = self.state.slot.try_lock().ok()?;
        Some(
            slot.task
                .as_ref()
                .map(browser::Task::list)
                .unwrap_or_default(),
        )
    }

    /// The tab the person sees: the task's current one; `None` when it has none, or
    /// while a command holds the task.
    pub async fn person_tab(&self) -> Option<(String, browser::Tab)> {
        let slot = self.state.slot.try_lock().ok()?;
        let task = slot.task.as_ref()?;
        let (id, tab) = task.tab(None).ok()?;
        Some((id.to_string(), tab.clone()))
    }

    /// The downloads begun since the hand-off began, as they stand (for the live view and
    /// the summary); `None` while a command holds the task.
    pub async fn person_downloads(&self) -> Option<Vec<Value>> {
        let mark = lock(&self.state.handoff.state).download_mark;
        let slot = self.state.slot.try_lock().ok()?;
        let downloads = slot
            .task
            .as_ref()
            .map(|task| task.downloads_since(mark))
            .unwrap_or_default();
        Some(downloads.iter().map(crate::ctx::download_json).collect())
    }

    /// The last tab closed in this hand-off, opened again at its URL (the person's
    /// Reopen); an error when none is left to reopen.
    pub async fn person_reopen(&self) -> Result<(), String> {
        let (_, url) = lock(&self.state.handoff.state)
            .closed
            .pop()
            .ok_or("no tab was closed in this hand-off")?;
        let envelope = self
            .person_call(
                tool::Tabs::NAME,
                serde_json::json!({ "action": "new", "url": url }),
            )
            .await;
        if envelope.ok {
            Ok(())
        } else {
            Err(envelope.message.unwrap_or_default())
        }
    }

    /// Whether a tab closed in this hand-off can be reopened.
    pub fn person_can_reopen(&self) -> bool {
        !lock(&self.state.handoff.state).closed.is_empty()
    }

    /// The person pressed Done: a fresh snapshot for the agent, the summary of what they
    /// did, the token spent, dialogs answered as before, and any waiting agent woken.
    pub async fn hand_back(&self) -> Envelope {
        let snapshot = self
            .person_call(tool::Snapshot::NAME, serde_json::json!({}))
            .await;
        let tabs = self.person_tabs().await;
        let downloads = {
            let mark = lock(&self.state.handoff.state).download_mark;
            let slot = self.state.slot.lock().await;
            slot.task
                .as_ref()
                .map(|task| task.downloads_since(mark))
                .unwrap_or_default()
        };
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
        summary.downloads = downloads.iter().map(crate::ctx::download_json).collect();
        handoff.seen.clear();
        handoff.closed.clear();
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
        handoff.door = Default::default();
        handoff.url = None;
        handoff.generation += 1;
        let generation = handoff.generation;
        drop(handoff);
        self.state.handoff.handed_back.send_replace(generation);
        snapshot
    }
}

/// Notes what changed in the task's tabs since the person's last look: a new tab (opened),
/// a tab's URL (a page they went to — through the address field, back, forward, or a link
/// they followed), a tab gone (closed; reopenable until the hand-off ends).
fn note_tabs(handoff: &mut Handoff, tabs: &[browser::TabSummary]) {
    for tab in tabs {
        let id = tab.id.to_string();
        let url = &tab.state.url;
        let new = !handoff.seen.contains_key(&id);
        if new && !handoff.tabs_before.contains(&id) && !handoff.summary.tabs_opened.contains(&id) {
            handoff.summary.tabs_opened.push(id.clone());
        }
        if handoff.seen.get(&id) != Some(url) {
            let blank = url.is_empty() || url == "about:blank";
            if !blank && handoff.summary.navigations.last() != Some(url) {
                handoff.summary.navigations.push(url.clone());
            }
            handoff.seen.insert(id, url.clone());
        }
    }
    let gone: Vec<(String, String)> = handoff
        .seen
        .iter()
        .filter(|(id, _)| !tabs.iter().any(|t| t.id.to_string() == **id))
        .map(|(id, url)| (id.clone(), url.clone()))
        .collect();
    for (id, url) in gone {
        handoff.seen.remove(&id);
        handoff.summary.tabs_closed.push(format!("{id} {url}"));
        handoff.closed.push((id, url));
    }
}
