//! JavaScript dialogs (docs/acting.md#dialogs): under the agent-alone policy (`auto`) each is answered
//! the moment it opens — alert and beforeunload accepted, confirm dismissed, prompt
//! cancelled — so it never blocks a later command; under `ask` it stays open for
//! [`Tab::answer_dialog`]. Either way it is recorded on the tab, in its [`DialogLog`]:
//! every dialog numbered, the last [`LOG_CAPACITY`] kept, so a command can report all
//! those raised while it ran ([`Tab::dialogs_since`]), a storm of a hundred included.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use cdp::Deadline;
use cdp::protocol::page;

use crate::tab::TabShared;
use crate::{Error, Tab};

/// A JavaScript dialog and what candor answered (docs/acting.md#dialogs).
#[derive(Debug, Clone, PartialEq)]
pub struct DialogRecord {
    /// alert, confirm, prompt or beforeunload.
    pub kind: String,
    pub message: String,
    /// accepted, dismissed, or pending (policy `ask`, not answered yet).
    pub answer: &'static str,
}

/// How many dialogs a tab keeps; in a longer storm the earliest are only counted.
pub const LOG_CAPACITY: usize = 1_000;

/// How many dialogs a report shows at each end of its run; the rest are summarised.
pub const REPORT_ENDS: usize = 3;

/// The dialogs of a tab, numbered from 1 in the order they opened; the last
/// [`LOG_CAPACITY`] are kept.
#[derive(Debug, Default)]
pub(crate) struct DialogLog {
    kept: VecDeque<DialogRecord>,
    /// How many there have been in all.
    total: u64,
}

impl DialogLog {
    fn push(&mut self, record: DialogRecord) {
        if self.kept.len() == LOG_CAPACITY {
            self.kept.pop_front();
        }
        self.kept.push_back(record);
        self.total += 1;
    }

    /// The dialogs after the first `seen`.
    fn since(&self, seen: u64) -> DialogReport {
        let count = self.total.saturating_sub(seen);
        let kept = self.kept.len().min(count as usize);
        let run: Vec<&DialogRecord> = self.kept.iter().skip(self.kept.len() - kept).collect();
        let head = run.len().min(REPORT_ENDS);
        let tail = (run.len() - head).min(REPORT_ENDS);
        let mut omitted = BTreeMap::new();
        for record in &run[head..run.len() - tail] {
            *omitted
                .entry((record.kind.clone(), record.answer))
                .or_insert(0) += 1;
        }
        DialogReport {
            count,
            first: run[..head].iter().map(|r| (*r).clone()).collect(),
            last: run[run.len() - tail..]
                .iter()
                .map(|r| (*r).clone())
                .collect(),
            omitted,
            lost: count - kept as u64,
        }
    }
}

/// The dialogs raised since a point (one command's): how many, the first and last few
/// ([`REPORT_ENDS`] each), and the ones between counted by type and answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DialogReport {
    pub count: u64,
    /// The first dialogs, oldest first.
    pub first: Vec<DialogRecord>,
    /// The last dialogs after `first`, oldest first (empty when `first` holds them all).
    pub last: Vec<DialogRecord>,
    /// The dialogs between `first` and `last`: how many of each type and answer.
    pub omitted: BTreeMap<(String, &'static str), u64>,
    /// Dialogs counted but no longer kept (a storm longer than [`LOG_CAPACITY`]): the
    /// earliest of the run, before `first`.
    pub lost: u64,
}

impl DialogReport {
    /// The last dialog of the run.
    pub fn latest(&self) -> Option<&DialogRecord> {
        self.last.last().or(self.first.last())
    }
}

impl Tab {
    /// The dialogs raised on this tab after the first `seen` ([`PageState::dialogs_seen`]
    /// read before).
    ///
    /// [`PageState::dialogs_seen`]: crate::PageState::dialogs_seen
    pub fn dialogs_since(&self, seen: u64) -> DialogReport {
        lock(&self.shared.dialog_log).since(seen)
    }

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
        if let Some(last) = lock(&self.shared.dialog_log).kept.back_mut() {
            *last = dialog;
        }
        self.update(move |s| s.open_dialog = None);
        Ok(answered)
    }
}

/// Answers a JavaScript dialog at once, so it never blocks a later command (docs/acting.md#dialogs,
/// the agent-alone policy): alert and beforeunload accepted, confirm dismissed, prompt
/// cancelled. The answer is recorded in the tab's state.
pub(crate) fn on_opening(tab: &TabShared, dialog: page::JavascriptDialogOpening) {
    let accept = matches!(dialog.r#type.as_str(), "alert" | "beforeunload");
    let ask = tab.ask_dialogs.load(std::sync::atomic::Ordering::Relaxed);
    let session = tab.session.clone();
    let record = DialogRecord {
        kind: dialog.r#type.clone(),
        message: crate::snapshot::clip_text(&dialog.message, 200),
        answer: match (ask, accept) {
            (true, _) => "pending",
            (false, true) => "accepted",
            (false, false) => "dismissed",
        },
    };
    // Logged before it is counted: a reader that sees the count finds the record.
    lock(&tab.dialog_log).push(record.clone());
    tab.state.send_modify(|state| {
        if ask {
            state.open_dialog = Some(record);
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

crate::footprint!(DialogRecord {
    kind,
    message,
    answer
});

/// What a tab's dialog log holds (`footprint.rs`).
pub(crate) fn footprint(log: &std::sync::Mutex<DialogLog>) -> crate::Held {
    crate::Held::ring(&lock(log).kept)
}

fn lock(log: &std::sync::Mutex<DialogLog>) -> std::sync::MutexGuard<'_, DialogLog> {
    // A poisoned lock means a panic elsewhere while holding it; the log is still valid.
    log.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alert(n: u64) -> DialogRecord {
        let confirm = n.is_multiple_of(10);
        DialogRecord {
            kind: if confirm { "confirm" } else { "alert" }.into(),
            message: format!("alert {n}"),
            answer: if confirm { "dismissed" } else { "accepted" },
        }
    }

    fn messages(records: &[DialogRecord]) -> Vec<&str> {
        records.iter().map(|r| r.message.as_str()).collect()
    }

    #[test]
    fn a_run_of_a_hundred_is_counted_with_its_ends_shown_and_the_middle_summarised() {
        let mut log = DialogLog::default();
        log.push(alert(0));
        for n in 1..=100 {
            log.push(alert(n));
        }
        let report = log.since(1);
        assert_eq!(report.count, 100);
        assert_eq!(messages(&report.first), ["alert 1", "alert 2", "alert 3"]);
        assert_eq!(
            messages(&report.last),
            ["alert 98", "alert 99", "alert 100"]
        );
        assert_eq!(report.omitted[&("alert".to_string(), "accepted")], 85);
        assert_eq!(report.omitted[&("confirm".to_string(), "dismissed")], 9);
        assert_eq!(report.omitted.values().sum::<u64>(), 94);
        assert_eq!(
            report.latest().map(|r| r.message.as_str()),
            Some("alert 100")
        );
        assert_eq!(report.lost, 0);
    }

    #[test]
    fn short_runs_have_no_middle_and_an_empty_run_is_empty() {
        let mut log = DialogLog::default();
        for n in 1..=4 {
            log.push(alert(n));
        }
        let report = log.since(0);
        assert_eq!(messages(&report.first), ["alert 1", "alert 2", "alert 3"]);
        assert_eq!(messages(&report.last), ["alert 4"]);
        assert!(report.omitted.is_empty());
        let one = log.since(3);
        assert_eq!((one.count, messages(&one.first)), (1, vec!["alert 4"]));
        assert!(one.last.is_empty());
        assert_eq!(log.since(4), DialogReport::default());
    }

    #[test]
    fn a_storm_longer_than_the_log_is_counted_whole_and_says_what_was_not_kept() {
        let mut log = DialogLog::default();
        let storm = LOG_CAPACITY as u64 + 50;
        for n in 1..=storm {
            log.push(alert(n));
        }
        let report = log.since(0);
        assert_eq!(report.count, storm);
        assert_eq!(report.lost, 50);
        assert_eq!(report.first[0].message, "alert 51");
        assert_eq!(
            report.omitted.values().sum::<u64>() + 6 + report.lost,
            storm
        );
    }
}
