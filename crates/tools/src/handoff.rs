//! Hand-off to a person (SPEC §13): the task's mode, the live view's one-time token, and
//! what the agent gets back. The mode is explicit — only the person's "Done" ends a
//! hand-off, nothing is inferred — and while a person has the task every agent command
//! but the hand-off's own status and wait, and diagnostics, is refused at once with
//! `HANDOFF_LOCKED`, nothing dispatched. The live view itself is served by the faces
//! (`crates/live`), which reach the engine through [`LiveViews`] and act as the person
//! (`CallOptions::person`).

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

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
    /// The live view's token while a person has the task.
    pub token: Option<String>,
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
        self.mode == Mode::WaitingHuman && !matches!(method, "handoff" | "diagnostics")
    }

    /// Whether `token` opens the live view now.
    pub fn admits(&self, token: &str) -> bool {
        self.mode == Mode::WaitingHuman
            && self
                .token
                .as_deref()
                .is_some_and(|t| t == token && !t.is_empty())
    }
}

/// A fresh random token (hex of 32 bytes from the kernel).
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
    fn the_token_opens_the_view_only_while_waiting() {
        let mut handoff = Handoff {
            token: Some("abc".into()),
            ..Handoff::default()
        };
        assert!(!handoff.admits("abc"));
        handoff.mode = Mode::WaitingHuman;
        assert!(handoff.admits("abc"));
        assert!(!handoff.admits("abd"));
        assert!(!handoff.admits(""));
        handoff.mode = Mode::HandoffComplete;
        assert!(!handoff.admits("abc"));
    }
}
