//! Hand-off to a person (docs/faces.md#handoff): the task's mode, the live view's one-time token, and
//! what the agent gets back. The mode is explicit — only the person's "Done" ends a
//! hand-off, nothing is inferred — and while a person has the task every agent command
//! but the hand-off's own status and wait, and diagnostics, is refused at once with
//! `HANDOFF_LOCKED`, nothing dispatched. The live view itself is served by the faces
//! (`crates/live`), which reach the engine through [`LiveViews`] and act as the person
//! (`CallOptions::person`).

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::error::{Code, ToolError};
use crate::policy::Policy;

/// The deadline of each browser step the hand-off itself takes (grants, lists).
pub(crate) const PERSON_STEP: Duration = Duration::from_secs(10);

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

    /// The watch view's URL for `task`, carrying `token`.
    fn watch_url(&self, task: &str, token: &str) -> Result<String, String> {
        let live = self.url(task, token)?;
        let (path, query) = live.split_once('?').unwrap_or((&live, ""));
        Ok(format!("{path}/watch?{query}"))
    }
}

/// What the person did, as the agent is told it — never the keys typed, the text pasted
/// or composed, or the words looked for: only how many.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The pages the person went to, in order: through the address field, back, forward
    /// and reload, and the links they followed (a tab's URL changing while they had it).
    pub navigations: Vec<String>,
    /// Each tab at hand-back, with its URL.
    pub tabs: Vec<Value>,
    /// Tabs that were opened while the person had the task (by them, or by the page: a
    /// popup), whether still open or not.
    pub tabs_opened: Vec<String>,
    /// Tabs closed while the person had the task: id and last URL.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tabs_closed: Vec<String>,
    /// Dialogs the person answered: kind and answer.
    pub dialogs: Vec<String>,
    /// Permission requests the person answered, and how.
    pub permissions: Vec<String>,
    /// Downloads begun while the person had the task, as they stand at hand-back.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<Value>,
    /// How much the person did by hand.
    pub input: InputCounts,
}

/// Counts of the person's input; what it was is theirs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InputCounts {
    /// Presses of the pointer (clicks, taps, drags).
    #[serde(skip_serializing_if = "crate::schema::is_zero")]
    pub pointer: u32,
    /// Keys pressed (how many, never which).
    #[serde(skip_serializing_if = "crate::schema::is_zero")]
    pub keystrokes: u32,
    /// Texts inserted at once: pastes, and compositions an input method committed.
    #[serde(skip_serializing_if = "crate::schema::is_zero")]
    pub text: u32,
    /// Searches of the page's text (find in page).
    #[serde(skip_serializing_if = "crate::schema::is_zero")]
    pub finds: u32,
}

/// A kind of the person's input, counted in [`InputCounts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersonInputKind {
    Pointer,
    Key,
    Text,
    Find,
}

impl InputCounts {
    pub fn count(&mut self, kind: PersonInputKind) {
        let counter = match kind {
            PersonInputKind::Pointer => &mut self.pointer,
            PersonInputKind::Key => &mut self.keystrokes,
            PersonInputKind::Text => &mut self.text,
            PersonInputKind::Find => &mut self.finds,
        };
        *counter = counter.saturating_add(1);
    }
}

/// A task's hand-off state.
#[derive(Debug, Default)]
pub struct Handoff {
    pub mode: Mode,
    pub reason: Option<String>,
    /// The live view's door: its one-time token while a person has the task, then the
    /// session the first page load spent it for, until Done.
    pub door: Door,
    /// The watch view's door (`action:"watch"`): open from the first watch until the task
    /// ends, whoever drives; a new watch replaces it.
    pub watch: Door,
    pub url: Option<String>,
    /// The watch view's URL, once one was asked for.
    pub watch_url: Option<String>,
    /// Tab ids when the hand-off began.
    pub tabs_before: Vec<String>,
    /// Each open tab's URL as last seen while the person had the task: a change is a
    /// navigation of theirs, a tab gone was closed.
    pub seen: std::collections::BTreeMap<String, String>,
    /// Tabs closed while the person had the task (id, last URL), the last one last: the
    /// live view's Reopen opens the last again, until the hand-off ends.
    pub closed: Vec<(String, String)>,
    /// Where the task's downloads stood when the hand-off began.
    pub download_mark: u64,
    pub summary: Summary,
    /// On hand-back: the fresh snapshot's envelope data, and the summary.
    pub back: Option<(Value, Summary)>,
    /// Counts hand-backs: `wait` watches it.
    pub generation: u64,
}

impl Handoff {
    /// Whether an agent command of a tool with `policy` must be refused now.
    pub fn locks(&self, policy: &Policy) -> bool {
        self.mode == Mode::WaitingHuman && !policy.during_handoff
    }

    /// A load of the live view's page ([`Door::enter`]), while a person has the task.
    pub fn enter(&mut self, token: Option<&str>, session: Option<&str>) -> Option<LiveEntry> {
        if self.mode != Mode::WaitingHuman {
            return None;
        }
        self.door.enter(token, session)
    }

    /// Whether `session` is the person's, while a hand-off is under way.
    pub fn has_session(&self, session: &str) -> bool {
        self.mode == Mode::WaitingHuman && self.door.has_session(session)
    }

    /// Takes the live view's one socket for `session`; `false` when the session is not
    /// the person's or its socket is open already.
    pub fn claim_socket(&mut self, session: &str) -> bool {
        self.has_session(session) && self.door.claim_socket(session)
    }

    /// Gives back the socket `session` took.
    pub fn release_socket(&mut self, session: &str) {
        self.door.release_socket(session);
    }
}

/// One view's door, for one person: a one-time token the first page load spends for a
/// session (a cookie), which alone opens the page again and its one socket.
#[derive(Debug, Default)]
pub struct Door {
    /// The one-time token, until a page load spends it.
    pub token: Option<String>,
    /// The session the token was spent for.
    pub session: Option<String>,
    /// Whether the view's one socket is open.
    pub socket_open: bool,
}

impl Door {
    /// A door with a fresh `token`, no session.
    pub fn with_token(token: String) -> Door {
        Door {
            token: Some(token),
            session: None,
            socket_open: false,
        }
    }

    /// A page load: the session's cookie admits its holder again; without it, the query
    /// token admits once and is spent for a new session. `None` is a refusal.
    pub fn enter(&mut self, token: Option<&str>, session: Option<&str>) -> Option<LiveEntry> {
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

    /// Whether `session` is this door's.
    pub fn has_session(&self, session: &str) -> bool {
        self.session
            .as_deref()
            .is_some_and(|s| !s.is_empty() && same_secret(s, session))
    }

    /// Takes the one socket for `session`.
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
        if self.has_session(session) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(method: &str) -> Policy {
        crate::catalogue::find(method).expect(method).policy
    }

    #[test]
    fn only_status_wait_and_diagnostics_pass_while_a_person_has_the_task() {
        let mut handoff = Handoff::default();
        assert!(!handoff.locks(&policy("act")));
        handoff.mode = Mode::WaitingHuman;
        for method in ["act", "navigate", "snapshot", "eval", "tabs", "checkpoint"] {
            assert!(handoff.locks(&policy(method)), "{method}");
        }
        assert!(!handoff.locks(&policy("handoff")));
        assert!(!handoff.locks(&policy("diagnostics")));
        handoff.mode = Mode::HandoffComplete;
        assert!(!handoff.locks(&policy("act")));
    }

    #[test]
    fn the_token_opens_one_session_once_and_only_while_waiting() {
        let mut handoff = Handoff {
            door: Door::with_token("abc".into()),
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
