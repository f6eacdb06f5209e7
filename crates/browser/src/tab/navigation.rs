//! A tab's navigation: loading a URL, moving through history, reloading, and waiting
//! for the load to end (committed, loaded, failed or unfinished) by the command's deadline.

use std::time::{Duration, Instant};

use cdp::Deadline;
use cdp::protocol::page;
use url::Url;

use super::{LoadOutcome, PageState, Pending, Tab, Unfinished};
use crate::Error;

impl Tab {
    /// Navigates to `url` (already checked against the task's policy) and waits for it
    /// to commit and load (see `Tab::settle_navigation`). A crashed tab may navigate:
    /// that is how it recovers.
    pub async fn navigate(&self, url: &Url, deadline: Deadline) -> Result<LoadOutcome, Error> {
        self.check_navigable()?;
        let started = Instant::now();
        let was_crashed = self.state().crashed;
        let sent = self
            .shared
            .session
            .call(
                &page::Navigate {
                    url: url.to_string(),
                },
                deadline,
            )
            .await;
        let reply = match sent {
            Ok(reply) => reply,
            // No answer from the server yet: the navigation never committed.
            Err(cdp::Error::Timeout { .. }) => {
                return Err(self.navigation_timeout(url.as_str(), started));
            }
            Err(other) => return Err(other.into()),
        };
        if let Some(error_text) = reply.error_text.filter(|t| !t.is_empty()) {
            self.update(|s| {
                s.url = url.to_string();
                s.title = String::new();
                s.failed = Some(error_text.clone());

                s.loading = false;
            });
            return Err(self.navigation_failed(url.as_str(), error_text));
        }
        let Some(loader) = reply.loader_id else {
            return Ok(LoadOutcome {
                loaded: true,
                same_document: true,
                waited: started.elapsed(),
                unfinished: None,
            });
        };
        self.settle_navigation(
            Pending::Loader {
                loader,
                was_crashed,
            },
            url.as_str(),
            started,
            deadline,
        )
        .await
    }

    /// Goes one entry back or forward in the tab's history.
    pub async fn go(
        &self,
        step: crate::HistoryMove,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        self.check_navigable()?;
        let started = Instant::now();
        let was_crashed = self.state().crashed;
        let history = self
            .shared
            .session
            .call(&page::GetNavigationHistory {}, deadline)
            .await?;
        let index = match step {
            crate::HistoryMove::Back => history.current_index.checked_sub(1),
            crate::HistoryMove::Forward => Some(history.current_index + 1),
        };
        let Some(entry) = index.and_then(|i| history.entries.get(i)) else {
            return Err(Error::InvalidParams {
                what: format!("{:?}", step).to_lowercase(),
                reason: format!("{} has no {} history entry", self.label(), step.adjective()),
            });
        };
        self.history_move(entry.id, &entry.url, was_crashed, started, deadline)
            .await
    }

    /// Goes to the history entry `entry` (whose URL is `url`), as back and forward do.
    pub(crate) async fn go_to_entry(
        &self,
        entry: i64,
        url: &str,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        self.check_navigable()?;
        let was_crashed = self.state().crashed;
        self.history_move(entry, url, was_crashed, Instant::now(), deadline)
            .await
    }

    async fn history_move(
        &self,
        entry: i64,
        url: &str,
        was_crashed: bool,
        started: Instant,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        let before = self.state().navigations;
        self.shared
            .session
            .call(&page::NavigateToHistoryEntry { entry_id: entry }, deadline)
            .await?;
        let pending = Pending::Since {
            before,
            was_crashed,
        };
        self.settle_navigation(pending, url, started, deadline)
            .await
    }

    /// Reloads the page (bypassing the cache when asked). Also recovers a crashed tab.
    pub async fn reload(
        &self,
        ignore_cache: bool,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        self.check_navigable()?;
        let started = Instant::now();
        let before = self.state().navigations;
        let url = self.state().url;
        // A reload is how a crashed tab recovers: the old crash does not end the wait.
        let was_crashed = self.state().crashed;
        self.shared
            .session
            .call(
                &page::Reload {
                    ignore_cache: Some(ignore_cache),
                },
                deadline,
            )
            .await?;
        let pending = Pending::Since {
            before,
            was_crashed,
        };
        self.settle_navigation(pending, &url, started, deadline)
            .await
    }

    /// A dispatched navigation: waits for it to commit (by `deadline`; one that never
    /// does is stopped at once and named: `NavigationTimeout`), then for
    /// its load event until `deadline` (not an error: `loaded:false`, `Unfinished`).
    /// Meanwhile the page is probed: one that stops answering ends the wait at the probe
    /// point — `PageUnresponsive` before the commit, `Unfinished::Unresponsive` after.
    async fn settle_navigation(
        &self,
        pending: Pending,
        url: &str,
        started: Instant,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        let committed = |s: &PageState| match &pending {
            Pending::Loader { loader, .. } => s.loader.as_deref() == Some(loader.as_str()),
            Pending::Since { before, .. } => s.navigations > *before,
        };
        let was_crashed = match &pending {
            Pending::Loader { was_crashed, .. } | Pending::Since { was_crashed, .. } => {
                *was_crashed
            }
        };
        let work = async {
            let commit = self
                .wait_state("the navigation to commit", deadline, started, |s| {
                    committed(s) || s.crashed && !was_crashed || s.closed
                })
                .await;
            let state = match commit {
                Ok(state) => state,
                Err(Error::Timeout { .. }) => {
                    return Err(self.navigation_timeout(url, started));
                }
                Err(other) => return Err(other),
            };
            if !committed(&state) {
                self.check_usable()?;
            }
            match state.loader.clone() {
                Some(loader) if state.loaded_loader.as_ref() != Some(&loader) || state.loading => {
                    self.wait_loaded(&loader, url, started, deadline).await
                }
                _ => self.finish(url, started, matches!(pending, Pending::Since { .. })),
            }
        };
        tokio::select! {
            outcome = work => outcome,
            unresponsive = self.watch(self.unresponsive_budget(), false) => {
                if committed(&self.state()) {
                    Ok(LoadOutcome {
                        loaded: false,
                        same_document: false,
                        waited: started.elapsed(),
                        unfinished: Some(Unfinished::Unresponsive),
                    })
                } else {
                    Err(unresponsive)
                }
            }
        }
    }

    /// The navigation to `url` did not commit in time: sends the stop (so it no longer
    /// holds the tab's messages; the next command's calls reach the browser after it)
    /// without waiting, so the answer comes at the deadline, and names it.
    fn navigation_timeout(&self, url: &str, started: Instant) -> Error {
        let stopped = self.shared.session.send(&page::StopLoading {}).is_ok();
        Error::NavigationTimeout {
            url: url.to_string(),
            after: started.elapsed(),
            stopped,
        }
    }

    /// Waits for the load event of `loader`; a deadline here is not an error, the page
    /// is reported as still loading.
    async fn wait_loaded(
        &self,
        loader: &str,
        url: &str,
        started: Instant,
        deadline: Deadline,
    ) -> Result<LoadOutcome, Error> {
        let loaded = self
            .wait_state("the load event", deadline, started, |s| {
                s.loaded_loader.as_deref() == Some(loader)
                    || s.failed.is_some() && s.loader.as_deref() == Some(loader)
                    || s.crashed
                    || s.closed
            })
            .await;
        match loaded {
            Ok(_) => self.finish(url, started, false),
            Err(Error::Timeout { .. }) => Ok(LoadOutcome {
                loaded: false,
                same_document: false,
                waited: started.elapsed(),
                unfinished: Some(Unfinished::Deadline),
            }),
            Err(other) => Err(other),
        }
    }

    fn finish(
        &self,
        url: &str,
        started: Instant,
        same_document: bool,
    ) -> Result<LoadOutcome, Error> {
        self.check_usable()?;
        if let Some(error_text) = self.state().failed {
            return Err(self.navigation_failed(url, error_text));
        }
        Ok(LoadOutcome {
            loaded: true,
            same_document,
            waited: started.elapsed(),
            unfinished: None,
        })
    }

    /// The error of a navigation to `url` that failed with `error_text`: the proxy's when
    /// the task has one and it is what failed (`proxy.rs`).
    fn navigation_failed(&self, url: &str, error_text: String) -> Error {
        match self.shared.proxy.get() {
            Some(route) => route.navigation_failed(url, error_text),
            None => Error::NavigationFailed {
                url: url.to_string(),
                error_text,
            },
        }
    }

    /// Refuses a navigation on a tab that is gone (a crashed one may navigate).
    fn check_navigable(&self) -> Result<(), Error> {
        match self.check_usable() {
            Err(Error::TargetCrashed { .. }) | Ok(()) => Ok(()),
            Err(other) => Err(other),
        }
    }

    /// Waits until `condition` holds for the page state, or the deadline; the timeout
    /// error names `waiting_for`.
    pub async fn wait_state(
        &self,
        waiting_for: &str,
        deadline: Deadline,
        started: Instant,
        condition: impl FnMut(&PageState) -> bool,
    ) -> Result<PageState, Error> {
        let mut state = self.shared.state.subscribe();
        match tokio::time::timeout_at(deadline.at().into(), state.wait_for(condition)).await {
            Ok(Ok(state)) => Ok(state.clone()),
            Ok(Err(_)) => Err(Error::Disconnected),
            Err(_) => Err(Error::Timeout {
                waiting_for: format!("{waiting_for} in {}", self.label()),
                after: started.elapsed(),
            }),
        }
    }

    /// Waits (within `deadline`, at most ten seconds) until the tab is not loading; says
    /// whether it got there.
    pub async fn wait_until_loaded(&self, deadline: Deadline) -> bool {
        let limit = deadline.within(Duration::from_secs(10));
        self.wait_state("the tab to load", limit, Instant::now(), |s| {
            !s.loading || s.failed.is_some() || s.crashed || s.closed
        })
        .await
        .is_ok()
    }
}
