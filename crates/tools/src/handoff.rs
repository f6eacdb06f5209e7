//! Hand-off to a person (docs/faces.md#handoff): the task's mode, the live view's one-time token, and
//! what the agent gets back. The mode is explicit — only the person's "Done" ends a
//! hand-off, nothing is inferred — and while a person has the task every agent command
//! but the hand-off's own status and wait, and diagnostics, is refused at once with
//! `HANDOFF_LOCKED`, nothing dispatched. The live view itself is served by the faces
//! (`crates/live`), which reach the engine through [`LiveViews`] and act as the person
//! (`CallOptions::person`).

use std::sync::Arc;
use std::time::Duration;

use browser::Deadline;
use serde::Serialize;
use serde_json::Value;

use crate::catalogue::{Noted, tool};
use crate::engine::{CallOptions, Engine};
use crate::envelope::Envelope;
use crate::error::{Code, ToolError};
use crate::mutex::lock;

/// The deadline of each browser step the hand-off itself takes (grants, lists).
const PERSON_STEP: Duration = Duration::from_secs(10);

/// A task's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Mode {
    /// No live view: nobody has looked at the task yet.
    #[default]
    Hidden,
    AgentDriving,
    WaitingHuman,
    /// The person handed back; the next agent command makes it `AGENT_DRIVING`.
    HandoffComplete,
}

/// Where live views are served: the daemon's own server, or one `candor mcp` starts on a
/// loopback port when the first hand-off begins.
pub trait LiveViews: Send + Sync + std::fmt::Debug {
    /// The live view's URL for `task`, carrying `token`.
    fn url(&self, task: &str, token: &str) -> Result<String, String>;
}

/// What the person did, as the agent is told it — never the keys typed.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The pages the person went to, in order (through the address field, back, forward
    /// or reload; links they clicked show in the tabs' URLs).
    pub navigations: Vec<String>,
    /// Each tab at hand-back, with its URL.
    pub tabs: Vec<Value>,
    /// Tabs that were not there when the hand-off began.
    pub tabs_opened: Vec<String>,
    /// Dialogs the person answered: kind and answer.
    pub dialogs: Vec<String>,
    /// Permission requests the person answered, and how.
    pub permissions: Vec<String>,
}

/// A task's hand-off state.
#[derive(Debug, Default)]
pub struct Handoff {
    pub mode: Mode,
    pub reason: Option<String>,
    /// The live view's one-time token while a person has the task, until the first page
    /// load spends it for a session.
    pub token: Option<String>,
    /// The person's session (their cookie's value) once the token was spent: it alone
    /// opens the view from then on, until Done.
    pub session: Option<String>,
    /// Whether the person's live view holds its one socket.
    pub socket_open: bool,
    pub url: Option<String>,
    /// Tab ids when the hand-off began.
    pub tabs_before: Vec<String>,
    pub summary: Summary,
    /// On hand-back: the fresh snapshot's envelope data, and the summary.
    pub back: Option<(Value, Summary)>,
    /// Counts hand-backs: `wait` watches it.
    pub generation: u64,
}

impl Handoff {
    /// Whether an agent command `method` must be refused now.
    pub fn locks(&self, method: &str) -> bool {
        self.mode == Mode::WaitingHuman && !during_handoff(method)
    }

    /// A load of the live view's page: the session's cookie admits its holder again;
    /// without it, the query token admits once and is spent for a new session. `None` is
    /// a refusal.
    pub fn enter(&mut self, token: Option<&str>, session: Option<&str>) -> Option<LiveEntry> {
        if self.mode != Mode::WaitingHuman {
            return None;
        }
        if session.is_some_and(|s| self.has_session(s)) {
            return Some(LiveEntry::Returning);
        }
        let spends = token.is_some_and(|given| {
            self.token
                .as_deref()
                .is_some_and(|t| !t.is_empty() && same_secret(t, given))
        });
        if !spends {
            return None;
        }
        let session = random_token().ok()?;
        self.token = None;
        self.socket_open = false;
        self.session = Some(session.clone());
        Some(LiveEntry::Opened { session })
    }

    /// Whether `session` is the person's, while a hand-off is under way.
    pub fn has_session(&self, session: &str) -> bool {
        self.mode == Mode::WaitingHuman
            && self
                .session
                .as_deref()
                .is_some_and(|s| !s.is_empty() && same_secret(s, session))
    }

    /// Takes the one socket for `session`; `false` when the session is not the person's
    /// or its socket is open already.
    pub fn claim_socket(&mut self, session: &str) -> bool {
        if !self.has_session(session) || self.socket_open {
            return false;
        }
        self.socket_open = true;
        true
    }

    /// Gives back the socket `session` took (a socket of a session since replaced gives
    /// back nothing).
    pub fn release_socket(&mut self, session: &str) {
        if self
            .session
            .as_deref()
            .is_some_and(|s| same_secret(s, session))
        {
            self.socket_open = false;
        }
    }
}

/// How a page load was admitted to the live view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveEntry {
    /// The token was spent now: `session` is the person's cookie from here on.
    Opened { session: String },
    /// The person's cookie: a reload.
    Returning,
}

/// Whether two secrets are equal, in a time that does not depend on where they first
/// differ (only on their lengths, which are not secret: every token is 64 hex digits),
/// so a client timing its refusals learns nothing of the token byte by byte. Every
/// secret candor is shown (the daemon's token, a live view's token and session) is
/// compared here.
pub fn same_secret(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    // Every byte is looked at whatever the earlier ones were; `black_box` keeps the
    // compiler from turning the fold back into an early exit.
    let differ = a
        .iter()
        .zip(b)
        .fold(0u8, |acc, (x, y)| acc | std::hint::black_box(x ^ y));
    differ == 0
}

/// A fresh random token (hex of 32 bytes from the kernel): the daemon's, and each
/// hand-off's live view's.
pub fn random_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The engine's hand-off: state, and a channel that ticks at each hand-back.
#[derive(Debug)]
pub(crate) struct HandoffCell {
    pub state: std::sync::Mutex<Handoff>,
    pub handed_back: tokio::sync::watch::Sender<u64>,
    pub views: std::sync::Mutex<Option<Arc<dyn LiveViews>>>,
}

impl Default for HandoffCell {
    fn default() -> Self {
        Self {
            state: std::sync::Mutex::new(Handoff::default()),
            handed_back: tokio::sync::watch::channel(0).0,
            views: std::sync::Mutex::new(None),
        }
    }
}

/// An agent command while a person has the task: refused, nothing dispatched.
pub(crate) fn handoff_locked(task: &str) -> ToolError {
    ToolError::new(
        Code::HandoffLocked,
        format!("a person has task {task} (a hand-off is under way), so nothing was run"),
        "wait for them: browser_handoff {action:\"wait\"}; browser_handoff {action:\"status\"} and browser_diagnostics answer meanwhile",
    )
}

/// Whether the agent may call `method` while a person holds the task, without taking
/// the task back (its policy says so).
fn during_handoff(method: &str) -> bool {
    crate::find(method).is_some_and(|tool| tool.policy.during_handoff)
}

impl Engine {
    /// An agent command `method` arrives: whether a person's hand-off refuses it; if not,
    /// the agent drives from here on.
    pub(crate) fn agent_enters(&self, method: &str) -> bool {
        let mut handoff = lock(&self.handoff.state);
        if handoff.locks(method) {
            return true;
        }
        if !during_handoff(method) && matches!(handoff.mode, Mode::Hidden | Mode::HandoffComplete) {
            handoff.mode = Mode::AgentDriving;
        }
        false
    }

    /// Where this engine's live views are served (the face sets it).
    pub fn set_live_views(&self, views: Arc<dyn LiveViews>) {
        *lock(&self.handoff.views) = Some(views);
    }

    /// A load of this task's live view with the query `token` and the `session` cookie,
    /// if any ([`Handoff::enter`]).
    pub fn live_view_enter(&self, token: Option<&str>, session: Option<&str>) -> Option<LiveEntry> {
        lock(&self.handoff.state).enter(token, session)
    }

    /// Whether `session` is the person's at this task's live view now.
    pub fn live_view_session(&self, session: &str) -> bool {
        lock(&self.handoff.state).has_session(session)
    }

    /// Takes the live view's one socket for `session` ([`Handoff::claim_socket`]).
    pub fn live_view_claim_socket(&self, session: &str) -> bool {
        lock(&self.handoff.state).claim_socket(session)
    }

    /// Gives back the socket `session` took.
    pub fn live_view_release_socket(&self, session: &str) {
        lock(&self.handoff.state).release_socket(session);
    }

    /// The URL of the hand-off under way: where its live view is served.
    pub fn live_view_url(&self) -> Option<String> {
        let handoff = lock(&self.handoff.state);
        (handoff.mode == Mode::WaitingHuman)
            .then(|| handoff.url.clone())
            .flatten()
    }

    /// The reason the agent gave for the hand-off under way.
    pub fn handoff_reason(&self) -> Option<String> {
        lock(&self.handoff.state).reason.clone()
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
            let mut handoff = lock(&self.handoff.state);
            match crate::find(method).map(|tool| tool.policy.noted) {
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
        let slot = self.task_slot().await;
        slot.task.as_ref()?.pending_permission()
    }

    /// The person's choice for permission request `id`; noted for the agent's summary.
    pub async fn person_permission(
        &self,
        id: u64,
        choice: browser::PermissionChoice,
    ) -> Result<(), String> {
        let slot = self.task_slot().await;
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
        lock(&self.handoff.state).summary.permissions.push(format!(
            "{} for {}: {chose}",
            request.permission, request.origin
        ));
        Ok(())
    }

    /// The task's tabs, for the person's tab switcher.
    pub async fn person_tabs(&self) -> Vec<browser::TabSummary> {
        let slot = self.task_slot().await;
        slot.task
            .as_ref()
            .map(browser::Task::list)
            .unwrap_or_default()
    }

    /// The tab the person sees: the task's current one.
    pub async fn person_tab(&self) -> Option<(String, browser::Tab)> {
        let slot = self.task_slot().await;
        let task = slot.task.as_ref()?;
        let (id, tab) = task.tab(None).ok()?;
        Some((id.to_string(), tab.clone()))
    }

    /// Begins a hand-off: a new token, the live view's URL, and JavaScript dialogs left
    /// open for the person. While one is under way, its URL again.
    pub(crate) async fn begin_handoff(&self, reason: String) -> Result<String, ToolError> {
        if let Some(url) = {
            let handoff = lock(&self.handoff.state);
            (handoff.mode == Mode::WaitingHuman)
                .then(|| handoff.url.clone())
                .flatten()
        } {
            return Ok(url);
        }
        let views = lock(&self.handoff.views).clone().ok_or_else(|| {
            ToolError::invalid_params("this face serves no live view, so nothing can be handed off")
        })?;
        let token = random_token().map_err(|e| {
            ToolError::invalid_params(format!("no random token for the live view: {e}"))
        })?;
        let url = views
            .url(&self.options().task_id, &token)
            .map_err(|e| ToolError::invalid_params(format!("the live view cannot start: {e}")))?;
        let tabs_before = {
            let mut slot = self.task_slot().await;
            match slot.task.as_mut() {
                Some(task) => {
                    // Dialogs (in tabs opened meanwhile too) and permission requests wait
                    // for the person from now on.
                    task.set_ask_dialogs(true);
                    task.hold_permissions(Deadline::after(PERSON_STEP)).await?;
                    task.list().iter().map(|t| t.id.to_string()).collect()
                }
                None => Vec::new(),
            }
        };
        let mut handoff = lock(&self.handoff.state);
        handoff.mode = Mode::WaitingHuman;
        handoff.reason = Some(reason);
        handoff.token = Some(token);
        handoff.session = None;
        handoff.socket_open = false;
        handoff.url = Some(url.clone());
        handoff.tabs_before = tabs_before;
        handoff.summary = Summary::default();
        handoff.back = None;
        Ok(url)
    }

    /// The person pressed Done: a fresh snapshot for the agent, the summary of what they
    /// did, the token spent, dialogs answered as before, and any waiting agent woken.
    pub async fn hand_back(&self) -> Envelope {
        let snapshot = self
            .person_call(tool::Snapshot::NAME, serde_json::json!({}))
            .await;
        let tabs = self.person_tabs().await;
        {
            let mut slot = self.task_slot().await;
            if let Some(task) = slot.task.as_mut() {
                task.set_ask_dialogs(self.options().ask_dialogs);
                if let Err(err) = task.release_permissions(Deadline::after(PERSON_STEP)).await {
                    tracing::warn!(%err, "the person's permission grants could not be taken back");
                }
            }
        }
        let mut handoff = lock(&self.handoff.state);
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
        self.handoff.handed_back.send_replace(generation);
        snapshot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_status_wait_and_diagnostics_pass_while_a_person_has_the_task() {
        let mut handoff = Handoff::default();
        assert!(!handoff.locks("act"));
        handoff.mode = Mode::WaitingHuman;
        for method in ["act", "navigate", "snapshot", "eval", "tabs", "checkpoint"] {
            assert!(handoff.locks(method), "{method}");
        }
        assert!(!handoff.locks("handoff"));
        assert!(!handoff.locks("diagnostics"));
        handoff.mode = Mode::HandoffComplete;
        assert!(!handoff.locks("act"));
    }

    #[test]
    fn the_token_opens_one_session_once_and_only_while_waiting() {
        let mut handoff = Handoff {
            token: Some("abc".into()),
            ..Handoff::default()
        };
        assert_eq!(handoff.enter(Some("abc"), None), None, "not waiting yet");
        handoff.mode = Mode::WaitingHuman;
        assert_eq!(handoff.enter(Some("abd"), None), None);
        assert_eq!(handoff.enter(Some(""), None), None);
        assert_eq!(
            handoff.enter(None, Some("abc")),
            None,
            "a token is no session"
        );
        let Some(LiveEntry::Opened { session }) = handoff.enter(Some("abc"), None) else {
            panic!("the token opens a session");
        };
        assert_eq!(handoff.enter(Some("abc"), None), None, "spent");
        assert_eq!(
            handoff.enter(Some("abc"), Some(&session)),
            Some(LiveEntry::Returning)
        );
        assert!(handoff.claim_socket(&session));
        assert!(!handoff.claim_socket(&session), "one socket");
        assert!(!handoff.claim_socket("other"));
        handoff.release_socket(&session);
        assert!(handoff.claim_socket(&session));
        handoff.mode = Mode::HandoffComplete;
        assert!(!handoff.has_session(&session));
        assert_eq!(handoff.enter(None, Some(&session)), None);
    }

    #[test]
    fn secrets_are_equal_only_when_every_byte_is() {
        assert!(same_secret("", ""));
        assert!(same_secret("sesame", "sesame"));
        assert!(!same_secret("sesame", "sesamE"));
        assert!(!same_secret("sesame", "Sesame"));
        assert!(!same_secret("sesame", "sesam"));
        assert!(!same_secret("sesame", ""));
    }
}
