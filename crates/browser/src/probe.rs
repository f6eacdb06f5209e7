//! Whether a page answers, and getting a hung one going again (SPEC §15).
//!
//! A page whose script never returns answers no CDP call that needs its renderer, so
//! without a probe every read on it costs a whole command deadline. The probe is one
//! `Runtime.evaluate("0")` within a short budget (`unresponsiveMs`, default 2 s). While a
//! main-frame navigation is pending Chromium holds every message meant for the page, and
//! while a read of ours runs (a large page's accessibility tree takes seconds) the probe
//! waits behind it: an unanswered probe then proves nothing and is no verdict. Input that
//! never returns is.
//!
//! Nor is silence a verdict when the machine, not the page, is at fault: a renderer
//! starved of CPU (many tasks on a small machine) misses the budget as a hung one does.
//! So an unanswered probe is judged against the browser's control renderer (`control.rs`,
//! a blank page made at the first unanswered probe and kept): when it answers
//! within a quarter of the budget the machine is fine and the page is hung —
//! `PageUnresponsive`, and the tab is marked so until the next answer, a new document or a
//! crash. When it is slow too the machine is starved: the same probe is waited on, a
//! budget at a time, until the page answers, or stays silent a whole budget while the
//! control is quick (hung after all), or the command's deadline comes; a starved page is
//! never marked. A probe answered within its budget costs nothing more.
//!
//! Recovery crashes the hung renderer (`Page.crash`, handled without the page's help), so
//! the navigation or reload that follows starts in a fresh one; it follows only the
//! verdict above, so a renderer that was only starved is never crashed.
//!
//! Not here: deciding what a command does about it (refuse, report, recover) — that is
//! the faces' business, in `tools`.

use std::time::{Duration, Instant};

use cdp::Deadline;
use cdp::protocol::{page, runtime};

use crate::Error;
use crate::control::Reading;
use crate::tab::Tab;

/// The default probe budget: a page silent this long is unresponsive.
pub const DEFAULT_UNRESPONSIVE: Duration = Duration::from_millis(2000);

/// How long a watch waits between two probes.
const WATCH_INTERVAL: Duration = Duration::from_millis(250);

/// An unanswered probe is a verdict only when the control renderer answers within this
/// share of the budget (a quarter); slower, the machine is starved.
const CONTROL_SHARE: u32 = 4;

/// How long recovery waits for the crash it asked for.
const CRASH_BUDGET: Duration = Duration::from_millis(2000);

const PROBE_METHOD: &str = <runtime::Evaluate as cdp::protocol::Command>::METHOD;

/// What a probe learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// The page answered, after this long.
    Answered(Duration),
    /// No verdict: a pending navigation, an open dialog, or work we asked of the page
    /// holds the probe.
    Held,
}

/// What was done to get an unresponsive tab going again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Its hung renderer was crashed, so the page is loaded again in a fresh one.
    RendererReplaced,
}

impl Recovery {
    /// One sentence for the agent.
    pub fn describe(self) -> &'static str {
        match self {
            Recovery::RendererReplaced => {
                "the tab was not answering: its hung renderer was stopped and the page loaded in a fresh one"
            }
        }
    }
}

impl Tab {
    /// One cheap round trip into the page within `budget` (and `deadline`). No answer
    /// marks the tab unresponsive and is `PageUnresponsive` — unless a pending navigation
    /// or an open dialog explains the silence (`Probe::Held`), or the machine is starved:
    /// then the probe waits on, until the page answers, or stays silent for a whole
    /// budget while the machine is fine, or `deadline` comes (`Timeout`).
    pub async fn probe(&self, budget: Duration, deadline: Deadline) -> Result<Probe, Error> {
        self.check_usable_or_dialog()?;
        if self.state().open_dialog.is_some() {
            return Ok(Probe::Held);
        }
        let started = Instant::now();
        // One probe, waited for in steps of a budget: a late answer is still an answer,
        // and a starved renderer is not handed more to catch up on.
        let call = probe_call();
        let answer = self.session().call(&call, deadline);
        tokio::pin!(answer);
        // Since when the machine is known to be fine: from the start, until the control
        // says otherwise.
        let mut fine_since = Some(started);
        let mut step_ends = started + budget;
        loop {
            let answered = tokio::time::timeout_at(step_ends.into(), &mut answer).await;
            if let Ok(answered) = answered {
                return self.answered(answered, started);
            }
            if let Some(held) = self.held() {
                return held;
            }
            let reading = tokio::select! {
                answered = &mut answer => return self.answered(answered, started),
                reading = self.shared.control.read(deadline.within(budget)) => reading,
            };
            let now = Instant::now();
            if machine_starved(reading, budget) {
                tracing::debug!(
                    tab = self.label(),
                    ?reading,
                    "a probe unanswered on a starved machine: waiting on"
                );
                fine_since = None;
            } else if now.duration_since(*fine_since.get_or_insert(now)) >= budget {
                self.update(|s| s.unresponsive = true);
                return Err(Error::PageUnresponsive {
                    tab: self.label().to_string(),
                    after: started.elapsed(),
                });
            }
            step_ends = now + budget;
        }
    }

    /// What the page's answer to a probe (or its silence until the deadline) says.
    fn answered<T>(
        &self,
        answered: Result<T, cdp::Error>,
        started: Instant,
    ) -> Result<Probe, Error> {
        match answered {
            // Any answer, an error included, comes from a renderer that is listening.
            Ok(_) | Err(cdp::Error::Protocol { .. } | cdp::Error::Decode { .. }) => {
                self.update(|s| s.unresponsive = false);
                Ok(Probe::Answered(started.elapsed()))
            }
            Err(cdp::Error::Timeout { .. }) => match self.held() {
                Some(held) => held,
                None => Err(Error::Timeout {
                    waiting_for: format!("{} to answer a probe", self.label()),
                    after: started.elapsed(),
                }),
            },
            Err(other) => Err(other.into()),
        }
    }

    /// A silence that proves nothing: the tab is gone or crashed (that error), or a
    /// pending navigation, an open dialog or our own work holds the probe (`Held`).
    fn held(&self) -> Option<Result<Probe, Error>> {
        if let Err(err) = self.check_usable_or_dialog() {
            return Some(Err(err));
        }
        let state = self.state();
        let held =
            state.navigating.is_some() || state.open_dialog.is_some() || self.busy_with_our_work();
        held.then_some(Ok(Probe::Held))
    }

    /// Probes the tab every quarter second, each probe within `budget`; ends only when
    /// one goes unanswered (`PageUnresponsive`). Run it beside work on the tab to stop
    /// that work at the probe point instead of at the command's deadline. Other failures
    /// (a crash, a closed tab) are left to the work to report: the watch then waits on.
    pub async fn watch(&self, budget: Duration) -> Error {
        loop {
            tokio::time::sleep(WATCH_INTERVAL).await;
            // The command's own deadline bounds the work this runs beside.
            let far = Deadline::after(budget * 4);
            match self.probe(budget, far).await {
                // Starved all that while: the watch goes on.
                Ok(_) | Err(Error::Timeout { .. }) => {}
                Err(err @ Error::PageUnresponsive { .. }) => return err,
                Err(_) => return std::future::pending().await,
            }
        }
    }

    /// Gets an unresponsive tab ready to load a page again: stops any pending navigation
    /// (it would hold our messages), crashes the hung renderer, and waits for the crash
    /// to show, so the navigation or reload that follows runs in a fresh renderer.
    pub async fn recover(&self, deadline: Deadline) -> Result<Recovery, Error> {
        let started = Instant::now();
        let crash_by = deadline.within(CRASH_BUDGET);
        if self.state().navigating.is_some() {
            let _ = self.session().call(&page::StopLoading {}, crash_by).await;
        }
        // The crash is answered only by the event: a renderer that crashes sends no reply.
        let session = self.session().clone();
        let crash = tokio::spawn(async move {
            let _ = session.call(&page::Crash {}, crash_by).await;
        });
        let crashed = self
            .wait_state("the hung renderer to stop", crash_by, started, |s| {
                s.crashed || s.closed
            })
            .await;
        crash.abort();
        match crashed {
            Ok(state) if state.closed => Err(Error::TabNotFound {
                tab: self.label().to_string(),
            }),
            Ok(_) => Ok(Recovery::RendererReplaced),
            Err(Error::Timeout { .. }) => Err(Error::PageUnresponsive {
                tab: self.label().to_string(),
                after: started.elapsed(),
            }),
            Err(other) => Err(other),
        }
    }

    /// Work we asked of the page is still running (a read of a large page can keep its
    /// renderer busy for seconds, and a probe waits behind it): the probe's silence is
    /// ours, not the page's. Input that does not return is the page's doing, and so is a
    /// silence while nothing of ours runs.
    fn busy_with_our_work(&self) -> bool {
        let session = self.session();
        session
            .connection()
            .in_flight(session.id())
            .iter()
            .any(|method| method != PROBE_METHOD && !method.starts_with("Input."))
    }

    /// Like `check_usable`, but an open dialog is no failure here.
    fn check_usable_or_dialog(&self) -> Result<(), Error> {
        match self.check_usable() {
            Err(Error::DialogOpen { .. }) | Ok(()) => Ok(()),
            Err(other) => Err(other),
        }
    }
}

/// Whether a reading of the control says the machine is starved: it did not come back
/// within a quarter of `budget`. A browser without a control is judged as a fine one.
fn machine_starved(reading: Reading, budget: Duration) -> bool {
    match reading {
        Reading::Answered(took) => took > budget / CONTROL_SHARE,
        Reading::Silent => true,
        Reading::Absent => false,
    }
}

/// The probe: the cheapest call that needs a page's renderer.
pub(crate) fn probe_call() -> runtime::Evaluate {
    runtime::Evaluate {
        expression: "0".into(),
        return_by_value: Some(true),
        silent: Some(true),
        ..Default::default()
    }
}
