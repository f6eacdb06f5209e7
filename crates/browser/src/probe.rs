//! Whether a page answers, and getting a hung one going again (SPEC §15).
//!
//! A page whose script never returns answers no CDP call that needs its renderer, so
//! without a probe every read on it costs a whole command deadline. The probe is one
//! `Runtime.evaluate("0")` within a short budget (`unresponsiveMs`, default 2 s): no
//! answer is `PageUnresponsive`, and the tab is marked so until the next answer, a new
//! document or a crash. While a main-frame navigation is pending Chromium holds every
//! message meant for the page, and while a read of ours runs (a large page's
//! accessibility tree takes seconds) the probe waits behind it: an unanswered probe then
//! proves nothing and is no verdict. Input that never returns is. Recovery crashes the
//! hung renderer (`Page.crash`, handled without the page's help), so the navigation or
//! reload that follows starts in a fresh one.
//!
//! Not here: deciding what a command does about it (refuse, report, recover) — that is
//! the faces' business, in `tools`.

use std::time::{Duration, Instant};

use cdp::Deadline;
use cdp::protocol::{page, runtime};

use crate::Error;
use crate::tab::Tab;

/// The default probe budget: a page silent this long is unresponsive.
pub const DEFAULT_UNRESPONSIVE: Duration = Duration::from_millis(2000);

/// How long a watch waits between two probes.
const WATCH_INTERVAL: Duration = Duration::from_millis(250);

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
    /// marks the tab unresponsive and is `PageUnresponsive`, unless a pending navigation
    /// or an open dialog explains the silence (`Probe::Held`).
    pub async fn probe(&self, budget: Duration, deadline: Deadline) -> Result<Probe, Error> {
        self.check_usable_or_dialog()?;
        if self.state().open_dialog.is_some() {
            return Ok(Probe::Held);
        }
        let started = Instant::now();
        let probe = runtime::Evaluate {
            expression: "0".into(),
            return_by_value: Some(true),
            silent: Some(true),
            ..Default::default()
        };
        match self.session().call(&probe, deadline.within(budget)).await {
            // Any answer, an error included, comes from a renderer that is listening.
            Ok(_) | Err(cdp::Error::Protocol { .. } | cdp::Error::Decode { .. }) => {
                self.update(|s| s.unresponsive = false);
                Ok(Probe::Answered(started.elapsed()))
            }
            Err(cdp::Error::Timeout { .. }) => {
                self.check_usable_or_dialog()?;
                let state = self.state();
                if state.navigating.is_some()
                    || state.open_dialog.is_some()
                    || self.busy_with_our_work()
                {
                    return Ok(Probe::Held);
                }
                if deadline.expired() {
                    return Err(Error::Timeout {
                        waiting_for: format!("{} to answer a probe", self.label()),
                        after: started.elapsed(),
                    });
                }
                self.update(|s| s.unresponsive = true);
                Err(Error::PageUnresponsive {
                    tab: self.label().to_string(),
                    after: started.elapsed(),
                })
            }
            Err(other) => Err(other.into()),
        }
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
                Ok(_) => {}
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
