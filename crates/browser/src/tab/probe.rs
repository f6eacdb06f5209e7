//! Whether a page answers, and getting a hung one going again (docs/faults.md#probe).
//!
//! A page whose script never returns answers no CDP call that needs its renderer, so
//! without a probe every read on it costs a whole command deadline. The probe is one
//! `Runtime.evaluate("0")` within a short budget (`unresponsiveMs`, default 2 s). While a
//! main-frame navigation is pending Chromium holds every message meant for the page, and
//! while a read of ours runs (a large page's accessibility tree takes seconds) the probe
//! waits behind it: an unanswered probe then proves nothing and is no verdict. Input that
//! never returns is.
//!
//! Nor is silence alone a verdict: on a saturated machine (many tasks on two cores) a
//! renderer busy with a task that does end gets a small share of a core, and misses the
//! budget as a hung one does, though answering `0` costs it well under a millisecond of
//! CPU time. So a probe unanswered after an eighth of its budget gathers evidence from
//! the browser: the CPU time of the page's main thread (`Performance.getMetrics`,
//! `ThreadTime`), read an eighth of the budget apart. Chromium runs that call at a V8
//! interrupt, so a page whose script never returns answers it; no process id is needed,
//! and it works on a grid as on a launched browser. A verdict — `PageUnresponsive`, the
//! tab marked so until the next answer, a new document or a crash — needs a whole budget
//! of silence (from the probe's sending, or from the sending of input still unanswered,
//! since the page handles input on the thread a probe needs; never from before its last
//! answer) and one of:
//! - a quarter of the budget of CPU time run since the first reading: the page's script
//!   does not yield;
//! - a fortieth of it (50 ms at the default: a long task) with the last reading back
//!   within a quarter budget: the page is running, the way to it is quick (a reading goes
//!   the way a probe does: browser, renderer, V8), and the probe still waits behind its
//!   script. On a saturated machine this takes a page whose long task would have ended
//!   after the budget for hung: the budget is how long the agent waits, and the page had
//!   the CPU to answer many times over;
//! - the tab already found hung, and a reading came back while the probe did not: the
//!   page is still inside a task running script, as when it was found hung (a reading is
//!   answered at an interrupt, a probe only once the task ends);
//! - no CPU time to read (a browser without the metric, or a reading asked a whole budget
//!   ago and not back: a page stuck outside script, or stopped) and the browser's control
//!   renderer (`control.rs`, a blank page) answering within a quarter budget for a whole
//!   budget of the silence — the judgement before CPU time was read.
//!
//! Anything else is no verdict, and the same probe is waited on, judged again every
//! quarter budget, until it is answered or the command's deadline comes (`Timeout`): a
//! page that ran less than a fortieth of the budget has not had the CPU to answer; a slow
//! or silent control says the machine is starved; a control not made yet is no reading
//! (it is made when first needed, and its making is a new renderer's start, which says
//! nothing of the machine). A dialog opened since the probe was sent (the page is running,
//! each dialog holding it until it is answered) holds the probe like an open one. A page
//! starved of CPU is never marked unresponsive, so never crashed. A probe answered within
//! an eighth of its budget costs nothing more.
//!
//! Recovery crashes the hung renderer (`Page.crash`, handled without the page's help), so
//! the navigation or reload that follows starts in a fresh one; it follows only the
//! verdict above, so a renderer that was only starved is never crashed.
//!
//! Not here: deciding what a command does about it (refuse, report, recover) — that is
//! the faces' business, in `tools`.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use cdp::Deadline;
use cdp::protocol::{page, performance, runtime};

use crate::Error;
use crate::tab::Tab;
use crate::tab::control::Reading;

/// The default probe budget: a page silent this long is unresponsive.
pub const DEFAULT_UNRESPONSIVE: Duration = Duration::from_millis(2000);

/// How long a watch waits between two probes.
const WATCH_INTERVAL: Duration = Duration::from_millis(250);

/// A probe unanswered after this share of its budget (an eighth) starts gathering
/// evidence: a healthy page answers in milliseconds, even on a loaded machine.
const GRACE_SHARE: u32 = 8;

/// The page's main thread running this share of the budget (a quarter) of CPU time
/// without answering is a hang on its own; a reading of the page, or the control, that
/// comes back within it is quick.
const STRONG_SHARE: u32 = 4;

/// Less CPU time than this share of the budget (a fortieth: 50 ms at the default, a long
/// task) and the page has not had the CPU to answer: no verdict.
const WEAK_SHARE: u32 = 40;

/// How long recovery waits for the crash it asked for.
const CRASH_BUDGET: Duration = Duration::from_millis(2000);

const PROBE_METHOD: &str = <runtime::Evaluate as cdp::protocol::Command>::METHOD;
const METRICS_METHOD: &str = <performance::GetMetrics as cdp::protocol::Command>::METHOD;

/// What a probe learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// The page answered, after this long.
    Answered(Duration),
    /// No verdict: a pending navigation, an open dialog or one opened since the probe was
    /// sent, or work we asked of the page holds the probe.
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
    /// marks the tab unresponsive and is `PageUnresponsive` — when the evidence says the
    /// page is hung (see the module's doc). A pending navigation, an open dialog or one
    /// opened since, or our own work explains the silence (`Probe::Held`); evidence of a
    /// starved page has the probe waited on, until the page answers, the evidence turns,
    /// or `deadline` comes (`Timeout`).
    pub async fn probe(&self, budget: Duration, deadline: Deadline) -> Result<Probe, Error> {
        self.probe_once(budget, deadline, false).await
    }

    /// [`Self::probe`]; `ahead` of work about to start (a read's first probe, sent before
    /// any of its calls): then only our calls sent before it can hold it, since what is
    /// sent after it waits behind it. Otherwise any call of ours in flight holds it.
    async fn probe_once(
        &self,
        budget: Duration,
        deadline: Deadline,
        ahead: bool,
    ) -> Result<Probe, Error> {
        self.check_usable_or_dialog()?;
        let state = self.state();
        if state.open_dialog.is_some() {
            return Ok(Probe::Held);
        }
        let dialogs = state.dialogs_seen;
        let found_hung = state.unresponsive;
        let started = Instant::now();
        let ours_before = ahead.then_some(started);
        // One probe, waited for throughout: a late answer is still an answer, and a
        // starved renderer is not handed more to catch up on.
        let call = probe_call();
        let answer = self.session().call(&call, deadline);
        tokio::pin!(answer);
        let silent_since = self.silent_since(started);
        let grace = started + budget / GRACE_SHARE;
        if let Ok(answered) = tokio::time::timeout_at(grace.into(), &mut answer).await {
            return self.answered(answered, started, dialogs, ours_before);
        }
        // Silent a while: the CPU time the page's main thread runs from here on is
        // measured.
        let samples = Mutex::new(Samples::default());
        let sampled = self.sample_cpu_time(&samples, budget, deadline);
        let judged = async {
            let mut fine_since = Some(silent_since);
            let mut check_at = silent_since + budget;
            loop {
                tokio::time::sleep_until(check_at.into()).await;
                if let Some(held) = self.held(dialogs, ours_before) {
                    return held;
                }
                let verdict = self
                    .judge(&samples, found_hung, &mut fine_since, budget, deadline)
                    .await;
                tracing::debug!(
                    tab = self.label(),
                    ?verdict,
                    after = ?started.elapsed(),
                    "an unanswered probe judged"
                );
                if verdict == Verdict::Hung {
                    self.update(|s| s.unresponsive = true);
                    return Err(Error::PageUnresponsive {
                        tab: self.label().to_string(),
                        after: started.elapsed(),
                    });
                }
                check_at = Instant::now() + budget / STRONG_SHARE;
            }
        };
        tokio::select! {
            answered = &mut answer => self.answered(answered, started, dialogs, ours_before),
            judged = judged => judged,
            never = sampled => match never {},
        }
    }

    /// What the evidence says of a page silent a whole budget (see the module's doc):
    /// the CPU time its main thread ran while silent (and whether the tab was
    /// `found_hung` before), or, when that cannot be read, the control (`fine_since`:
    /// since when it has been quick).
    async fn judge(
        &self,
        samples: &Mutex<Samples>,
        found_hung: bool,
        fine_since: &mut Option<Instant>,
        budget: Duration,
        deadline: Deadline,
    ) -> Verdict {
        let strong = budget / STRONG_SHARE;
        let cpu = lock(samples).cpu(budget);
        if let Some(verdict) = cpu.verdict(found_hung, budget) {
            return verdict;
        }
        // No CPU time: the control alone, quick for a whole budget of the silence.
        let reading = self.shared.control.read(deadline.within(strong)).await;
        let now = Instant::now();
        let quick = match reading {
            Reading::Answered(took) => took <= strong,
            Reading::Absent => true,
            Reading::Silent => false,
            Reading::Unmade => return Verdict::WaitOn,
        };
        if !quick {
            *fine_since = None;
            Verdict::WaitOn
        } else if now.duration_since(*fine_since.get_or_insert(now)) >= budget {
            Verdict::Hung
        } else {
            Verdict::WaitOn
        }
    }

    /// Reads the CPU time the page's main thread has run (since `Performance.enable`, when
    /// the tab was attached) into `samples`, an eighth of `budget` apart, until the page
    /// gives none. Chromium runs this call at a V8 interrupt, so a page whose script never
    /// returns answers it — the way the control renderer's round trip goes, browser to
    /// renderer to V8, so how long it took says what the control would; a page stuck
    /// outside script does not answer, and a browser without the metric answers without
    /// it.
    async fn sample_cpu_time(
        &self,
        samples: &Mutex<Samples>,
        budget: Duration,
        deadline: Deadline,
    ) -> std::convert::Infallible {
        loop {
            let asked = Instant::now();
            lock(samples).asked = Some(asked);
            let metrics = self
                .session()
                .call(&performance::GetMetrics {}, deadline)
                .await;
            let thread_time = metrics
                .ok()
                .and_then(|m| m.value("ThreadTime"))
                .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok());
            let read = {
                let mut sampled = lock(samples);
                sampled.asked = None;
                match thread_time {
                    Some(cpu) => sampled.read(cpu, asked.elapsed()),
                    None => sampled.unavailable = true,
                }
                thread_time.is_some()
            };
            if !read {
                break;
            }
            tokio::time::sleep(budget / GRACE_SHARE).await;
        }
        std::future::pending().await
    }

    /// What the page's answer to a probe (or its silence until the deadline) says.
    fn answered<T>(
        &self,
        answered: Result<T, cdp::Error>,
        started: Instant,
        dialogs: u64,
        ours_before: Option<Instant>,
    ) -> Result<Probe, Error> {
        match answered {
            // Any answer, an error included, comes from a renderer that is listening.
            Ok(_) | Err(cdp::Error::Protocol { .. } | cdp::Error::Decode { .. }) => {
                self.update(|s| {
                    s.unresponsive = false;
                    s.probe_answered_at = Some(Instant::now());
                });
                Ok(Probe::Answered(started.elapsed()))
            }
            Err(cdp::Error::Timeout { .. }) => match self.held(dialogs, ours_before) {
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
    /// pending navigation, an open dialog, a dialog opened since the probe was sent (when
    /// the tab had seen `dialogs`: the page is running, each dialog holding it until it is
    /// answered) or our own work (sent before `ours_before`, when given) holds it (`Held`).
    fn held(&self, dialogs: u64, ours_before: Option<Instant>) -> Option<Result<Probe, Error>> {
        if let Err(err) = self.check_usable_or_dialog() {
            return Some(Err(err));
        }
        let state = self.state();
        let held = state.navigating.is_some()
            || state.open_dialog.is_some()
            || state.dialogs_seen > dialogs
            || self.busy_with_our_work(ours_before);
        held.then_some(Ok(Probe::Held))
    }

    /// Probes the tab every quarter second, each probe within `budget`; ends only when
    /// one goes unanswered (`PageUnresponsive`). Run it beside work on the tab to stop
    /// that work at the probe point instead of at the command's deadline. Other failures
    /// (a crash, a closed tab) are left to the work to report: the watch then waits on.
    ///
    /// With `at_once`, the first probe is sent when the watch is first polled rather than
    /// a quarter second later: polled before the work starts, it stands for the probe
    /// before a read (the work's calls, sent after it, cannot hold it).
    pub async fn watch(&self, budget: Duration, at_once: bool) -> Error {
        let mut first = at_once;
        loop {
            let ahead = std::mem::take(&mut first);
            if !ahead {
                tokio::time::sleep(WATCH_INTERVAL).await;
            }
            // The command's own deadline bounds the work this runs beside.
            let far = Deadline::after(budget * 4);
            match self.probe_once(budget, far, ahead).await {
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

    /// Since when the page has answered nothing of ours, for a probe sent at `sent`: then,
    /// or since the sending of input still unanswered, if earlier (the page handles input
    /// on the thread a probe needs: a click whose handler never returns is the page's
    /// silence from the click on), but not before its last answer to a probe.
    fn silent_since(&self, sent: Instant) -> Instant {
        let session = self.session();
        let input = session
            .connection()
            .in_flight(session.id())
            .into_iter()
            .filter(|(method, _)| method.starts_with("Input."))
            .map(|(_, at)| at)
            .min();
        let since = input.map_or(sent, |input| input.min(sent));
        match self.state().probe_answered_at {
            Some(answered) => since.max(answered).min(sent),
            None => since,
        }
    }

    /// Work we asked of the page (sent before `ours_before`, when given) is still running
    /// (a read of a large page can keep its renderer busy for seconds, and a probe waits
    /// behind it): the probe's silence is ours, not the page's. Input that does not
    /// return is the page's doing, and so is a silence while nothing of ours runs.
    fn busy_with_our_work(&self, ours_before: Option<Instant>) -> bool {
        let session = self.session();
        session
            .connection()
            .in_flight(session.id())
            .iter()
            .any(|(method, sent)| {
                ours_before.is_none_or(|before| *sent < before)
                    && method != PROBE_METHOD
                    && method != METRICS_METHOD
                    && !method.starts_with("Input.")
            })
    }

    /// Like `check_usable`, but an open dialog is no failure here.
    fn check_usable_or_dialog(&self) -> Result<(), Error> {
        match self.check_usable() {
            Err(Error::DialogOpen { .. }) | Ok(()) => Ok(()),
            Err(other) => Err(other),
        }
    }
}

/// The CPU time of a silent page's main thread, as read while its probe waits.
#[derive(Default)]
struct Samples {
    /// The first reading and the last, with how long the last took to come back.
    first: Option<Duration>,
    last: Option<(Duration, Duration)>,
    /// Since when a reading has been asked for and not come back.
    asked: Option<Instant>,
    /// The page gives no CPU time (a browser without the metric, a call refused).
    unavailable: bool,
}

/// What the CPU time says so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cpu {
    /// The page's main thread ran `ran` between the first reading and the last, which
    /// came back after `took`.
    Ran { ran: Duration, took: Duration },
    /// Too few readings yet, and none overdue.
    NotYet,
    /// No reading can be had: the metric is missing, or a reading has been asked for a
    /// whole budget (the main thread runs no script to answer it: stuck outside script,
    /// or stopped).
    Unknown,
}

impl Cpu {
    /// The verdict the CPU time gives on a page silent a whole budget (`found_hung`: the
    /// tab was found hung before), or `None` when it cannot be read and only the control
    /// can say.
    fn verdict(self, found_hung: bool, budget: Duration) -> Option<Verdict> {
        let strong = budget / STRONG_SHARE;
        Some(match self {
            Cpu::Ran { ran, .. } if ran >= strong || found_hung => Verdict::Hung,
            Cpu::Ran { ran, took } if ran >= budget / WEAK_SHARE && took <= strong => Verdict::Hung,
            Cpu::Ran { .. } | Cpu::NotYet => Verdict::WaitOn,
            Cpu::Unknown => return None,
        })
    }
}

impl Samples {
    fn read(&mut self, cpu: Duration, took: Duration) {
        self.first.get_or_insert(cpu);
        self.last = Some((cpu, took));
    }

    fn cpu(&self, budget: Duration) -> Cpu {
        let overdue = self.asked.is_some_and(|asked| asked.elapsed() >= budget);
        if self.unavailable || overdue {
            return Cpu::Unknown;
        }
        match (self.first, self.last) {
            // A new document starts its count again: no reading across it.
            (Some(first), Some((last, took))) => last
                .checked_sub(first)
                .map_or(Cpu::Unknown, |ran| Cpu::Ran { ran, took }),
            _ => Cpu::NotYet,
        }
    }
}

fn lock(samples: &Mutex<Samples>) -> std::sync::MutexGuard<'_, Samples> {
    // A poisoned lock means a panic elsewhere while holding it; the samples still hold.
    samples.lock().unwrap_or_else(|e| e.into_inner())
}

/// What an unanswered probe's evidence says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// The page runs script that never yields.
    Hung,
    /// No verdict yet: the page has not had the CPU to answer, the machine is starved,
    /// or there is no reading.
    WaitOn,
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

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: Duration = Duration::from_millis(2000);

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    fn ran(ran: u64, took: u64) -> Cpu {
        Cpu::Ran {
            ran: ms(ran),
            took: ms(took),
        }
    }

    fn check(cpu: Cpu, found_hung: bool, expected: Option<Verdict>) {
        assert_eq!(cpu.verdict(found_hung, BUDGET), expected, "{cpu:?}");
    }

    #[test]
    fn a_quarter_budget_of_cpu_time_without_an_answer_is_a_hang_however_slow_the_reading() {
        check(ran(500, 1900), false, Some(Verdict::Hung));
        check(ran(499, 1900), false, Some(Verdict::WaitOn));
    }

    #[test]
    fn a_long_tasks_worth_is_a_hang_only_when_the_reading_came_back_within_a_quarter_budget() {
        check(ran(50, 500), false, Some(Verdict::Hung));
        check(ran(50, 501), false, Some(Verdict::WaitOn));
        check(ran(49, 1), false, Some(Verdict::WaitOn));
    }

    #[test]
    fn a_tab_found_hung_stays_so_while_a_reading_comes_back_and_the_probe_does_not() {
        check(ran(0, 1900), true, Some(Verdict::Hung));
        check(Cpu::NotYet, true, Some(Verdict::WaitOn));
    }

    #[test]
    fn no_reading_yet_is_no_verdict_and_no_reading_at_all_is_the_controls() {
        check(Cpu::NotYet, false, Some(Verdict::WaitOn));
        check(Cpu::Unknown, false, None);
        check(Cpu::Unknown, true, None);
    }

    #[test]
    fn readings_give_the_cpu_time_between_the_first_and_the_last() {
        let mut samples = Samples::default();
        assert_eq!(samples.cpu(BUDGET), Cpu::NotYet);
        samples.read(ms(1000), ms(3));
        assert_eq!(samples.cpu(BUDGET), ran(0, 3));
        samples.read(ms(1300), ms(40));
        samples.read(ms(1700), ms(7));
        assert_eq!(samples.cpu(BUDGET), ran(700, 7));
        // A new document counts from zero again: no reading across it.
        samples.read(ms(20), ms(7));
        assert_eq!(samples.cpu(BUDGET), Cpu::Unknown);
    }

    #[test]
    fn a_reading_asked_a_whole_budget_ago_or_a_missing_metric_is_no_reading() {
        let mut samples = Samples::default();
        samples.read(ms(1000), ms(3));
        samples.asked = Instant::now().checked_sub(BUDGET);
        assert_eq!(samples.cpu(BUDGET), Cpu::Unknown);
        samples.asked = Some(Instant::now());
        assert_eq!(samples.cpu(BUDGET), ran(0, 3));
        samples.unavailable = true;
        assert_eq!(samples.cpu(BUDGET), Cpu::Unknown);
    }
}
