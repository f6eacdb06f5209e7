//! JavaScript dialogs (SPEC §9.2): under the agent-alone policy (`auto`) each is answered
//! the moment it opens — alert and beforeunload accepted, confirm dismissed, prompt
//! cancelled — so it never blocks a later command; under `ask` it stays open for
//! [`Tab::answer_dialog`]. Either way it is recorded on the tab.

use std::time::Duration;

use cdp::Deadline;
use cdp::protocol::page;

use crate::tab::TabShared;
use crate::{Error, Tab};

/// A JavaScript dialog and what candor answered (SPEC §9.2).
#[derive(Debug, Clone, PartialEq)]
pub struct DialogRecord {
    /// alert, confirm, prompt or beforeunload.
    pub kind: String,
    pub message: String,
    /// accepted, dismissed, or pending (policy `ask`, not answered yet).
    pub answer: &'static str,
}

impl Tab {
    /// Whether JavaScript dialogs on this tab wait for [`Tab::answer_dialog`] (policy
    /// `ask`) rather than being answered at once (policy `auto`).
    pub fn set_ask_dialogs(&self, ask: bool) {
        self.shared
            .ask_dialogs
            .store(ask, std::sync::atomic::Ordering::Relaxed);
    }

    /// Answers the dialog open on this tab (policy `ask`).
    pub async fn answer_dialog(
        &self,
        accept: bool,
        prompt_text: Option<String>,
        deadline: Deadline,
    ) -> Result<DialogRecord, Error> {
        let Some(mut dialog) = self.state().open_dialog else {
            return Err(Error::InvalidParams {
                what: "dialog".into(),
                reason: format!("no dialog is open on {}", self.label()),
            });
        };
        self.shared
            .session
            .call(
                &page::HandleJavaScriptDialog {
                    accept,
                    prompt_text,
                },
                deadline,
            )
            .await?;
        dialog.answer = if accept { "accepted" } else { "dismissed" };
        let answered = dialog.clone();
        self.update(move |s| {
            s.open_dialog = None;
            if let Some(last) = s.dialogs.last_mut() {
                *last = dialog;
            }
        });
        Ok(answered)
    }
}

/// Answers a JavaScript dialog at once, so it never blocks a later command (SPEC §9.2,
/// the agent-alone policy): alert and beforeunload accepted, confirm dismissed, prompt
/// cancelled. The answer is recorded in the tab's state.
pub(crate) fn on_opening(tab: &TabShared, dialog: page::JavascriptDialogOpening) {
    let accept = matches!(dialog.r#type.as_str(), "alert" | "beforeunload");
    let ask = tab.ask_dialogs.load(std::sync::atomic::Ordering::Relaxed);
    let session = tab.session.clone();
    tab.state.send_modify(|state| {
        let record = DialogRecord {
            kind: dialog.r#type.clone(),
            message: crate::snapshot::clip_text(&dialog.message, 200),
            answer: match (ask, accept) {
                (true, _) => "pending",
                (false, true) => "accepted",
                (false, false) => "dismissed",
            },
        };
        if ask {
            state.open_dialog = Some(record.clone());
        }
        state.dialogs.push(record);
        if state.dialogs.len() > 20 {
            state.dialogs.remove(0);
        }
        state.dialogs_seen += 1;
    });
    if ask {
        return;
    }
    // This runs on the connection's reader, which must not wait for a reply.
    tokio::spawn(async move {
        let answer = page::HandleJavaScriptDialog {
            accept,
            prompt_text: None,
        };
        if let Err(err) = session
            .call(&answer, Deadline::after(Duration::from_secs(5)))
            .await
        {
            tracing::warn!(%err, "could not answer a JavaScript dialog");
        }
    });
}
