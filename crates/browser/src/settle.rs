//! Settling (docs/waiting.md#settle): whether the page has stopped changing after an action, or
//! before a snapshot is read.
//!
//! Page-side watchers, installed in every new document of a tab, keep a small ring of
//! recent DOM mutations and each node+kind's current run of changes (`js/change_watch.js`,
//! in candor's world, where the page cannot touch it), and when the page last scheduled
//! work and the timers it set while handling input (`js/settle_watch.js`, in the page's
//! world, whose timers it wraps; see ARCHITECTURE.md, "Worlds"). `js/settle_quiet.js`, in
//! candor's world, asks the second what the first cannot see and then decides,
//! in one call that resolves inside the page: quiet means two consecutive animation
//! frames with no mutation (attributes, `style` and `class` included; same-origin frames
//! too), no running *finite* CSS/Web animation and, after an action, no timer the action
//! set (within the budget) still to run. Infinite animations (spinners) never count, nor
//! do perpetual changes — a node+kind changing on without a pause (a ticking clock, a
//! marquee) that was already going before the action (the action cannot have caused it);
//! motion the action began is waited for up to the budget, however long it runs, and at
//! the budget the result names what was still changing. A read (before a snapshot) does
//! not wait for what has run on for a second either, but names the motion the last
//! action began as long as it runs on. When, one frame after the action, nothing
//! changed since it began and nothing animates, the page is quiet, so a quiet page pays
//! about one frame. See ARCHITECTURE.md (settle).

use std::time::{Duration, Instant};

use cdp::Deadline;
use serde_json::json;

use crate::{Error, Tab};

/// The settle budget when the caller gives none.
pub const DEFAULT_SETTLE: Duration = Duration::from_millis(1_000);

/// Changes in the last this-long count when a snapshot asks whether the page is still
/// changing (about three frames).
const RECENT: Duration = Duration::from_millis(50);

/// What `settle_quiet.js` answers.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
pub(crate) enum QuietReply {
    /// The document has no watcher (it is older than the init script).
    Unwatched {
        // Read only to tell this shape from the other.
        #[allow(dead_code)]
        unwatched: bool,
    },
    #[serde(rename_all = "camelCase")]
    Verdict {
        quiet: bool,
        waited_ms: u64,
        region: Option<String>,
        /// Quiet, and nothing changed or animated from the check's start to its verdict.
        #[serde(default)]
        unchanged: bool,
    },
}

/// How the page settled.
#[derive(Debug, Clone, Default)]
pub struct Settled {
    /// The page stopped changing within the budget.
    pub quiet: bool,
    /// How long it was waited for (zero: nothing was changing, no wait at all).
    pub waited: Duration,
    /// What was still changing when the budget ran out (`div#panel-2`).
    pub region: Option<String>,
}

/// Installs the watchers in `tab`'s future documents. The change watcher also gives every
/// new document candor's world from its start, so no call has to make it.
pub(crate) async fn watch(tab: &Tab, deadline: Deadline) -> Result<(), Error> {
    tokio::try_join!(
        SETTLE_WATCH.install(tab.session(), deadline),
        CHANGE_WATCH.install(tab.session(), deadline),
    )?;
    Ok(())
}

/// What a tab's last settled read showed, from which the next one guesses whether its
/// read may go out with the settle check (see `Tab::settle_then_read`).
#[derive(Debug, Default)]
pub(crate) struct ReadHistory {
    /// The last read was of a small page, so a wasted one costs little (none yet: not
    /// known). Judged by size, not time, so that a loaded machine, where every read is
    /// slow, still saves its round trip.
    cheap: bool,
    /// Whether, at the last settle check before a read, the page did not change from the
    /// check's start to its verdict: a read sent with that check would have been kept.
    stood: bool,
}

impl ReadHistory {
    fn speculate(&self) -> bool {
        self.stood && self.cheap
    }
}

/// A settle check's verdict, and whether the page stood still through it.
struct Checked {
    settled: Settled,
    /// Quiet, and nothing changed or animated from the check's start (in the renderer)
    /// to its verdict: a read the renderer made right after the check began shows the
    /// page as it settled.
    unchanged: bool,
}

impl Tab {
    /// Settles (at most `budget`; zero: not at all), then reads with `read`
    /// (docs/waiting.md#settle). The check and the read are one round trip into the page
    /// instead of two when the tab's last read was `cheap` and its page stood still through
    /// the last check: the read is sent right behind the check, which the renderer begins
    /// first; it is kept when the check found the page quiet and nothing changed or
    /// animated from the check's start to its verdict — the page the read saw is the page
    /// that settled, whether the check waited frames for it or not — and made again after
    /// the wait otherwise. A failed check is
    /// not the read's failure: the read is made anyway, as a page that cannot be watched
    /// is still read.
    pub async fn settle_then_read<T, F, R>(
        &self,
        budget: Duration,
        deadline: Deadline,
        read: R,
        cheap: impl Fn(&T) -> bool,
    ) -> (Option<Settled>, Result<T, Error>)
    where
        R: Fn() -> F,
        F: std::future::Future<Output = Result<T, Error>>,
    {
        if budget.is_zero() {
            return (None, self.noted_read(read(), &cheap).await);
        }
        // The check must reach the renderer before the read: it goes first when the
        // page's worlds are known, so that sending it needs no call of its own.
        let worlds = || {
            let state = self.state();
            (state.main_context, state.candor_context.map(|c| c.id))
        };
        let before = worlds();
        let known = before.0.is_some() && before.1.is_some();
        let speculate = known && self.read_history().speculate();
        let started = Instant::now();
        let (checked, early) = if speculate {
            let (checked, early) = tokio::join!(self.check_quiet(budget, None, deadline), async {
                // Sent after the check: the check's first poll sends it (its context is
                // known, so nothing before the send waits), and the renderer begins the
                // check (noting its start) before it makes the read.
                tokio::task::yield_now().await;
                self.noted_read(read(), &cheap).await
            });
            (checked.ok(), Some(early))
        } else {
            (self.check_quiet(budget, None, deadline).await.ok(), None)
        };
        let stood = checked.as_ref().is_some_and(|c| c.unchanged);
        self.read_history().stood = stood;
        // A check sent again in a new document (its first context gone) began after the
        // read: its verdict does not cover that read.
        let kept = stood && early.is_some() && worlds() == before;
        let settled_in = started.elapsed();
        let read = match early {
            Some(early) if kept => early,
            _ => self.noted_read(read(), &cheap).await,
        };
        tracing::debug!(
            target: crate::snapshot::PROFILE,
            speculate,
            kept,
            settle_ms = settled_in.as_secs_f64() * 1000.0,
            total_ms = started.elapsed().as_secs_f64() * 1000.0,
            "settle then read"
        );
        (checked.map(|c| c.settled), read)
    }

    /// `read`, whether it was cheap kept for the next guess.
    async fn noted_read<T>(
        &self,
        read: impl std::future::Future<Output = Result<T, Error>>,
        cheap: &impl Fn(&T) -> bool,
    ) -> Result<T, Error> {
        let result = read.await;
        self.read_history().cheap = result.as_ref().is_ok_and(cheap);
        result
    }

    fn read_history(&self) -> std::sync::MutexGuard<'_, ReadHistory> {
        self.shared.reads.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Tab {
    /// Before a read: waits, at most `budget`, for a page that changed in the last few
    /// frames to stop changing.
    pub async fn wait_settled(
        &self,
        budget: Duration,
        deadline: Deadline,
    ) -> Result<Settled, Error> {
        self.wait_quiet(budget, None, deadline).await
    }

    /// Waits, at most `budget`, until the page has stopped changing; changes from
    /// `since` on count (the start of an action), or, without it, those of the last few
    /// frames (a snapshot asking whether the page is mid-transition).
    pub(crate) async fn wait_quiet(
        &self,
        budget: Duration,
        since: Option<Instant>,
        deadline: Deadline,
    ) -> Result<Settled, Error> {
        Ok(self.check_quiet(budget, since, deadline).await?.settled)
    }

    /// `wait_quiet`, with whether the page stood still from the check's start on.
    async fn check_quiet(
        &self,
        budget: Duration,
        since: Option<Instant>,
        deadline: Deadline,
    ) -> Result<Checked, Error> {
        // The page-side wait ends at its budget; the call itself may take more (a first
        // frame that is late, a busy page). A page-side read is given three quarters of
        // its deadline before the page counts as not answering (`Tab::call_script`), so
        // the deadline is a third longer than that.
        let call_deadline = deadline.within((budget + Duration::from_secs(1)) * 4 / 3);
        // Negative: the watcher is new, nothing before is known; watch two frames.
        let mut since_ms = since.map_or(RECENT, |t| t.elapsed()).as_secs_f64() * 1000.0;
        for _ in 0..2 {
            let reply = self
                .call_script(
                    &SETTLE_QUIET,
                    vec![
                        json!(budget.as_millis() as u64),
                        json!(since_ms),
                        json!(if since.is_some() { "action" } else { "read" }),
                    ],
                    call_deadline,
                )
                .await?;
            let QuietReply::Verdict {
                quiet,
                waited_ms,
                region,
                unchanged,
            } = reply
            else {
                // A document older than the watchers (a page adopted once loaded): watch
                // it from now on; what changed before is not known, so only what changes
                // from here counts.
                tokio::try_join!(
                    self.call_script(&SETTLE_WATCH, Vec::new(), call_deadline),
                    self.call_script(&CHANGE_WATCH, Vec::new(), call_deadline),
                )?;
                since_ms = -1.0;
                continue;
            };
            // After a watcher was just installed, what changed before it (the read sent
            // with the first call among it) is not known.
            let unchanged = unchanged && quiet && since_ms >= 0.0;
            let settled = Settled {
                quiet,
                waited: Duration::from_millis(waited_ms),
                region,
            };
            return Ok(Checked { settled, unchanged });
        }
        Err(Error::Timeout {
            waiting_for: "a document with the settle watcher".into(),
            after: Duration::ZERO,
        })
    }
}

/// `{quiet, waitedMs, region}`: waits until the page stops changing (see `settle.rs`).
pub(crate) const SETTLE_QUIET: crate::script::Script<crate::settle::QuietReply> =
    crate::script::script!("settle_quiet" => crate::settle::QuietReply);
/// Installs the watcher of the page's timers in the document's own world (also an init
/// script; see `settle.rs`): `false` when one was there already.
pub(crate) const SETTLE_WATCH: crate::script::Script<bool> =
    crate::script::script!("settle_watch" => bool, in Page);
/// Installs the watcher of the document's changes (mutations, scrolls) in candor's world
/// (also an init script; see `settle.rs`): `false` when one was there already.
pub(crate) const CHANGE_WATCH: crate::script::Script<bool> =
    crate::script::script!("change_watch" => bool);
